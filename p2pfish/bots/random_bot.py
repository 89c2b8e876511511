"""A bot that plays uniformly at random among the legal actions."""

import random
from collections.abc import Sequence
from typing import Any

from p2pfish.core.actions import Action


class RandomBot:
    at_once = True
    """It decides in microseconds (core/player.py decides_at_once)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        return legal[self._rng.randrange(len(legal))]
