"""How many examples the property and fuzz tests run: each test's count for the default run, times a campaign's
scale (environment P2PFISH_TEST_SCALE, default 1; scripts/fuzz and scripts/properties run campaigns of 40x and
10x). The default run is a sample that CI draws afresh each time; a campaign is the thorough pass."""

import os

from hypothesis import HealthCheck, settings

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
