"""The interface every player front end implements, human or bot."""

import random
from collections.abc import Sequence
from typing import Any, Protocol

from p2pfish.core.actions import Action


class Bot(Protocol):
    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        """One of `legal`, chosen from what `view` shows."""
        ...


TIE = 1e-9
"""Values closer than this count as equal."""


def pick_best(rng: random.Random, legal: Sequence[Action], values: Sequence[float]) -> Action:
    """The action of highest value; among equal ones, one drawn with `rng`."""
    top = max(values)
    ties = [action for action, value in zip(legal, values, strict=True) if value >= top - TIE]
    return ties[rng.randrange(len(ties))]
