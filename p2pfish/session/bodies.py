"""The bodies a signed envelope carries, one constructor and one reader per message type.

act          a seat's move at a turn: a rules action, a commitment, a reveal with its nonce, or an
             action that turns up its own face-down cards, with its keys for them
rand-commit  a seat's commitment to its contribution to the joint randomness of a chance turn
rand-reveal  the contribution and its nonce
deck-lock    a seat's lock-and-shuffle pass over the deck (in seat order), with its shuffle proof
deck-rekey   a seat's re-keying pass, with the key point of each of its new card keys and the proof
             (in seat order)
card-keys    a seat's keys for the cards a deal turns up (all seats but the receiver of a private deal)
end          after the last move: any commitments still closed are opened, and the seat signs the hash
             of the log it applied and the outcome it reached
chat         free text between players; not part of the game
stop         a seat stopped the game: whom it blames, why, and the evidence, each message whole or, if too
             long to quote, as its hash (not part of the game)
settle       after a stop for a seat's silence: the seat agrees to end the game without that seat, at a turn,
             with the log hash and the scores so far there (not part of the game; PROTOCOL §10.8)
"""

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json, as_object, field, hex_bytes, int_field, str_field


class MessageType(StrEnum):
    """A body's "type" (the table above); on the wire, its value."""

    ACT = "act"
    RAND_COMMIT = "rand-commit"
    RAND_REVEAL = "rand-reveal"
    END = "end"
    CHAT = "chat"
    STOP = "stop"
    DECK_LOCK = "deck-lock"
    DECK_REKEY = "deck-rekey"
    CARD_KEYS = "card-keys"
    SETTLE = "settle"


ACT, RAND_COMMIT, RAND_REVEAL, END, CHAT, STOP, DECK_LOCK, DECK_REKEY, CARD_KEYS, SETTLE = MessageType
TURN_KINDS = (ACT, RAND_COMMIT, RAND_REVEAL, DECK_LOCK, DECK_REKEY, CARD_KEYS, END)
"""The types that take a turn of the game (chat and stop do not)."""
MAX_CHAT_CHARS = 500


FIELDS: dict[str, set[str]] = {
    ACT: {"type", "turn", "action", "nonce", "card_keys"},
    RAND_COMMIT: {"type", "turn", "digest"},
    RAND_REVEAL: {"type", "turn", "contribution", "nonce", "next"},
    DECK_LOCK: {"type", "turn", "pass"},
    DECK_REKEY: {"type", "turn", "pass"},
    CARD_KEYS: {"type", "turn", "keys"},
    END: {"type", "turn", "log", "outcome", "openings"},
    CHAT: {"type", "text"},
    STOP: {"type", "seat", "kind", "reason", "evidence"},
    SETTLE: {"type", "gone", "turn", "log", "outcome"},
}
"""The fields each body type may carry; any other field makes the message malformed."""


def check_fields(body: dict[str, Json]) -> None:
    kind = body.get("type")
    allowed = FIELDS.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        raise MalformedInput(f"unknown message type {kind!r}")
    unknown = set(body) - allowed
    if unknown:
        raise MalformedInput(f"a {kind} message has unknown field(s) {', '.join(sorted(unknown))}")


def hex_field(obj: dict[str, Json], name: str, size: int | None = None) -> bytes:
    return hex_bytes(str_field(obj, name), name, size)


def turn_of(body: dict[str, Json]) -> int:
    return int_field(body, "turn")


def act(
    turn: int, action: dict[str, Json], nonce: bytes | None = None, card_keys: list[Json] | None = None
) -> dict[str, Json]:
    body: dict[str, Json] = {"type": ACT, "turn": turn, "action": action}
    if nonce is not None:
        body["nonce"] = nonce.hex()
    if card_keys is not None:
        body["card_keys"] = card_keys
    return body


def deck_pass(kind: MessageType, turn: int, proven_pass: dict[str, Json]) -> dict[str, Json]:
    """A deck-lock or deck-rekey message: the pass with its proof, as proven_deck writes it."""
    return {"type": kind, "turn": turn, "pass": proven_pass}


def card_keys(turn: int, keys: list[Json]) -> dict[str, Json]:
    return {"type": CARD_KEYS, "turn": turn, "keys": keys}


def rand_commit(turn: int, digest: bytes) -> dict[str, Json]:
    return {"type": RAND_COMMIT, "turn": turn, "digest": digest.hex()}


def rand_reveal(turn: int, contribution: bytes, nonce: bytes, next_digest: bytes) -> dict[str, Json]:
    """A seat's reveal for the draw at `turn`, with its commitment to its contribution to the next draw."""
    return {
        "type": RAND_REVEAL,
        "turn": turn,
        "contribution": contribution.hex(),
        "nonce": nonce.hex(),
        "next": next_digest.hex(),
    }


@dataclass(frozen=True)
class Opening:
    purpose: str
    value: Json
    nonce: bytes

    def to_wire(self) -> dict[str, Json]:
        return {"purpose": self.purpose, "value": self.value, "nonce": self.nonce.hex()}


def end(turn: int, log_hash: bytes, outcome: dict[str, Json], openings: list[Opening]) -> dict[str, Json]:
    return {
        "type": END,
        "turn": turn,
        "log": log_hash.hex(),
        "outcome": outcome,
        "openings": [opening.to_wire() for opening in openings],
    }


def read_openings(body: dict[str, Json]) -> list[Opening]:
    items = field(body, "openings")
    if not isinstance(items, list):
        raise MalformedInput("openings must be a list")
    openings = []
    for item in items:
        obj = dict(as_object(item, "an opening"))
        openings.append(Opening(str_field(obj, "purpose"), field(obj, "value"), hex_field(obj, "nonce", 32)))
    return openings


def settle(gone: int, turn: int, log_hash: bytes, outcome: dict[str, Json]) -> dict[str, Json]:
    return {"type": SETTLE, "gone": gone, "turn": turn, "log": log_hash.hex(), "outcome": outcome}


def chat(text: str) -> dict[str, Json]:
    return {"type": CHAT, "text": text[:MAX_CHAT_CHARS]}


MAX_EVIDENCE_BYTES = 48 * 1024
"""Evidence a stop report carries whole, in all, measured as quoted inside the report (canonical JSON)."""
EXCERPT_BYTES = 200
"""How much of a message too long to carry whole its hashed form quotes."""
MAX_REPORTED = 2
"""How many evidence messages a stop report carries (whole or hashed) and a receiver reads."""


def stop(seat: int | None, kind: str, reason: str, evidence: tuple[bytes, ...]) -> dict[str, Json]:
    """A stop report. Its first two evidence messages are carried whole while they fit the evidence
    budget; one that does not is carried as its hash, its size and an excerpt (the peer keeps the whole
    message in its own fault), so a report always fits the message size limit whatever it quotes."""
    carried: list[Json] = []
    budget = MAX_EVIDENCE_BYTES
    for raw in evidence[:MAX_REPORTED]:
        whole = raw.decode("ascii", "replace")
        quoted = len(canonical_text(whole))
        if quoted <= budget:
            carried.append(whole)
            budget -= quoted
        else:
            carried.append(hashed_evidence(raw))
    return {"type": STOP, "seat": seat, "kind": kind, "reason": reason[:MAX_CHAT_CHARS], "evidence": carried}


class StopKind(StrEnum):
    """The kinds of fault a stop report may name (a peer's own verdicts; "report" is never sent)."""

    VIOLATION = "violation"
    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    TIMEOUT = "timeout"


STOP_KINDS = tuple(StopKind)


def check_stop(body: dict[str, Json]) -> None:
    """A stop report's fields in full: seat a seat number or null, a known kind, a reason of at most
    MAX_CHAT_CHARS characters, and at most MAX_REPORTED evidence items, each a message or its hashed form."""
    seat, kind, reason, evidence = (body.get(name) for name in ("seat", "kind", "reason", "evidence"))
    if not (seat is None or (type(seat) is int and seat >= 0)):
        raise MalformedInput("a stop report's seat is a seat number or null")
    if kind not in STOP_KINDS:
        raise MalformedInput(f"a stop report's kind is one of {', '.join(STOP_KINDS)}")
    if not isinstance(reason, str) or len(reason) > MAX_CHAT_CHARS:
        raise MalformedInput(f"a stop report's reason is text of at most {MAX_CHAT_CHARS} characters")
    if not isinstance(evidence, list) or len(evidence) > MAX_REPORTED:
        raise MalformedInput(f"a stop report carries a list of at most {MAX_REPORTED} evidence items")
    if not all(isinstance(item, str) or _is_hashed(item) for item in evidence):
        raise MalformedInput("a stop report's evidence item is a message or its hash, size and excerpt")


def _is_hashed(item: Json) -> bool:
    if not isinstance(item, dict) or set(item) != {"sha256", "size", "excerpt"}:
        return False
    digest, size, excerpt = item["sha256"], item["size"], item["excerpt"]
    hex_digest = isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)
    return hex_digest and type(size) is int and isinstance(excerpt, str) and len(excerpt) <= EXCERPT_BYTES


def hashed_evidence(raw: bytes) -> dict[str, Json]:
    """A message named by its SHA-256, with its size and its first EXCERPT_BYTES bytes: it proves
    nothing to a receiver, but says which message the reporter holds."""
    excerpt = raw[:EXCERPT_BYTES].decode("ascii", "replace")
    return {"sha256": hashlib.sha256(raw).hexdigest(), "size": len(raw), "excerpt": excerpt}


def canonical_text(text: str) -> str:
    """`text` as a JSON string in canonical form (quotes included): its size inside a message."""
    return json.dumps(text, ensure_ascii=True)


def read_evidence(body: dict[str, Json]) -> list[bytes]:
    """The evidence a receiver can check: those of a report's first two items carried whole (strings).
    A hashed item, or anything else, proves nothing here and is left out."""
    items = body.get("evidence")
    if not isinstance(items, list):
        return []
    return [item.encode("ascii", "replace") for item in items[:MAX_REPORTED] if isinstance(item, str)]


def report_reason(body: dict[str, Json]) -> str:
    return str(body.get("reason"))[:MAX_CHAT_CHARS]
