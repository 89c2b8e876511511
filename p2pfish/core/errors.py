"""The three ways input can be wrong, each naming the seat at fault, and a bad command line.

- MalformedInput: cannot be decoded at all (bad JSON shape, unknown action, bad option).
- IllegalAction: well formed, but the rules forbid it now.
- ProtocolViolation: breaks the protocol's cryptographic promises (bad signature, bad opening,
  equivocation, a broken hash chain).
- UsageError: a bad command line (a flag's value, a game, option, join code, name, address or port the
  user gave); nobody at the table is at fault. Input from the network is never a UsageError.
"""

from collections.abc import Iterator
from contextlib import contextmanager

MAX_REASON_CHARS = 1000
"""A reason longer than this is cut (ending in "…"): a safety net under the quoting of peers' values (each cut
to 200 characters, core/text.py), so that no reason grows with a 64 KiB message."""


class P2pfishError(Exception):
    """Base class; `seat` is the seat at fault, or None when no seat is (a bad command line)."""

    def __init__(self, reason: str, seat: int | None = None, *, details: tuple[str, ...] = ()) -> None:
        if len(reason) > MAX_REASON_CHARS:
            reason = reason[: MAX_REASON_CHARS - 1] + "…"
        self.reason = reason
        self.seat = seat
        self.details = details
        """Lines the command line prints under the reason (the reason itself is always shown as one line)."""
        super().__init__(reason if seat is None else f"seat {seat}: {reason}")


class MalformedInput(P2pfishError):
    """Input that cannot be decoded into a value of the expected form."""


class IllegalAction(P2pfishError):
    """A well-formed action that the rules do not allow in this state."""


class ProtocolViolation(P2pfishError):
    """Proof that a seat broke the protocol: forged, replayed, equivocated or badly opened."""


class UsageError(P2pfishError):
    """A bad command line: what the user typed cannot be used. Printed as one line, exit code 2."""


@contextmanager
def usage_errors() -> Iterator[None]:
    """Within: a MalformedInput is a UsageError. For values taken from the command line and checked by code
    that also checks what peers send (a game id, its options, a join code, a bot kind)."""
    try:
        yield
    except MalformedInput as error:
        raise UsageError(error.reason) from None
