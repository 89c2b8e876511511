"""Relay on demand (PROTOCOL §17.3): peers send their own messages and, by each other's chain heads, only what
another lacks. The attacks an adversary would choose: an author that signs two versions of a message and sends
each to different peers, an author that sends a message to one peer only and crashes, a seat that lies about
its heads (to be sent everything again and again, or to hide a fork), a seat that hurries another's message to
a peer ahead of its author's own frames."""

import asyncio
import json
from collections.abc import Callable, Sequence
from random import Random

import pytest
from test_net_node import SIGNERS as NODE_SIGNERS
from test_net_node import beat_with, node_at, peer
from transport_helpers import RecordingTransport

from p2pfish.bots.random_bot import RandomBot
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.net import heads
from p2pfish.net.node import HEARTBEAT, MESSAGE, NodeTimers, PeerNode
from p2pfish.net.transport import LoopbackEndpoint, LoopbackHub
from p2pfish.session import bodies
from p2pfish.session.envelope import open_envelope, seal
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

SIGNERS = [Identity.from_seed(bytes([seat + 11]) * 32) for seat in range(4)]
FAST = NodeTimers(
    heartbeat_s=0.01, resend_after_s=0.02, relay_grace_s=0.05, heads_wait_s=0.2, linger_s=0.3, drop_after_s=2.0
)


class Hostile:
    """Seat `seat`'s end of the hub, rewriting what it sends: `rewrite(to, frames)` returns the frames to send
    to seat `to` instead (None: send nothing)."""

    def __init__(self, inner: LoopbackEndpoint, rewrite: Callable[[int, list[bytes]], list[bytes] | None]) -> None:
        self.inner = inner
        self.rewrite = rewrite

    @property
    def others(self) -> list[int]:
        return self.inner.others

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        rewritten = self.rewrite(seat, list(frames))
        return True if rewritten is None else self.inner.send(seat, rewritten)

    def broadcast(self, frames: Sequence[bytes]) -> None:
        for seat in self.others:
            self.send(seat, frames)

    async def receive(self) -> tuple[int, list[bytes]]:
        return await self.inner.receive()

    def close(self) -> None:
        self.inner.close()


def play(players: int, hostile: int, rewrite: Callable[[int, list[bytes]], list[bytes] | None]) -> list[PeerNode]:
    """A whole game of bot peers on one hub, seat `hostile`'s frames rewritten; every honest session drops
    seats after FAST.drop_after_s."""
    roster = tuple(s.public_bytes for s in SIGNERS[:players])
    setup = GameSetup.create("fishnstones", {}, roster, tuple("abcd"[:players]))
    hub = LoopbackHub(players)
    nodes = []
    for seat in range(players):
        session = Session(
            setup, seat, SIGNERS[seat], MemoryStore(), drop_after=FAST.drop_after_s, rules=get_rules(setup.game)
        )
        endpoint = hub.endpoints[seat]
        mesh = Hostile(endpoint, rewrite) if seat == hostile else endpoint
        nodes.append(PeerNode(session, mesh, RandomBot(Random(seat)), timers=FAST))

    async def run() -> None:
        await asyncio.wait_for(asyncio.gather(*(node.run() for node in nodes)), 60)

    asyncio.run(run())
    return nodes


def honest_faults(nodes: list[PeerNode], hostile: int) -> list[tuple[int | None, str, str]]:
    return [
        (node.session.fault.seat, node.session.fault.kind, node.session.fault.reason)
        if node.session.fault is not None
        else (None, "finished" if node.session.finished else "running", "")
        for seat, node in enumerate(nodes)
        if seat != hostile
    ]


def test_an_author_that_sends_each_peer_its_own_version_is_caught_by_the_heads_and_named_everywhere() -> None:
    """Seat 3 signs two versions of its first message after the start: version A to seats 0 and 1, version B
    to seat 2; it never resends anything. The honest peers' heads show the fork, they push each other their
    versions, and every honest peer stops naming seat 3 for equivocation."""
    split: dict[str, bytes] = {}

    def rewrite(to: int, frames: list[bytes]) -> list[bytes] | None:
        if frames[0] != MESSAGE:
            return frames
        envelope = open_envelope(frames[1])
        if envelope.seat != 3:
            return None  # no resends of anybody's messages: the honest peers must find the fork themselves
        if envelope.seq == 1 or "B" in split:
            if "B" not in split:
                other = seal(SIGNERS[3], envelope.session, 3, seq=1, prev=envelope.prev, body=bodies.chat("B"))
                split["A"], split["B"] = envelope.raw, other.raw
            if envelope.seq == 1:
                return [MESSAGE, split["B"] if to == 2 else split["A"], *frames[2:]]
        return frames

    nodes = play(4, 3, rewrite)
    assert "B" in split
    faults = honest_faults(nodes, 3)
    assert all(seat == 3 and kind == "violation" for seat, kind, _ in faults), faults
    assert any("equivocation" in reason for _, _, reason in faults), faults


def test_a_message_its_author_sent_to_one_peer_before_crashing_reaches_every_peer() -> None:
    """Seat 3 sends its second message to seat 0 alone, then falls silent on every link. Seats 1 and 2 get it
    from seat 0 (their heads show they lack it), and every honest peer then names seat 3 for its silence."""
    crashed: dict[str, bytes] = {}

    def rewrite(to: int, frames: list[bytes]) -> list[bytes] | None:
        if "raw" in crashed:
            return None
        if frames[0] == MESSAGE and open_envelope(frames[1]).seat == 3 and open_envelope(frames[1]).seq == 1:
            if to == 0:
                return frames
            if to == 2:  # the broadcast's last peer: from here on seat 3 sends nothing
                crashed["raw"] = frames[1]
            return None
        return frames

    nodes = play(4, 3, rewrite)
    assert "raw" in crashed
    for seat in range(3):
        assert nodes[seat].session.have()[3] >= 2, (seat, nodes[seat].session.have())
    faults = honest_faults(nodes, 3)
    assert all(seat == 3 and kind == "timeout" for seat, kind, _ in faults), faults


def test_a_seat_lying_about_its_heads_in_its_messages_only_delays_its_own() -> None:
    """Seat 2 claims, with every message after its first, to hold a message of seat 0 that seat 0 never signed.
    The others hold each of its messages back for heads_wait_s (they show something they lack), then read it:
    the game goes on, slower, to its end; no honest seat is named."""

    def rewrite(to: int, frames: list[bytes]) -> list[bytes] | None:
        if frames[0] == MESSAGE and len(frames) == 3 and open_envelope(frames[1]).seq > 0:
            claim = json.loads(frames[2])
            claim["have"][0] += 5
            claim["heads"][0] = "ab" * heads.HEAD_HASH_BYTES
            return [MESSAGE, frames[1], json.dumps(claim).encode()]
        return frames

    nodes = play(3, 2, rewrite)
    assert all(node.session.finished and node.session.fault is None for node in nodes), honest_faults(nodes, 2)


def test_heartbeats_claiming_nothing_and_false_forks_buy_only_a_few_resends() -> None:
    """A heartbeat every 10 ms for 20 s claiming to hold nothing, with a made-up head for every author: the
    node resends each author's messages and pushes its versions with a wait that doubles up to 8 s."""
    clock, events = [0.0], list[object]()
    node = node_at(clock, events)
    other = peer(node)
    node.on_frames(1, beat_with(node, [0, 0]))
    for raw in other.take_outbox():
        node.on_frames(1, [MESSAGE, raw])
    mesh = node.mesh
    assert isinstance(mesh, RecordingTransport)
    mesh.sent.clear()
    made_up = ["cd" * heads.HEAD_HASH_BYTES] * 2
    for step in range(2000):
        clock[0] = 1.0 + step * 0.01
        claim = {"session": node.session.session_id.hex(), "have": [step % 2 + 1, 1], "heads": made_up}
        node.on_frames(1, [HEARTBEAT, json.dumps(claim).encode()])
    pushed = [frames for seat, frames in mesh.sent if seat == 1 and frames[0] == MESSAGE]
    assert 0 < len(pushed) <= 2 * 2 * 8, len(pushed)


def three_seats() -> tuple[list[float], PeerNode, Session, Session]:
    """A node for seat 0 at time 0 (the clock) with seats 1 and 2 beside it, each heard to hold nothing yet."""
    clock = [0.0]
    node = node_at(clock, [], players=3)
    one, two = peer(node, 1), peer(node, 2)
    for seat in (1, 2):
        node.on_frames(seat, beat_with(node, [0, 0, 0]))
    return clock, node, one, two


def test_a_copy_of_a_message_from_a_third_peer_waits_out_the_grace() -> None:
    """Seat 1 hands this peer seat 2's first message at once: it is read only relay_grace_s later, so that seat
    2's own frames (and their heads, which would show a fork) come first; seat 2's own copy is read at once."""
    clock, node, one, two = three_seats()
    (from_two,) = two.take_outbox()
    node.on_frames(1, [MESSAGE, from_two])
    assert node.session.have()[2] == 0
    clock[0] = node.timers.relay_grace_s
    node.beat()
    assert node.session.have()[2] == 1
    (from_one,) = one.take_outbox()
    node.on_frames(1, [MESSAGE, from_one])
    assert node.session.have()[1] == 1


def test_a_message_from_its_author_waits_for_what_its_author_held() -> None:
    """Seat 1's message comes with heads showing it held seat 2's first message, which this peer lacks: it is
    read as soon as seat 2's message arrives, and not before."""
    _, node, one, two = three_seats()
    (from_two,) = two.take_outbox()
    one.receive(from_two, via=2)
    one.take_outbox()
    (from_one,) = [raw for raw in one.own_messages()]
    held = heads.encode(heads.heads_of(one))
    node.on_frames(1, [MESSAGE, from_one, held])
    assert node.session.have()[1] == 0
    node.on_frames(2, [MESSAGE, from_two])
    assert node.session.have()[1:] == [1, 1]


def test_a_peer_sends_each_of_its_messages_once_to_each_peer() -> None:
    roster = tuple(s.public_bytes for s in SIGNERS[:3])
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b", "c"))
    hub = LoopbackHub(3)
    rules = get_rules(setup.game)
    nodes = [
        PeerNode(Session(setup, seat, SIGNERS[seat], MemoryStore(), rules=rules), hub.endpoints[seat],
                 RandomBot(Random(seat)), timers=NodeTimers(heartbeat_s=0.01, linger_s=0.3))
        for seat in range(3)
    ]  # fmt: skip

    async def run() -> None:
        await asyncio.wait_for(asyncio.gather(*(node.run() for node in nodes)), 60)

    asyncio.run(run())
    assert all(node.session.finished for node in nodes)
    for seat, node in enumerate(nodes):
        signed = node.session.have()[seat]
        # 2 per message signed (one per peer); blind relaying sent about 6 (each peer's too, to both others)
        assert node.frames_out[MESSAGE] <= 3 * signed, (node.frames_out, signed)


def lying_heads(session: Session, about: int) -> bytes:
    """`session`'s heads, but claiming five more messages of seat `about` than exist, under a made-up hash."""
    claim = json.loads(heads.encode(heads.heads_of(session)))
    claim["have"][about] += 5
    claim["heads"][about] = "ab" * heads.HEAD_HASH_BYTES
    return json.dumps(claim).encode()


def test_false_heads_sent_to_one_peer_only_delay_reading_the_message() -> None:
    """Seat 2 sends its first message to this peer with heads claiming messages of seat 1 that do not exist:
    it is held, but read once another peer's copy shows it was accepted there (after relay_grace_s), and in any
    case after heads_wait_s; never held for ever (which would get this honest peer named for its silence)."""
    clock, node, _, two = three_seats()
    (from_two,) = two.take_outbox()
    node.on_frames(2, [MESSAGE, from_two, lying_heads(two, about=1)])
    assert node.session.have()[2] == 0
    node.on_frames(1, [MESSAGE, from_two])  # seat 1 accepted it and resends it
    clock[0] = node.timers.relay_grace_s
    node.beat()
    assert node.session.have()[2] == 1 and node.session.fault is None

    clock, node, _, two = three_seats()
    (from_two,) = two.take_outbox()
    node.on_frames(2, [MESSAGE, from_two, lying_heads(two, about=1)])
    clock[0] = node.timers.heads_wait_s - 0.01
    node.beat()
    assert node.session.have()[2] == 0
    clock[0] = node.timers.heads_wait_s
    node.beat()
    assert node.session.have()[2] == 1 and node.session.fault is None


@pytest.mark.parametrize("at", [1, 5, 9])
def test_false_heads_sent_to_one_peer_never_get_an_honest_seat_named(at: int) -> None:
    """A whole game in which seat 2 lies in its heads to seat 0 only, on its message `at`: the game ends, or
    stops naming seat 2 or nobody, never an honest seat."""
    victim, hostile = 0, 2
    lied: list[int] = []

    def rewrite(to: int, frames: list[bytes]) -> list[bytes] | None:
        lie = frames[0] == MESSAGE and len(frames) == 3 and to == victim and not lied
        if lie and open_envelope(frames[1]).seq == at:
            lied.append(at)
            claim = json.loads(frames[2])
            claim["have"][1] += 5
            claim["heads"][1] = "ab" * heads.HEAD_HASH_BYTES
            return [MESSAGE, frames[1], json.dumps(claim).encode()]
        return frames

    nodes = play(3, hostile, rewrite)
    assert lied
    for node in nodes:
        fault = node.session.fault
        assert fault is None or fault.seat in (hostile, None), fault


def test_two_versions_of_one_place_from_one_link_are_an_equivocation() -> None:
    """Versions of one message sent with false heads are not held side by side (a peer scanning hundreds of
    them at every frame): the second goes to the session with the first, and the author is blamed."""
    _, node, _, two = three_seats()
    (from_two,) = two.take_outbox()
    first = open_envelope(from_two)
    node.on_frames(2, [MESSAGE, from_two, lying_heads(two, about=1)])
    assert node.session.fault is None
    other = seal(NODE_SIGNERS[2], first.session, 2, seq=first.seq, prev=first.prev, body=bodies.chat("another"))
    node.on_frames(2, [MESSAGE, other.raw, lying_heads(two, about=1)])
    fault = node.session.fault
    assert fault is not None and fault.seat == 2 and "equivocat" in fault.reason, fault
