"""The lobby's own framing over plain TCP (asyncio streams): a message is a 4-byte big-endian length, then
that many bytes.

The lobby listens to strangers before anyone has proved the join code, so this code, not a library,
decides every byte a connection can make its host hold: a length is checked before its body is read (0 or
over MAX_LOBBY_MESSAGE ends the connection at once), a body is read whole with `readexactly`, the stream
buffers at most STREAM_LIMIT bytes before it stops reading the socket, one read of the socket takes at most
what its RECEIVE_BUFFER holds, and a peer that leaves more than MAX_UNSENT bytes of our messages unread is
dropped. Time limits (how long a connection may take to say what) belong to the lobby that uses a Link.
"""

import asyncio
import contextlib
import socket
import struct
from typing import Generic, TypeVar

MAX_LOBBY_MESSAGE = 16 * 1024
LENGTH = struct.Struct(">I")
STREAM_LIMIT = MAX_LOBBY_MESSAGE + LENGTH.size
"""asyncio's StreamReader stops reading the socket once it buffers twice this."""
RECEIVE_BUFFER = 32 * 1024
"""SO_RCVBUF of the lobby's sockets (the kernel doubles it): the most one read of a socket returns."""
MAX_UNSENT = 4 * MAX_LOBBY_MESSAGE
"""A peer that leaves this many bytes of the lobby's messages unread is not reading: it is dropped."""
ACCEPT_BATCH = 32
"""Connections accepted (and queued by the kernel) at most before the lobby's loop reads again."""
LINK_ERRORS = (EOFError, OSError)
"""What a broken, closed or timed-out link raises (FrameRefused is an OSError too)."""


class FrameRefused(ConnectionError):
    """The other end announced a message of length 0 or over MAX_LOBBY_MESSAGE."""


def framed(message: bytes) -> bytes:
    """`message` with its length in front. Raises ValueError for a message the other end would refuse."""
    if not 0 < len(message) <= MAX_LOBBY_MESSAGE:
        raise ValueError(f"a lobby message is 1 to {MAX_LOBBY_MESSAGE} bytes, not {len(message)}")
    return LENGTH.pack(len(message)) + message


async def read_frame(reader: asyncio.StreamReader) -> bytes:
    """The next message. Raises FrameRefused without reading the body of one announced at 0 or over
    MAX_LOBBY_MESSAGE bytes, asyncio.IncompleteReadError when the stream ends first."""
    (length,) = LENGTH.unpack(await reader.readexactly(LENGTH.size))
    if not 0 < length <= MAX_LOBBY_MESSAGE:
        raise FrameRefused(f"a lobby message of {length} bytes (1 to {MAX_LOBBY_MESSAGE} allowed)")
    return await reader.readexactly(length)


class Link:
    """One lobby connection: framed messages in and out."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def recv(self) -> bytes:
        return await read_frame(self.reader)

    def send(self, message: bytes) -> bool:
        """Queue `message`; False (and the connection is dropped) when the other end is not reading."""
        transport = self.writer.transport
        if transport.is_closing():
            return False
        if self.unsent() + len(message) > MAX_UNSENT:
            self.abort()
            return False
        self.writer.write(framed(message))
        return True

    async def flushed(self, within_s: float) -> None:
        """Wait (at most `within_s`) until what was sent has left for the other end."""
        with contextlib.suppress(*LINK_ERRORS):
            async with asyncio.timeout(within_s):
                await self.writer.drain()

    def unsent(self) -> int:
        """Bytes sent that have not yet left for the other end."""
        return self.writer.transport.get_write_buffer_size()

    def close(self) -> None:
        """Close once what was sent has been written."""
        self.writer.close()

    def abort(self) -> None:
        """Close at once, dropping whatever is buffered either way."""
        self.writer.transport.abort()


async def open_link(host: str, port: int) -> Link:
    """A link to the lobby at HOST:PORT. Raises OSError."""
    reader, writer = await asyncio.open_connection(host, port, limit=STREAM_LIMIT)
    return Link(reader, writer)


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on HOST:PORT (0: any free port), whose connections take at most
    RECEIVE_BUFFER per read. Raises OSError."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
        listener.bind((host, port))
        listener.listen(ACCEPT_BATCH)
        listener.setblocking(False)
    except BaseException:
        listener.close()
        raise
    return listener


Member = TypeVar("Member")


class Budget(Generic[Member]):
    """At most `cap` members: admitting one more drops the oldest, for its owner to close.

    Refusing the newest instead would let whoever keeps the budget full keep every newcomer out. Dropping
    the oldest gives a newcomer the time `cap` more arrivals take, and its owner must read every member in
    that time: the lobby accepts at most ACCEPT_BATCH connections before it reads again, fewer than `cap`.
    (Dropping one at random was tried too: under a flood of reconnecting strangers in other processes a
    joiner got in after 0.2 to 1.7 s, against 0.1 to 0.3 s with the oldest dropped.)"""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._members: dict[Member, None] = {}

    def admit(self, member: Member) -> Member | None:
        """Add `member`; the one dropped to make room for it, if any."""
        dropped = next(iter(self._members)) if len(self._members) >= self.cap else None
        if dropped is not None:
            del self._members[dropped]
        self._members[member] = None
        return dropped

    def discard(self, member: Member) -> None:
        self._members.pop(member, None)

    def __len__(self) -> int:
        return len(self._members)
