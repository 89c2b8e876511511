"""A transport for tests that drive a PeerNode by hand: it records what the node sends, and the test hands the
node its frames itself (PeerNode.on_frames)."""

import time
from collections.abc import Sequence

from p2pfish.net.node import HEARTBEAT
from p2pfish.net.transport import Transport


class RecordingTransport:
    """A Transport whose frames the test reads and writes itself."""

    def __init__(self, others: Sequence[int] = (1,)) -> None:
        self.others = list(others)
        self.sent: list[tuple[int | None, list[bytes]]] = []

    def broadcast(self, frames: Sequence[bytes]) -> None:
        self.sent.append((None, list(frames)))

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        self.sent.append((seat, list(frames)))
        return True

    async def receive(self) -> tuple[int, list[bytes]]:
        raise AssertionError("the test hands the node its frames itself (on_frames)")

    def close(self) -> None:
        pass


def heartbeat_times(transport: Transport) -> list[float]:
    """The times (time.monotonic) at which `transport` broadcasts a heartbeat from now on, in a list that grows."""
    beats: list[float] = []
    broadcast = transport.broadcast

    def counting(frames: Sequence[bytes]) -> None:
        if frames[0] == HEARTBEAT:
            beats.append(time.monotonic())
        broadcast(frames)

    setattr(transport, "broadcast", counting)  # noqa: B010 (a method replaced on this one object)
    return beats
