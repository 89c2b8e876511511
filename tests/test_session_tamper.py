"""A cheating or broken peer is caught: the right seat is blamed with the right kind of fault and the
evidence, and the bad message changes nothing in any honest peer's state.

The cheater plays through its own Session (so its chain stays valid) and is made to cheat by a
`Rewriter` of its outgoing messages, by an override of its decisions, or by hand-sealed messages.
"""

import json
from collections.abc import Callable
from typing import Any

import pytest
from session_helpers import (
    Net,
    Override,
    Rewriter,
    action_tag,
    author_of,
    body_of,
    deliver_bad,
    flip_hex,
    make_setup,
    pause_at_bait,
    replay,
    snapshot,
)

from p2pfish.core.actions import Commit, Reveal
from p2pfish.core.player import Decision
from p2pfish.core.wire import Json
from p2pfish.games.fishnstones.rules import NEIGHBOURS, RULES, SPOTS, Bait, Cast, Fish, NoBait, column_spots
from p2pfish.games.registry import get_rules
from p2pfish.session import bodies
from p2pfish.session.chains import MAX_AHEAD
from p2pfish.session.core import Fault
from p2pfish.session.envelope import MAX_MESSAGE_BYTES, canonical, open_envelope, seal
from p2pfish.session.session import REPORT_GRACE_S, Session, Slow, Stopped
from p2pfish.session.store import MemoryStore

CHEATER = 1


def cheat_net(players: int, seed: int, **options: Any) -> Net:
    """A net whose stop reports stay off the network: every honest peer must find the fault itself."""
    return Net(players, seed, stops=False, **options)


def started(players: int, seed: int, **options: Any) -> Net:
    net = cheat_net(players, seed, **options)
    net.start()
    return net


def midgame(players: int = 3, seed: int = 0, turn: int = 4) -> Net:
    """A net run until every peer has reached `turn`, then left with messages still in flight."""
    net = started(players, seed)
    assert net.run(until=lambda n: all(s.turn >= turn for s in n.sessions))
    return net


Edit = Callable[[dict[str, Json]], dict[str, Json] | None]
"""What a Rewriter does to a copy of a body: the body to send, or None to withhold the message."""


def edit_action(
    tag: str, change: Callable[[dict[str, Json], dict[str, Json]], None]
) -> Callable[[dict[str, Json]], dict[str, Json]]:
    """A Rewriter edit that applies `change(body, action)` to act bodies whose action has tag `tag`."""

    def edit(body: dict[str, Json]) -> dict[str, Json]:
        action = body.get("action")
        if body.get("type") == "act" and isinstance(action, dict) and action.get("t") == tag:
            change(body, action)
        return body

    return edit


def install_rewriter(net: Net, seat: int, edit: Edit, forged_index: int = 0) -> Rewriter:
    """Rewrite `seat`'s messages with `edit` and keep the forged message number `forged_index` back."""
    rewriter = Rewriter(net, seat, edit)
    net.transforms[seat] = rewriter

    def keep_back(author: int, raw: bytes) -> bool:
        return author == seat and len(rewriter.forged) == forged_index + 1 and raw == rewriter.forged[-1]

    net.quarantine = keep_back
    return rewriter


def held_message(net: Net) -> bytes:
    assert len(net.held) == 1, net.held
    return net.held[0][1]


def held_back_move(net: Net, tag: str) -> bytes:
    """Play the game, holding back the cheater's first move tagged `tag`; that move."""
    net.quarantine = lambda seat, raw: seat == CHEATER and action_tag(raw) == tag
    net.start()
    net.run()
    return held_message(net)


def delivered_illegal(net: Net, tag: str) -> list[Fault]:
    """The faults every honest peer finds in the cheater's first move tagged `tag`."""
    return deliver_bad(net, held_back_move(net, tag), via=CHEATER, blame=CHEATER, kinds=("illegal",))


def rewritten_is_a_violation(net: Net, edit: Edit) -> None:
    """Play with the cheater's messages passed through `edit`, holding back the first one it changes: every
    honest peer finds that one a violation, blamed on the cheater."""
    install_rewriter(net, CHEATER, edit)
    net.start()
    net.run()
    deliver_bad(net, held_message(net), via=CHEATER, blame=CHEATER, kinds=("violation",))


# --- bad openings ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_wrong_nonce_in_cat_reveal(seed: int) -> None:
    net = cheat_net(3, seed)

    def wrong_nonce(body: dict[str, Json], action: dict[str, Json]) -> None:
        body["nonce"] = bytes(range(32)).hex()

    install_rewriter(net, CHEATER, edit_action("reveal", wrong_nonce))
    net.start()
    net.run()
    bad = held_message(net)
    assert body_of(bad)["nonce"] == bytes(range(32)).hex()
    faults = deliver_bad(net, bad, via=CHEATER, blame=CHEATER, kinds=("violation",))
    assert all("cat/1" in fault.reason for fault in faults)


@pytest.mark.parametrize("turn", [0, 1])
def test_wrong_nonce_in_rand_reveal(turn: int) -> None:
    net = cheat_net(3, 10 + turn)

    def edit(body: dict[str, Json]) -> dict[str, Json]:
        if body["type"] == "rand-reveal" and body["turn"] == turn:
            body["nonce"] = bytes(32).hex()
        return body

    rewritten_is_a_violation(net, edit)


def test_wrong_contribution_in_rand_reveal() -> None:
    net = cheat_net(2, 12)

    def edit(body: dict[str, Json]) -> dict[str, Json]:
        if body["type"] == "rand-reveal" and body["turn"] == 1:
            body["contribution"] = bytes(32).hex()
        return body

    rewritten_is_a_violation(net, edit)


def test_commitment_copied_from_another_seat_does_not_open_for_the_copier() -> None:
    original, copier = 0, 1
    net = cheat_net(3, 20)

    def secret() -> dict[str, Json]:
        record = net.stores[original].load_secrets()["secret/cat/1"]
        assert isinstance(record, dict)
        return record

    def copy_digest(body: dict[str, Json], action: dict[str, Json]) -> None:
        (commit_raw,) = [raw for raw in net.wire[original] if action_tag(raw) == "commit"]
        committed = body_of(commit_raw)["action"]
        assert isinstance(committed, dict)
        action["digest"] = committed["digest"]

    def copy_opening(body: dict[str, Json], action: dict[str, Json]) -> None:
        action["value"] = secret()["value"]
        body["nonce"] = secret()["nonce"]

    def edit(body: dict[str, Json]) -> dict[str, Json]:
        edit_action("commit", copy_digest)(body)
        return edit_action("reveal", copy_opening)(body)

    rewriter = install_rewriter(net, copier, edit, forged_index=1)

    def wait_for_original(net: Net, session: Session, decision: Decision) -> bool:
        if session.state.phase == "cast" and not any(action_tag(raw) == "commit" for raw in net.wire[original]):
            return False
        net.default(copier, decision)
        return True

    net.overrides[copier] = wait_for_original
    net.start()
    net.run()
    assert len(rewriter.forged) == 2
    for seat in net.honest(copier):
        commitments = net.sessions[seat].commitments
        assert commitments[(copier, "cat/1")] == commitments[(original, "cat/1")]
    bad = held_message(net)
    assert body_of(bad)["nonce"] == secret()["nonce"]
    # the value and nonce do open the original's commitment, only not as the copier's
    deliver_bad(net, bad, via=copier, blame=copier, kinds=("violation",))


# --- replays and duplicates ------------------------------------------------------------------------


def other_game_message(net: Net, seat: int) -> bytes:
    setup = make_setup(net.ids)
    other = Session(setup, seat, net.ids[seat], MemoryStore(), rules=get_rules(setup.game))
    assert other.session_id != net.session_id
    other.start()
    (raw,) = other.take_outbox()
    return raw


@pytest.mark.parametrize("relay", [CHEATER, 2], ids=["sent-by-author", "relayed-by-another"])
def test_message_from_another_game_is_a_replay_blamed_on_the_sender(relay: int) -> None:
    net = midgame()
    raw = other_game_message(net, CHEATER)
    faults = deliver_bad(net, raw, via=relay, blame=relay, kinds=("violation",), to=[0], awaited=False)
    assert "replay" in faults[0].reason


def test_duplicate_of_a_valid_message_is_ignored() -> None:
    net = midgame(turn=6)
    peer = net.sessions[0]
    seen = [raw for raw in peer.accepted if open_envelope(raw).seat != 0]
    before, accepted = snapshot(peer), list(peer.accepted)
    for raw in seen[-5:]:
        peer.receive(raw, open_envelope(raw).seat)
    assert peer.fault is None
    assert snapshot(peer) == before
    assert peer.accepted == accepted
    net.run()
    assert all(session.finished and session.fault is None for session in net.sessions)


def test_duplicates_of_messages_waiting_ahead_are_ignored() -> None:
    net = midgame(turn=2)
    peer = net.sessions[0]
    chain = peer.chains[CHEATER]
    ahead = [net.forge(CHEATER, bodies.chat(f"later {k}"), seq=chain.next_seq + k, prev=bytes(32)) for k in (1, 2)]
    before = snapshot(peer)
    for raw in ahead + ahead:
        peer.receive(raw, CHEATER)
    assert peer.fault is None
    assert snapshot(peer) == before


# --- signatures ------------------------------------------------------------------------------------


def test_message_signed_by_one_seat_claiming_another_is_blamed_on_the_sender() -> None:
    net = midgame()
    claimed = 2
    raw = net.forge(claimed, bodies.chat("it was seat 2"), at=0, signer=CHEATER)
    faults = deliver_bad(net, raw, via=CHEATER, blame=CHEATER, kinds=("violation",), to=[0], awaited=False)
    assert "forged" in faults[0].reason


@pytest.mark.parametrize("index", [0, 31, 64, 127])
def test_flipped_byte_in_a_signature(index: int) -> None:
    net = midgame()
    author = 2
    raw = net.forge(author, bodies.chat("hello"), at=0)
    obj = json.loads(raw)
    obj["sig"] = flip_hex(obj["sig"], index)
    bad = canonical(obj)
    deliver_bad(net, bad, via=author, blame=author, kinds=("violation",), to=[0], awaited=False)


# With no authenticated sender (an observer, a transcript file) a bad signature is blamed on nobody: the
# seat it claims did not sign it.
def test_forged_signature_without_a_known_sender_does_not_blame_the_claimed_seat() -> None:
    net = midgame()
    claimed = 2
    observer = Session(net.setup, None, None, MemoryStore(), rules=get_rules(net.setup.game))
    for raw in net.sessions[0].accepted:
        observer.receive(raw)
    assert observer.fault is None
    raw = net.forge(claimed, bodies.chat("it was seat 2"), at=0, signer=CHEATER)  # the observer holds what 0 holds
    before = snapshot(observer)
    observer.receive(raw)
    assert observer.fault is not None
    assert snapshot(observer) == before
    assert observer.fault.seat != claimed, observer.fault


# --- hash chains -----------------------------------------------------------------------------------


def chain_messages(net: Net, peer: int, author: int) -> tuple[bytes, bytes]:
    """(m_n, m_n+1) from `author` at `peer`'s view of its chain; m_n+1's prev is not m_n's hash."""
    seq = net.sessions[peer].chains[author].next_seq
    assert seq >= 3
    first = net.forge(author, bodies.chat("three"), at=peer)
    return first, net.forge(author, bodies.chat("four"), seq=seq + 1, prev=bytes([7]) * 32)


def test_broken_chain_wrong_prev_is_blamed_on_the_author() -> None:
    net = midgame()
    raw = net.forge(CHEATER, bodies.chat("broken"), at=0, prev=bytes([9]) * 32)
    faults = deliver_bad(net, raw, via=CHEATER, blame=CHEATER, kinds=("violation",), to=[0], awaited=False)
    assert "chain" in faults[0].reason


def test_broken_chain_relayed_by_another_seat_is_still_the_authors() -> None:
    net = midgame()
    raw = net.forge(CHEATER, bodies.chat("broken"), at=0, prev=bytes([9]) * 32)
    deliver_bad(net, raw, via=2, blame=CHEATER, kinds=("violation",), to=[0], awaited=False)


def test_chain_in_order_with_a_broken_link() -> None:
    net = midgame()
    peer = net.sessions[0]
    third, fourth = chain_messages(net, 0, CHEATER)
    peer.receive(third, CHEATER)
    assert peer.fault is None
    deliver_bad(net, fourth, via=CHEATER, blame=CHEATER, kinds=("violation",), to=[0], awaited=False)


# The evidence of a broken link holds both messages, whatever order they arrived in.
def test_reordered_chain_is_blamed_on_the_author_with_both_messages() -> None:
    net = midgame()
    peer = net.sessions[0]
    third, fourth = chain_messages(net, 0, CHEATER)
    before = snapshot(peer)
    peer.receive(fourth, CHEATER)
    assert peer.fault is None
    peer.receive(third, CHEATER)
    fault = peer.fault
    assert fault is not None
    assert (fault.seat, fault.kind) == (CHEATER, "violation")
    assert snapshot(peer) == before
    assert fourth in fault.evidence, "the message with the broken link is not in the evidence"
    assert third in fault.evidence


def test_flooding_far_ahead_of_the_chain_is_blamed() -> None:
    net = midgame(turn=2)
    peer = net.sessions[0]
    start = peer.chains[CHEATER].next_seq + 1
    before = snapshot(peer)
    for k in range(MAX_AHEAD):
        peer.receive(net.forge(CHEATER, bodies.chat(str(k)), seq=start + k, prev=bytes(32)), CHEATER)
    assert peer.fault is None
    last = net.forge(CHEATER, bodies.chat("x"), seq=start + MAX_AHEAD, prev=bytes(32))
    peer.receive(last, CHEATER)
    assert peer.fault is not None
    assert (peer.fault.seat, peer.fault.kind) == (CHEATER, "violation")
    assert snapshot(peer) == before


# --- equivocation ----------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["next", "ahead"])
def test_equivocation_is_blamed_with_both_messages(where: str) -> None:
    net = midgame()
    peer = net.sessions[0]
    chain = peer.chains[CHEATER]
    seq = chain.next_seq + (1 if where == "ahead" else 0)
    prev = chain.head if where == "next" else bytes(32)
    one = net.forge(CHEATER, bodies.chat("one"), seq=seq, prev=prev)
    two = net.forge(CHEATER, bodies.chat("two"), seq=seq, prev=prev)
    peer.receive(one, CHEATER)
    assert peer.fault is None
    faults = deliver_bad(net, two, via=CHEATER, blame=CHEATER, kinds=("violation",), to=[0], awaited=False)
    assert set(faults[0].evidence) == {one, two}
    for raw in faults[0].evidence:
        envelope = open_envelope(raw)
        assert (envelope.seat, envelope.seq) == (CHEATER, seq)
        assert envelope.signature_valid(net.setup.roster[CHEATER])


def test_equivocating_cat_commitments_sent_to_different_peers() -> None:
    net = cheat_net(3, 30)

    def two_faces(net: Net, session: Session, decision: Decision) -> bool:
        if session.state.phase != "cast":
            net.default(CHEATER, decision)
            return True
        if any(other.turn < session.turn for other in net.sessions):
            return False  # both faces go out once every peer holds the cheater's earlier messages
        faces = [
            net.forge(CHEATER, bodies.act(session.turn, Commit("cat/1", bytes([face]) * 32).to_wire()))
            for face in (1, 2)
        ]
        net.send(CHEATER, faces[0], to=[0])
        net.send(CHEATER, faces[1], to=[2])
        net.frozen.add(CHEATER)
        return True

    net.overrides[CHEATER] = two_faces
    net.start()
    net.run()  # peers 0 and 2 relay what they got to each other
    first, second = net.wire[CHEATER][-2:]
    for seat in (0, 2):
        fault = net.sessions[seat].fault
        assert fault is not None
        assert (fault.seat, fault.kind) == (CHEATER, "violation")
        assert set(fault.evidence) == {first, second}
        assert "equivocation" in fault.reason
        # at most the face this peer got first was applied, never the other one
        own_face = {0: first, 2: second}[seat]
        applied = [entry.action for entry in net.sessions[seat].log if entry.seat == CHEATER]
        assert applied in ([], [RULES.decode_action(body_of(own_face)["action"])])


# --- out of turn, illegal moves --------------------------------------------------------------------


def test_act_for_another_seats_turn_is_blamed() -> None:
    net = cheat_net(3, 40)
    hold = pause_at_bait(net)
    net.start()
    net.run()
    baiter = net.sessions[0].state.current
    sneak = (baiter + 1) % 3  # bait turn T is the baiter's; T+1 is the sneak's own
    other = (baiter + 2) % 3
    turn = net.sessions[0].turn
    assert all(s.waiting_for() == (baiter,) and s.turn == turn for s in net.sessions)
    bad = net.forge(sneak, bodies.act(turn, NoBait().to_wire()))
    before = {}
    for seat in (baiter, other):
        session = net.sessions[seat]
        before[seat] = snapshot(session)
        session.receive(bad, sneak)
        assert snapshot(session) == before[seat]
        if session.fault is not None:  # caught at once: fine too
            assert (session.fault.seat, session.fault.kind) == (sneak, "violation")
    # the real baiter moves; the sneak's message now answers the wrong turn
    net.frozen.add(sneak)
    hold["on"] = False
    net.run()
    for seat in (baiter, other):
        session = net.sessions[seat]
        fault = session.fault
        assert fault is not None
        assert fault.seat == sneak
        assert fault.kind in ("violation", "illegal")
        assert bad in fault.evidence
        # only the baiter's real move was applied
        assert len(session.log) <= len(before[seat].log) + 1
        assert session.log[: len(before[seat].log)] == list(before[seat].log)
        assert all(entry.seat == baiter for entry in session.log[len(before[seat].log) :])
        assert session.state == replay(net.setup, session.log)


def test_an_act_for_another_seats_turn_is_blamed_as_soon_as_that_turn_is_played() -> None:
    """The sneak's act for the baiter's turn T arrives before T is played, so it is not refused on arrival. Once
    T is played it is found at once — not only when the game next waits for the sneak, which here it never does
    (the game waits for the watcher itself), so that the watcher can prove a stop another seat reports."""
    net = cheat_net(3, 40)
    hold = pause_at_bait(net)
    net.start()
    net.run()
    baiter = net.sessions[0].state.current
    sneak, watcher = (baiter + 2) % 3, (baiter + 1) % 3  # turn T+1 is the watcher's, not the sneak's
    turn = net.sessions[0].turn
    bad = net.forge(sneak, bodies.act(turn, NoBait().to_wire()))
    session = net.sessions[watcher]
    session.receive(bad, sneak)
    assert session.fault is None, "turn T has not been played here yet"
    net.frozen.add(sneak)
    net.overrides[watcher] = lambda net, session, decision: False  # it receives, but never decides
    hold["on"] = False
    net.run()
    fault = session.fault
    assert fault is not None and (fault.seat, fault.kind) == (sneak, "violation"), fault
    assert "already played" in fault.reason and bad in fault.evidence


def bait_override(choose: Callable[[Net, Session], dict[str, Json]]) -> Override:
    """An override that makes the cheater emit `choose(net, session)` (a body) at its first bait turn."""
    done = {"yes": False}

    def override(net: Net, session: Session, decision: Decision) -> bool:
        if session.state.phase == "bait" and not done["yes"]:
            done["yes"] = True
            net.emit_as(CHEATER, choose(net, session))
            return True
        net.default(CHEATER, decision)
        return True

    return override


def test_bait_from_a_spot_that_is_not_adjacent_is_illegal() -> None:
    net = cheat_net(3, 50)

    def far_bait(net: Net, session: Session) -> dict[str, Json]:
        column = session.known()["cat/1"]
        assert isinstance(column, int)
        target = column_spots(3, CHEATER, column)[0]
        source = next(s for s in range(SPOTS) if s != target and s not in NEIGHBOURS[target] and session.state.pond[s])
        return bodies.act(session.turn, Bait(target, source).to_wire())

    net.overrides[CHEATER] = bait_override(far_bait)
    faults = delivered_illegal(net, "bait")
    assert all("next to" in fault.reason for fault in faults)


def test_fish_outside_the_revealed_column_is_illegal() -> None:
    net = cheat_net(3, 51)

    def override(net: Net, session: Session, decision: Decision) -> bool:
        column = session.state.cats[CHEATER]
        if session.state.phase == "fish" and column is not None:
            mine = column_spots(3, CHEATER, column)
            spot = next(s for s in range(SPOTS) if s not in mine and session.state.pond[s])
            net.emit_as(CHEATER, bodies.act(session.turn, Fish(spot).to_wire()))
            return True
        net.default(CHEATER, decision)
        return True

    net.overrides[CHEATER] = override
    faults = delivered_illegal(net, "fish")
    assert all("column" in fault.reason for fault in faults)


def test_fish_in_the_bait_phase_is_illegal() -> None:
    net = cheat_net(3, 52)
    net.overrides[CHEATER] = bait_override(lambda net, s: bodies.act(s.turn, Fish(0).to_wire()))
    delivered_illegal(net, "fish")


def test_reveal_contradicting_an_earlier_bait_is_illegal() -> None:
    net = cheat_net(3, 53)

    def override(net: Net, session: Session, decision: Decision) -> bool:
        phase = session.state.phase
        if phase == "cast" and session.state.round == 1:
            session.act(Cast("cat/1", 1))
            return True
        if phase == "bait" and session.state.round == 1:
            column = column_spots(3, CHEATER, 1)
            pond = session.state.pond
            target, source = next((t, s) for t in range(SPOTS) if t not in column for s in NEIGHBOURS[t] if pond[s])
            net.emit_as(CHEATER, bodies.act(session.turn, Bait(target, source).to_wire()))
            return True
        net.default(CHEATER, decision)
        return True

    net.overrides[CHEATER] = override
    bad = held_back_move(net, "reveal")
    assert body_of(bad)["action"] == Reveal("cat/1", 1).to_wire()
    for seat in net.honest(CHEATER):  # the bait itself was accepted: the column was still secret
        assert any(entry.seat == CHEATER and isinstance(entry.action, Bait) for entry in net.sessions[seat].log)
    faults = deliver_bad(net, bad, via=CHEATER, blame=CHEATER, kinds=("illegal",))
    assert all("outside" in fault.reason for fault in faults)


def test_second_commitment_in_one_round_is_blamed() -> None:
    net = cheat_net(2, 54)
    net.overrides[CHEATER] = bait_override(lambda net, s: bodies.act(s.turn, Commit("cat/1", bytes(32)).to_wire()))
    net.quarantine = lambda seat, raw: (
        action_tag(raw) == "commit" and body_of(raw)["action"] == Commit("cat/1", bytes(32)).to_wire()
    )
    net.start()
    net.run()
    deliver_bad(net, held_message(net), via=CHEATER, blame=CHEATER, kinds=("illegal",))


def test_end_message_signing_another_log_is_blamed() -> None:
    net = cheat_net(2, 55)

    def edit(body: dict[str, Json]) -> dict[str, Json]:
        if body["type"] == "end":
            body["log"] = bytes(32).hex()
        return body

    rewritten_is_a_violation(net, edit)
    assert not net.sessions[0].finished


def test_end_message_claiming_another_outcome_is_blamed() -> None:
    net = cheat_net(3, 56)

    def edit(body: dict[str, Json]) -> dict[str, Json]:
        if body["type"] == "end":
            body["outcome"] = {"scores": [0, 99, 0], "winners": [CHEATER]}
        return body

    rewritten_is_a_violation(net, edit)


# --- malformed messages ----------------------------------------------------------------------------


def valid_next(net: Net, seat: int, body: dict[str, Json] | None = None) -> dict[str, Json]:
    return dict(json.loads(net.forge(seat, body or bodies.chat("valid"), at=0)))


def without(obj: dict[str, Json], name: str) -> dict[str, Json]:
    return {key: value for key, value in obj.items() if key != name}


MALFORMED: dict[str, Callable[[Net], bytes]] = {
    "not-json": lambda net: b"this is not json",
    "empty": lambda net: b"",
    "not-utf8": lambda net: b"\xff\xfe\x00garbage",
    "json-array": lambda net: b"[]",
    "json-number": lambda net: b"42",
    "spaces": lambda net: json.dumps(valid_next(net, CHEATER), sort_keys=True).encode(),
    "unsorted-keys": lambda net: json.dumps(
        dict(reversed(list(valid_next(net, CHEATER).items()))), separators=(",", ":")
    ).encode(),
    "trailing-newline": lambda net: canonical(valid_next(net, CHEATER)) + b"\n",
    "missing-prev": lambda net: canonical(without(valid_next(net, CHEATER), "prev")),
    "missing-sig": lambda net: canonical(without(valid_next(net, CHEATER), "sig")),
    "missing-body": lambda net: canonical(without(valid_next(net, CHEATER), "body")),
    "extra-field": lambda net: canonical({**valid_next(net, CHEATER), "extra": 1}),
    "upper-case-hex": lambda net: canonical({**valid_next(net, CHEATER), "session": net.session_id.hex().upper()}),
    "short-sig": lambda net: canonical({**valid_next(net, CHEATER), "sig": "00" * 63}),
    "seat-string": lambda net: canonical({**valid_next(net, CHEATER), "seat": "1"}),
    "seq-negative": lambda net: canonical({**valid_next(net, CHEATER), "seq": -1}),
    "body-list": lambda net: canonical({**valid_next(net, CHEATER), "body": []}),
    "oversize": lambda net: canonical(valid_next(net, CHEATER, {"type": "chat", "text": "x" * MAX_MESSAGE_BYTES})),
    "seat-not-playing": lambda net: (
        seal(net.ids[CHEATER], net.session_id, 7, seq=0, prev=bytes(32), body=bodies.chat("hi")).raw
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_message_is_blamed_on_the_sender(name: str) -> None:
    net = midgame()
    raw = MALFORMED[name](net)
    if name == "oversize":
        assert len(raw) > MAX_MESSAGE_BYTES
    deliver_bad(net, raw, via=CHEATER, blame=CHEATER, kinds=("malformed",), to=[0, 2], awaited=False)


# NaN, Infinity and deep nesting are malformed input, not exceptions out of receive().
@pytest.mark.parametrize(
    "raw",
    [
        b'{"body":{"x":NaN},"prev":"00","seat":0,"seq":0,"session":"00","sig":"00"}',
        b'{"body":{"x":-Infinity},"prev":"00","seat":0,"seq":0,"session":"00","sig":"00"}',
        b'{"body":{"x":1.5},"prev":"00","seat":0,"seq":0,"session":"00","sig":"00"}',
        b"[" * 50_000,
        b'{"body":' * 6_000,
    ],
    ids=["nan", "infinity", "float", "deep-array", "deep-object"],
)
def test_malformed_json_edge_cases_are_faults_not_exceptions(raw: bytes) -> None:
    net = midgame()
    deliver_bad(net, raw, via=CHEATER, blame=CHEATER, kinds=("malformed",), to=[0], awaited=False)


BAD_BODIES: dict[str, Callable[[int], dict[str, Json]]] = {
    "turn-not-int": lambda turn: {"type": "act", "turn": "x", "action": NoBait().to_wire()},
    "no-turn": lambda turn: {"type": "act", "action": NoBait().to_wire()},
    "no-action": lambda turn: {"type": "act", "turn": turn},
    "bad-spot": lambda turn: {"type": "act", "turn": turn, "action": {"t": "bait", "target": "z9", "source": "a1"}},
    "unknown-action": lambda turn: {"type": "act", "turn": turn, "action": {"t": "teleport"}},
    "action-not-object": lambda turn: {"type": "act", "turn": turn, "action": "nobait"},
    "reveal-without-nonce": lambda turn: {"type": "act", "turn": turn, "action": Reveal("cat/1", 1).to_wire()},
    "unknown-type": lambda turn: {"type": "dance", "turn": turn},
    "no-type": lambda turn: {"turn": turn, "action": NoBait().to_wire()},
    "wrong-turn": lambda turn: {"type": "act", "turn": turn + 1, "action": NoBait().to_wire()},
    "rand-commit-instead": lambda turn: bodies.rand_commit(turn, bytes(32)),
}


@pytest.mark.parametrize("name", sorted(BAD_BODIES))
def test_bad_body_of_an_awaited_message_is_blamed_on_its_author(name: str) -> None:
    net = cheat_net(3, 60)
    pause_at_bait(net)
    net.start()
    net.run()
    baiter = net.sessions[0].state.current
    bad = net.forge(baiter, BAD_BODIES[name](net.sessions[0].turn))
    deliver_bad(net, bad, via=baiter, blame=baiter, kinds=("malformed", "violation", "illegal"))


# --- silence ---------------------------------------------------------------------------------------


# Regression: a reveal is sent by the seat's software by itself, so withholding it must be named after
# `drop_after`, not after the players' decision time `decide_within`.
def test_withheld_reveal_is_named_slow_then_dropped() -> None:
    net = cheat_net(3, 70, slow_after=1, drop_after=3)
    held_back_move(net, "reveal")
    for seat in net.honest(CHEATER):
        session = net.sessions[seat]
        assert session.waiting_for() == (CHEATER,)
        session.take_events()
        before = snapshot(session)
        session.tick(100.0)
        session.tick(100.5)
        assert session.take_events() == [] and session.fault is None
        session.tick(101.0)
        assert session.take_events() == [Slow(CHEATER)]
        session.tick(102.9)
        assert session.take_events() == [] and session.fault is None
        session.tick(103.0)
        fault = session.fault
        assert fault is not None
        assert (fault.seat, fault.kind) == (CHEATER, "timeout")
        assert "the reveal it owes was due (left unproven:" in fault.reason, fault.reason
        assert fault.evidence and all(author_of(raw) == CHEATER for raw in fault.evidence)
        assert all(action_tag(raw) == "commit" for raw in fault.evidence), "its own commitment is the evidence"
        assert session.take_events() == [Stopped(fault)]
        assert snapshot(session) == before
        assert session.waiting_for() == ()


def test_waiting_starts_afresh_after_the_seat_answers() -> None:
    net = cheat_net(2, 71, slow_after=1, drop_after=3)
    hold = pause_at_bait(net)
    net.start()
    net.run()
    baiter = net.sessions[0].state.current
    waiter = net.sessions[1 - baiter]
    assert waiter.waiting_for() == (baiter,)
    waiter.tick(0.0)
    waiter.tick(2.5)
    assert waiter.fault is None
    assert Slow(baiter) in waiter.take_events()
    hold["on"] = False
    clock = 2.5
    while net.step():  # the baiter answers, and later turns wait on it again: each wait is short
        clock += 0.05
        for session in net.sessions:
            session.tick(clock)
    assert clock > 3.5
    for session in net.sessions:
        assert session.finished and session.fault is None, session.fault
    assert not any(isinstance(event, Stopped) for events in net.events for event in events)


# A seat that was slow once and answered is called slow again on a later wait, before it is dropped.
def test_every_drop_is_preceded_by_a_slow_event_for_that_wait() -> None:
    net = cheat_net(3, 73, slow_after=1, drop_after=3)
    hold = pause_at_bait(net)
    net.start()
    net.run()
    cheater = net.sessions[0].state.current  # baits first
    bait_turn = net.sessions[0].turn
    net.quarantine = lambda seat, raw: (
        seat == cheater and body_of(raw)["type"] == "rand-reveal" and bodies.turn_of(body_of(raw)) > bait_turn
    )
    watcher = net.sessions[(cheater + 1) % 3]
    # a first wait: the cheater is slow to bait, then answers
    watcher.tick(0.0)
    watcher.tick(2.0)
    assert watcher.take_events() == [Slow(cheater)]
    hold["on"] = False
    net.run()
    held_message(net)
    assert watcher.waiting_for() == (cheater,)
    assert watcher.rules.chance(watcher.state) is not None  # the next pond fill
    watcher.take_events()
    # the second wait, on its withheld random contribution, ends the game
    watcher.tick(10.0)
    watcher.tick(11.5)
    watcher.tick(13.0)
    events = watcher.take_events()
    assert watcher.fault is not None and (watcher.fault.seat, watcher.fault.kind) == (cheater, "timeout")
    assert events[-1] == Stopped(watcher.fault)
    assert Slow(cheater) in events[:-1], events


def test_a_player_who_does_not_decide_is_dropped_after_the_decision_time() -> None:
    net = cheat_net(3, 74, slow_after=1, drop_after=3, decide_within=20)
    pause_at_bait(net)
    net.start()
    net.run()
    baiter = net.sessions[0].state.current
    watcher = net.sessions[(baiter + 1) % 3]
    watcher.tick(0.0)
    watcher.tick(10.0)
    assert watcher.fault is None
    assert watcher.take_events() == [Slow(baiter)]
    watcher.tick(19.9)
    assert watcher.fault is None
    watcher.tick(20.0)
    assert watcher.fault is not None
    assert (watcher.fault.seat, watcher.fault.kind) == (baiter, "timeout")


# --- stop reports ----------------------------------------------------------------------------------


def test_a_fault_found_by_one_peer_stops_every_peer() -> None:
    net = Net(3, 80)
    net.start()
    assert net.run(until=lambda n: all(s.turn >= 4 for s in n.sessions))
    bad = net.forge(CHEATER, bodies.chat("broken"), at=0, prev=bytes([3]) * 32)
    net.frozen.add(CHEATER)
    net.deliver(0, bad, CHEATER)
    assert net.sessions[0].fault is not None
    before = snapshot(net.sessions[2])
    net.run()
    fault = net.sessions[2].fault
    assert fault is not None
    assert fault.seat == CHEATER
    assert fault.evidence
    assert snapshot(net.sessions[2]) == before or net.sessions[2].turn > before.turn


# Regression: a stop report was once taken on trust, so any seat could have an innocent seat named as
# the culprit on every honest peer.
def test_a_stop_report_without_proof_does_not_name_an_innocent_seat() -> None:
    net = cheat_net(3, 81)
    net.start()
    assert net.run(until=lambda n: all(s.turn >= 4 for s in n.sessions))
    innocent = 2
    report = net.forge(CHEATER, bodies.stop(innocent, "violation", "seat 2 cheated, trust me", ()))
    peer = net.sessions[0]
    for raw in net.sessions[CHEATER].own_messages():
        peer.receive(raw, CHEATER)  # the report is taken in its chain's order, after what came before it
    before = snapshot(peer)
    peer.receive(report, CHEATER)
    assert snapshot(peer) == before
    assert peer.fault is None, "it waits a moment for its own proof"
    peer.tick(100.0)
    peer.tick(100.0 + REPORT_GRACE_S)
    assert peer.fault is not None  # stopping is fine: any player may abort
    assert peer.fault.seat != innocent, peer.fault
    assert peer.fault.seat is None and peer.fault.kind == "report" and "not proven" in peer.fault.reason


# Regression: a stop report once carried its evidence in full, so reporting an oversize message made the
# report itself oversize, and the other peers blamed the honest reporter.
def test_reporting_an_oversize_message_does_not_get_the_reporter_blamed() -> None:
    net = Net(3, 82)
    net.start()
    assert net.run(until=lambda n: all(s.turn >= 4 for s in n.sessions))
    oversize = MALFORMED["oversize"](net)
    net.frozen.add(CHEATER)
    net.deliver(0, oversize, CHEATER)
    fault = net.sessions[0].fault
    assert fault is not None and fault.seat == CHEATER
    net.run()
    assert net.sessions[2].fault is None, "it waits for its own proof, which never comes (the cheat is frozen)"
    net.sessions[2].tick(0.0)
    net.sessions[2].tick(REPORT_GRACE_S)
    other = net.sessions[2].fault
    assert other is not None
    assert other.seat != 0, other
