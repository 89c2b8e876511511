"""A bot that plays uniformly at random among the legal actions; a secret choice uniformly over what it hides (a
King Fish bait's suit, whichever cards of it are held), so that a spy can only guess blind."""

import random
from collections.abc import Callable, Sequence
from typing import Any

from p2pfish.bots.mixed import uniform_hidden
from p2pfish.core.actions import Action

SecretTest = Callable[[Any, Sequence[Action]], bool]
Hidden = Callable[[Any, Action], object]


class RandomBot:
    at_once = True
    """It decides in microseconds (core/player.py decides_at_once)."""

    def __init__(self, rng: random.Random, secret: SecretTest | None = None, hidden: Hidden | None = None) -> None:
        """`secret` tells a secret choice, `hidden` what of it stays hidden (the game's sampler's)."""
        self._rng, self._secret, self._hidden = rng, secret, hidden

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        if self._secret is not None and self._hidden is not None and len(legal) > 1 and self._secret(view, legal):
            hidden = self._hidden
            return uniform_hidden(self._rng, legal, lambda action: hidden(view, action))
        return legal[self._rng.randrange(len(legal))]
