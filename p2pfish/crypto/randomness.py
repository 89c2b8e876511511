"""Joint randomness: a seed nobody controls, and unbiased draws from it that anyone can replay.

For each draw event every seat commits (commitment.py, purpose "rand/<event>") to a 32-byte random
contribution; once all commitments are in, all reveal, and
    seed = SHA-256(lp(b"p2pfish/rand-seed/v1", session_id, utf8(purpose), c_0, c_1, ..., c_{m-1}))
with the contributions in seat order. The seed drives a stream of 64-bit words:
    block_i = SHA-256(lp(b"p2pfish/rand-stream/v1", seed, u64(i)))   for i = 0, 1, 2, ...
each block giving four big-endian words in order. randbelow(n) takes words w until w < 2**64 - (2**64 mod n)
and returns w mod n; draw_indices is a partial Fisher-Yates shuffle driven by randbelow.
One seed serves exactly one event, so nobody learns later draws early.
"""

import secrets
from collections.abc import Iterator, Sequence
from typing import TypeVar

from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.encoding import encode_text, encode_u64, tagged_hash

TAG_SEED = b"p2pfish/rand-seed/v1"
TAG_STREAM = b"p2pfish/rand-stream/v1"
CONTRIBUTION_BYTES = 32
SEED_BYTES = 32
WORD_BYTES = 8
WORD_RANGE = 2 ** (8 * WORD_BYTES)
PURPOSE_PREFIX = "rand/"

T = TypeVar("T")


def contribution_purpose(event: str) -> str:
    """The commitment purpose of a seat's contribution to the draw `event` (and the seed's purpose)."""
    return PURPOSE_PREFIX + event


def next_draw_purpose(turn: int) -> str:
    """The commitment purpose of a seat's contribution to the next draw after the draw at `turn`, committed
    with its reveal for that draw, before anyone knows when (or whether) the next draw comes."""
    return f"{PURPOSE_PREFIX}after/{turn}"


def new_contribution() -> bytes:
    """A seat's secret share of the randomness for one event."""
    return secrets.token_bytes(CONTRIBUTION_BYTES)


def joint_seed(session_id: bytes, purpose: str, contributions: Sequence[bytes]) -> bytes:
    """The seed of one draw event from every seat's revealed contribution, in seat order."""
    if not contributions:
        raise MalformedInput("a joint seed needs at least one contribution")
    for seat, contribution in enumerate(contributions):
        if len(contribution) != CONTRIBUTION_BYTES:
            raise MalformedInput(f"a contribution must be {CONTRIBUTION_BYTES} bytes, not {len(contribution)}", seat)
    return tagged_hash(TAG_SEED, session_id, encode_text(purpose), *contributions)


class Stream:
    """The deterministic sequence of 64-bit words, and uniform integers, that a seed stands for."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) != SEED_BYTES:
            raise MalformedInput(f"a seed must be {SEED_BYTES} bytes, not {len(seed)}")
        self._words = _words(seed)

    def next_word(self) -> int:
        return next(self._words)

    def randbelow(self, n: int) -> int:
        """A uniform integer in range(n), 1 <= n <= 2**64, without modulo bias."""
        if not 1 <= n <= WORD_RANGE:
            raise ValueError(f"randbelow needs 1 <= n <= 2**64, not {n}")
        limit = WORD_RANGE - WORD_RANGE % n
        while True:
            word = self.next_word()
            if word < limit:
                return word % n


def draw_indices(seed: bytes, pool_size: int, count: int) -> list[int]:
    """`count` distinct indices into range(pool_size), in draw order.

    Partial Fisher-Yates: a = [0, ..., pool_size-1]; for i in range(count): j = i + randbelow(pool_size - i),
    swap a[i] and a[j]; the result is a[:count].
    """
    if not 0 <= count <= pool_size:
        raise MalformedInput(f"cannot draw {count} of {pool_size} without replacement")
    stream = Stream(seed)
    pool = list(range(pool_size))
    for i in range(count):
        j = i + stream.randbelow(pool_size - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:count]


def draw(seed: bytes, pool: Sequence[T], count: int) -> list[T]:
    """`count` items of `pool` without replacement (a multiset: equal items may both be drawn)."""
    return [pool[index] for index in draw_indices(seed, len(pool), count)]


def _words(seed: bytes) -> Iterator[int]:
    block_index = 0
    while True:
        block = tagged_hash(TAG_STREAM, seed, encode_u64(block_index))
        for offset in range(0, len(block), WORD_BYTES):
            yield int.from_bytes(block[offset : offset + WORD_BYTES], "big")
        block_index += 1
