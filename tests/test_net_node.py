"""The peer runner without sockets: a fake mesh and a fake clock show who is dropped and when."""

import json

from p2pfish.crypto.identity import Identity
from p2pfish.net.node import AWAY, HEARTBEAT, MESSAGE, NodeTimers, PeerAway, PeerNode
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore


class FakeMesh:
    def __init__(self) -> None:
        self.others = [1]
        self.sent: list[tuple[int | None, list[bytes]]] = []

    def broadcast(self, frames: list[bytes]) -> None:
        self.sent.append((None, list(frames)))

    def send(self, seat: int, frames: list[bytes]) -> bool:
        self.sent.append((seat, list(frames)))
        return True


def node_at(clock: list[float], events: list[object]) -> PeerNode:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("a", "b"))
    session = Session(setup, 0, signers[0], MemoryStore(), drop_after=3)
    timers = NodeTimers(silent_after_s=1, drop_after_s=3, away_s=100)
    node = PeerNode(session, FakeMesh(), None, timers=timers, on_event=events.append, clock=lambda: clock[0])  # type: ignore[arg-type]
    session.start()
    return node


def heartbeat(node: PeerNode) -> list[bytes]:
    return [HEARTBEAT, json.dumps({"session": node.session.session_id.hex(), "have": [0, 0]}).encode()]


def test_a_silent_peer_is_dropped_after_the_timeout() -> None:
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    node.on_frames(1, heartbeat(node))
    clock[0] = 3.5
    node.beat()
    fault = node.session.fault
    assert fault is not None and (fault.seat, fault.kind) == (1, "timeout")


def test_a_player_who_left_is_waited_for_and_welcomed_back() -> None:
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    node.on_frames(1, [AWAY])
    assert PeerAway(1) in events and 1 in node.session.away
    for second in range(1, 60):
        clock[0] = float(second)
        node.beat()
        node.session.tick(clock[0])
    assert node.session.fault is None
    node.on_frames(1, heartbeat(node))
    assert 1 not in node.session.away
    clock[0] = 64.0
    node.beat()
    assert node.session.fault is not None and node.session.fault.seat == 1


def test_a_heartbeat_from_another_game_stops_the_game_naming_nobody() -> None:
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    node.on_frames(1, [HEARTBEAT, b'{"session": "00", "have": [0, 0]}'])
    fault = node.session.fault
    assert fault is not None and fault.seat is None and "different games" in fault.reason


def test_messages_are_read_only_once_the_peer_showed_it_plays_this_game() -> None:
    """A host that gave the peers different setups must not get an honest peer blamed for a 'replay'."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    other_game = GameSetup.create("fishnstones", {}, node.session.setup.roster, ("a", "b"))
    peer = Session(other_game, 1, Identity.from_seed(bytes([2]) * 32), MemoryStore())
    peer.start()
    (first,) = peer.take_outbox()
    node.on_frames(1, [MESSAGE, first])
    assert node.session.fault is None, "held until the peer's heartbeat"
    node.on_frames(1, [HEARTBEAT, json.dumps({"session": other_game.session_id.hex(), "have": [0, 1]}).encode()])
    fault = node.session.fault
    assert fault is not None and fault.seat is None and "different games" in fault.reason


def test_a_message_held_before_the_heartbeat_is_read_after_it() -> None:
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    setup = node.session.setup
    peer = Session(setup, 1, Identity.from_seed(bytes([2]) * 32), MemoryStore())
    peer.start()
    (first,) = peer.take_outbox()
    node.on_frames(1, [MESSAGE, first])
    assert node.session.have()[1] == 0
    node.on_frames(1, heartbeat(node))
    assert node.session.have()[1] == 1 and node.session.fault is None
