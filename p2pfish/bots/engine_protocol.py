"""The engine protocol's lines (protocol/ENGINE.md), as pure functions: what p2pfish writes to an engine program
and how it reads the engine's answers. No I/O here (p2pfish/bots/engine.py runs the program).

p2pfish writes one JSON object per line: `hello` once, `move` at each decision of the seat, `quit` at the end.
The engine answers `hello` with `ready`, and each `move` with the move it picks, by its index in the legal list,
by its wire form, or both.
"""

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from p2pfish.core.actions import Action, Reveal, RevealCard, SecretChoice
from p2pfish.core.game import Outcome
from p2pfish.core.plain import plain
from p2pfish.core.text import printable
from p2pfish.core.wire import Json

PROTOCOL_VERSION: Final = 1
MAX_LINE_BYTES: Final = 64 * 1024
"""The longest line an engine may write (its newline excluded); a longer one is a bad answer."""
EXCERPT_CHARS: Final = 80
"""How much of a bad line an error message quotes."""


class EngineFault(Exception):
    """An engine's answer p2pfish cannot use; the message says why, in words, on one line."""


def engine_wire(action: Action) -> dict[str, Json]:
    """An action as an engine reads and names it: its wire form, or, for a secret choice (which never goes on
    the wire: only its commitment does), {"t": "secret", "purpose": ..., "value": ...}."""
    if isinstance(action, SecretChoice):
        return {"t": "secret", "purpose": action.purpose, "value": action.value}
    return action.to_wire()


def asked(legal: Sequence[Action]) -> bool:
    """Whether an engine is asked this decision: not when its one legal move opens a secret of the seat's (a
    reveal the rules call for now), which a networked peer makes by itself."""
    return not (len(legal) == 1 and isinstance(legal[0], (Reveal, RevealCard)))


def line(message: Mapping[str, Json]) -> bytes:
    """One message as the bytes of one line (compact JSON, UTF-8, a newline at the end)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def hello(
    game: str, *, title: str, players: int, seat: int, options: Mapping[str, str], time_ms: int
) -> dict[str, Json]:
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "title": title,
        "players": players,
        "seat": seat,
        "options": dict(options),
        "time_ms": time_ms,
    }


def move_request(
    request_id: int, *, game: str, seat: int, time_ms: int, view: Any, legal: Sequence[Action]
) -> dict[str, Json]:
    return {
        "type": "move",
        "id": request_id,
        "game": game,
        "seat": seat,
        "time_ms": time_ms,
        "view": plain(view),
        "legal": [engine_wire(action) for action in legal],
        "legal_text": [str(action) for action in legal],
    }


def quit_message(reason: str, outcome: Outcome | None) -> dict[str, Json]:
    """`reason`: "finished" (the game ended: `outcome` holds the scores and winners) or "stopped"."""
    return {"type": "quit", "reason": reason, "outcome": None if outcome is None else outcome.to_wire()}


def excerpt(raw: bytes) -> str:
    """A bad line, quoted safely and shortly for an error message."""
    return repr(printable(raw.decode("utf-8", "replace"), EXCERPT_CHARS))


def _json_object(raw: bytes, what: str) -> dict[str, Json]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise EngineFault(f"{what} is not JSON: {excerpt(raw)}") from None
    if not isinstance(value, dict):
        raise EngineFault(f"{what} is not a JSON object: {excerpt(raw)}")
    return value


def read_ready(raw: bytes) -> str | None:
    """The engine's answer to `hello`: its name, if it gave one. EngineFault unless it is a `ready` line of
    this protocol's version."""
    answer = _json_object(raw, "its answer to hello")
    if answer.get("type") != "ready":
        raise EngineFault(f'it answered hello with {excerpt(raw)}, not {{"type": "ready"}}')
    version = answer.get("protocol", PROTOCOL_VERSION)
    if version != PROTOCOL_VERSION:
        raise EngineFault(f"it speaks protocol {excerpt(json.dumps(version).encode())}, not {PROTOCOL_VERSION}")
    name = answer.get("name")
    return printable(name, 40) if isinstance(name, str) and printable(name, 40) else None


def answer_id(raw: bytes) -> int | None:
    """The `id` an answer line carries, if it is a JSON object with an integer one."""
    try:
        answer = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    said = answer.get("id") if isinstance(answer, dict) else None
    return said if isinstance(said, int) and not isinstance(said, bool) else None


def _canonical(value: Json) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def read_move(raw: bytes, request_id: int, legal: Sequence[Mapping[str, Json]]) -> int:
    """The index in `legal` (the request's wire forms) of the move an answer names. EngineFault when the
    answer is not a JSON object, names no move, an index out of range, a move not in the list, an index and a
    move that differ, or another request's id."""
    answer = _json_object(raw, "its answer")
    kind = answer.get("type", "move")
    if kind != "move":
        raise EngineFault(f"it answered a move request with a {excerpt(json.dumps(kind).encode())} line")
    if "id" in answer and answer["id"] != request_id:
        raise EngineFault(f"it answered request {excerpt(json.dumps(answer['id']).encode())}, not {request_id}")
    if "index" not in answer and "move" not in answer:
        raise EngineFault(f'its answer names no move (give "index" or "move"): {excerpt(raw)}')
    chosen: int | None = None
    if "index" in answer:
        index = answer["index"]
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(legal):
            shown = excerpt(json.dumps(index).encode())
            raise EngineFault(f"index {shown} is not one of the {len(legal)} legal moves (0 to {len(legal) - 1})")
        chosen = index
    if "move" in answer:
        wanted = _canonical(answer["move"])
        matches = [i for i, wire in enumerate(legal) if _canonical(dict(wire)) == wanted]
        if not matches:
            raise EngineFault(f"move {excerpt(wanted.encode())} is not legal now")
        if chosen is not None and chosen != matches[0]:
            raise EngineFault(f"index {chosen} and move {excerpt(wanted.encode())} name different moves")
        chosen = matches[0]
    assert chosen is not None
    return chosen
