"""Chain heads: what a peer holds of each author's chain, as it tells the others (PROTOCOL §17.3).

A peer's heads are, for each author, how many of its messages the peer has accepted (the have-vector) and the
first HEAD_HASH_BYTES bytes of the hash of the last one. They travel in every heartbeat and with every message a
peer sends. Comparing them with one's own chains tells what the other peer lacks (resend it), what it holds that
this peer lacks (wait for it), and whether it holds a different version of a message (a fork: an equivocation
whose proof the two peers then exchange).
"""

import json
from dataclasses import dataclass

from p2pfish.session.session import Session

HEAD_HASH_BYTES = 16
"""Of a message's 32-byte hash, the part a head carries: forging two messages whose hashes share 16 bytes takes
about 2^64 tries."""
NO_HEAD = ""
"""The head of an author of whom nothing is held."""
_HEX_DIGITS = "0123456789abcdef"


@dataclass(frozen=True)
class Heads:
    have: tuple[int, ...]
    hashes: tuple[str, ...]

    def to_wire(self) -> dict[str, object]:
        return {"have": list(self.have), "heads": list(self.hashes)}


def heads_of(session: Session) -> Heads:
    have = session.have()
    hashes = tuple(
        NO_HEAD if held == 0 else session.message_hash(author, held - 1)[:HEAD_HASH_BYTES].hex()
        for author, held in enumerate(have)
    )
    return Heads(tuple(have), hashes)


def encode(heads: Heads, **extra: object) -> bytes:
    return json.dumps({**extra, **heads.to_wire()}).encode()


def read(beat: object, players: int) -> Heads | None:
    """The heads in a decoded heartbeat or heads frame, or None when they are missing or malformed: `have` an
    array of `players` non-negative integers, `heads` an array of as many strings, each empty exactly where
    nothing is held, else 2 * HEAD_HASH_BYTES lower-case hex digits."""
    if not isinstance(beat, dict):
        return None
    have, hashes = beat.get("have"), beat.get("heads")
    if not (isinstance(have, list) and isinstance(hashes, list) and len(have) == len(hashes) == players):
        return None
    for held, head in zip(have, hashes, strict=True):  # one plain loop: this runs for every frame a peer reads
        if type(held) is not int or held < 0 or not isinstance(head, str):
            return None
        if held == 0:
            if head != NO_HEAD:
                return None
        elif len(head) != 2 * HEAD_HASH_BYTES or head.strip(_HEX_DIGITS):
            return None
    return Heads(tuple(have), tuple(hashes))


def parse(payload: bytes, players: int) -> Heads | None:
    try:
        return read(json.loads(payload), players)
    except (ValueError, RecursionError):
        return None


@dataclass(frozen=True)
class Comparison:
    missing: bool
    """The other peer holds messages this one lacks."""
    forks: tuple[tuple[int, int], ...]
    """(author, seq) where the other peer's head is a different message than this peer holds at that seq."""


def compare(session: Session, mine: Heads, theirs: Heads, *, skip: int | None = None) -> Comparison:
    """Their heads against this peer's chains, whose heads are `mine` (heads_of(session)), author `skip` left out
    (a message's own author: its chain's hashes check the message's place)."""
    missing = False
    forks = []
    for author, (held, head) in enumerate(zip(theirs.have, theirs.hashes, strict=True)):
        if author == skip or held == 0:
            continue
        if held > mine.have[author]:
            missing = True
        elif held == mine.have[author]:
            if head != mine.hashes[author]:
                forks.append((author, held - 1))
        elif session.message_hash(author, held - 1)[:HEAD_HASH_BYTES].hex() != head:
            forks.append((author, held - 1))
    return Comparison(missing, tuple(forks))
