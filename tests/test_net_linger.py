"""After the end: a peer lingers only for seats that may still want what it holds, and leaves as soon as the
last of them has what it needs (PROTOCOL §17.3, "Linger and goodbye") — not a heartbeat later, and not after
the whole linger for a seat whose game stopped, nor for a cheater its stop names with proof. A seat named
for its silence is waited for once it is back: it may be a peer that crashed and restarted."""

import asyncio
import json
import time
from collections.abc import Sequence

from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.net.node import HEARTBEAT, MESSAGE, NodeTimers, PeerNode
from p2pfish.session.envelope import MAX_MESSAGE_BYTES
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

SIGNERS = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(3)]


class QueueMesh:
    """Seats 1 and 2 as the test plays them: frames it puts in `frames` arrive; what the node sends is kept."""

    def __init__(self) -> None:
        self.others = [1, 2]
        self.frames: asyncio.Queue[tuple[int, list[bytes]]] = asyncio.Queue()
        self.sent: list[list[bytes]] = []

    def broadcast(self, frames: Sequence[bytes]) -> None:
        self.sent.append(list(frames))

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        return True

    async def receive(self) -> tuple[int, list[bytes]]:
        return await self.frames.get()

    def close(self) -> None:
        pass


def three_seats(timers: NodeTimers) -> tuple[PeerNode, QueueMesh]:
    roster = tuple(s.public_bytes for s in SIGNERS)
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b", "c"))
    mesh = QueueMesh()
    return PeerNode(
        Session(setup, 0, SIGNERS[0], MemoryStore(), rules=get_rules(setup.game)), mesh, None, timers=timers
    ), mesh


def beat(node: PeerNode, **extra: object) -> list[bytes]:
    payload = {"session": node.session.session_id.hex(), "have": [0, 0, 0], **extra}
    return [HEARTBEAT, json.dumps(payload).encode()]


def oversize() -> list[bytes]:
    return [MESSAGE, b"x" * (MAX_MESSAGE_BYTES + 1)]


def test_a_peer_whose_game_stopped_says_so_in_its_heartbeats() -> None:
    node, mesh = three_seats(NodeTimers())
    node.session.start()
    node.beat()
    node.on_frames(1, oversize())
    node.beat()
    beats = [json.loads(frames[1]) for frames in mesh.sent if frames[0] == HEARTBEAT]
    assert "stopped" not in beats[0] and beats[-1]["stopped"] is True


def test_the_cheater_a_stop_names_with_proof_and_a_stopped_seat_are_owed_nothing() -> None:
    node, _ = three_seats(NodeTimers())
    node.session.start()
    node.on_frames(1, oversize())
    fault = node.session.fault
    assert fault is not None and fault.seat == 1 and fault.evidence
    assert node.done_with() == {1}
    node.on_frames(2, beat(node, stopped=True))
    assert node.done_with() == {1, 2}
    node.on_frames(2, beat(node))
    assert node.done_with() == {1}, "a heartbeat without the mark clears it"


def test_a_seat_named_for_its_silence_is_waited_for_once_it_is_back() -> None:
    """It may have crashed and be coming back: the linger serves it (only a proof makes a seat owed nothing
    whatever it sends)."""
    clock = [0.0]
    roster = tuple(s.public_bytes for s in SIGNERS[:2])
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b"))
    session = Session(setup, 0, SIGNERS[0], MemoryStore(), drop_after=3, rules=get_rules(setup.game))

    class TwoSeats(QueueMesh):
        def __init__(self) -> None:
            super().__init__()
            self.others = [1]

    node = PeerNode(session, TwoSeats(), None, timers=NodeTimers(drop_after_s=3), clock=lambda: clock[0])
    session.start()
    other = Session(setup, 1, SIGNERS[1], MemoryStore(), rules=get_rules(setup.game))
    other.start()
    node.on_frames(1, [HEARTBEAT, json.dumps({"session": setup.session_id.hex(), "have": [0, 0]}).encode()])
    for raw in other.take_outbox():
        node.on_frames(1, [MESSAGE, raw])
    clock[0] = 3.5
    node.beat()
    assert session.fault is not None and (session.fault.seat, session.fault.kind) == (1, "timeout")
    node.on_frames(1, [HEARTBEAT, json.dumps({"session": setup.session_id.hex(), "have": [0, 0]}).encode()])
    assert node.done_with() == set() and not node._everyone_caught_up(), "the seat is back: it is served"


def test_a_stopped_peer_leaves_at_the_frame_that_shows_nobody_is_owed_anything() -> None:
    """Seat 1 cheats (a frame over the limit), seat 2's heartbeat says its game stopped too: the run ends then,
    not at its next heartbeat (2 s away) nor after its linger (30 s)."""
    node, mesh = three_seats(NodeTimers(heartbeat_s=2.0, linger_s=30.0))

    async def play() -> float:
        running = asyncio.ensure_future(node.run())
        for seat in (1, 2):
            mesh.frames.put_nowait((seat, beat(node)))
        mesh.frames.put_nowait((1, oversize()))
        while node.session.fault is None:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # the run is lingering now, between two heartbeats
        told = time.monotonic()
        mesh.frames.put_nowait((2, beat(node, stopped=True)))
        await asyncio.wait_for(running, 10)
        return time.monotonic() - told

    assert asyncio.run(play()) < 1.0
