"""The signed message envelope: canonical JSON, an Ed25519 signature, and each author's hash chain.

Wire form: the canonical JSON (sorted keys, no spaces, ASCII only, integers only) of
    {"body": {...}, "prev": hex32, "seat": int, "seq": int, "session": hex32, "sig": hex64}
The signature covers lp(b"p2pfish/envelope/v1", canonical JSON of the same object without "sig").
A message's hash is SHA-256 of its exact wire bytes; `prev` is the hash of the author's previous
message (32 zero bytes for seq 0).
"""

import hashlib
import json
from dataclasses import dataclass, field
from typing import Protocol

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json, as_object, hex_bytes, int_field, str_field
from p2pfish.core.wire import field as json_field
from p2pfish.crypto.encoding import length_prefixed
from p2pfish.crypto.identity import verify

TAG_ENVELOPE = b"p2pfish/envelope/v1"
MAX_MESSAGE_BYTES = 64 * 1024
MAX_DEPTH = 16
MAX_VALUES = 4096
"""JSON values (lists, objects, strings, numbers...) one message may hold: the largest honest message, a
160-card lock pass, holds about 810; the cap keeps what a parsed 64 KiB message costs to hold near its size."""
GENESIS = bytes(32)
FIELDS = {"body", "prev", "seat", "seq", "session", "sig"}


class Signer(Protocol):
    def sign(self, message: bytes) -> bytes: ...


def canonical(value: Json) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode()


def _no_floats(text: str) -> Json:
    raise ValueError(f"a message may not hold the number {text} (integers only)")


def parse_json(raw: bytes) -> Json:
    """Strict JSON: integers only (no floats, NaN or Infinity); any failure is MalformedInput."""
    try:
        value: Json = json.loads(raw, parse_float=_no_floats, parse_constant=_no_floats)
    except RecursionError:
        raise MalformedInput("a message is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise MalformedInput(f"a message is not valid JSON ({str(error)[:80]})") from None
    return value


@dataclass(frozen=True)
class Envelope:
    session: bytes
    seat: int
    seq: int
    prev: bytes
    body: dict[str, Json]
    sig: bytes
    raw: bytes
    hash: bytes
    _raw_canonical: bool = field(default=False, init=False, repr=False, compare=False)
    """Whether `raw` is known to be this message's canonical form (open_envelope, seal): its signed bytes are then
    cut from it when asked for, not kept (every message a peer holds would be held twice). A changed copy
    (dataclasses.replace) starts without the mark and encodes its own."""

    @property
    def kind(self) -> str:
        kind = self.body.get("type")
        return kind if isinstance(kind, str) else ""

    def signed_bytes(self) -> bytes:
        if self._raw_canonical:
            return _signed_part(self.raw)
        return _signed_bytes(self.session, self.seat, self.seq, self.prev, self.body)

    def signature_valid(self, public_key: bytes) -> bool:
        return verify(public_key, self.signed_bytes(), self.sig)


def _unsigned(session: bytes, seat: int, seq: int, prev: bytes, body: dict[str, Json]) -> dict[str, Json]:
    return {"body": body, "prev": prev.hex(), "seat": seat, "seq": seq, "session": session.hex()}


def _signed_bytes(session: bytes, seat: int, seq: int, prev: bytes, body: dict[str, Json]) -> bytes:
    return length_prefixed(TAG_ENVELOPE, canonical(_unsigned(session, seat, seq, prev, body)))


def _canonical_raw(envelope: Envelope) -> Envelope:
    object.__setattr__(envelope, "_raw_canonical", True)
    return envelope


def _signed_part(raw: bytes) -> bytes:
    """The signed bytes of a message in canonical form: its object up to "sig", its last key (keys are sorted),
    closed again, is the canonical form of the object without "sig" (no re-encoding needed)."""
    return length_prefixed(TAG_ENVELOPE, raw[:-_SIG_TAIL_BYTES] + b"}")


_SIG_TAIL_BYTES = len(b',"sig":""}') + 2 * 64
"""The bytes of `,"sig":"<64 bytes as hex>"}` that end a message in canonical form."""


def seal(signer: Signer, session: bytes, seat: int, *, seq: int, prev: bytes, body: dict[str, Json]) -> Envelope:
    signed = _signed_bytes(session, seat, seq, prev, body)
    sig = signer.sign(signed)
    raw = canonical({**_unsigned(session, seat, seq, prev, body), "sig": sig.hex()})
    return _canonical_raw(Envelope(session, seat, seq, prev, body, sig, raw, hashlib.sha256(raw).digest()))


def open_envelope(raw: bytes) -> Envelope:
    """Decode and check the form of one message (not its signature). Raises MalformedInput."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise MalformedInput(f"a message of {len(raw)} bytes is over the {MAX_MESSAGE_BYTES}-byte limit")
    value = parse_json(raw)
    if not _surely_small(raw):
        depth, values = _shape(value)
        if depth > MAX_DEPTH:
            raise MalformedInput(f"a message is nested more than {MAX_DEPTH} levels deep")
        if values > MAX_VALUES:
            raise MalformedInput(f"a message holds more than {MAX_VALUES} JSON values")
    obj = dict(as_object(value, "a message"))
    if set(obj) != FIELDS:
        raise MalformedInput(f"a message has fields {sorted(obj)}, expected {sorted(FIELDS)}")
    if canonical(obj) != raw:
        raise MalformedInput("a message is not in canonical form")
    session, prev, sig = (_hex(obj, name, size) for name, size in (("session", 32), ("prev", 32), ("sig", 64)))
    seat, seq = int_field(obj, "seat"), int_field(obj, "seq")
    if seat < 0 or seq < 0:
        raise MalformedInput("seat and seq must not be negative")
    body = as_object(json_field(obj, "body"), "a message body")
    envelope = Envelope(session, seat, seq, prev, dict(body), sig, raw, hashlib.sha256(raw).digest())
    return _canonical_raw(envelope)


def _surely_small(raw: bytes) -> bool:
    """Whether the bytes alone show that `raw` nests at most MAX_DEPTH deep and holds at most MAX_VALUES values
    (cheaper than walking the parsed value): every list or object opens with a bracket, and every value but the
    first of each follows a comma. Brackets and commas inside strings only make the count larger."""
    containers = raw.count(b"{") + raw.count(b"[")
    return containers <= MAX_DEPTH and containers + raw.count(b",") + 1 <= MAX_VALUES


def _shape(value: Json) -> tuple[int, int]:
    """How deeply lists and objects nest in `value`, and how many values it holds (without recursion)."""
    deepest, count, stack = 0, 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest, count


def _hex(obj: dict[str, Json], name: str, size: int) -> bytes:
    return hex_bytes(str_field(obj, name), name, size)
