"""Joint seeds depend on every contribution; draws are distinct, in range, replayable and unbiased."""

import hashlib
from collections import Counter
from collections.abc import Collection
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.randomness import (
    WORD_RANGE,
    Stream,
    contribution_purpose,
    draw,
    draw_indices,
    joint_seed,
    new_contribution,
)

SESSION = b"session"
PURPOSE = contribution_purpose("pond/round1")
CONTRIBUTIONS = [bytes([seat]) * 32 for seat in range(4)]
SEED = joint_seed(SESSION, PURPOSE, CONTRIBUTIONS)


def numbered_seed(i: int) -> bytes:
    return hashlib.sha256(i.to_bytes(4, "big")).digest()


def chi_square(observed: Collection[int], categories: int) -> float:
    assert len(observed) == categories
    expected = sum(observed) / categories
    return sum((count - expected) ** 2 / expected for count in observed)


@given(st.binary(min_size=32, max_size=32), st.integers(0, 120), st.data())
def test_draws_are_distinct_and_in_range(seed: bytes, pool_size: int, data: st.DataObject) -> None:
    count = data.draw(st.integers(0, pool_size))
    indices = draw_indices(seed, pool_size, count)
    assert len(indices) == count
    assert len(set(indices)) == count
    assert all(0 <= index < pool_size for index in indices)


def test_draws_are_deterministic() -> None:
    assert draw_indices(SEED, 52, 52) == draw_indices(bytes(SEED), 52, 52)
    assert sorted(draw_indices(SEED, 52, 52)) == list(range(52))
    assert draw_indices(SEED, 52, 5) == draw_indices(SEED, 52, 52)[:5]


def test_every_contribution_changes_the_seed() -> None:
    seeds = {SEED}
    for seat in range(4):
        changed = list(CONTRIBUTIONS)
        changed[seat] = bytes([0xFF]) * 32
        seeds.add(joint_seed(SESSION, PURPOSE, changed))
    seeds.add(joint_seed(SESSION, PURPOSE, CONTRIBUTIONS[::-1]))
    seeds.add(joint_seed(b"other session", PURPOSE, CONTRIBUTIONS))
    seeds.add(joint_seed(SESSION, contribution_purpose("pond/round2"), CONTRIBUTIONS))
    assert len(seeds) == 8


def test_bad_contributions_are_refused_and_blamed() -> None:
    with pytest.raises(MalformedInput) as caught:
        joint_seed(SESSION, PURPOSE, [CONTRIBUTIONS[0], b"short"])
    assert caught.value.seat == 1
    with pytest.raises(MalformedInput):
        joint_seed(SESSION, PURPOSE, [])


def test_cannot_draw_more_than_the_pool() -> None:
    with pytest.raises(MalformedInput):
        draw_indices(SEED, 3, 4)


def test_randbelow_three_is_uniform() -> None:
    counts = Counter(Stream(numbered_seed(i)).randbelow(3) for i in range(3000))
    assert chi_square(counts.values(), 3) < 13.8  # p = 0.001 with 2 degrees of freedom


def test_a_full_draw_of_three_gives_every_order_equally() -> None:
    counts = Counter(tuple(draw_indices(numbered_seed(i), 3, 3)) for i in range(3000))
    assert set(counts) == set(permutations(range(3)))
    assert chi_square(counts.values(), 6) < 20.5  # p = 0.001 with 5 degrees of freedom


class ScriptedStream(Stream):
    def __init__(self, words: list[int]) -> None:
        super().__init__(bytes(32))
        self._script = iter(words)

    def next_word(self) -> int:
        return next(self._script)


def test_randbelow_rejects_the_biased_tail() -> None:
    n = 2**63 + 1
    limit = WORD_RANGE - WORD_RANGE % n
    assert ScriptedStream([limit, WORD_RANGE - 1, limit - 1]).randbelow(n) == (limit - 1) % n
    assert ScriptedStream([5]).randbelow(3) == 2
    with pytest.raises(ValueError, match="randbelow"):
        Stream(SEED).randbelow(0)


def test_draw_takes_from_a_multiset() -> None:
    pool = ["fish"] * 3 + ["stone"] * 2
    drawn = draw(SEED, pool, 5)
    assert sorted(drawn) == sorted(pool)


def test_contributions_are_fresh() -> None:
    assert new_contribution() != new_contribution()
    assert PURPOSE == "rand/pond/round1"
