"""The game mesh: every peer binds one ROUTER and connects one DEALER to every other peer.

Every link is CURVE-encrypted. A peer's ROUTER admits only clients whose CURVE key is in the
roster (a ZAP allow-list); a DEALER only talks to a server holding the roster's key for that seat.
So a process without a roster key can neither connect nor inject, and the sender of every frame
a ROUTER receives is known from its authenticated key (the ZAP user id), not from what it claims.

Frames are multipart: a one-byte kind, then its payload. ZeroMQ does not resend across a
reconnect; the peer runner (node.py) does, from the session's log.

Every socket refuses, in libzmq itself, a frame over MESH_FRAME_CAP: the connection that carried it is
closed at the frame's header, before anything is allocated for it. The cap sits well above the protocol's
largest frame (MAX_MESSAGE_BYTES), so a frame between the two arrives and the runner blames its sender.
A connection that has not finished its CURVE handshake within HANDSHAKE_S is closed, and at most
CONNECTION_CAP connections are open on the ROUTER at once (guard.py).
"""

import asyncio
import ipaddress
import re
import string
import struct
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import zmq
import zmq.asyncio
from zmq.auth.asyncio import AsyncioAuthenticator
from zmq.utils import z85

from p2pfish.core.errors import MalformedInput
from p2pfish.core.text import shown_value
from p2pfish.net.guard import HANDSHAKE_S, ConnectionCap
from p2pfish.session.envelope import MAX_MESSAGE_BYTES

_EVENTS, _POLLIN = int(zmq.EVENTS), int(zmq.POLLIN)
CURVE_KEY_CHARS = 40
MESH_FRAME_CAP = 4 * MAX_MESSAGE_BYTES
"""libzmq closes a connection that announces a frame longer than this (ZMQ_MAXMSGSIZE)."""
CLOSE_LINGER_MS = 300
SEND_HIGH_WATER = 512
"""Frames a DEALER queues for its peer before a send is dropped (the runner resends later): at most
512 x MAX_MESSAGE_BYTES = 32 MiB per link held by libzmq for a peer that never reads. An honest game queues far
fewer: its messages and RESEND_BATCH per author at a time."""
LINK_HEARTBEAT_MS = 1000
LINK_DEAD_AFTER_MS = 4000
CONNECT_TIMEOUT_MS = 2000
"""A link that hears nothing (not even ZeroMQ's own pings) for LINK_DEAD_AFTER_MS is closed and dialled
again, each try given up after CONNECT_TIMEOUT_MS: after a cable is pulled and put back, the link is up
again within a few seconds, rather than at TCP's next retransmission, which backs off to a minute."""


@dataclass(frozen=True)
class MeshPeer:
    """Where a seat listens and the CURVE public key (Z85 text) it proves it holds."""

    endpoint: str
    curve_public: str

    def __post_init__(self) -> None:
        if not is_curve_key(self.curve_public):
            raise MalformedInput(f"a CURVE public key is {CURVE_KEY_CHARS} Z85 characters")
        if not is_tcp_endpoint(self.endpoint):
            raise MalformedInput(f"a peer endpoint looks like tcp://HOST:PORT, not {shown_value(self.endpoint)}")


def is_curve_key(text: str) -> bool:
    if len(text) != CURVE_KEY_CHARS or not text.isascii():
        return False
    try:
        z85.decode(text)
    except (ValueError, KeyError, struct.error):  # pyzmq's decoder raises each, for other bad text
        return False
    return True


_PORT = re.compile(r"[1-9][0-9]{0,4}")
_DNS_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
MAX_DNS_NAME = 253


def is_tcp_endpoint(text: str) -> bool:
    """`tcp://HOST:PORT`, where HOST is an IPv4 literal (`192.168.1.7`), a bracketed IPv6 literal without a zone
    (`[fe80::1]`) or a DNS name (labels of letters, digits and inner hyphens, joined by dots), and PORT is
    1-65535 written without leading zeros. Nothing else: libzmq refuses some other texts at connect (`*`, `%`,
    a space) and reads others as more than an address (`SOURCE;HOST` binds a source address)."""
    if not text.isascii() or not text.startswith("tcp://"):
        return False
    host, _, port = text.removeprefix("tcp://").rpartition(":")
    if _PORT.fullmatch(port) is None or int(port) > 65535:
        return False
    return is_host(host)


def is_host(host: str) -> bool:
    """An IPv4 literal, a bracketed IPv6 literal without a zone, or a DNS name (see is_tcp_endpoint)."""
    if host.startswith("[") and host.endswith("]"):
        inner = host[1:-1]
        if not inner or "%" in inner or not all(c in string.hexdigits or c in ":." for c in inner):
            return False
        try:
            ipaddress.IPv6Address(inner)
        except ValueError:
            return False
        return True
    labels = host.split(".")
    if all(label.isdigit() for label in labels):  # all numbers: it must be an IPv4 literal
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return False
        return True
    return 0 < len(host) <= MAX_DNS_NAME and all(_DNS_LABEL.fullmatch(label) for label in labels)


def new_curve_keypair() -> tuple[str, str]:
    """(public, secret) as Z85 text."""
    public, secret = zmq.curve_keypair()
    return public.decode("ascii"), secret.decode("ascii")


class _RosterKeys:
    """The ZAP credentials callback: admit exactly the roster's other seats. A peer may connect before
    this one knows the roster; its handshake then waits for the roster instead of being refused. libzmq
    closes a handshake still waiting after HANDSHAKE_S, and the peer's DEALER dials again."""

    def __init__(self, keys: dict[bytes, int]) -> None:
        self.keys = keys
        self.known = asyncio.Event()
        self.closed = False

    async def callback(self, domain: str, key: bytes) -> bool:
        if not self.known.is_set():
            try:
                await asyncio.wait_for(self.known.wait(), HANDSHAKE_S)
            except TimeoutError:
                return False
        if self.closed:  # the mesh closed meanwhile: its authenticator has no socket left to answer on
            raise asyncio.CancelledError
        return key in self.keys


class Mesh:
    """Binds at once (so its endpoint can go into the lobby); links up once the roster is known. Its sockets
    live in `context`, the process's one ZeroMQ context, which its owner terminates after closing the mesh
    (the mesh's ZAP handler binds the context's one ZAP endpoint: one open mesh per context)."""

    def __init__(self, curve_secret: str, bind: str, *, context: zmq.asyncio.Context) -> None:
        self._secret = curve_secret.encode("ascii")
        self._public = zmq.curve_public(self._secret)
        self._allowed: dict[bytes, int] = {}
        self._roster_keys = _RosterKeys(self._allowed)
        self._context = context
        self._sync_context: zmq.Context[zmq.Socket[bytes]] = zmq.Context.shadow(self._context.underlying)
        self._auth = AsyncioAuthenticator(self._context)
        self._auth.start()
        self._auth.configure_curve_callback("*", credentials_provider=self._roster_keys)
        self._router = self._context.socket(zmq.ROUTER)
        self._router.curve_server = True
        self._router.curve_secretkey = self._secret
        self._router.curve_publickey = self._public
        self._router.linger = 0
        self._router.handshake_ivl = int(HANDSHAKE_S * 1000)
        self._router.maxmsgsize = MESH_FRAME_CAP
        self._router_now: zmq.Socket[bytes] = zmq.Socket.shadow(self._router.underlying)
        """The same ROUTER as a plain socket: read without zmq.asyncio's machinery (receive)."""
        self._reader_loop: asyncio.AbstractEventLoop | None = None
        """The loop the ROUTER's descriptor is watched in, once a receive waited."""
        self._waiter: asyncio.Future[None] | None = None
        self._cap: ConnectionCap | None = None
        self._dealers: dict[int, zmq.Socket[bytes]] = {}
        """Plain sockets: a send that cannot be queued fails at once (zmq.Again) instead of later."""
        try:
            self._router.bind(bind)
        except zmq.ZMQError as error:
            self.close()
            raise MalformedInput(f"cannot listen on {bind}: {error.strerror}") from None
        self.endpoint: str = self._router.getsockopt_string(zmq.LAST_ENDPOINT)
        self._cap = ConnectionCap(self._router, int(self.endpoint.rpartition(":")[2]))
        self.me = -1

    @property
    def curve_public(self) -> str:
        return self._public.decode("ascii")

    def link(self, me: int, peers: Sequence[MeshPeer]) -> None:
        """Admit the roster's other seats and connect to each of them."""
        if peers[me].curve_public != self.curve_public:
            raise MalformedInput("the roster gives this seat another CURVE key than this peer holds")
        self.me = me
        self._allowed.update({p.curve_public.encode("ascii"): s for s, p in enumerate(peers) if s != me})
        self._roster_keys.known.set()
        for seat, peer in enumerate(peers):
            if seat == me:
                continue
            dealer: zmq.Socket[bytes] = self._sync_context.socket(zmq.DEALER)
            dealer.curve_secretkey = self._secret
            dealer.curve_publickey = self._public
            dealer.curve_serverkey = peer.curve_public.encode("ascii")
            dealer.linger = 0
            dealer.sndhwm = SEND_HIGH_WATER
            dealer.reconnect_ivl = 100
            dealer.reconnect_ivl_max = 1000
            dealer.heartbeat_ivl = LINK_HEARTBEAT_MS
            dealer.heartbeat_timeout = LINK_DEAD_AFTER_MS
            dealer.connect_timeout = CONNECT_TIMEOUT_MS
            dealer.handshake_ivl = int(HANDSHAKE_S * 1000)
            dealer.maxmsgsize = MESH_FRAME_CAP
            self._dealers[seat] = dealer
            try:
                dealer.connect(peer.endpoint)
            except zmq.ZMQError as error:  # is_tcp_endpoint should leave none: a refusal, not a traceback
                raise MalformedInput(
                    f"cannot connect to seat {seat}'s endpoint {shown_value(peer.endpoint)}: {error.strerror}"
                ) from None

    @property
    def others(self) -> list[int]:
        return sorted(self._dealers)

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        """Queue frames for one peer; False when its queue is full (the runner resends later). A frame past
        pyzmq's copy threshold (64 KiB: none of an honest peer's) is queued without a copy of its bytes."""
        try:
            self._dealers[seat].send_multipart(list(frames), flags=zmq.NOBLOCK, copy=False)
        except zmq.Again:
            return False
        return True

    def broadcast(self, frames: Sequence[bytes]) -> None:
        for seat in self.others:
            self.send(seat, frames)

    async def receive(self) -> tuple[int, list[bytes]]:
        """The next frames from an authenticated peer, with its seat. Frames from a connection
        without a roster key never arrive: the ZAP check refused it."""
        while True:
            if not self._frames_queued():
                await self._readable()
                continue
            routing = self._router_now.recv(flags=zmq.NOBLOCK, copy=False)  # a Frame: it carries the User-Id
            parts = self._router_now.recv_multipart(flags=zmq.NOBLOCK) if routing.more else []
            key = routing.get("User-Id")
            seat = self._allowed.get(key.encode("ascii") if isinstance(key, str) else b"")
            if seat is not None and parts:
                return seat, parts
            await asyncio.sleep(0)  # a frame skipped: with more queued, the receive above would not yield

    async def _readable(self) -> None:
        """Wait until the ROUTER's descriptor signals. ZeroMQ signals it on a change, not while frames are queued:
        `receive` looks at the socket's EVENTS before each wait (which rearms the signal), and so does the reader,
        so that a signal nobody waits for does not keep the loop awake. One reader for the mesh's life, instead of
        a Future and its bookkeeping per frame (zmq.asyncio's)."""
        loop = asyncio.get_running_loop()
        if self._reader_loop is not loop:
            loop.add_reader(self._router_now.FD, self._on_readable)
            self._reader_loop = loop
        self._waiter = loop.create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None

    def _on_readable(self) -> None:
        if self._router_now.closed:
            return
        if self._frames_queued() and self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _frames_queued(self) -> bool:
        """Whether a frame waits on the ROUTER (reading EVENTS also rearms its descriptor's signal). Plain ints:
        pyzmq's enum members cost more than the call."""
        events = self._router_now.getsockopt(_EVENTS)
        return isinstance(events, int) and bool(events & _POLLIN)

    def close(self, done_with: Collection[int] = ()) -> None:
        """Close, giving frames already queued (a goodbye) a moment to leave — but to the seats in `done_with`,
        which need nothing more (one that has left would hold the close up for the whole moment)."""
        for seat, dealer in self._dealers.items():
            dealer.close(linger=0 if seat in done_with else CLOSE_LINGER_MS)
        if self._cap is not None:
            self._cap.close()
        if self._reader_loop is not None and not self._reader_loop.is_closed():
            self._reader_loop.remove_reader(self._router_now.FD)
        self._router.close(linger=0)
        self._roster_keys.closed = True
        self._auth.stop()
