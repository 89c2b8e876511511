"""What a hostile peer or a stranger on the LAN can make a peer spend: frames over the protocol's limits
are refused (far over: by libzmq at the header, at no memory cost; just over: read and blamed on the seat
that sent them), idle connections are closed within seconds and never starve a peer of file
descriptors, and a captured join card is refused by any later lobby. All traffic is on 127.0.0.1."""

import asyncio
import contextlib
import json
import queue
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest
import zmq
import zmq.asyncio

from p2pfish.cli import main
from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.identity import Identity
from p2pfish.net import lobby
from p2pfish.net.guard import HANDSHAKE_S
from p2pfish.net.lobby import LobbyHost, PlayerCard, code_key, new_join_code, new_lobby_nonce
from p2pfish.net.mesh import MESH_FRAME_CAP, new_curve_keypair
from p2pfish.net.node import BYE, HEARTBEAT, MAX_BEAT_BYTES, MESSAGE, NodeTimers, PeerNode
from p2pfish.session.envelope import MAX_MESSAGE_BYTES
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore, SqliteStore
from p2pfish.tools.match import MatchTable, PeerProcess

MIB = 1024 * 1024
PEER_SCRIPT = Path(__file__).with_name("limits_peer.py")


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmHWM for process {pid}")


# --- frames just over a limit: read, and blamed on the seat whose link carried them ----------------------


class SilentMesh:
    others: ClassVar[list[int]] = [1]

    def broadcast(self, frames: list[bytes]) -> None:
        pass

    def send(self, seat: int, frames: list[bytes]) -> bool:
        return True


def seat_zero_node() -> PeerNode:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("a", "b"))
    session = Session(setup, 0, signers[0], MemoryStore())
    return PeerNode(session, SilentMesh(), None, timers=NodeTimers())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "frames",
    [
        [MESSAGE, b"x" * (MAX_MESSAGE_BYTES + 1)],
        [MESSAGE, b"x" * 70 * 1024],
        [HEARTBEAT, b" " * (MAX_BEAT_BYTES + 1)],
        [BYE, b"[" * (MAX_BEAT_BYTES + 1)],
        [b"?", b"x" * (MAX_MESSAGE_BYTES + 1)],
    ],
    ids=["message", "message-70k", "heartbeat", "goodbye", "unknown-kind"],
)
def test_a_frame_over_its_limit_from_a_roster_seat_is_blamed_on_that_seat(frames: list[bytes]) -> None:
    node = seat_zero_node()
    node.session.start()
    node.on_frames(1, frames)  # before any heartbeat of seat 1: not kept aside for later
    fault = node.session.fault
    assert fault is not None and (fault.seat, fault.kind) == (1, "malformed"), fault
    assert "limit for its kind" in fault.reason


# --- a mesh peer in its own process -------------------------------------------------------------------------


@dataclass
class MeshVictim:
    """Seat 0, in its own process; this test process holds seat 1's CURVE key."""

    process: subprocess.Popen[str]
    endpoint: str
    server_key: bytes
    seat1: tuple[str, str]
    lines: list[str] = field(default_factory=list)
    printed: queue.Queue[str] = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            self.printed.put(text.strip())

    def line(self, prefix: str, timeout_s: float) -> str:
        """The next line the peer prints that starts with `prefix`."""
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                text = self.printed.get(timeout=left)
            except queue.Empty:
                break
            self.lines.append(text)
            if text.startswith(prefix):
                return text
        raise AssertionError(f"the peer printed no {prefix!r} line; it printed {self.lines[-5:]}")

    def next_after(self, dealer: zmq.Socket[bytes], frames: list[bytes], timeout_s: float) -> str:
        """The next frame the peer reports, sending `frames` until it arrives: what was in flight on a
        connection libzmq closed is lost, and the DEALER dials again."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            dealer.send_multipart(frames)
            with contextlib.suppress(AssertionError):
                return self.line("got ", 0.5)
        raise AssertionError(f"the peer took no frame within {timeout_s} s; it printed {self.lines[-5:]}")

    def dealer(self, context: zmq.Context[zmq.Socket[bytes]]) -> zmq.Socket[bytes]:
        """A DEALER holding seat 1's key, as seat 1's mesh has."""
        sock = context.socket(zmq.DEALER)
        sock.curve_publickey, sock.curve_secretkey = (k.encode() for k in self.seat1)
        sock.curve_serverkey = self.server_key
        sock.linger = 0
        sock.reconnect_ivl = 100
        sock.connect(self.endpoint)
        return sock


@contextlib.contextmanager
def mesh_victim(tmp_path: Path, nofile: int | None = None) -> Iterator[MeshVictim]:
    public, secret = new_curve_keypair()
    seat1 = new_curve_keypair()
    argv = [sys.executable, str(PEER_SCRIPT), secret, seat1[0], str(tmp_path), *([str(nofile)] if nofile else [])]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        victim = MeshVictim(process, "", public.encode(), seat1)
        victim.endpoint = victim.line("endpoint ", 20).split()[1]
        yield victim
    finally:
        process.kill()
        process.wait()
        if process.stderr is not None:
            process.stderr.close()
        if process.stdout is not None:
            process.stdout.close()


def test_a_frame_far_over_the_cap_is_refused_by_libzmq_and_costs_the_peer_nothing(tmp_path: Path) -> None:
    """70 KiB arrives (the node then blames its sender); 1 MiB and 64 MiB close the link at the frame's
    header: the peer never holds them, and the link is dialled again for what comes next."""
    with mesh_victim(tmp_path) as victim:
        before = int(victim.line("hwm ", 10).split()[1])
        context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        dealer = victim.dealer(context)
        try:
            dealer.send_multipart([b"H", b"x" * 70 * 1024])
            assert victim.line("got ", 10).split()[1:3] == ["H", str(70 * 1024)]
            for size in (MIB, 64 * MIB):
                dealer.send_multipart([b"H", bytes(size)])
                assert victim.next_after(dealer, [b"A", b""], 10).split()[1:3] == ["A", "0"], f"{size} bytes read"
        finally:
            dealer.close()
            context.term()
        with contextlib.suppress(AssertionError):
            victim.line("no such line", 0.3)  # read what is left
        read_sizes = {line.split()[2] for line in victim.lines if line.startswith("got H")}
        assert read_sizes == {str(70 * 1024)}, "a frame over the cap was read"
        after = peak_rss_kb(victim.process.pid)
        assert after - before < 8 * 1024, f"peak memory grew {after - before} KiB"
    assert MESH_FRAME_CAP < MIB


def closed_by_peer(conn: socket.socket, deadline: float) -> bool:
    """Whether the other end closes `conn` before `deadline` (whatever it sent first is read and dropped)."""
    while (left := deadline - time.monotonic()) > 0:
        conn.settimeout(left)
        try:
            if not conn.recv(4096):
                return True
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
    return False


def test_idle_connections_are_closed_within_seconds_and_never_starve_a_peer(tmp_path: Path) -> None:
    """400 idle TCP connections to a peer limited to 256 open files: it lives, closes every one of them
    within a few seconds, and still opens its game store and takes seat 1's frames."""
    with mesh_victim(tmp_path, nofile=256) as victim:
        victim.line("hwm ", 10)
        port = int(victim.endpoint.rpartition(":")[2])
        idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(400)]
        deadline = time.monotonic() + HANDSHAKE_S + 5
        try:
            still_open = [conn for conn in idle if not closed_by_peer(conn, deadline)]
        finally:
            for conn in idle:
                conn.close()
        assert not still_open, f"{len(still_open)} idle connections still open after {HANDSHAKE_S + 5} s"
        assert victim.process.poll() is None
        context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        dealer = victim.dealer(context)
        try:
            dealer.send_multipart([b"S", b""])
            victim.line("got S", 15)
            assert victim.line("store ", 5) == "store ok"
        finally:
            dealer.close()
            context.term()


# --- the lobby ------------------------------------------------------------------------------------------------


def test_a_huge_frame_to_the_lobby_without_the_code_costs_the_host_little(tmp_path: Path) -> None:
    """Eight frames of 64 MiB from a stranger: libzmq closes the connection at each frame's header, the
    host's peak memory barely moves, and the real players then join and play."""
    table = MatchTable("fishnstones", 2, ["random"], 3, tmp_path)
    table.start_host()
    try:
        host_pid = table.peers[0].process.pid
        before = peak_rss_kb(host_pid)
        context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        stranger = context.socket(zmq.DEALER)
        stranger.linger = 0
        stranger.connect(f"tcp://{table.address}")
        huge = bytes(64 * MIB)
        for _ in range(8):
            stranger.send(huge, copy=False)
        stranger.send(b'{"type": "join"}')
        assert stranger.poll(10_000), "the lobby answered nothing after the huge frames"
        assert json.loads(stranger.recv())["type"] == "refused"
        stranger.close()
        context.term()
        grown = peak_rss_kb(host_pid) - before
        assert grown < 16 * 1024, f"the host's peak memory grew {grown} KiB"
        table.start_joiners()
        results = table.results(60)
        assert all(result is not None and result["finished"] for result in results), results
    finally:
        table.stop_all()


def test_a_join_card_captured_in_one_lobby_is_refused_by_a_later_lobby_with_the_same_code() -> None:
    code = new_join_code()
    ann, bob = (Identity.from_seed(bytes([n]) * 32) for n in (1, 2))

    def host_card(curve: str) -> PlayerCard:
        return PlayerCard.make(ann, "ann", curve, "tcp://127.0.0.1:40001", new_lobby_nonce())

    async def answer_to(host: LobbyHost, raw: bytes) -> dict[str, object]:
        gathering = asyncio.ensure_future(host.gather())
        context = zmq.asyncio.Context()
        dealer = context.socket(zmq.DEALER)
        dealer.linger = 0
        dealer.connect(host.endpoint)
        await dealer.send(raw)
        answer = await asyncio.wait_for(dealer.recv(), 10)
        gathering.cancel()
        dealer.close()
        context.term()
        reply: dict[str, object] = json.loads(answer)
        return reply

    async def scenario() -> tuple[dict[str, object], dict[str, object]]:
        first = LobbyHost("fishnstones", {}, players=3, host=host_card("a" * 40), code=code, bind="tcp://127.0.0.1:0")
        later = LobbyHost("fishnstones", {}, players=3, host=host_card("b" * 40), code=code, bind="tcp://127.0.0.1:0")
        try:
            card = PlayerCard.make(bob, "bob", "c" * 40, "tcp://127.0.0.1:40002", first.nonce)
            captured = lobby._sealed(code_key(code), {"type": "join", "card": card.to_wire()})
            return await answer_to(first, captured), await answer_to(later, captured)
        finally:
            first.close()
            later.close()

    in_its_lobby, replayed = asyncio.run(scenario())
    assert in_its_lobby["type"] == "lobby"
    assert replayed["type"] == "refused" and "another lobby" in str(replayed["reason"])


# --- a store that cannot be opened ---------------------------------------------------------------------------


def test_a_store_sqlite_cannot_open_is_one_line_and_an_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As when every file descriptor is taken: SQLite's own error becomes one line, never a traceback."""

    def no_descriptor_left(*args: object, **kwargs: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    path = tmp_path / "game.sqlite"
    SqliteStore(path, new=True).close()
    monkeypatch.setattr(sqlite3, "connect", no_descriptor_left)
    with pytest.raises(MalformedInput, match="cannot open the store"):
        SqliteStore(tmp_path / "new.sqlite", new=True)
    assert main(["resume", str(path)]) == 2
    err = capsys.readouterr().err
    assert "unable to open database file" in err and len(err.strip().splitlines()) == 1


class HostWithFewFiles(PeerProcess):
    """A `p2pfish` peer process whose open-file limit, soft and hard, is 256."""

    def start(self) -> None:
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", FEW_FILES, *self.argv],
                stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, env=self.env,
            )  # fmt: skip


FEW_FILES = (
    "import resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256)); "
    "from p2pfish.cli import main; sys.exit(main(sys.argv[1:]))"
)


def test_idle_connections_to_the_lobby_are_closed_and_players_still_join(tmp_path: Path) -> None:
    """400 idle TCP connections to the lobby of a host limited to 256 open files: it closes them within
    seconds, stays alive, and the players then join and play to the end."""
    table = MatchTable("fishnstones", 2, ["random"], 4, tmp_path)
    argv = ["host", "fishnstones", "--players", "2", "--bind", "127.0.0.1", "--code", table.code, *table.peer_flags(0)]
    table.peers.append(HostWithFewFiles(0, argv, tmp_path / "seat0.log", table.env))
    try:
        table.address = table.peers[0].read_line("LOBBY ", 20).split()[1]
        host, port = table.address.rsplit(":", 1)
        idle = [socket.create_connection((host, int(port)), timeout=5) for _ in range(400)]
        deadline = time.monotonic() + HANDSHAKE_S + 5
        try:
            still_open = [conn for conn in idle if not closed_by_peer(conn, deadline)]
        finally:
            for conn in idle:
                conn.close()
        assert not still_open, f"{len(still_open)} idle lobby connections still open after {HANDSHAKE_S + 5} s"
        assert table.peers[0].process.poll() is None
        table.start_joiners()
        results = table.results(60)
        assert all(result is not None and result["finished"] for result in results), results
    finally:
        table.stop_all()
