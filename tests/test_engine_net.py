"""Engines at a networked table: a peer keeps its heartbeats going while its engine thinks, `match --engine`
plays real peer processes with engines to a verified end, and a bad --engine is one line with exit code 2."""

import asyncio
import shlex
import signal
import sys
import time
from pathlib import Path
from random import Random
from typing import Any

import pytest
from conformance_helpers import stored_messages, wait_for
from transport_helpers import heartbeat_times

from p2pfish.bots import DEFAULT_MOVE_S
from p2pfish.bots.engine import EnginePlayer
from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.actions import Action
from p2pfish.core.player import Player
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import game_of, get_rules
from p2pfish.launcher import main
from p2pfish.net.node import NodeTimers, PeerNode
from p2pfish.net.transport import LoopbackHub
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore
from p2pfish.tools.events import text_field
from p2pfish.tools.match import MatchTable, PeerProcess, run_match, summarize

ROOT = Path(__file__).parent.parent
FIRST_LEGAL = f"{shlex.quote(sys.executable)} {ROOT / 'examples' / 'engines' / 'first_legal.py'}"
MISBEHAVING = f"{shlex.quote(sys.executable)} {Path(__file__).parent / 'misbehaving_engine.py'}"
SIGNERS = [Identity.from_seed(bytes([seat + 7]) * 32) for seat in range(3)]
THINK_S = 0.6


class Timed:
    """An engine player whose every decision's start and end are kept."""

    def __init__(self, engine: EnginePlayer) -> None:
        self.engine = engine
        self.spans: list[tuple[float, float]] = []

    def choose(self, view: Any, legal: list[Action]) -> Action:
        started = time.monotonic()
        action = self.engine.choose(view, legal)
        self.spans.append((started, time.monotonic()))
        return action


def test_a_peer_keeps_heartbeating_while_its_engine_thinks() -> None:
    """Seat 1's engine takes THINK_S over its first move (in time): meanwhile its peer sends heartbeats every
    heartbeat_s as before, and the game goes on to the end."""
    game = game_of("fishnstones")
    setup = GameSetup.create(game.id, {}, tuple(s.public_bytes for s in SIGNERS), ("a", "b", "c"))
    hub = LoopbackHub(3)
    endpoint = hub.endpoints[1]
    beats = heartbeat_times(endpoint)
    engine = EnginePlayer(
        f"{MISBEHAVING} late {THINK_S}", game=game.id, title=game.rules.title, players=3, seat=1, options={},
        fallback=game.greedy(Random(1)), move_s=10.0,
    )  # fmt: skip
    timed = Timed(engine)
    timers = NodeTimers(heartbeat_s=0.02, resend_after_s=0.05, linger_s=0.3)
    players: list[Player] = [RandomBot(Random(0)), timed, RandomBot(Random(2))]
    nodes = [
        PeerNode(
            Session(setup, seat, SIGNERS[seat], MemoryStore(), rules=get_rules(setup.game)),
            hub.endpoints[seat],
            players[seat],
            timers=timers,
        )
        for seat in range(3)
    ]

    async def play() -> None:
        await asyncio.wait_for(asyncio.gather(*(node.run() for node in nodes)), 60)

    try:
        asyncio.run(play())
    finally:
        engine.close()
    assert all(node.session.finished and node.session.fault is None for node in nodes)
    assert engine.failures == 0 and engine.gone is None
    started, ended = timed.spans[0]
    assert ended - started >= THINK_S
    during = [beat for beat in beats if started <= beat <= ended]
    assert len(during) >= THINK_S / timers.heartbeat_s / 4, f"{len(during)} heartbeats in {ended - started:.2f} s"


def test_a_match_with_engines_finishes_verified_and_a_crashed_engine_is_named_in_its_log() -> None:
    """Process 1 plays the example engine, process 2 an engine that crashes at its second move."""
    engines = {1: FIRST_LEGAL, 2: f"{MISBEHAVING} crash"}
    result = run_match("fishnstones", 3, ["greedy"], seed=5, timeout_s=120, engines=engines)
    assert result.ok and result.finished and result.verified and result.agree, result
    folder = Path(result.transcripts[0]).parent
    example_log = (folder / "seat1.log").read_text()
    assert "first_legal: playing fishnstones as seat" in example_log and "fallback" not in example_log
    crash_log = (folder / "seat2.log").read_text()
    named = [line for line in crash_log.splitlines() if "exited with code 3" in line]
    assert len(named) == 1 and named[0].startswith("engine ") and "rest of the game" in named[0], crash_log
    assert "Traceback" not in example_log + crash_log


def test_a_peer_resumed_after_a_crash_restarts_its_engine(tmp_path: Path) -> None:
    """Process 1, played by the example engine, is killed mid-game and resumed from its store without --engine:
    the store's record starts the engine again, and it plays the rest of the game."""
    table = MatchTable("fishnstones", 2, ["greedy"], 4, tmp_path, engines={1: FIRST_LEGAL})
    table.start(extra=["--timeout", "20"])
    try:
        store = Path(text_field(table.peers[1].event("started", 20), "store"))
        wait_for(lambda: stored_messages(store) >= 20, 20, "the game to be under way")
        table.peers[1].process.send_signal(signal.SIGKILL)
        table.peers[1].process.wait()
        argv = ["resume", str(store), "--identity-dir", str(tmp_path / "id1"), "--json",
                "--transcript", str(table.transcripts[1]), "--timeout", "20"]  # fmt: skip
        table.peers[1] = PeerProcess(1, argv, tmp_path / "resumed.log", table.env)
        results = [peer.result(60) for peer in table.peers]
    finally:
        table.stop_all()
    assert summarize("fishnstones", 2, results, [str(t) for t in table.transcripts], 0.0).ok, results
    resumed = results[1]
    assert resumed is not None
    engine = resumed["engine"]
    assert isinstance(engine, dict) and engine["name"] == "first-legal" and engine["fallback_moves"] == 0, engine
    assert isinstance(engine["requests"], int) and engine["requests"] > 0
    assert "first_legal: playing fishnstones" in (tmp_path / "resumed.log").read_text()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["join", "127.0.0.1:9", "--code", "ABCDEF", "--engine", ""], "the engine command is empty"),
        (["join", "127.0.0.1:9", "--code", "ABCDEF", "--engine", "/no/such/engine"], "names no program"),
        (["host", "fishnstones", "--engine", "'unclosed"], "cannot read the engine command"),
        (["join", "127.0.0.1:9", "--code", "ABCDEF", "--engine", "true", "--engine-time", "0"], "--engine-time"),
        (["match", "fishnstones", "--players", "2", "--engine", "5:true"], "names seat 5, but the seats are 0 to 1"),
        (["match", "fishnstones", "--engine", "python3 x.py"], "--engine looks like SEAT:"),
        (["selfplay", "fishnstones", "--players", "2", "--engine", "2:true"], "names seat 2, but the seats are 0 to 1"),
        (["selfplay", "fishnstones", "--engine", "1:true", "--engine-time", "-1"], "--engine-time must be positive"),
    ],
)
def test_a_bad_engine_flag_is_one_line_and_exit_code_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err


def test_the_help_names_the_engines_default_time() -> None:
    assert DEFAULT_MOVE_S == 5.0, "the --engine-time help says (default 5)"
