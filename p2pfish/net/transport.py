"""What a peer runner (node.py) needs of the network, and an in-memory network that provides it.

A `Transport` carries multipart frames between this seat and the others, and names the seat each received
frame came from by the link it arrived on, never by what the frame claims. The ZeroMQ `Mesh` (mesh.py) is
one: CURVE-authenticated links between processes. `LoopbackHub` is another: N endpoints in one process and
one event loop, joined by queues — for tests and tools that run whole peers without sockets.
"""

import asyncio
from collections.abc import Sequence
from typing import Protocol


class Transport(Protocol):
    @property
    def others(self) -> list[int]:
        """The other seats this one is linked to."""
        ...

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        """Queue frames for one peer; False when they cannot be queued now (the runner resends later)."""
        ...

    def broadcast(self, frames: Sequence[bytes]) -> None:
        """Queue frames for every other seat."""
        ...

    async def receive(self) -> tuple[int, list[bytes]]:
        """The next frames from a peer, with the seat of the link that carried them."""
        ...

    def close(self) -> None: ...


class LoopbackHub:
    """`seats` in-process endpoints, each linked to every other: a frame sent is queued at once for its
    receiver, in order on each link, and is never lost, unless a link is cut (`cut`) or its receiver closed."""

    def __init__(self, seats: int) -> None:
        self.endpoints = [LoopbackEndpoint(self, seat, seats) for seat in range(seats)]
        self.down: set[tuple[int, int]] = set()
        """(from, to) links that lose every frame sent on them."""

    def cut(self, sender: int, receiver: int) -> None:
        self.down.add((sender, receiver))

    def mend(self, sender: int, receiver: int) -> None:
        self.down.discard((sender, receiver))

    def _carry(self, sender: int, receiver: int, frames: Sequence[bytes]) -> None:
        target = self.endpoints[receiver]
        if (sender, receiver) not in self.down and not target.closed:
            target.inbox.put_nowait((sender, list(frames)))


class LoopbackEndpoint:
    """One seat's end of a LoopbackHub: a Transport."""

    def __init__(self, hub: LoopbackHub, seat: int, seats: int) -> None:
        self.hub = hub
        self.seat = seat
        self._others = [other for other in range(seats) if other != seat]
        self.inbox: asyncio.Queue[tuple[int, list[bytes]]] = asyncio.Queue()
        self.closed = False
        self.sent = 0
        """Multipart frames this endpoint queued for a peer."""

    @property
    def others(self) -> list[int]:
        return list(self._others)

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        if seat not in self._others:
            raise ValueError(f"seat {self.seat} has no link to seat {seat}")
        if not self.closed:
            self.sent += 1
            self.hub._carry(self.seat, seat, frames)
        return True

    def broadcast(self, frames: Sequence[bytes]) -> None:
        for seat in self._others:
            self.send(seat, frames)

    async def receive(self) -> tuple[int, list[bytes]]:
        return await self.inbox.get()

    def close(self) -> None:
        self.closed = True
