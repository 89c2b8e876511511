"""The signed envelope: round trip, canonical form, validation of every field, a signature over every
field; and fuzzing: nothing a peer sends makes receive() raise or changes honest state without a fault.

"""

import copy
import dataclasses
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from campaign import examples
from hypothesis import assume, given
from hypothesis import strategies as st
from session_helpers import Net, forge, pause_at_bait, snapshot

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json
from p2pfish.crypto.encoding import length_prefixed
from p2pfish.crypto.identity import Identity, verify
from p2pfish.games.fishnstones.rules import RULES
from p2pfish.games.registry import get_rules
from p2pfish.session import bodies
from p2pfish.session.envelope import (
    GENESIS,
    MAX_MESSAGE_BYTES,
    TAG_ENVELOPE,
    Envelope,
    canonical,
    open_envelope,
    seal,
)
from p2pfish.session.session import Session, stored_setup
from p2pfish.session.store import MemoryStore

VECTORS = Path(__file__).parent.parent / "protocol" / "vectors"
ALICE = Identity.from_seed(bytes([1]) * 32)
BOB = Identity.from_seed(bytes([2]) * 32)
SESSION = hashlib.sha256(b"a session").digest()
PREV = hashlib.sha256(b"the previous message").digest()
BODY: dict[str, Json] = {"type": "act", "turn": 3, "action": {"t": "bait", "target": "b2", "source": "b3"}}


def sealed(**changes: Any) -> Envelope:
    args: dict[str, Any] = {"session": SESSION, "seat": 1, "seq": 2, "prev": PREV, "body": BODY, **changes}
    return seal(ALICE, args["session"], args["seat"], seq=args["seq"], prev=args["prev"], body=args["body"])


def wire_object() -> dict[str, Json]:
    return dict(json.loads(sealed().raw))


# --- round trip ------------------------------------------------------------------------------------


def test_seal_open_round_trip() -> None:
    envelope = sealed()
    opened = open_envelope(envelope.raw)
    assert opened == envelope
    assert (opened.session, opened.seat, opened.seq, opened.prev, opened.body) == (SESSION, 1, 2, PREV, BODY)
    assert opened.hash == hashlib.sha256(envelope.raw).digest()
    assert opened.kind == "act"
    assert canonical(json.loads(envelope.raw)) == envelope.raw
    assert envelope.signature_valid(ALICE.public_bytes)
    assert not envelope.signature_valid(BOB.public_bytes)


def test_genesis_message_and_chat_round_trip() -> None:
    envelope = sealed(seq=0, prev=GENESIS, body=bodies.chat("héllo ☃"))
    opened = open_envelope(envelope.raw)
    assert opened.body == {"type": "chat", "text": "héllo ☃"}
    assert envelope.raw.isascii()
    assert opened.signature_valid(ALICE.public_bytes)


def test_signed_bytes_are_the_tagged_canonical_object_without_sig() -> None:
    envelope = sealed()
    unsigned = {key: value for key, value in json.loads(envelope.raw).items() if key != "sig"}
    assert envelope.signed_bytes() == length_prefixed(TAG_ENVELOPE, canonical(unsigned))
    assert verify(ALICE.public_bytes, envelope.signed_bytes(), envelope.sig)
    # the domain tag is part of what is signed
    assert not verify(ALICE.public_bytes, canonical(unsigned), envelope.sig)


def test_signed_bytes_cut_from_the_wire_are_those_encoded_from_the_fields() -> None:
    """A message's signed bytes are cut from its canonical wire form; a copy with a field changed encodes its own."""
    envelope = sealed(body=bodies.chat('a "quoted", {braced} [text]'))
    unsigned = {key: value for key, value in json.loads(envelope.raw).items() if key != "sig"}
    expected = length_prefixed(TAG_ENVELOPE, canonical(unsigned))
    assert envelope.signed_bytes() == open_envelope(envelope.raw).signed_bytes() == expected
    changed = dataclasses.replace(open_envelope(envelope.raw), seq=envelope.seq + 1)
    assert changed.signed_bytes() != expected
    assert not changed.signature_valid(ALICE.public_bytes)


def test_envelope_vector() -> None:
    vector = json.loads((VECTORS / "envelope.json").read_text())
    identity = Identity.from_seed(bytes.fromhex(vector["identity_seed"]))
    envelope = seal(
        identity,
        bytes.fromhex(vector["session_id"]),
        vector["seat"],
        seq=vector["seq"],
        prev=bytes.fromhex(vector["prev"]),
        body=vector["body"],
    )
    assert envelope.signed_bytes().hex() == vector["signed_bytes"]
    assert envelope.sig.hex() == vector["signature"]
    assert envelope.raw.decode() == vector["wire"]
    assert envelope.hash.hex() == vector["hash"]
    assert open_envelope(envelope.raw) == envelope


# --- canonical form --------------------------------------------------------------------------------


def non_canonical_forms() -> dict[str, bytes]:
    obj = wire_object()
    raw = sealed().raw
    return {
        "spaces": json.dumps(obj, sort_keys=True).encode(),
        "indented": json.dumps(obj, sort_keys=True, indent=1).encode(),
        "unsorted": json.dumps(dict(reversed(list(obj.items()))), separators=(",", ":")).encode(),
        "unsorted-body": raw.replace(
            b'"source":"b3","t":"bait","target":"b2"', b'"t":"bait","source":"b3","target":"b2"'
        ),
        "trailing-newline": raw + b"\n",
        "leading-space": b" " + raw,
        "escaped-ascii": raw.replace(b'"bait"', b'"\\u0062ait"'),
        "raw-utf8": canonical({**obj, "body": {"type": "chat", "text": "é"}}).replace(b"\\u00e9", "é".encode()),
        "float-seq": raw.replace(b'"seq":2', b'"seq":2.0'),
        "exponent-seq": raw.replace(b'"seq":2', b'"seq":2e0'),
    }


@pytest.mark.parametrize("name", sorted(non_canonical_forms()))
def test_non_canonical_form_is_refused(name: str) -> None:
    raw = non_canonical_forms()[name]
    assert raw != sealed().raw
    with pytest.raises(MalformedInput):
        open_envelope(raw)


def test_raw_utf8_form_differs_from_its_canonical_escape() -> None:
    raw = non_canonical_forms()["raw-utf8"]
    assert "é".encode() in raw
    assert json.loads(raw)["body"]["text"] == "é"


# --- every field validated -------------------------------------------------------------------------

FIELD_CASES: dict[str, Any] = {
    "session-short": ("session", "00" * 31),
    "session-long": ("session", "00" * 33),
    "session-upper": ("session", SESSION.hex().upper()),
    "session-not-hex": ("session", "zz" * 32),
    "session-int": ("session", 5),
    "prev-short": ("prev", "ab" * 31),
    "prev-upper": ("prev", PREV.hex().upper()),
    "prev-null": ("prev", None),
    "sig-short": ("sig", "00" * 63),
    "sig-long": ("sig", "00" * 65),
    "sig-upper": ("sig", "AB" * 64),
    "sig-list": ("sig", []),
    "seat-negative": ("seat", -1),
    "seat-string": ("seat", "1"),
    "seat-bool": ("seat", True),
    "seat-float": ("seat", 1.5),
    "seat-null": ("seat", None),
    "seq-negative": ("seq", -2),
    "seq-string": ("seq", "2"),
    "seq-bool": ("seq", False),
    "body-list": ("body", []),
    "body-string": ("body", "act"),
    "body-null": ("body", None),
}


@pytest.mark.parametrize("case", sorted(FIELD_CASES))
def test_every_field_is_validated(case: str) -> None:
    name, value = FIELD_CASES[case]
    with pytest.raises(MalformedInput):
        open_envelope(canonical({**wire_object(), name: value}))


@pytest.mark.parametrize("name", ["body", "prev", "seat", "seq", "session", "sig"])
def test_missing_field_is_refused(name: str) -> None:
    obj = wire_object()
    del obj[name]
    with pytest.raises(MalformedInput):
        open_envelope(canonical(obj))


def test_extra_field_and_non_object_are_refused() -> None:
    for raw in (canonical({**wire_object(), "hash": "00"}), b"[]", b"null", b'"text"', b"7", b"", b"\xff"):
        with pytest.raises(MalformedInput):
            open_envelope(raw)


def test_size_limit() -> None:
    text = "x" * (MAX_MESSAGE_BYTES - len(sealed(body={"type": "chat", "text": ""}).raw))
    at_limit = sealed(body={"type": "chat", "text": text}).raw
    assert len(at_limit) == MAX_MESSAGE_BYTES
    assert open_envelope(at_limit).body["text"] == text
    over = sealed(body={"type": "chat", "text": text + "x"}).raw
    with pytest.raises(MalformedInput):
        open_envelope(over)


# --- the signature covers every field --------------------------------------------------------------

CHANGES: dict[str, dict[str, Any]] = {
    "session": {"session": hashlib.sha256(b"another session").digest()},
    "seat": {"seat": 2},
    "seq": {"seq": 3},
    "prev": {"prev": GENESIS},
    "body-turn": {"body": {**BODY, "turn": 4}},
    "body-action": {"body": {**BODY, "action": {"t": "bait", "target": "b2", "source": "a2"}}},
    "body-extra-key": {"body": {**BODY, "nonce": "00" * 32}},
    "body-type": {"body": {**BODY, "type": "chat"}},
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_signature_covers_every_field(name: str) -> None:
    envelope = sealed()
    changed = dataclasses.replace(envelope, **CHANGES[name])
    assert changed.signed_bytes() != envelope.signed_bytes()
    assert not changed.signature_valid(ALICE.public_bytes)
    # the same on the wire: the changed message is well formed but its signature fails
    obj = json.loads(envelope.raw)
    for key, value in CHANGES[name].items():
        obj[key] = value.hex() if isinstance(value, bytes) else value
    reopened = open_envelope(canonical(obj))
    assert not reopened.signature_valid(ALICE.public_bytes)


@pytest.mark.parametrize("index", [0, 1, 63, 64, 100, 127])
def test_any_changed_signature_digit_fails(index: int) -> None:
    obj = wire_object()
    sig = str(obj["sig"])
    obj["sig"] = sig[:index] + ("0" if sig[index] != "0" else "f") + sig[index + 1 :]
    assert not open_envelope(canonical(obj)).signature_valid(ALICE.public_bytes)


def test_signature_is_deterministic_and_per_key() -> None:
    assert sealed().raw == sealed().raw
    other = seal(BOB, SESSION, 1, seq=2, prev=PREV, body=BODY)
    assert other.sig != sealed().sig
    assert other.signature_valid(BOB.public_bytes)


# --- fuzzing a peer --------------------------------------------------------------------------------

FUZZ_AUTHOR = 1


@functools.lru_cache(maxsize=1)
def fuzz_point() -> tuple[Net, int, bytes]:
    """A 3-player game paused where every peer awaits FUZZ_AUTHOR's bait; (net, watcher, its real move)."""
    for seed in range(50):
        net = Net(3, 900 + seed)
        pause_at_bait(net)
        net.start()
        net.run()
        if net.sessions[0].state.current == FUZZ_AUTHOR:
            break
    else:
        raise AssertionError("no game with the fuzz author baiting first")
    author = net.sessions[FUZZ_AUTHOR]
    decision = author.decision()
    assert decision is not None
    legal = [action for action in decision[1] if action.to_wire()["t"] == "bait"] or decision[1]
    author.act(legal[0])
    (move,) = author.take_outbox()
    return net, 0, move


def fresh_watcher() -> tuple[Session, Net, bytes]:
    net, watcher, move = fuzz_point()
    store = copy.deepcopy(net.stores[watcher])
    session = Session.resume(store, net.ids[watcher], rules=get_rules(stored_setup(store)[0].game))
    assert session.fault is None and session.waiting_for() == (FUZZ_AUTHOR,)
    assert isinstance(store, MemoryStore)
    return session, net, move


def check_after(session: Session, before: Any, raw: bytes, via: int) -> None:
    """Honest state changes only by the rules, or not at all; a fault names the sender or the author."""
    after = snapshot(session)
    if session.fault is not None:
        assert session.fault.seat in (via, FUZZ_AUTHOR), session.fault
        assert session.fault.evidence
        assert after == before
        return
    if after.state == before.state:
        assert after == before
        return
    # it was a legal move of the author after all: exactly one log entry, the rules' own result
    new = after.log[len(before.log) :]
    assert after.log[: len(before.log)] == before.log
    assert len(new) == 1 and new[0].seat == FUZZ_AUTHOR
    assert RULES.apply(before.state, FUZZ_AUTHOR, new[0].action) == after.state


FUZZ_SETTINGS = examples(60)


@FUZZ_SETTINGS
@given(st.binary(max_size=300))
def test_random_bytes_never_raise_and_are_malformed(raw: bytes) -> None:
    session, _, _ = fresh_watcher()
    before = snapshot(session)
    session.receive(raw, FUZZ_AUTHOR)
    assert session.fault is not None
    assert (session.fault.seat, session.fault.kind) == (FUZZ_AUTHOR, "malformed")
    assert snapshot(session) == before


@st.composite
def mutated(draw: st.DrawFn, raw: bytes) -> bytes:
    data = bytearray(raw)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "replace"]))
        index = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[index] ^= 1 << draw(st.integers(0, 7))
        elif kind == "insert":
            data.insert(index, draw(st.integers(0, 255)))
        elif kind == "delete" and len(data) > 1:
            del data[index]
        else:
            data[index] = ord(draw(st.sampled_from('0123456789abcdef{}[]",:-. ')))
    return bytes(data)


@FUZZ_SETTINGS
@given(st.data())
def test_mutated_valid_messages_are_faults_and_change_nothing(data: st.DataObject) -> None:
    session, _, move = fresh_watcher()
    raw = data.draw(mutated(move))
    assume(raw != move)
    before = snapshot(session)
    session.receive(raw, FUZZ_AUTHOR)
    fault = session.fault
    assert fault is not None, "a changed message was accepted"
    assert fault.seat == FUZZ_AUTHOR
    assert fault.kind in ("malformed", "violation")
    assert snapshot(session) == before
    # the real move is still what the game needed: a fresh watcher accepts it
    again, _, _ = fresh_watcher()
    again.receive(move, FUZZ_AUTHOR)
    assert again.fault is None and len(again.log) == len(before.log) + 1


# No floats: a message holding one is malformed (integers only), which test_session_tamper checks.
JSON_LEAVES: st.SearchStrategy[Json] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.text(max_size=12),
    st.sampled_from(["a1", "b2", "c3", "cat/1", "bait", "nobait", "fish", "reveal", "commit", "00" * 32]),
)
JSON: st.SearchStrategy[Json] = st.recursive(
    JSON_LEAVES,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=10,
)


@st.composite
def bodies_near_valid(draw: st.DrawFn, turn: int, move_body: dict[str, Json]) -> dict[str, Json]:
    """Signed bodies that are close to what the game awaits: the real move with fields changed, a
    random action, or a random object."""
    choice = draw(st.integers(0, 2))
    if choice == 0:
        body = copy.deepcopy(move_body)
        action = body["action"]
        assert isinstance(action, dict)
        for _ in range(draw(st.integers(1, 3))):
            target = draw(st.sampled_from(["body", "action"]))
            obj = body if target == "body" else action
            key = draw(st.sampled_from([*sorted(obj), "nonce", "t", "spot", "value", "purpose", "digest"]))
            if draw(st.booleans()):
                obj.pop(key, None)
            else:
                obj[key] = draw(JSON)
        return body
    if choice == 1:
        action_wire = draw(
            st.fixed_dictionaries(
                {"t": st.sampled_from(["bait", "nobait", "fish", "reveal", "commit", "chance", "x"])},
                optional={
                    "target": st.sampled_from(["a1", "b2", "c3", "d4", ""]),
                    "source": st.sampled_from(["a1", "a2", "b1", "c3"]),
                    "spot": st.one_of(st.none(), st.sampled_from(["a1", "b3"])),
                    "purpose": st.sampled_from(["cat/1", "cat/2", "x"]),
                    "value": JSON_LEAVES,
                    "digest": st.sampled_from(["00" * 32, "0" * 63, "zz"]),
                    "values": st.lists(JSON_LEAVES, max_size=10),
                },
            )
        )
        return {
            "type": draw(st.sampled_from(["act", "rand-commit", "rand-reveal", "end", "chat"])),
            "turn": draw(st.sampled_from([turn, turn - 1, turn + 1, 0])),
            "action": action_wire,
            **draw(
                st.dictionaries(st.sampled_from(["nonce", "digest", "contribution", "text", "log"]), JSON, max_size=1)
            ),
        }
    return draw(st.dictionaries(st.sampled_from(["type", "turn", "action", "text", "openings"]), JSON, max_size=4))


@FUZZ_SETTINGS
@given(st.data())
def test_validly_signed_garbage_never_raises_and_changes_state_only_by_the_rules(data: st.DataObject) -> None:
    session, net, move = fresh_watcher()
    move_body = open_envelope(move).body
    body = data.draw(bodies_near_valid(session.turn, move_body))
    chain = session.chains[FUZZ_AUTHOR]
    raw = forge(net.ids[FUZZ_AUTHOR], net.session_id, FUZZ_AUTHOR, seq=chain.next_seq, prev=chain.head, body=body)
    before = snapshot(session)
    session.receive(raw, FUZZ_AUTHOR)
    check_after(session, before, raw, FUZZ_AUTHOR)


@FUZZ_SETTINGS
@given(st.data())
def test_json_shaped_messages_never_raise(data: st.DataObject) -> None:
    session, net, _ = fresh_watcher()
    obj = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "body": JSON,
                "prev": st.sampled_from(["00" * 32, "0", GENESIS.hex()]) | JSON_LEAVES,
                "seat": st.integers(-2, 5) | JSON_LEAVES,
                "seq": st.integers(-2, 40) | JSON_LEAVES,
                "session": st.just(net.session_id.hex()) | JSON_LEAVES,
                "sig": st.just("00" * 64) | JSON_LEAVES,
            },
        )
    )
    raw = canonical(obj) if data.draw(st.booleans()) else json.dumps(obj).encode()
    before = snapshot(session)
    session.receive(raw, 2)
    assert session.fault is not None
    assert session.fault.seat == 2
    assert snapshot(session) == before
