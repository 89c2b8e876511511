"""What a hostile peer or a stranger on the LAN can make a peer spend: frames over the protocol's limits
are refused (far over: by libzmq at the header, at no memory cost; just over: read and blamed on the seat
that sent them), idle connections are closed within seconds and never starve a peer of file
descriptors; the lobby (plain TCP, its own framing) holds at most a frame per connection, closes one that
does not prove the join code at its first message, lets no stranger keep a joiner out, and refuses a
captured hello or join card. All traffic is on 127.0.0.1."""

import asyncio
import contextlib
import json
import queue
import secrets
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest
import zmq
import zmq.asyncio

from p2pfish.cli import main
from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.net import lobby, lobbylink
from p2pfish.net.guard import HANDSHAKE_S
from p2pfish.net.joincode import new_join_code
from p2pfish.net.lobby import LobbyHost, PlayerCard, code_key, join_lobby, new_lobby_nonce
from p2pfish.net.mesh import MESH_FRAME_CAP, new_curve_keypair
from p2pfish.net.node import BYE, HEARTBEAT, MAX_BEAT_BYTES, MESSAGE, NodeTimers, PeerNode
from p2pfish.session.envelope import MAX_MESSAGE_BYTES
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore, SqliteStore
from p2pfish.tools.events import text_field
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

    def broadcast(self, frames: Sequence[bytes]) -> None:
        pass

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        return True

    async def receive(self) -> tuple[int, list[bytes]]:
        raise AssertionError("the test hands the runner its frames itself (on_frames)")

    def close(self) -> None:
        pass


def seat_zero_node() -> PeerNode:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("a", "b"))
    session = Session(setup, 0, signers[0], MemoryStore(), rules=get_rules(setup.game))
    return PeerNode(session, SilentMesh(), None, timers=NodeTimers())


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


def idle_connections_left_open(host: str, port: int, count: int, within_s: float) -> int:
    """Open `count` TCP connections that never speak; how many the peer has not closed within `within_s`."""
    idle = [socket.create_connection((host, port), timeout=5) for _ in range(count)]
    deadline = time.monotonic() + within_s
    try:
        return sum(not closed_by_peer(conn, deadline) for conn in idle)
    finally:
        for conn in idle:
            conn.close()


def test_idle_connections_are_closed_within_seconds_and_never_starve_a_peer(tmp_path: Path) -> None:
    """400 idle TCP connections to a peer limited to 256 open files: it lives, closes every one of them
    within a few seconds, and still opens its game store and takes seat 1's frames."""
    with mesh_victim(tmp_path, nofile=256) as victim:
        victim.line("hwm ", 10)
        port = int(victim.endpoint.rpartition(":")[2])
        still_open = idle_connections_left_open("127.0.0.1", port, 400, HANDSHAKE_S + 5)
        assert not still_open, f"{still_open} idle connections still open after {HANDSHAKE_S + 5} s"
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

STREAM_S = 4.0
STREAM_BYTES = 200 * MIB
ZMTP_NULL_DEALER = (
    b"\xff" + bytes(8) + b"\x7f\x03\x00" + b"NULL".ljust(20, b"\x00") + bytes(32)
    + b"\x04\x1a\x05READY\x0bSocket-Type\x00\x00\x00\x06DEALER"
)  # fmt: skip
"""A ZeroMQ client's greeting and READY: what a stranger sends a ZeroMQ lobby before its frames."""
STREAM_ATTACKS = {
    "zmtp-multipart": (ZMTP_NULL_DEALER, (b"\x01\xff" + bytes(255)) * 256),
    "1-gib-length": (struct.pack(">I", 2**30), bytes(64 * 1024)),
    "garbage-frames": (b"", (struct.pack(">I", 16 * 1024) + b"\xa5" * 16 * 1024) * 4),
}
"""What a connection sends first, then over and over: one multipart message of 255-byte ZeroMQ frames
(measured: 418 MB of it took a ZeroMQ lobby host to 796 MB), a length prefix of 1 GiB, frames that do not
open under the code."""


@dataclass
class Stream:
    """A stranger's stream of bytes to a lobby, over as many connections as the lobby closes."""

    opening: bytes
    piece: bytes
    deadline: float
    sent: int = 0
    kept_s: list[float] = field(default_factory=list)
    """How long the lobby kept each connection."""

    async def one_connection(self, host: str, port: int) -> None:
        opened = time.monotonic()
        try:
            _, writer = await asyncio.open_connection(host, port)
        except OSError:
            return
        try:
            async with asyncio.timeout(max(0.0, self.deadline - time.monotonic())):
                writer.write(self.opening)
                while self.sent < STREAM_BYTES:
                    writer.write(self.piece)
                    await writer.drain()
                    self.sent += len(self.piece)
            return  # the lobby kept the connection to the end: no time noted, which fails the test
        except (OSError, TimeoutError):
            if time.monotonic() < self.deadline:
                self.kept_s.append(time.monotonic() - opened)
        finally:
            writer.transport.abort()

    async def run(self, host: str, port: int, parallel: int = 8) -> None:
        async def worker() -> None:
            while time.monotonic() < self.deadline and self.sent < STREAM_BYTES:
                await self.one_connection(host, port)

        await asyncio.gather(*(worker() for _ in range(parallel)))


@pytest.mark.parametrize("attack", list(STREAM_ATTACKS))
def test_a_stream_from_a_stranger_costs_the_lobby_host_little_and_players_still_play(
    tmp_path: Path, attack: str
) -> None:
    """Up to 200 MB for a few seconds, on connection after connection: the lobby closes each at its first
    frame (long before a hello is due), the host's peak memory barely moves, and the players then play."""
    table = MatchTable("fishnstones", 2, ["random"], 3, tmp_path)
    table.start_host()
    try:
        host_pid = table.peers[0].process.pid
        before = peak_rss_kb(host_pid)
        host, port = table.address.rsplit(":", 1)
        stream = Stream(*STREAM_ATTACKS[attack], deadline=time.monotonic() + STREAM_S)
        asyncio.run(stream.run(host, int(port)))
        grown = peak_rss_kb(host_pid) - before
        assert grown < 16 * 1024, f"the host's peak memory grew {grown} KiB after {stream.sent} bytes"
        assert stream.kept_s and max(stream.kept_s) < lobby.HELLO_WITHIN_S, "a connection outlived its first frame"
        assert stream.sent > MIB
        table.start_joiners()
        results = table.results(60)
        assert all(result is not None and result["finished"] for result in results), results
    finally:
        table.stop_all()
    log = (tmp_path / "seat0.log").read_text()
    assert "Traceback" not in log and "Exception" not in log, log


def lobby_host(players: int = 2) -> LobbyHost:
    card = PlayerCard.make(
        Identity.from_seed(b"\x01" * 32), "ann", "a" * 40, "tcp://127.0.0.1:40001", new_lobby_nonce()
    )
    return LobbyHost("fishnstones", {}, players=players, host=card, code=CODE, bind="tcp://127.0.0.1:0")


CODE = new_join_code()


async def answer_and_close(host: LobbyHost, raw: bytes, *, frame: bool = True) -> tuple[bytes, float]:
    """What the lobby answers `raw` (framed, or sent as it is), and how long until it closes the connection."""
    address, port = host.endpoint.removeprefix("tcp://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(address, int(port))
    sent = time.monotonic()
    writer.write(lobbylink.framed(raw) if frame else raw)
    try:
        async with asyncio.timeout(lobby.HELLO_WITHIN_S + 5):
            answer = await reader.read()
    finally:
        writer.close()
    return answer, time.monotonic() - sent


def test_a_connection_that_does_not_prove_the_code_is_closed_at_its_first_message() -> None:
    key = code_key(CODE)
    hello = lobby._sealed(key, {"type": "hello", "hello": "ab" * lobby.HELLO_NONCE_BYTES})
    first_messages = {
        "GET / HTTP/1.1\r\n\r\n": (b"GET / HTTP/1.1\r\n\r\n", False, None),
        "no length": (lobbylink.LENGTH.pack(0), False, None),
        "wrong code": (lobby._sealed(code_key(new_join_code()), {"type": "hello"}), True, "wrong join code"),
        "garbage": (b"\x00\xff" * 100, True, "wrong join code"),
        "a join first": (lobby._sealed(key, {"type": "join"}), True, "begins with a hello"),
        "hello replayed": (hello, True, "replayed hello"),
    }

    async def scenario() -> dict[str, tuple[bytes, float]]:
        host = lobby_host()
        gathering = asyncio.ensure_future(host.gather())
        try:
            assert (await first_answer(host, hello))["type"] == "welcome"
            answers = {}
            for name, (raw, frame, _) in first_messages.items():
                answers[name] = await answer_and_close(host, raw, frame=frame)
            return answers
        finally:
            gathering.cancel()
            host.close()

    for name, (answer, closed_after_s) in asyncio.run(scenario()).items():
        assert closed_after_s < 1.0, f"{name}: closed after {closed_after_s:.1f} s"
        reason = first_messages[name][2]
        if reason is None:
            assert answer == b"", name
        else:
            refused = json.loads(answer[4:])
            assert refused["type"] == "refused" and reason in refused["reason"], (name, refused)


async def first_answer(host: LobbyHost, raw: bytes) -> dict[str, object]:
    """The lobby's first answer to `raw` on a new connection."""
    address, port = host.endpoint.removeprefix("tcp://").rsplit(":", 1)
    link = await lobbylink.open_link(address, int(port))
    try:
        link.send(raw)
        answer: dict[str, object] = json.loads(await asyncio.wait_for(link.recv(), 10))
        return answer
    finally:
        link.abort()


def test_a_stranger_churning_idle_connections_cannot_keep_a_joiner_out() -> None:
    """Twice as many connections as the lobby keeps before the code is proved, each opened again as soon as
    the lobby drops it: a joiner still gets in within seconds."""
    bob = Identity.from_seed(b"\x02" * 32)

    def bob_card(nonce: bytes) -> PlayerCard:
        return PlayerCard.make(bob, "bob", "b" * 40, "tcp://127.0.0.1:40002", nonce)

    async def hold(address: str, port: int, stop: asyncio.Event, opened: list[int]) -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                reader, writer = await asyncio.open_connection(address, port)
                opened.append(1)
                with contextlib.suppress(OSError):
                    await reader.read()
                writer.transport.abort()

    async def scenario() -> float:
        host = lobby_host(players=2)
        address, port = host.endpoint.removeprefix("tcp://").rsplit(":", 1)
        gathering = asyncio.ensure_future(host.gather())
        stop, opened = asyncio.Event(), list[int]()
        holders = [asyncio.ensure_future(hold(address, int(port), stop, opened)) for _ in range(2 * lobby.UNPROVEN_CAP)]
        try:
            churning_by = time.monotonic() + 20
            while len(opened) < 4 * lobby.UNPROVEN_CAP:
                assert time.monotonic() < churning_by, f"only {len(opened)} stranger connections opened in 20 s"
                await asyncio.sleep(0.01)
            started = time.monotonic()
            table = await join_lobby(f"{address}:{port}", CODE, bob_card, timeout_s=20)
            took = time.monotonic() - started
            assert [card.name for card in table.cards] == ["ann", "bob"]
            assert [card.name for card in (await gathering).cards] == ["ann", "bob"]
            return took
        finally:
            stop.set()
            host.close()
            for holder in holders:
                holder.cancel()
            await asyncio.gather(*holders, return_exceptions=True)

    took = asyncio.run(scenario())
    assert took < 5.0, f"the joiner got in after {took:.1f} s"


def test_a_join_card_captured_in_one_lobby_is_refused_by_a_later_lobby_with_the_same_code() -> None:
    code = new_join_code()
    ann, bob = (Identity.from_seed(bytes([n]) * 32) for n in (1, 2))

    def host_card(curve: str) -> PlayerCard:
        return PlayerCard.make(ann, "ann", curve, "tcp://127.0.0.1:40001", new_lobby_nonce())

    async def answer_to(host: LobbyHost, raw: bytes) -> dict[str, object]:
        gathering = asyncio.ensure_future(host.gather())
        address, port = host.endpoint.removeprefix("tcp://").rsplit(":", 1)
        link = await lobbylink.open_link(address, int(port))
        key = code_key(code)
        link.send(lobby._sealed(key, {"type": "hello", "hello": secrets.token_hex(lobby.HELLO_NONCE_BYTES)}))
        assert json.loads(await asyncio.wait_for(link.recv(), 10))["type"] == "welcome"
        link.send(raw)
        reply: dict[str, object] = json.loads(await asyncio.wait_for(link.recv(), 10))
        gathering.cancel()
        link.abort()
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

    def command(self) -> list[str]:
        return [sys.executable, "-c", FEW_FILES, *self.argv]


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
        table.address = text_field(table.peers[0].event("lobby", 20), "address")
        host, port = table.address.rsplit(":", 1)
        still_open = idle_connections_left_open(host, int(port), 400, lobby.HELLO_WITHIN_S + 2)
        assert not still_open, f"{still_open} idle lobby connections open after {lobby.HELLO_WITHIN_S + 2} s"
        assert table.peers[0].process.poll() is None
        table.start_joiners()
        results = table.results(60)
        assert all(result is not None and result["finished"] for result in results), results
    finally:
        table.stop_all()
