"""Fuzzing with hypothesis: the message decoder, the games' action decoders, live sessions of every game,
the peer runner's frames and the lobby, fed random and mutated input.

1. `open_envelope` on arbitrary bytes, byte mutations and JSON-level mutations of real messages: an
   envelope (then exactly the canonical form of a well-formed one) or MalformedInput, nothing else; no
   mutation of a real message yields another validly signed one.
2. Every game's `decode_action` on any JSON value and on mutations of valid wire forms: an Action or
   MalformedInput; a decoded action re-encodes to canonical JSON that decodes to an equal action.
3. A live session of each game, stopped early, mid-game, at another seat's decision and in the end turn
   (fuzz_helpers.Point), receives unsigned garbage, replays of real messages, messages validly signed by
   another seat with mutated bodies, and moves open to the seat due, over the link of any other seat (or
   none): nothing escapes `Session.receive`; garbage stops it blaming the link and leaves its honest view
   (state, log, turn, log hash, commitments, openings) and what it holds of the other seats' chains
   exactly as an untouched twin's; a replay ends, once the honest messages in flight are in, exactly where
   the twin does; a signed forgery is either taken as a move the rules allow (the log only grows and
   replays to the state; a forgery never taken leaves the twin's view) or stopped blaming its signer
   (nobody, only for a stop report it cannot prove); a legal move is applied as exactly that move.
4. The peer runner's `on_frames` (frames M/H/B/A, heartbeats with have-vectors) and the lobby's readers
   (`_opened`, the host's `_admit`, the joiner's `_await_start`) on random frames and messages: nothing
   escapes but the lobby's own refusals.

Example counts scale with P2PFISH_TEST_SCALE (tests/campaign.py; scripts/fuzz runs a 40x campaign and prints
the cases run).
"""

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from campaign import pick, some
from fuzz_helpers import (
    COUNTS,
    GAMES,
    INTS,
    REPORT_VARIABLE,
    TEXT,
    Point,
    action_corpus,
    action_pool,
    clone,
    consistent,
    count,
    deliver_all,
    depth,
    fuzz_settings,
    honest_view,
    json_values,
    mutated_bytes,
    mutated_json,
    points,
    pool_of,
    serialised,
    subtrees,
    wire_view,
)
from hypothesis import event, given
from hypothesis import strategies as st
from transport_helpers import RecordingTransport

from p2pfish.core.actions import Action, Reveal, RevealsCards
from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.net import heads, lobby, lobbylink
from p2pfish.net.lobby import LobbyHost, LobbyRefused, PlayerCard, Table, code_key
from p2pfish.net.node import AWAY, BYE, HEARTBEAT, MESSAGE, NodeTimers, PeerNode
from p2pfish.session import bodies
from p2pfish.session.envelope import (
    FIELDS,
    MAX_DEPTH,
    MAX_MESSAGE_BYTES,
    Envelope,
    canonical,
    open_envelope,
    parse_json,
    seal,
)
from p2pfish.session.session import Fault, Session
from p2pfish.session.setup import GameSetup

GAME_IDS = tuple(GAMES)


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    """After the module: the cases run per target, printed (seen with -s) and written for scripts/fuzz."""
    COUNTS.clear()
    yield
    lines = [f"{target}: {n}" for target, n in sorted(COUNTS.items())]
    print("\nfuzz cases run:\n  " + "\n  ".join(lines) + f"\n  total: {sum(COUNTS.values())}")
    path = os.environ.get(REPORT_VARIABLE)
    if path:
        Path(path).write_text(json.dumps(dict(sorted(COUNTS.items())), indent=1))


def all_points() -> tuple[Point, ...]:
    return tuple(point for game in GAME_IDS for point in points(game))


@functools.cache
def all_messages() -> tuple[bytes, ...]:
    return tuple(sorted({raw for point in all_points() for raw in point.honest}))


@functools.cache
def all_messages_set() -> frozenset[bytes]:
    return frozenset(all_messages())


@functools.cache
def message_pool() -> tuple[Json, ...]:
    return pool_of(list(all_messages()))


@functools.cache
def rosters() -> dict[bytes, tuple[bytes, ...]]:
    return {point.setup.session_id: point.setup.roster for point in all_points()}


# --- 1. open_envelope --------------------------------------------------------------------------------


def check_opened(envelope: Envelope, raw: bytes) -> None:
    """What an opened envelope guarantees: the exact canonical bytes of a well-formed message."""
    assert len(raw) <= MAX_MESSAGE_BYTES
    assert envelope.raw == raw and envelope.hash == hashlib.sha256(raw).digest()
    obj = json.loads(raw)
    assert isinstance(obj, dict) and set(obj) == FIELDS
    assert canonical(obj) == raw
    assert depth(obj) <= MAX_DEPTH
    assert (len(envelope.session), len(envelope.prev), len(envelope.sig)) == (32, 32, 64)
    assert (obj["session"], obj["prev"], obj["sig"]) == (
        envelope.session.hex(),
        envelope.prev.hex(),
        envelope.sig.hex(),
    )
    for value in (envelope.seat, envelope.seq):
        assert type(value) is int and value >= 0
    assert (obj["seat"], obj["seq"]) == (envelope.seat, envelope.seq)
    assert isinstance(envelope.body, dict) and envelope.body == obj["body"]


def open_or_none(raw: bytes) -> Envelope | None:
    """open_envelope's answer: an envelope (checked) or None for MalformedInput; anything else fails."""
    try:
        envelope = open_envelope(raw)
    except MalformedInput as error:
        assert isinstance(error.reason, str) and error.reason and error.seat is None
        return None
    check_opened(envelope, raw)
    return envelope


def well_formed(value: Json, raw: bytes) -> bool:
    """An independent reading of PROTOCOL §4-§5 for canonical bytes of `value`: is it a message?"""
    if len(raw) > MAX_MESSAGE_BYTES or not isinstance(value, dict) or set(value) != FIELDS:
        return False
    if depth(value) > MAX_DEPTH or not isinstance(value["body"], dict):
        return False
    for name, digits in (("session", 64), ("prev", 64), ("sig", 128)):
        text = value[name]
        if not isinstance(text, str) or len(text) != digits or any(c not in "0123456789abcdef" for c in text):
            return False
    numbers = (value["seat"], value["seq"])
    return all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers)


def no_forgery(envelope: Envelope | None) -> None:
    """A changed message never carries a valid signature of a seat, unless it is a real message."""
    if envelope is None:
        return
    roster = rosters().get(envelope.session)
    if roster is not None and envelope.seat < len(roster) and envelope.signature_valid(roster[envelope.seat]):
        assert envelope.raw in all_messages_set(), "a mutation produced a new validly signed message"


NESTED = tuple(
    [b"[" * n + b"]" * n for n in (MAX_DEPTH, MAX_DEPTH + 1, 990, 1000, 5000, 40_000)]
    + [b'{"a":' * n + b"1" + b"}" * n for n in (MAX_DEPTH, 995, 3000)]
    + [b"[" * 70_000, b"1" * 5000, b"1" * 70_000, b"-" + b"9" * 4300, b'"' + b"\\u0000" * 11_000 + b'"']
    + [b"", b"{}", b"[]", b"null", b"\xef\xbb\xbf{}", b"\xff\xfe{\x00}\x00", b"\x00" * 8, b'{"body":{}}']
)


@fuzz_settings(200)
@given(st.binary(max_size=400) | st.sampled_from(NESTED))
def test_open_envelope_on_arbitrary_bytes(raw: bytes) -> None:
    count("1 open_envelope: arbitrary bytes")
    open_or_none(raw)


@fuzz_settings(150)
@given(st.data())
def test_open_envelope_on_byte_mutations_of_real_messages(data: st.DataObject) -> None:
    count("1 open_envelope: byte mutations")
    corpus = all_messages()
    raw = data.draw(mutated_bytes(pick(data, corpus), corpus[:50]))
    no_forgery(open_or_none(raw))


@fuzz_settings(150)
@given(st.data())
def test_open_envelope_on_json_mutations_of_real_messages(data: st.DataObject) -> None:
    count("1 open_envelope: JSON mutations")
    corpus = all_messages()
    original = json.loads(pick(data, corpus))
    value = data.draw(mutated_json(original, message_pool(), raw=True))
    raw, exact = data.draw(serialised(value))
    envelope = open_or_none(raw)
    no_forgery(envelope)
    if exact:
        assert (envelope is not None) == well_formed(value, raw), value


# --- 2. decode_action --------------------------------------------------------------------------------


def decode_or_none(game: str, wire: Json) -> Action | None:
    rules = get_rules(game)
    try:
        action = rules.decode_action(wire)
    except MalformedInput as error:
        assert isinstance(error.reason, str) and error.reason
        return None
    assert isinstance(action, Action)
    text = canonical(action.to_wire())
    again = rules.decode_action(parse_json(text))
    assert again == action and type(again) is type(action)
    assert canonical(again.to_wire()) == text
    return action


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_sample_wire_form_decodes(game: str) -> None:
    for wire in action_corpus(game):
        assert decode_or_none(game, wire) is not None, wire


@pytest.mark.parametrize("game", GAME_IDS)
@fuzz_settings(60)
@given(wire=json_values(16) | st.fixed_dictionaries({"t": TEXT}, optional={"x": INTS, "value": json_values(4)}))
def test_decode_action_on_any_json(game: str, wire: Json) -> None:
    count(f"2 decode_action: any JSON ({game})")
    decode_or_none(game, wire)


@pytest.mark.parametrize("game", GAME_IDS)
@fuzz_settings(75)
@given(data=st.data())
def test_decode_action_on_mutated_wire_forms(game: str, data: st.DataObject) -> None:
    count(f"2 decode_action: mutated wire forms ({game})")
    wire = data.draw(mutated_json(pick(data, action_corpus(game)), action_pool(game)))
    decode_or_none(game, wire)


# --- 3. a live session -------------------------------------------------------------------------------


def vouched(point: Point, raw: bytes) -> int | None:
    """The seat whose signature vouches for `raw` in this game, or None (malformed, another game, no
    such seat, a bad signature)."""
    try:
        envelope = open_envelope(raw)
    except MalformedInput:
        return None
    if envelope.session != point.setup.session_id or envelope.seat >= point.players:
        return None
    return envelope.seat if envelope.signature_valid(point.setup.roster[envelope.seat]) else None


def own_stops_only(point: Point, victim: Session) -> None:
    """Besides what it held, the victim's log of messages gained at most its own stop report."""
    before = point.base.accepted
    assert victim.accepted[: len(before)] == before
    extra = [open_envelope(raw) for raw in victim.accepted[len(before) :]]
    assert len(extra) <= 1 and all(e.seat == point.seat and e.kind == bodies.STOP for e in extra), extra


def check_blame(fault: Fault, author: int, stop_report: bool) -> None:
    """A signed forgery is blamed on its signer; only a stop report may end in a fault of nobody."""
    assert fault.kind in ("malformed", "violation", "illegal", "report"), fault
    assert fault.evidence, fault
    if fault.seat is None:
        assert stop_report, f"a forgery by seat {author} stopped the game blaming nobody: {fault}"
    else:
        assert fault.seat == author, f"a forgery by seat {author} was blamed on seat {fault.seat}: {fault}"


def judge(point: Point, victim: Session, raw: bytes, via: int | None) -> str:
    """Check what `victim` (a clone of point.base) did with `raw` from `via`; returns the case."""
    fault = victim.fault
    if raw in point.honest:
        # a real message of this game, again or early: the same as its honest delivery
        assert fault is None, fault
        deliver_all(victim, point.in_flight)
        assert victim.fault is None, victim.fault
        assert honest_view(victim) == point.after
        assert wire_view(victim) == point.wire_after
        return "replay"
    author = vouched(point, raw)
    if author is None:
        # no signature vouches for it: blamed on the link, and nothing else changed
        assert fault is not None, "a message no signature vouches for was taken"
        assert (fault.seat, fault.evidence) == (via, (raw,)), fault
        assert fault.kind in ("malformed", "violation"), fault
        assert honest_view(victim) == point.before
        assert wire_view(victim) == point.wire_before
        own_stops_only(point, victim)
        return "unsigned"
    assert author != point.seat, "the fuzzer never signs as the victim"
    stop_report = open_envelope(raw).kind == bodies.STOP
    if fault is not None:
        check_blame(fault, author, stop_report)
        if raw not in victim.accepted:
            # refused by its author's chain (equivocation, a broken chain): nothing else was looked at
            assert honest_view(victim) == point.before
            assert wire_view(victim) == point.wire_before
            own_stops_only(point, victim)
            return f"forged: refused ({fault.kind})"
    if honest_view(victim) != point.before:
        consistent(victim, point.before)
    if fault is not None:
        return f"forged: {fault.kind}" + (" after moves" if honest_view(victim) != point.before else "")
    # no fault yet (taken, or buffered ahead of a gap): let the honest messages in flight arrive
    taken_at_once = raw in victim.accepted
    deliver_all(victim, point.in_flight)
    if victim.fault is not None:
        check_blame(victim.fault, author, stop_report)
    consistent(victim, point.before)
    if raw not in victim.accepted and victim.fault is None:
        assert honest_view(victim) == point.after, "a message never taken changed the game"
    if victim.fault is not None:
        return f"forged: later {victim.fault.kind}"
    return "forged: taken" if taken_at_once else "forged: buffered"


def point_of(data: st.DataObject, game: str) -> Point:
    return pick(data, points(game))


def via_of(data: st.DataObject, point: Point) -> int | None:
    return data.draw(st.sampled_from([*point.others(), None]), label="via")


def delivered(data: st.DataObject, point: Point, raw: bytes) -> tuple[Session, str]:
    """Hand `raw` to a clone of point.base (the victim), from a drawn sender or none; the victim and its case."""
    via = via_of(data, point)
    victim = clone(point.base)
    victim.receive(raw, via)
    return victim, judge(point, victim, raw, via)


def identity(point: Point, seat: int) -> Identity:
    return point.signers[seat]


@st.composite
def garbage(draw: st.DrawFn, point: Point) -> bytes:
    """Bytes no signature of this game vouches for (or, by chance, a real message)."""
    corpus = point.corpus
    original = pick(draw, corpus)
    envelope = open_envelope(original)
    kind = draw(st.sampled_from(["bytes", "mutated", "json", "another game", "no such seat", "wrong key"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "mutated":
        return draw(mutated_bytes(original, tuple(corpus[:40])))
    if kind == "json":
        value = draw(mutated_json(json.loads(original), point.pool, raw=True))
        return draw(serialised(value))[0]
    signer = identity(point, draw(st.sampled_from(range(point.players))))
    session, seat = point.setup.session_id, envelope.seat
    if kind == "another game":
        session = hashlib.sha256(b"another game" + session).digest()
        signer = identity(point, seat)
    elif kind == "no such seat":
        seat = point.players + draw(st.sampled_from([0, 1, 2**31, 2**64]))
    else:
        seat = draw(st.sampled_from([s for s in range(point.players) if point.signers[s] is not signer]))
    return seal(signer, session, seat, seq=envelope.seq, prev=envelope.prev, body=envelope.body).raw


@pytest.mark.parametrize("game", GAME_IDS)
@fuzz_settings(30)
@given(data=st.data())
def test_session_on_unsigned_garbage(game: str, data: st.DataObject) -> None:
    count(f"3 session: garbage ({game})")
    point = point_of(data, game)
    raw = data.draw(garbage(point), label="message")
    event(f"{point.label}: {delivered(data, point, raw)[1]}")


@pytest.mark.parametrize("game", GAME_IDS)
@fuzz_settings(15)
@given(data=st.data())
def test_session_on_replays_of_real_messages(game: str, data: st.DataObject) -> None:
    count(f"3 session: replays ({game})")
    point = point_of(data, game)
    raw = pick(data, point.coming + point.accepted)
    assert delivered(data, point, raw)[1] == "replay"
    event(f"{point.label}: {'early' if raw in point.coming else 'again'}")


@st.composite
def evidence_items(draw: st.DrawFn, point: Point) -> Json:
    """What a stop report may quote: real messages (held or in flight), garbage, or other JSON."""
    item = draw(
        st.sampled_from(point.accepted + point.coming).map(lambda r: r.decode("ascii"))
        | garbage(point).map(lambda r: r.decode("ascii", "replace"))
        | json_values(3)
    )
    return item


HEXISH: tuple[Json, ...] = ("00" * 32, "11" * 32, ["00" * 32], [], {})


@st.composite
def forged_body(draw: st.DrawFn, point: Point, author: int) -> dict[str, Json]:
    """A body the author could sign: one of its real ones (or another seat's) mutated, one of the moves
    it may make now, a near-valid body of any type for the turn under way, or a stop report with odd
    evidence."""
    turn = point.base.turn
    moves = point.moves.get(author)
    if moves and draw(st.integers(0, 3)) == 0:
        return bodies.act(turn, pick(draw, moves))
    kind = draw(st.sampled_from(["mutated", "mutated", "act", "act", "turn message", "stop", "chat"]))
    if kind == "mutated":
        own = point.by_author[author] or point.corpus
        real = open_envelope(pick(draw, own)).body
        mutated = draw(mutated_json(real, point.pool))
        return mutated if isinstance(mutated, dict) else {"type": "act", "turn": turn, "action": mutated}
    turns = st.sampled_from([turn, turn, turn, turn, turn, turn + 1, turn - 1, 0]) | INTS
    if kind == "act":
        action: Json = pick(draw, moves or action_corpus(point.game))
        if draw(st.booleans()):
            action = draw(mutated_json(action, action_pool(point.game)))
        body: dict[str, Json] = {"type": "act", "turn": draw(turns), "action": action}
        if draw(st.booleans()):
            body["nonce"] = draw(st.sampled_from(["00" * 32, "ab" * 32]) | json_values(2))
        if draw(st.booleans()):
            keys: list[Json] = ["01" * 32, "ff" * 32, "00" * 32]
            body["card_keys"] = some(draw, keys, 3)
        return body
    if kind == "turn message":
        return {
            "type": draw(st.sampled_from([*bodies.TURN_KINDS, "rand", "ACT", ""])),
            "turn": draw(turns),
            **draw(
                st.dictionaries(
                    st.sampled_from(sorted(set().union(*bodies.FIELDS.values()) - {"type", "turn"})),
                    st.sampled_from(HEXISH) | json_values(3),
                    max_size=4,
                )
            ),
        }
    if kind == "stop":
        return {
            "type": "stop",
            "seat": draw(st.none() | st.sampled_from(range(point.players)) | json_values(2)),
            "kind": draw(st.sampled_from(["malformed", "violation", "illegal", "timeout", "report"]) | TEXT),
            "reason": draw(TEXT | json_values(3)),
            "evidence": draw(st.lists(evidence_items(point), max_size=3) | json_values(2)),
        }
    return bodies.chat(draw(TEXT)) if draw(st.booleans()) else {"type": "chat", "text": draw(json_values(3))}


@pytest.mark.parametrize("game", GAME_IDS)
@fuzz_settings(45)
@given(data=st.data())
def test_session_on_messages_signed_by_another_seat(game: str, data: st.DataObject) -> None:
    count(f"3 session: signed forgeries ({game})")
    point = point_of(data, game)
    author = data.draw(
        st.sampled_from(point.awaited or point.others()) | st.sampled_from(point.others()), label="author"
    )
    body = data.draw(forged_body(point, author), label="body")
    own_next, own_head = point.heads[author]
    held = point.base.chains[author]
    # Where it goes in the author's chain. Not at a seq of a real message the victim lacks with the right
    # `prev`: taken before the real one, it would be an equivocation the victim proves only once the real
    # one arrives, and this in-memory network does not keep the per-link order that makes a relay of the
    # real one arrive before anything built on it (PROTOCOL §9, §17.3).
    place = data.draw(st.sampled_from(["next", "next", "old", "ahead", "broken"]), label="place")
    if place == "old" and held.next_seq == 0:
        place = "next"
    if place == "old":
        seq = data.draw(st.integers(0, held.next_seq - 1))
        prev = data.draw(st.sampled_from([held.accepted[seq].prev, own_head, bytes(32)]))
    elif place == "ahead":
        seq, prev = own_next + data.draw(st.integers(1, 3)), data.draw(st.sampled_from([own_head, bytes(32)]))
    elif place == "broken":
        seq, prev = held.next_seq, hashlib.sha256(b"not the head").digest()
    else:
        seq, prev = own_next, own_head
    raw = seal(identity(point, author), point.setup.session_id, author, seq=seq, prev=prev, body=body).raw
    victim, case = delivered(data, point, raw)
    event(f"{point.label}, {place}: {case}")
    if place == "old" and case.startswith("forged"):
        assert victim.fault is not None and victim.fault.seat == author and "equivocation" in victim.fault.reason


@pytest.mark.parametrize("game", GAME_IDS)
@fuzz_settings(12)
@given(data=st.data())
def test_session_on_moves_signed_by_the_seat_due(game: str, data: st.DataObject) -> None:
    """A seat due to decide signs one of the moves open to it (not the one it will make): the victim
    takes it as that seat's move, exactly as the rules apply it, unless it lacks what opens a secret."""
    count(f"3 session: legal moves ({game})")
    point, author = pick(data, [(p, seat) for p in points(game) for seat in sorted(p.moves)])
    move = pick(data, point.moves[author])
    own_next, own_head = point.heads[author]
    body = bodies.act(point.base.turn, move)
    raw = seal(identity(point, author), point.setup.session_id, author, seq=own_next, prev=own_head, body=body).raw
    victim, case = delivered(data, point, raw)
    event(f"{point.label}: {case}")
    action = get_rules(game).decode_action(move)
    if isinstance(action, (Reveal, RevealsCards)):
        # without the nonce or the card keys that open it, the move is refused and blamed on its author
        assert victim.fault is not None and victim.fault.seat == author, victim.fault
        return
    assert victim.fault is None, victim.fault
    applied = [entry for entry in victim.log[len(point.before.log) :] if entry.seat == author]
    pending = victim._pending.get(author)
    assert [e.action for e in applied] == [action] or (pending is not None and pending.raw == raw), case


# --- 4. frames and the lobby ----------------------------------------------------------------------------


@functools.cache
def heartbeat_payload(point: Point) -> st.SearchStrategy[bytes]:
    own = point.setup.session_id.hex()
    have = st.lists(INTS | st.booleans() | st.just(1.5) | TEXT, max_size=5) | st.lists(
        st.integers(0, 100), min_size=point.players, max_size=point.players
    )
    beat = st.fixed_dictionaries(
        {},
        optional={
            "session": st.sampled_from([own, own.upper(), "00" * 32, ""]) | json_values(2),
            "have": have | json_values(3),
            "heads": st.lists(
                st.sampled_from(["", "ab" * 16, "AB" * 16, "0"]), min_size=point.players, max_size=point.players
            )
            | json_values(2),
            "x": json_values(2),
        },
    )
    return beat.map(lambda b: json.dumps(b).encode()) | st.sampled_from(NESTED) | st.binary(max_size=40)


@st.composite
def frames(draw: st.DrawFn, point: Point) -> list[bytes]:
    """One multipart message as the mesh hands it over (never empty: Mesh.receive drops those)."""
    shape = draw(st.sampled_from(["message", "heartbeat", "heartbeat", "bye", "away", "odd"]))
    if shape == "message":
        kind, payload = MESSAGE, draw(st.sampled_from(point.corpus) | garbage(point))
    elif shape == "heartbeat":
        kind, payload = HEARTBEAT, draw(heartbeat_payload(point))
    else:
        kind = {"bye": BYE, "away": AWAY}.get(shape) or draw(st.binary(max_size=2))
        payload = draw(st.binary(max_size=60) | heartbeat_payload(point))
    extra = draw(st.lists(st.binary(max_size=8) | heartbeat_payload(point), max_size=2))
    return draw(st.sampled_from([[kind], [kind, payload], [kind, payload], [kind, payload, *extra]]))


@fuzz_settings(125)
@given(data=st.data())
def test_peer_runner_on_random_frames(data: st.DataObject) -> None:
    count("4 peer runner: frames")
    point = pick(data, points("fishnstones"))
    session = clone(point.base)
    mesh = RecordingTransport(point.others())
    clock = [100.0]
    node = PeerNode(session, mesh, None, timers=NodeTimers(), clock=lambda: clock[0])
    senders = []
    message_senders: set[int] = set()
    """Links that sent a message frame: one read only once its link's heartbeat showed this game is blamed then."""
    for _ in range(data.draw(st.integers(1, 5))):
        seat = data.draw(st.sampled_from(point.others()))
        senders.append(seat)
        multipart = data.draw(frames(point))
        if multipart[0] == MESSAGE:
            message_senders.add(seat)
        stopped = session.fault is not None
        node.on_frames(seat, multipart)
        fault = session.fault
        if fault is not None and not stopped:
            # a bad message or an oversized frame is blamed on the link it came over; a heartbeat of another
            # game on nobody
            if fault.seat is None:
                assert multipart[0] == HEARTBEAT and "another game setup" in fault.reason, fault
            elif "limit for its kind" in fault.reason:
                assert fault.seat == seat, fault
            else:
                assert fault.seat in message_senders, fault
        clock[0] += data.draw(st.sampled_from([0.0, 0.3, 1.0]))
    for have in node._peer_have.values():
        assert len(have) == point.players and all(type(n) is int and n >= 0 for n in have), have
    held = set(session.accepted)
    for to, sent in mesh.sent:
        assert sent[0] in (MESSAGE, HEARTBEAT, BYE, AWAY) and len(sent) in ((2, 3) if sent[0] == MESSAGE else (2,))
        if len(sent) == 3:
            assert heads.parse(sent[2], point.players) is not None, "a message went with heads that are not well formed"
        if sent[0] == MESSAGE:
            assert sent[1] in held, "the runner sent a message its session never accepted"
        if to is not None:
            assert sent[0] == MESSAGE and to in senders, "a resend went to a peer that asked for nothing"


CODE = "ABC234"
CURVE = "DRPV(ZjlbI-atU=1asNq<5?U%9@f<CE@{I#U>Hu}"
LOBBY = bytes([7]) * 32


@pytest.fixture(scope="module")
def lobby_keys() -> tuple[bytes, PlayerCard, PlayerCard]:
    """The join code's key (scrypt: once), the host's card and a joiner's card."""
    host = PlayerCard.make(Identity.from_seed(bytes([1]) * 32), "ann", CURVE, "tcp://192.168.1.20:40001", LOBBY)
    joiner = PlayerCard.make(Identity.from_seed(bytes([2]) * 32), "bob", CURVE[::-1], "tcp://192.168.1.21:40001", LOBBY)
    return code_key(CODE), host, joiner


def lobby_messages(key: bytes, host: PlayerCard, joiner: PlayerCard) -> list[dict[str, Json]]:
    """A real message of every type but `refused`: a join, a lobby update, a start."""
    setup = GameSetup.create("fishnstones", {"start": "0"}, (host.identity, joiner.identity), ("ann", "bob"))
    cards: list[Json] = [host.to_wire(), joiner.to_wire()]
    return [
        {"type": "join", "card": joiner.to_wire()},
        {"type": "lobby", "game": "fishnstones", "players": 2, "cards": cards},
        {"type": "start", "setup": setup.to_wire(), "cards": cards},
    ]


@st.composite
def lobby_raw(draw: st.DrawFn, key: bytes, host: PlayerCard, joiner: PlayerCard) -> bytes:
    """A lobby message: a real one mutated, then sealed with the right key (so the readers behind the
    MAC see it), with a wrong one, or not at all; odd MACs; plain `refused`; raw bytes."""
    real = lobby_messages(key, host, joiner)
    message = draw(st.sampled_from(real))
    kinds = ["sealed", "sealed", "sealed", "wrong key", "odd mac", "refused", "bytes", "nested"]
    kind = draw(st.sampled_from(kinds))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "nested":
        return draw(st.sampled_from(NESTED))
    if kind == "refused":
        return canonical({"type": "refused", "reason": draw(TEXT | json_values(3))})
    pool = tuple(v for m in real for v in subtrees(m))
    mutated = draw(mutated_json(message, pool)) if draw(st.integers(0, 3)) else message
    if not isinstance(mutated, dict):
        mutated = {"type": "join", "card": mutated}
    try:
        text = canonical(mutated)
    except ValueError:
        return b"{}"
    if kind == "odd mac":
        mac = draw(st.sampled_from(["", "\u00e9" * 64, "\ud800", "AB" * 32, "00" * 32]) | json_values(2))
        return canonical({**mutated, "mac": mac})
    mac_key = key if kind == "sealed" else hashlib.sha256(key).digest()
    sealed = canonical({**mutated, "mac": hmac.new(mac_key, text, hashlib.sha256).hexdigest()})
    return draw(st.just(sealed) | mutated_bytes(sealed)) if draw(st.integers(0, 4)) == 0 else sealed


@fuzz_settings(125)
@given(data=st.data())
def test_lobby_opened_on_random_messages(data: st.DataObject, lobby_keys: tuple[bytes, PlayerCard, PlayerCard]) -> None:
    count("4 lobby: open a message")
    key, host, joiner = lobby_keys
    raw = data.draw(lobby_raw(key, host, joiner))
    message = lobby._opened(key, raw)
    if message is not None:
        assert "mac" not in message
        sent_mac = json.loads(raw)["mac"]
        assert sent_mac == hmac.new(key, canonical(message), hashlib.sha256).hexdigest()
        assert lobby._opened(key, lobby._sealed(key, message)) == message


@pytest.fixture(scope="module")
def lobby_host(lobby_keys: tuple[bytes, PlayerCard, PlayerCard]) -> Iterator[LobbyHost]:
    _, host_card, _ = lobby_keys
    host = LobbyHost("fishnstones", {}, players=4, host=host_card, code=CODE, bind="tcp://127.0.0.1:0")
    yield host
    host.close()


@fuzz_settings(75)
@given(data=st.data())
def test_lobby_host_admits_or_refuses_any_message(
    data: st.DataObject, lobby_keys: tuple[bytes, PlayerCard, PlayerCard], lobby_host: LobbyHost
) -> None:
    count("4 lobby: host admits")
    key, host_card, joiner = lobby_keys
    lobby_host.cards, lobby_host._joiners = [host_card], []
    links = [RecordingLink(), RecordingLink()]
    for _ in range(data.draw(st.integers(1, 3))):
        link = data.draw(st.sampled_from(links))
        before = list(lobby_host.cards)
        refusal = lobby_host._admit(link, data.draw(lobby_raw(key, host_card, joiner)))  # type: ignore[arg-type]
        if refusal is None:
            card = lobby_host.cards[-1]
            assert lobby_host.cards[:-1] == before and card.valid()
            assert id(lobby_host._joiners[-1]) == id(link)
            assert len({c.identity for c in lobby_host.cards}) == len(lobby_host.cards)
        else:
            assert isinstance(refusal, str) and lobby_host.cards == before


class RecordingLink:
    """Stands for a connection to the lobby: keeps what the host sends it."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send(self, message: bytes) -> bool:
        self.sent.append(message)
        return True


@fuzz_settings(75)
@given(data=st.data())
def test_lobby_host_answers_any_message_on_a_connection(
    data: st.DataObject, lobby_keys: tuple[bytes, PlayerCard, PlayerCard], lobby_host: LobbyHost
) -> None:
    """The first message of a connection and any later one: an answer of at most a frame, never an
    exception; a message that does not open ends the connection."""
    count("4 lobby: host answers a connection")
    key, host_card, joiner = lobby_keys
    lobby_host.cards, lobby_host._joiners = [host_card], []
    link = RecordingLink()
    for _ in range(data.draw(st.integers(1, 3))):
        raw = data.draw(lobby_raw(key, host_card, joiner) | hello_raw(key))
        refusal = lobby_host._refusal_of_first(raw)
        assert (refusal == "wrong join code") == (lobby._opened(key, raw) is None)
        kept = lobby_host._handled(link, raw)  # type: ignore[arg-type]
        assert kept == (lobby._opened(key, raw) is not None)
    assert link.sent and all(0 < len(sent) <= lobbylink.MAX_LOBBY_MESSAGE for sent in link.sent)


@st.composite
def hello_raw(draw: st.DrawFn, key: bytes) -> bytes:
    """A sealed hello whose nonce is fresh, repeated, malformed or missing."""
    nonce = draw(st.sampled_from(["00" * 16, "ab" * 16]) | st.text(max_size=40) | json_values(2))
    return lobby._sealed(key, {"type": "hello", "hello": nonce})


@st.composite
def lobby_stream(draw: st.DrawFn) -> bytes:
    """Bytes as a lobby connection may carry them: frames of any announced length, cut anywhere."""
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        body = draw(st.binary(max_size=64))
        length = draw(st.sampled_from([len(body), 0, lobbylink.MAX_LOBBY_MESSAGE + 1, 2**32 - 1]) | st.integers(0, 99))
        parts.append(lobbylink.LENGTH.pack(length) + body)
    return b"".join(parts) + draw(st.binary(max_size=8))


@fuzz_settings(125)
@given(stream=lobby_stream() | st.binary(max_size=200))
def test_lobby_frames_read_from_any_bytes(stream: bytes) -> None:
    count("4 lobby: read frames")

    async def frames_read() -> list[bytes]:
        reader = asyncio.StreamReader(limit=lobbylink.STREAM_LIMIT)
        reader.feed_data(stream)
        reader.feed_eof()
        frames: list[bytes] = []
        with contextlib.suppress(lobbylink.FrameRefused, asyncio.IncompleteReadError):
            while True:
                frames.append(await lobbylink.read_frame(reader))
        return frames

    frames = asyncio.run(frames_read())
    assert all(0 < len(frame) <= lobbylink.MAX_LOBBY_MESSAGE for frame in frames)
    assert b"".join(lobbylink.framed(frame) for frame in frames) == stream[: sum(4 + len(f) for f in frames)]


class Exhausted(Exception):
    """The fake dealer has nothing more to give: every message so far was ignored."""


class FakeDealer:
    def __init__(self, messages: list[bytes]) -> None:
        self.messages = list(messages)

    async def recv(self) -> bytes:
        if not self.messages:
            raise Exhausted
        return self.messages.pop(0)


@fuzz_settings(75)
@given(data=st.data())
def test_lobby_joiner_on_random_answers(data: st.DataObject, lobby_keys: tuple[bytes, PlayerCard, PlayerCard]) -> None:
    count("4 lobby: joiner reads answers")
    key, host, joiner = lobby_keys
    answers = data.draw(st.lists(lobby_raw(key, host, joiner), min_size=1, max_size=4))
    shown: list[tuple[PlayerCard, ...]] = []
    table: Table | None = None
    try:
        table = asyncio.run(
            lobby._await_start(FakeDealer(answers), key, joiner, lambda state: shown.append(state.cards))
        )
    except Exhausted:
        pass  # every answer was ignored
    except (LobbyRefused, MalformedInput):
        pass  # refused, or a card or setup that does not read: the join fails with its reason
    assert all(card.valid() for cards in shown for card in cards), "a card shown that its identity did not sign"
    if table is not None:
        assert isinstance(table, Table)
        assert joiner in table.cards and tuple(c.identity for c in table.cards) == table.setup.roster


# --- the helpers themselves ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
def test_fuzz_points_are_live_games_with_messages_in_flight(game: str) -> None:
    """Each stop is honest and mid-way: its twin takes the messages in flight without a fault, and a
    clone is independent of the point it was taken from."""
    for point in points(game):
        assert point.in_flight and point.base.fault is None and not point.base.finished
        copy_ = clone(point.base)
        deliver_all(copy_, point.in_flight)
        assert honest_view(copy_) == point.after and honest_view(point.base) == point.before
    assert [p.label for p in points(game)] == ["early", "mid", "decision", "end"]
