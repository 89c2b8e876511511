"""The peer runner without sockets: a fake mesh and a fake clock show who is dropped and when; peers joined
by an in-memory LoopbackHub play whole games."""

import asyncio
import json
import sqlite3
import time
from random import Random

import pytest
from transport_helpers import RecordingTransport

from p2pfish.bots.random_bot import RandomBot
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.net.node import (
    AWAY,
    HEARTBEAT,
    LINK_FRAMES_PER_S,
    MESSAGE,
    NodeTimers,
    PeerAway,
    PeerFailed,
    PeerNode,
)
from p2pfish.net.transport import LoopbackHub
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

SIGNERS = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(3)]


def node_at(clock: list[float], events: list[object], players: int = 2, **limits: float) -> PeerNode:
    roster = tuple(s.public_bytes for s in SIGNERS[:players])
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b", "c")[:players])
    session = Session(
        setup, 0, SIGNERS[0], MemoryStore(), drop_after=limits.get("drop_after", 3), rules=get_rules(setup.game)
    )
    timers = NodeTimers(silent_after_s=1, drop_after_s=3, away_s=100)
    mesh = RecordingTransport(tuple(range(1, players)))
    node = PeerNode(session, mesh, None, timers=timers, on_event=events.append, clock=lambda: clock[0])
    session.start()
    return node


def peer(node: PeerNode, seat: int = 1) -> Session:
    """Seat `seat` of the node's game, started: its first message (a commitment) is in its outbox."""
    other = Session(node.session.setup, seat, SIGNERS[seat], MemoryStore(), rules=get_rules(node.session.setup.game))
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
    peer = Session(other_game, 1, Identity.from_seed(bytes([2]) * 32), MemoryStore(), rules=get_rules(other_game.game))
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
    peer = Session(setup, 1, Identity.from_seed(bytes([2]) * 32), MemoryStore(), rules=get_rules(setup.game))
    peer.start()
    (first,) = peer.take_outbox()
    node.on_frames(1, [MESSAGE, first])
    assert node.session.have()[1] == 0
    node.on_frames(1, heartbeat(node))
    assert node.session.have()[1] == 1 and node.session.fault is None


def beat_with(node: PeerNode, have: list[int]) -> list[bytes]:
    return [HEARTBEAT, json.dumps({"session": node.session.session_id.hex(), "have": have}).encode()]


def resend_times(node: PeerNode, clock: list[float], beats: list[tuple[float, list[int]]]) -> list[float]:
    """When the node resent messages to seat 1, given seat 1's heartbeats at those times."""
    mesh = node.mesh
    assert isinstance(mesh, RecordingTransport)
    times = []
    for at, have in beats:
        clock[0] = at
        mesh.sent.clear()
        node.on_frames(1, beat_with(node, have))
        if any(seat == 1 and frames[0] == MESSAGE for seat, frames in mesh.sent):
            times.append(at)
    return times


def test_resends_to_a_peer_whose_count_does_not_move_back_off_and_resume_when_it_moves() -> None:
    """A 95-byte heartbeat saying "I hold nothing" must not buy a batch of resends every 0.5 s forever."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    joined(node)  # its heartbeat at 0 s, holding nothing: what this node holds is younger than relay_grace_s
    assert node.session.have() == [2, 1]
    stuck = [(step * 0.25, [0, 1]) for step in range(100)]  # 25 s of heartbeats; its count never moves
    assert resend_times(node, clock, stuck) == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 24.0]
    # its count moves: resends go after resend_after_s again, then back off again
    moved = [(25.0 + step * 0.25, [1, 1]) for step in range(12)]
    assert resend_times(node, clock, moved) == [25.0, 25.5, 26.5]


class FloodMesh:
    """A mesh whose receive returns at once, without yielding to the event loop, with a heartbeat of seat 1 for
    `flood_s` seconds of real time, then waits forever. It counts this node's heartbeats while it floods."""

    def __init__(self, payload: bytes, flood_s: float) -> None:
        self.others = [1]
        self.payload = payload
        self.flood_s = flood_s
        self.flood_started: float | None = None
        self.beats = 0
        self.beats_during_flood = 0
        self.frames = 0

    def broadcast(self, frames: list[bytes]) -> None:
        if frames[0] == HEARTBEAT:
            self.beats += 1
            if self.flood_started is not None and time.monotonic() < self.flood_started + self.flood_s:
                self.beats_during_flood += 1

    def send(self, seat: int, frames: list[bytes]) -> bool:
        return True

    async def receive(self) -> tuple[int, list[bytes]]:
        now = time.monotonic()
        if self.flood_started is None:
            self.flood_started = now
        if now < self.flood_started + self.flood_s:
            self.frames += 1
            return 1, [HEARTBEAT, self.payload]
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def test_a_stream_of_small_frames_does_not_starve_the_heartbeats() -> None:
    roster = tuple(s.public_bytes for s in SIGNERS[:2])
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b"))
    session = Session(setup, 0, SIGNERS[0], MemoryStore(), rules=get_rules(setup.game))
    payload = json.dumps({"session": setup.session_id.hex(), "have": [0, 0]}).encode()
    mesh = FloodMesh(payload, flood_s=0.6)
    node = PeerNode(session, mesh, None, timers=NodeTimers(heartbeat_s=0.02, drop_after_s=1e9))  # type: ignore[arg-type]

    async def flood() -> None:
        run = asyncio.create_task(node.run())
        while mesh.flood_started is None or time.monotonic() < mesh.flood_started + mesh.flood_s:
            await asyncio.sleep(0.01)
        run.cancel()

    asyncio.run(flood())
    assert mesh.frames > 100, mesh.frames
    assert mesh.beats_during_flood >= 10, (mesh.beats_during_flood, mesh.frames)


def test_frames_over_a_links_budget_are_dropped_unread() -> None:
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    taken = [node._within_budget(1) for _ in range(LINK_FRAMES_PER_S + 50)]
    assert taken.count(True) == LINK_FRAMES_PER_S
    assert node._within_budget(2), "each link has its own budget"
    clock[0] = 0.5
    assert [node._within_budget(1) for _ in range(LINK_FRAMES_PER_S)].count(True) == LINK_FRAMES_PER_S // 2


class QueueMesh:
    def __init__(self) -> None:
        self.others = [1]
        self.frames: asyncio.Queue[tuple[int, list[bytes]]] = asyncio.Queue()

    def broadcast(self, frames: list[bytes]) -> None:
        pass

    def send(self, seat: int, frames: list[bytes]) -> bool:
        return True

    async def receive(self) -> tuple[int, list[bytes]]:
        return await self.frames.get()


class FailingStore(MemoryStore):
    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def save_received(self, raw: bytes) -> None:
        raise self.error


def run_with_failing_store(error: Exception) -> Session:
    roster = tuple(s.public_bytes for s in SIGNERS[:2])
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b"))
    session = Session(setup, 0, SIGNERS[0], FailingStore(error), rules=get_rules(setup.game))
    mesh = QueueMesh()
    node = PeerNode(session, mesh, None, timers=NodeTimers(heartbeat_s=0.01, linger_s=0))  # type: ignore[arg-type]
    other = Session(setup, 1, SIGNERS[1], MemoryStore(), rules=get_rules(setup.game))
    other.start()
    mesh.frames.put_nowait((1, beat_with(node, [0, 0])))
    for raw in other.take_outbox():
        mesh.frames.put_nowait((1, [MESSAGE, raw]))
    asyncio.run(asyncio.wait_for(node.run(), 10))
    return session


def test_a_store_failing_under_a_frame_stops_the_game_naming_nobody_and_ends_the_run() -> None:
    session = run_with_failing_store(sqlite3.OperationalError("database or disk is full"))
    fault = session.fault
    assert fault is not None and fault.seat is None
    assert fault.reason == "this peer's game store failed: database or disk is full"


def test_any_other_failure_under_a_frame_ends_the_run_with_one_line() -> None:
    with pytest.raises(PeerFailed, match=r"^this peer failed reading a frame: ValueError: boom$"):
        run_with_failing_store(ValueError("boom"))


def play_over_loopback(cut: tuple[int, int] | None = None) -> list[PeerNode]:
    """Three bot peer runners, each on an endpoint of one in-memory hub (with one link cut), to the end."""
    roster = tuple(s.public_bytes for s in SIGNERS)
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b", "c"))
    rules = get_rules(setup.game)
    hub = LoopbackHub(3)
    if cut is not None:
        hub.cut(*cut)
    timers = NodeTimers(heartbeat_s=0.01, resend_after_s=0.02, relay_grace_s=0.02, linger_s=0.5)
    nodes = [
        PeerNode(Session(setup, seat, SIGNERS[seat], MemoryStore(), rules=rules), hub.endpoints[seat],
                 RandomBot(Random(seat)), timers=timers)
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


def test_a_relayed_message_of_a_player_who_left_does_not_bring_it_back() -> None:
    """Seat 1 leaves meaning to resume; its last move, lost on its own link, reaches this peer through seat 2.
    That shows seat 1 was alive, not that it came back: it is still waited for as long as a player who left."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events, players=3, drop_after=3)
    one, two = peer(node, 1), peer(node, 2)
    node.on_frames(2, heartbeat(node, 2))
    node.on_frames(1, heartbeat(node, 1))
    for raw in two.take_outbox():
        node.on_frames(2, [MESSAGE, raw])
    lost = one.take_outbox()
    node.on_frames(1, [AWAY])
    clock[0] = 1.0
    for raw in lost:
        node.on_frames(2, [MESSAGE, raw])
    assert 1 in node.session.away
    for second in range(2, 12):
        clock[0] = float(second)
        node.on_frames(2, heartbeat(node, 2))
        node.beat()
    fault = node.session.fault
    assert 1 in node.session.away and (fault is None or fault.seat != 1), fault


def test_a_store_failure_during_a_heartbeat_stops_the_game_without_escaping_the_run() -> None:
    """The store can fail outside the frame loop too: when a timeout found at a heartbeat is written down. The
    game stops (on the fault found, whose report could not be kept) and the run goes on to its end."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    joined(node)

    def full(raw: bytes) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    node.session._store.save_message = full  # type: ignore[method-assign]
    clock[0] = 3.5
    node._guarded(node.beat)
    fault = node.session.fault
    assert fault is not None and node._over(), fault


def test_a_peer_waiting_for_the_others_settles_does_not_tell_them_it_stopped() -> None:
    """A peer whose game stopped for a seat's silence still takes the others' settles (PROTOCOL §10.8): were its
    heartbeat to say it stopped, a peer that has just ended the game early would count it done, close at once and
    could drop its own last settle on the way there — one ending early, the other never."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    joined(node)
    clock[0] = 3.5
    node.beat()
    assert node.session.settle_offer() == 1
    mesh = node.mesh
    assert isinstance(mesh, RecordingTransport)

    def stopped_said() -> list[bool]:
        beats = [json.loads(frames[1]) for _, frames in mesh.sent if frames[0] == HEARTBEAT]
        return [beat.get("stopped") is True for beat in beats]

    async def wait_a_while() -> list[bool]:
        async def receive_nothing() -> None:
            await asyncio.Event().wait()

        receiver = asyncio.ensure_future(receive_nothing())
        waiting = asyncio.ensure_future(node._wait_for_settlement(receiver))
        for _ in range(5):
            await asyncio.sleep(0)
        said = stopped_said()
        node.stop_settling()
        await waiting
        receiver.cancel()
        return said

    mesh.sent.clear()
    said = asyncio.run(wait_a_while())
    assert said and not any(said), said
    node.beat()
    assert stopped_said()[-1], "once the wait is over the heartbeat says stopped again"
