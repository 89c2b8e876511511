"""Bounds on what a listening ZeroMQ socket takes before anyone is authenticated.

ZeroMQ accepts every TCP connection on a bound socket and offers no option to cap them. A
ConnectionCap watches the socket's monitor (ACCEPTED and DISCONNECTED carry the connection's file
descriptor) and, once more than `cap` connections are open, shuts down the newest at once: libzmq then
sees the connection end and closes it itself. Established links are never touched. Together with a short
handshake interval (a connection that has not finished its handshake is closed by libzmq), a stranger
holding idle connections costs a bounded number of file descriptors, each for a few seconds.
"""

import asyncio
import contextlib
import socket
from collections.abc import Callable, Mapping

import zmq
import zmq.asyncio
from zmq.utils.monitor import parse_monitor_message

HANDSHAKE_S = 3.0
"""A connection that has not finished its ZeroMQ handshake (greeting, CURVE, ZAP) by then is closed."""
CONNECTION_CAP = 64
"""At most this many connections open on one listening socket; beyond it the newest is shut at once."""
WATCHED = zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED


class ConnectionCap:
    """Keeps at most `cap` connections open on a bound socket (see the module's docstring)."""

    def __init__(self, bound: zmq.asyncio.Socket, port: int, cap: int = CONNECTION_CAP) -> None:
        self.cap = cap
        self.port = port
        self.refused = 0
        """Connections shut because the socket was full."""
        self._open: dict[int, None] = {}
        """File descriptors of open connections, oldest first."""
        self._bound = bound
        self._monitor: zmq.asyncio.Socket = bound.get_monitor_socket(WATCHED)
        self._task = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        while True:
            self._note(parse_monitor_message(await self._monitor.recv_multipart()))
            while await self._monitor.poll(0):
                self._note(parse_monitor_message(await self._monitor.recv_multipart()))
            self._enforce()

    def _note(self, event: Mapping[str, object]) -> None:
        fd = event["value"]
        if not isinstance(fd, int):
            return
        if event["event"] == zmq.EVENT_ACCEPTED:
            self._open[fd] = None
        else:
            self._open.pop(fd, None)

    def _enforce(self) -> None:
        if len(self._open) > self.cap:
            self._open = {fd: None for fd in self._open if _is_connection_to(fd, self.port)}
        while len(self._open) > self.cap:
            newest = next(reversed(self._open))
            del self._open[newest]
            if _shut_down(newest, self.port):
                self.refused += 1

    def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(zmq.ZMQError):
            self._bound.disable_monitor()
        self._monitor.close(linger=0)


def _is_connection_to(fd: int, port: int) -> bool:
    """Whether `fd` is (still) a TCP connection accepted on `port`: a lost monitor event leaves a stale entry."""
    return _on_socket(fd, port, lambda conn: None)


def _shut_down(fd: int, port: int) -> bool:
    """End the TCP connection on `fd` without closing the descriptor (libzmq owns it and closes it when it
    sees the end). Only a TCP connection on our own port is touched: should libzmq have closed the descriptor
    meanwhile and the number been reused, anything but another connection to this port is left alone."""
    return _on_socket(fd, port, lambda conn: conn.shutdown(socket.SHUT_RDWR))


def _on_socket(fd: int, port: int, action: Callable[[socket.socket], None]) -> bool:
    try:
        conn = socket.socket(fileno=fd)
    except OSError:
        return False
    try:
        name = conn.getsockname()
        if conn.type != socket.SOCK_STREAM or not isinstance(name, tuple) or name[1] != port:
            return False
        with contextlib.suppress(OSError):
            action(conn)
        return True
    except OSError:
        return False
    finally:
        conn.detach()
