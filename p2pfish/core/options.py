"""Readers for the textual `key=value` game options that several games share."""

from collections.abc import Collection, Mapping

from p2pfish.core.errors import MalformedInput


def is_number(text: str) -> bool:
    """ASCII decimal digits only (no sign, no spaces, no other Unicode digits)."""
    return text.isascii() and text.isdigit()


def check_known(game: str, raw: Mapping[str, str], known: Collection[str]) -> None:
    unknown = set(raw) - set(known)
    if unknown:
        raise MalformedInput(f"unknown {game} option(s): {', '.join(sorted(unknown))} (known: {', '.join(known)})")


def start_seat(raw: Mapping[str, str], players: int) -> int | None:
    """The `start` option: a seat chosen in the lobby, or None (`random`, the default) for a draw."""
    text = raw.get("start", "random")
    if text == "random":
        return None
    if not is_number(text) or int(text) >= players:
        raise MalformedInput(f"start must be 'random' or a seat 0..{players - 1}, not {text!r}")
    return int(text)
