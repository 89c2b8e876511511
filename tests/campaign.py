"""How many examples the property and fuzz tests run: each test's count for the default run, times a campaign's
scale (environment P2PFISH_TEST_SCALE, default 1; scripts/fuzz and scripts/properties run campaigns of 40x and
10x). The default run is a sample that CI draws afresh each time; a campaign is the thorough pass."""

import functools
import os
import random
from collections.abc import Sequence
from typing import TypeVar

from hypothesis import HealthCheck, reject, settings
from hypothesis import strategies as st

T = TypeVar("T")

SCALE_VARIABLE = "P2PFISH_TEST_SCALE"


def scale() -> int:
    text = os.environ.get(SCALE_VARIABLE, "1")
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{SCALE_VARIABLE} must be a positive integer, not {text!r}") from None
    if value < 1:
        raise ValueError(f"{SCALE_VARIABLE} must be a positive integer, not {text!r}")
    return value


def examples(count: int, *more_checks: HealthCheck) -> settings:
    """Settings for `count` examples in the default run, `count * scale()` in a campaign; no deadline (an
    example may be a whole game)."""
    return settings(
        max_examples=count * scale(),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, *more_checks],
    )


def pick(data: st.DataObject | st.DrawFn, options: Sequence[T]) -> T:
    """One of `options`, drawn by hypothesis and shrinking toward the first, as `st.sampled_from` would, but
    cheaply: a game's every step draws. Built anew for each draw, sampled_from hashes every option, and
    hypothesis keeps each strategy it builds with its options (one built per step held every game's actions to
    the end of the run, for the garbage collector to go through again and again); and each `data.draw` copies
    the state of Python's `random` twice, to warn of strategies that use it. In a test, the draws are a
    per-example `st.randoms()` generator's (about 25 µs a draw here, against 100-150 µs). No options: the example
    is rejected, as sampled_from's would be."""
    if not options:
        reject()
    if isinstance(data, st.DataObject):
        return options[_generator(data).randrange(len(options))]
    return options[data(_indices(len(options)))]


def some(data: st.DataObject | st.DrawFn, options: Sequence[T], max_size: int) -> list[T]:
    """Up to `max_size` of `options` (repeats allowed), as `st.lists(st.sampled_from(options), max_size=...)` would
    draw them, as cheaply as `pick`."""
    if not options:
        return []
    if isinstance(data, st.DataObject):
        generator = _generator(data)
        return [options[generator.randrange(len(options))] for _ in range(generator.randrange(max_size + 1))]
    return [options[i] for i in data(_index_lists(len(options), max_size))]


_current: list[tuple[st.DataObject, random.Random]] = []
"""The example being run and its generator, whose draws are hypothesis's choices, shrunk like any other (only
the one: a generator refers to its example's data, so a table of them would keep every example alive)."""


def _generator(data: st.DataObject) -> random.Random:
    if not _current or _current[0][0] is not data:
        _current[:] = [(data, data.draw(st.randoms(use_true_random=False)))]
    return _current[0][1]


@functools.lru_cache(maxsize=1024)
def _indices(size: int) -> st.SearchStrategy[int]:
    return st.integers(0, size - 1)


@functools.lru_cache(maxsize=256)
def _index_lists(size: int, max_size: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, size - 1), max_size=max_size)
