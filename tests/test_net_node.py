"""The peer runner without sockets: a fake mesh and a fake clock show who is dropped and when; peers joined
by an in-memory LoopbackHub play whole games."""

import asyncio
import json
from collections.abc import Sequence
from random import Random

from p2pfish.bots.random_bot import RandomBot
from p2pfish.crypto.identity import Identity
from p2pfish.net.node import AWAY, HEARTBEAT, MESSAGE, NodeTimers, PeerAway, PeerNode
from p2pfish.net.transport import LoopbackHub
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore


class FakeMesh:
    """A Transport whose frames the test reads and writes itself."""

    def __init__(self, others: tuple[int, ...] = (1,)) -> None:
        self.others = list(others)
        self.sent: list[tuple[int | None, list[bytes]]] = []

    def broadcast(self, frames: Sequence[bytes]) -> None:
        self.sent.append((None, list(frames)))

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        self.sent.append((seat, list(frames)))
        return True

    async def receive(self) -> tuple[int, list[bytes]]:
        raise AssertionError("the test hands the runner its frames itself (on_frames)")

    def close(self) -> None:
        pass


SIGNERS = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(3)]


def node_at(clock: list[float], events: list[object], players: int = 2, **limits: float) -> PeerNode:
    roster = tuple(s.public_bytes for s in SIGNERS[:players])
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b", "c")[:players])
    session = Session(setup, 0, SIGNERS[0], MemoryStore(), drop_after=limits.get("drop_after", 3))
    timers = NodeTimers(silent_after_s=1, drop_after_s=3, away_s=100)
    mesh = FakeMesh(tuple(range(1, players)))
    node = PeerNode(session, mesh, None, timers=timers, on_event=events.append, clock=lambda: clock[0])
    session.start()
    return node


def peer(node: PeerNode, seat: int = 1) -> Session:
    """Seat `seat` of the node's game, started: its first message (a commitment) is in its outbox."""
    other = Session(node.session.setup, seat, SIGNERS[seat], MemoryStore())
    other.start()
    return other


def heartbeat(node: PeerNode, seat: int = 1) -> list[bytes]:
    have = [0] * node.session.setup.players
    return [HEARTBEAT, json.dumps({"session": node.session.session_id.hex(), "have": have}).encode()]


def joined(node: PeerNode, seat: int = 1) -> Session:
    """Seat `seat` showed this game's id and sent its first message, then went quiet."""
    other = peer(node, seat)
    node.on_frames(seat, heartbeat(node))
    for raw in other.take_outbox():
        node.on_frames(seat, [MESSAGE, raw])
    return other


def test_a_silent_peer_is_named_with_what_it_owed_after_the_timeout() -> None:
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    joined(node)
    assert node.session.waiting_for() == (1,)
    clock[0] = 3.5
    node.beat()
    fault = node.session.fault
    assert fault is not None and (fault.seat, fault.kind) == (1, "timeout"), fault
    assert "no sign of life for 4 s while its reveal for the draw start was due" in fault.reason


def test_a_seat_that_never_sent_a_message_of_this_game_is_not_named() -> None:
    """A host may start a game with a card of a player who never got the start: nobody can be blamed."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    clock[0] = 3.5
    node.beat()
    fault = node.session.fault
    assert fault is not None and fault.seat is None and "never sent a message of this game" in fault.reason


def test_a_silent_peer_the_game_does_not_wait_for_is_not_named_until_it_does() -> None:
    clock, events = [0.0], list[object]()
    node = node_at(clock, events, players=3)
    one, two = peer(node, 1), peer(node, 2)
    commit_one, commit_two = one.take_outbox(), two.take_outbox()
    for seat, raws in ((1, commit_one), (2, commit_two)):
        node.on_frames(seat, heartbeat(node, seat))
        for raw in raws:
            node.on_frames(seat, [MESSAGE, raw])
    for raw in [*node.session.own_messages(), *commit_two]:
        one.receive(raw, via=0)
    for raw in one.take_outbox():
        node.on_frames(1, [MESSAGE, raw])
    assert node.session.waiting_for() == (2,), "seat 1 revealed; the draw waits for seat 2 alone"
    clock[0] = 3.5
    node.on_frames(2, heartbeat(node, 2))
    node.beat()
    assert node.session.fault is None, "seat 1 is silent, but the game waits only for seat 2, which is alive"
    clock[0] = 7.0
    node.beat()
    fault = node.session.fault
    assert fault is not None and fault.seat == 2, fault


def test_messages_relayed_by_another_peer_are_a_sign_of_life() -> None:
    """A seat that sends nothing on its link to this peer, but plays on through the others, is not silent."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events, players=3)
    one, two = peer(node, 1), peer(node, 2)
    node.on_frames(2, heartbeat(node, 2))
    for raw in two.take_outbox():
        node.on_frames(2, [MESSAGE, raw])
    clock[0] = 2.9
    for raw in one.take_outbox():
        node.on_frames(2, [MESSAGE, raw])  # relayed by seat 2
    assert 1 in node.session.waiting_for(), "the draw waits for seat 1's reveal"
    clock[0] = 5.0
    node.on_frames(2, heartbeat(node, 2))
    node.beat()
    assert node.session.fault is None


def test_a_player_who_left_is_waited_for_and_welcomed_back() -> None:
    clock, events = [0.0], list[object]()
    node = node_at(clock, events, drop_after=3)
    joined(node)
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


def test_leaving_again_and_again_does_not_restart_the_wait() -> None:
    """An `A` frame every few minutes must not keep the table waiting for ever."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    joined(node)
    node.session.tick(0.0)
    for minute in range(1, 60):
        clock[0] = minute * 60.0
        node.on_frames(1, [AWAY])
        node.beat()
        if node.session.fault is not None:
            break
    fault = node.session.fault
    assert fault is not None and fault.seat == 1 and clock[0] <= 660.0, (clock, fault)


def test_a_heartbeat_of_another_game_from_a_peer_that_showed_this_one_is_ignored() -> None:
    """Once a seat has shown this game, it cannot end it naming nobody by claiming another."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    joined(node)
    node.on_frames(1, [HEARTBEAT, b'{"session": "00", "have": [0, 0]}'])
    assert node.session.fault is None
    clock[0] = 3.5
    node.beat()
    fault = node.session.fault
    assert fault is not None and fault.seat == 1, fault


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


def play_over_loopback(cut: tuple[int, int] | None = None) -> list[PeerNode]:
    """Three bot peer runners, each on an endpoint of one in-memory hub (with one link cut), to the end."""
    roster = tuple(s.public_bytes for s in SIGNERS)
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b", "c"))
    hub = LoopbackHub(3)
    if cut is not None:
        hub.cut(*cut)
    timers = NodeTimers(heartbeat_s=0.01, resend_after_s=0.02, linger_s=0.5)
    nodes = [
        PeerNode(Session(setup, seat, SIGNERS[seat], MemoryStore()), hub.endpoints[seat], RandomBot(Random(seat)),
                 timers=timers)
        for seat in range(3)
    ]  # fmt: skip

    async def play() -> None:
        await asyncio.wait_for(asyncio.gather(*(node.run() for node in nodes)), 120)

    asyncio.run(play())
    sessions = [node.session for node in nodes]
    assert all(s.finished and s.fault is None for s in sessions), [s.fault for s in sessions]
    assert len({str(s.outcome()) for s in sessions}) == 1
    return nodes


def test_bot_peers_play_a_whole_game_over_the_loopback_hub() -> None:
    nodes = play_over_loopback()
    assert all(node.sent > 0 and node.received > 0 for node in nodes)


def test_a_peer_cut_off_from_another_gets_its_messages_through_the_third() -> None:
    """Seat 0's link to seat 1 loses everything: seat 1 learns seat 0's moves from seat 2 (relays and resends).
    (Seat 1, which never hears seat 0's heartbeat, then lingers its whole linger_s.)"""
    play_over_loopback(cut=(0, 1))
