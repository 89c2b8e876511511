"""Networked play with real processes on 127.0.0.1: whole matches of every game at every table size, a
wrong join code, a peer killed and resumed, a peer that goes silent, an outsider without a roster key,
and the secrecy of every cat column in each peer's store and in everything it received."""

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import zmq
import zmq.asyncio
from conformance_helpers import sizes, stored_messages, wait_for
from secrecy_helpers import finished_match, watch_store

from p2pfish.games.game import Game
from p2pfish.games.registry import games, get_rules
from p2pfish.net.mesh import Mesh, MeshPeer, new_curve_keypair
from p2pfish.session.audit import audit, read_setup
from p2pfish.tools.events import int_field, parse_event, text_field
from p2pfish.tools.match import MatchTable, PeerProcess, run_match, summarize


def store_path(table: MatchTable, process: int) -> Path:
    return Path(text_field(table.peers[process].event("started", 20), "store"))


def game_seat(table: MatchTable, process: int) -> int:
    return int_field(table.peers[process].event("started", 20), "seat")


@pytest.mark.parametrize(
    ("game", "players"),
    [pytest.param(game, players, id=f"{game.id}-{players}p") for game in games() for players in sizes(game)],
)
def test_a_match_finishes_agreed_and_verified(game: Game, players: int) -> None:
    """Every game of the registry at every table size, between greedy and random peers."""
    result = run_match(game.id, players, ["greedy", "random"], seed=players, timeout_s=120)
    assert result.ok, result
    assert result.outcome is not None
    scores = result.outcome["scores"]
    assert isinstance(scores, list) and len(scores) == players
    assert result.messages > game.shortest_game.get(players, 20 * players)
    assert all(os.stat(path).st_mode & 0o777 == 0o600 for path in result.transcripts)


def test_a_wrong_join_code_is_refused(tmp_path: Path) -> None:
    table = MatchTable("fishnstones", 2, ["random"], 0, tmp_path)
    table.start_host()
    try:
        wrong = subprocess.run(
            [sys.executable, "-m", "p2pfish", "join", table.address, "--code", "ZZZZZZ", "--bot", "random",
             "--identity-dir", str(tmp_path / "intruder"), "--wait", "10"],
            capture_output=True, text=True, timeout=30, env=table.env, check=False,
        )  # fmt: skip
        assert wrong.returncode == 2
        assert "wrong join code" in wrong.stderr and "Traceback" not in wrong.stderr
        table.start_joiners()
        results = [peer.result(60) for peer in table.peers]
        assert all(result is not None and result["finished"] for result in results)
    finally:
        table.stop_all()


def test_a_peer_killed_mid_game_resumes_and_nothing_is_lost(tmp_path: Path) -> None:
    table = MatchTable("fishnstones", 3, ["greedy", "random"], 7, tmp_path)
    table.start(extra=["--timeout", "20"])
    try:
        victim = 2
        path = store_path(table, victim)
        wait_for(lambda: stored_messages(path) >= 25, 20, "the game to be under way")
        table.peers[victim].process.send_signal(signal.SIGKILL)
        table.peers[victim].process.wait()
        killed_at = stored_messages(path)
        argv = ["resume", str(path), "--identity-dir", str(tmp_path / f"id{victim}"), "--json",
                "--transcript", str(table.transcripts[victim]), "--timeout", "20"]  # fmt: skip
        table.peers[victim] = PeerProcess(victim, argv, tmp_path / "resumed.log", table.env)
        results = [peer.result(60) for peer in table.peers]
    finally:
        table.stop_all()
    summary = summarize("fishnstones", 3, results, [str(t) for t in table.transcripts], 0.0)
    assert summary.ok, (summary, (tmp_path / "resumed.log").read_text())
    assert 25 <= killed_at < stored_messages(path)


def test_a_silent_peer_is_named_after_the_timeout_and_the_others_end_the_game_with_the_scores_so_far(
    tmp_path: Path,
) -> None:
    """Both other peers name the silent one and sign an early end at one turn (PROTOCOL §10.8): they exit 0 with
    the same scores so far, and their transcripts verify as that early end."""
    table = MatchTable("fishnstones", 3, ["random"], 3, tmp_path)
    table.start(extra=["--timeout", "2"])
    silent = 1
    try:
        path = store_path(table, silent)
        silent_seat = game_seat(table, silent)
        wait_for(lambda: stored_messages(path) >= 10, 20, "the game to be under way")
        table.peers[silent].process.send_signal(signal.SIGSTOP)
        others = [table.peers[seat].result(30) for seat in (0, 2)]
    finally:
        table.peers[silent].process.send_signal(signal.SIGCONT)
        table.stop_all()
    for seat, result in zip((0, 2), others, strict=True):
        assert result is not None and result["finished"] is False
        assert table.peers[seat].process.returncode == 0
        fault = result["fault"]
        assert isinstance(fault, dict) and fault["seat"] == silent_seat and fault["kind"] == "timeout"
        settled = result["settled"]
        first = others[0]
        assert isinstance(settled, dict) and settled["gone"] == silent_seat and first and settled == first["settled"]
        audited = audit(table.transcripts[seat].read_bytes().splitlines(), get_rules("fishnstones"))
        assert audited.settlement is not None and audited.settlement.outcome.to_wire() == settled["outcome"]


def test_a_process_without_a_roster_key_can_neither_connect_nor_inject() -> None:
    async def scenario() -> list[tuple[int, list[bytes]]]:
        contexts = [zmq.asyncio.Context() for _ in range(2)]  # a mesh's ZAP handler is its context's one
        meshes = [Mesh(new_curve_keypair()[1], "tcp://127.0.0.1:*", context=context) for context in contexts]
        roster = [MeshPeer(mesh.endpoint, mesh.curve_public) for mesh in meshes]
        for seat, mesh in enumerate(meshes):
            mesh.link(seat, roster)
        context = zmq.asyncio.Context()
        outsider_public, outsider_secret = new_curve_keypair()
        curved = context.socket(zmq.DEALER)
        curved.curve_secretkey, curved.curve_publickey = outsider_secret.encode(), outsider_public.encode()
        curved.curve_serverkey = roster[0].curve_public.encode()
        plain = context.socket(zmq.DEALER)
        for socket in (curved, plain):
            socket.linger = 0
            socket.connect(roster[0].endpoint)
            await socket.send_multipart([b"M", b'{"forged": true}'], flags=zmq.NOBLOCK)
        meshes[1].send(0, [b"M", b"from a roster peer"])
        got = [await asyncio.wait_for(meshes[0].receive(), 5)]
        with contextlib.suppress(TimeoutError):
            got.append(await asyncio.wait_for(meshes[0].receive(), 1.0))
        for socket in (curved, plain):
            socket.close()
        context.term()
        for mesh, mesh_context in zip(meshes, contexts, strict=True):
            mesh.close()
            mesh_context.term()
        return got

    received = asyncio.run(scenario())
    assert received == [(1, [b"M", b"from a roster peer"])]


def test_no_store_or_received_message_opens_another_seats_cat_before_its_reveal(tmp_path: Path) -> None:
    table, results = finished_match("fishnstones", 3, ["random"], 11, tmp_path, timeout_s=60)
    setup = read_setup(table.transcripts[0].read_bytes().splitlines()[0])
    for result in results:
        assert result is not None and isinstance(result["seat"], int)
        seen = watch_store(str(result["store"]), setup.session_id, result["seat"], (1, 2, 3), until_end=False)
        assert seen >= 4 * 2


def test_a_headless_peer_with_json_prints_event_lines_alone(tmp_path: Path) -> None:
    """stdout holds the lobby, started and result events, in that order, and nothing else; the human lines
    go to the log (stderr)."""
    table = MatchTable("fishnstones", 2, ["random"], 5, tmp_path)
    table.start()
    try:
        results = table.results(60)
    finally:
        table.stop_all()
    assert all(result is not None and result["finished"] for result in results), results
    for process, peer in enumerate(table.peers):
        assert peer.lines and all(parse_event(line) is not None for line in peer.lines), peer.lines
        events = peer.output.events
        assert [event["event"] for event in events] == ["lobby", "started", "result"], events
        lobby, started, result = events
        assert lobby["address"] == table.address and lobby["code"] == table.code
        assert lobby["players"] == (2 if process == 0 else None)
        assert started["game"] == "fishnstones" and started["players"] == 2
        assert started["seat"] == result["seat"] and started["session"] == result["session"]
        assert started["store"] == result["store"] and Path(text_field(started, "store")).exists()
        assert "you are seat" in peer.log.read_text()
