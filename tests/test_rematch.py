"""A rematch in one key press: after the end, `r` starts a new game with the same table — a new session id
(every seat's fresh contribution, through the normal lobby), the same players in the same seats — which
plays to its end. `p2pfish play` starts its same bots again; at a networked table the host opens its lobby
again and each joiner who pressed `r` joins it."""

import asyncio
import gc
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_helpers import wait_for
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rematch_helpers import play_games, record_fronts

from p2pfish.botpeers import BotPeers
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.net import lobby, lobbylink
from p2pfish.net.joincode import new_join_code
from p2pfish.net.lobby import LobbyHost, PlayerCard, check_start, code_key
from p2pfish.net.mesh import _RosterKeys, new_curve_keypair
from p2pfish.playstart import LOOPBACK, reserve_port
from p2pfish.session.audit import audit, transcript_setup
from p2pfish.session.setup import GameSetup
from p2pfish.uiplay import play_local

CODE = "RMT234"
WAIT_S = 30.0


def finished_games(state: Path) -> list[GameSetup]:
    """The setups of the games whose transcripts are in `state`, each checked: verified and finished."""
    setups = []
    for path in sorted(state.glob("*.transcript.jsonl"), key=lambda path: path.stat().st_mtime):
        lines = path.read_bytes().splitlines()
        setup = transcript_setup(lines)
        result = audit(lines, get_rules(setup.game))
        assert result.verified and result.outcome is not None, path
        setups.append(setup)
    return setups


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "state" / "p2pfish"


def test_play_rematch_starts_a_new_game_with_the_same_bots_in_the_same_seats(
    homes: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fronts = record_fronts(monkeypatch.setattr)
    with reserve_port() as reservation:
        port, code = reservation.getsockname()[1], new_join_code()
        bots = BotPeers(3)
        bots.open(f"{LOOPBACK}:{port}", code)
        bots.add("greedy")
        try:
            with create_pipe_input() as pipe:

                async def scenario() -> int:
                    playing = asyncio.ensure_future(play_local(
                        "fishfish", bots, port, code, ascii_only=True, name="ann", input=pipe, output=DummyOutput()
                    ))  # fmt: skip
                    await play_games(fronts, pipe, "rq")
                    return await asyncio.wait_for(playing, 30)

                assert asyncio.run(scenario()) == 0
        finally:
            bots.stop()
    gc.collect()  # a task of the first game's mesh that failed would say so now, over the second game's screen
    assert not [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    end = fronts[0].app
    hints, title = end._hints()[0][1], end._choices_title()
    assert "r rematch with the same bots" in hints and "r: a rematch" in title
    assert max(len(hints), len(title)) <= 80, "the end screen's keys do not fit an 80-column terminal"
    first, second = finished_games(homes)
    assert first.session_id != second.session_id
    assert (first.roster, first.names) == (second.roster, second.names)
    assert first.names == ("ann", "greedy bot 1")
    assert set(first.contributions).isdisjoint(second.contributions)
    assert not bots.workdir.exists() and bots.running() == 0


def peer(tmp_path: Path, name: str, *argv: str) -> tuple[subprocess.Popen[bytes], Path]:
    """A player's process (rematch_peer.py), with its own state and config folders; its stdout's file."""
    out = tmp_path / f"{name}.out"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / name / "state"),
           "XDG_CONFIG_HOME": str(tmp_path / name / "config"), "PYTHONUNBUFFERED": "1"}  # fmt: skip
    script = Path(__file__).with_name("rematch_peer.py")
    with out.open("wb") as stdout, (tmp_path / f"{name}.err").open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, str(script), argv[0], name, *argv[1:]], stdout=stdout, stderr=stderr,
            stdin=subprocess.DEVNULL, env=env,
        )  # fmt: skip
    return process, out


def said(out: Path, key: str) -> Json:
    for line in out.read_text().splitlines() if out.exists() else []:
        if not line.startswith("{"):
            continue  # the summary printed when an end screen closes
        message = json.loads(line)
        if key in message:
            return message[key]  # type: ignore[no-any-return]
    return None


def test_a_networked_rematch_reopens_the_lobby_for_the_seats_that_accept(tmp_path: Path) -> None:
    """Three players, each in a process of its own; after the end the host presses r, and its lobby opens
    again with the same code; bob's end screen tells him so, he presses r and his UI joins it by itself; cy
    leaves. The host starts the rematch for the two of them, with a new session id, bob in the seat he had."""
    host, host_out = peer(tmp_path, "ann", "host", "rq", CODE, "3", "2")
    players = [host]
    try:
        wait_for(lambda: said(host_out, "lobby") is not None, WAIT_S, "the lobby to open")
        address = str(said(host_out, "lobby"))
        bob, bob_out = peer(tmp_path, "bob", "join", "rq", CODE, address)
        cy, cy_out = peer(tmp_path, "cy", "join", "q", CODE, address)
        players += [bob, cy]
        for process in players:
            process.wait(WAIT_S * 3)
        assert [said(out, "status") for out in (host_out, bob_out, cy_out)] == [0, 0, 0], [
            (tmp_path / f"{name}.err").read_text() for name in ("ann", "bob", "cy")
        ]
    finally:
        for process in players:
            if process.poll() is None:
                process.kill()
    first, second = finished_games(tmp_path / "ann" / "state" / "p2pfish")
    assert first.session_id != second.session_id
    assert len(first.names) == 3 and second.names == tuple(name for name in first.names if name != "cy")
    assert second.roster == tuple(key for key, name in zip(first.roster, first.names, strict=True) if name != "cy")
    bobs = finished_games(tmp_path / "bob" / "state" / "p2pfish")
    assert [setup.session_id for setup in bobs] == [first.session_id, second.session_id]
    assert len(finished_games(tmp_path / "cy" / "state" / "p2pfish")) == 1


def test_a_rematch_lobby_keeps_the_seats_of_the_game_before_whatever_order_they_join_in() -> None:
    identities = [Identity.from_seed(bytes([number]) * 32) for number in range(1, 5)]
    cards = [
        PlayerCard.make(identity, name, new_curve_keypair()[0], f"tcp://127.0.0.1:{7000 + number}", b"\x07" * 32)
        for number, (identity, name) in enumerate(zip(identities, ("ann", "bob", "cy", "dan"), strict=True))
    ]
    before = tuple(card.identity for card in cards[:3])
    lobby = LobbyHost("fishfish", {}, players=4, host=cards[0], code=CODE, bind="tcp://127.0.0.1:0", seats=before)
    try:
        lobby.cards += [cards[3], cards[2], cards[1]]  # dan (a newcomer), then cy, then bob
        table = lobby.table_to_start()
    finally:
        lobby.close()
    assert table.setup.names == ("ann", "bob", "cy", "dan")
    check_start(cards[1], table)  # what a joiner checks: the setup is made of the cards, in the order sent


def test_a_hello_heard_by_a_lobby_proves_nothing_to_its_rematch_with_the_same_code() -> None:
    """The attack: a stranger without the code replays a hello it saw on the LAN in the first lobby to the
    rematch's (the same code, so the same MAC key) to hold a seat's slot there; it is refused."""
    key = code_key(CODE)
    hello = lobby._sealed(key, {"type": "hello", "hello": "cd" * lobby.HELLO_NONCE_BYTES})
    ann = Identity.from_seed(b"\x01" * 32)

    def opened(heard: tuple[str, ...] = ()) -> LobbyHost:
        card = PlayerCard.make(ann, "ann", new_curve_keypair()[0], "tcp://127.0.0.1:40001", lobby.new_lobby_nonce())
        return LobbyHost("fishfish", {}, players=2, host=card, code=CODE, bind="tcp://127.0.0.1:0", heard=heard)

    async def answer(host: LobbyHost) -> dict[str, Json]:
        gathering = asyncio.ensure_future(host.gather())
        address, port = host.endpoint.removeprefix("tcp://").rsplit(":", 1)
        link = await lobbylink.open_link(address, int(port))
        try:
            link.send(hello)
            return dict(json.loads(await asyncio.wait_for(link.recv(), WAIT_S)))
        finally:
            link.abort()
            gathering.cancel()
            host.close()

    async def scenario() -> tuple[dict[str, Json], dict[str, Json]]:
        first = opened()
        welcome = await answer(first)
        return welcome, await answer(opened(first.hellos_heard()))

    welcome, refused = asyncio.run(scenario())
    assert welcome["type"] == "welcome"
    assert refused == {"type": "refused", "reason": "this hello was heard before (a replayed hello)"}


def test_a_mesh_answers_a_handshake_of_a_known_roster_at_once_and_never_after_its_close() -> None:
    """The authenticator's task answers on its own socket, gone once the mesh closed: a reply decided after
    a pause could come after the close (pyzmq's task then dies with an error that would be printed, in the
    next game of a rematch, over its screen). A known roster's answer takes no pause; after a close none."""
    keys = _RosterKeys({b"k" * 40: 1})
    keys.known.set()
    answering = keys.callback("*", b"k" * 40)
    with pytest.raises(StopIteration) as answered:
        answering.send(None)
    assert answered.value.value is True
    keys.closed = True
    closing = keys.callback("*", b"k" * 40)
    with pytest.raises(asyncio.CancelledError):
        closing.send(None)
