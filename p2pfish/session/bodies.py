"""The bodies a signed envelope carries, one constructor and one reader per message type.

act          a seat's move at a turn: a rules action, a commitment, or a reveal with its nonce
rand-commit  a seat's commitment to its contribution to the joint randomness of a chance turn
rand-reveal  the contribution and its nonce
end          after the last move: any commitments still closed are opened, and the seat signs
             the hash of the log it applied and the outcome it reached
chat         free text between players; not part of the game
"""

from dataclasses import dataclass

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json, as_object, field, int_field, str_field

ACT, RAND_COMMIT, RAND_REVEAL, END, CHAT = "act", "rand-commit", "rand-reveal", "end", "chat"
TURN_KINDS = (ACT, RAND_COMMIT, RAND_REVEAL, END)
MAX_CHAT_CHARS = 500


def hex_field(obj: dict[str, Json], name: str, size: int | None = None) -> bytes:
    text = str_field(obj, name)
    try:
        value = bytes.fromhex(text)
    except ValueError:
        raise MalformedInput(f"{name} must be hex, not {text[:40]!r}") from None
    if size is not None and len(value) != size:
        raise MalformedInput(f"{name} must be {size} bytes, not {len(value)}")
    return value


def turn_of(body: dict[str, Json]) -> int:
    return int_field(body, "turn")


def act(turn: int, action: dict[str, Json], nonce: bytes | None = None) -> dict[str, Json]:
    body: dict[str, Json] = {"type": ACT, "turn": turn, "action": action}
    if nonce is not None:
        body["nonce"] = nonce.hex()
    return body


def rand_commit(turn: int, digest: bytes) -> dict[str, Json]:
    return {"type": RAND_COMMIT, "turn": turn, "digest": digest.hex()}


def rand_reveal(turn: int, contribution: bytes, nonce: bytes) -> dict[str, Json]:
    return {"type": RAND_REVEAL, "turn": turn, "contribution": contribution.hex(), "nonce": nonce.hex()}


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


def chat(text: str) -> dict[str, Json]:
    return {"type": CHAT, "text": text[:MAX_CHAT_CHARS]}
