"""Each author's messages as a hash chain: in-order delivery, gap buffering, duplicates, equivocation.

Messages may arrive in any order and more than once. A message is accepted when it extends its
author's chain (its seq is the next one and its prev is the hash of the one before); a later one
waits in a bounded buffer; a second, different message with a seq already seen is equivocation.
"""

from collections import deque
from dataclasses import dataclass, field

from p2pfish.core.errors import ProtocolViolation
from p2pfish.session.envelope import GENESIS, Envelope

MAX_AHEAD = 256
"""How many messages an author may be ahead of its chain before it is called a flood."""
MAX_AHEAD_BYTES = 4 * 1024 * 1024
"""And how many bytes of them."""


@dataclass
class Chain:
    seat: int
    head: bytes = GENESIS
    next_seq: int = 0
    accepted: list[Envelope] = field(default_factory=list)
    ready: deque[Envelope] = field(default_factory=deque)
    """Accepted, not yet consumed by the turn machine."""
    ahead: dict[int, Envelope] = field(default_factory=dict)

    def offer(self, envelope: Envelope) -> list[Envelope]:
        """Take one signed message of this author; returns the messages it made acceptable, in order.
        Raises ProtocolViolation (equivocation, broken chain, flooding)."""
        seq = envelope.seq
        if seq < self.next_seq:
            earlier = self.accepted[seq]
            if earlier.hash != envelope.hash:
                raise _equivocation(earlier, envelope)
            return []
        if seq > self.next_seq:
            waiting = self.ahead.get(seq)
            if waiting is not None:
                if waiting.hash != envelope.hash:
                    raise _equivocation(waiting, envelope)
                return []
            held = sum(len(waiting.raw) for waiting in self.ahead.values())
            if len(self.ahead) >= MAX_AHEAD or held + len(envelope.raw) > MAX_AHEAD_BYTES:
                reason = f"sent more than {MAX_AHEAD} messages or {MAX_AHEAD_BYTES // 2**20} MiB ahead of its chain"
                raise ChainViolation(reason, self.seat, (envelope.raw,))
            self.ahead[seq] = envelope
            return []
        accepted = []
        candidate: Envelope | None = envelope
        while candidate is not None:
            if candidate.prev != self.head:
                previous = (self.accepted[-1].raw,) if self.accepted else ()
                raise ChainViolation(
                    f"message seq {candidate.seq} does not follow seq {candidate.seq - 1} (broken hash chain)",
                    self.seat,
                    (*previous, candidate.raw),
                )
            self.accepted.append(candidate)
            self.ready.append(candidate)
            accepted.append(candidate)
            self.head, self.next_seq = candidate.hash, candidate.seq + 1
            candidate = self.ahead.pop(self.next_seq, None)
        return accepted


class ChainViolation(ProtocolViolation):
    """A chain fault with the signed messages that prove it."""

    def __init__(self, reason: str, seat: int, evidence: tuple[bytes, ...]) -> None:
        super().__init__(reason, seat)
        self.evidence = evidence


def _equivocation(first: Envelope, second: Envelope) -> ChainViolation:
    reason = f"signed two different messages with seq {first.seq} (equivocation)"
    return ChainViolation(reason, first.seat, (first.raw, second.raw))
