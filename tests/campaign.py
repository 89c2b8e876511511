"""How many examples the property and fuzz tests run: each test's count for the default run, times a campaign's
scale (environment P2PFISH_TEST_SCALE, default 1; scripts/fuzz and scripts/properties run campaigns of 40x and
10x). The default run is a sample that CI draws afresh each time; a campaign is the thorough pass."""

import os
from collections.abc import Sequence
from typing import TypeVar

from hypothesis import HealthCheck, settings
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


def pick(data: st.DataObject, options: Sequence[T]) -> T:
    """One of `options`, drawn by hypothesis and shrinking toward the first, as `st.sampled_from` would; a game's
    every step draws, and sampled_from built anew for each draw costs about half again as much."""
    return options[data.draw(st.integers(0, len(options) - 1))]
