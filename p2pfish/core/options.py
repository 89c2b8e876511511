"""Readers for the textual `key=value` game options that several games share."""

import re
from collections.abc import Collection, Mapping

from p2pfish.core.errors import MalformedInput
from p2pfish.core.text import shown_value

_PLAIN_NAME = re.compile(r"[a-z0-9_-]{1,40}")
"""An option name shown as it is in an error; any other is quoted and cut (it may come from another peer)."""


def is_number(text: str) -> bool:
    """ASCII decimal digits only (no sign, no spaces, no other Unicode digits)."""
    return text.isascii() and text.isdigit()


def check_known(game: str, raw: Mapping[str, str], known: Collection[str]) -> None:
    unknown = set(raw) - set(known)
    if unknown:
        names = sorted(unknown)
        shown = ", ".join(name if _PLAIN_NAME.fullmatch(name) else shown_value(name, 40) for name in names[:10])
        more = f" and {len(names) - 10} more" if len(names) > 10 else ""
        raise MalformedInput(f"unknown {game} option(s): {shown}{more} (known: {', '.join(known)})")


def start_seat(raw: Mapping[str, str], players: int) -> int | None:
    """The `start` option: a seat chosen in the lobby, or None (`random`, the default) for a draw."""
    text = raw.get("start", "random")
    if text == "random":
        return None
    if not is_number(text) or int(text) >= players:
        raise MalformedInput(f"start must be 'random' or a seat 0..{players - 1}, not {shown_value(text)}")
    return int(text)
