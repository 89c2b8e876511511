"""Disguised bots: a mixed strategy for a dealt secret that the bot's moves would otherwise give away.

Some secrets are dealt, not chosen (a Kuna Yala colour tile), and what may give one away is how the seat plays.
A game with such a secret names a Disguise: how to read the seat's secret from its view, how to make the view it
would have with another value of it, and the chances with which a period of play (a turn) is played as if the
secret were each value. A Disguised bot draws that value afresh each period and lets the bot inside play on the
view made with it. Whatever an observer computes from a period's moves, their likelihoods under two values of the
secret differ at most by the ratio of those values' chances, however revealing the bot inside is.

One period is the exception, where the game gives a `last_turn`: a period after which the game surely ends. The
secret is revealed as it ends, and no other seat makes a choice that counts in between, so what that period shows
can no longer be used against the seat; a disguised search bot plays it exactly for its true secret.
"""

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from p2pfish.core.actions import Action
from p2pfish.core.player import Player


@dataclass(frozen=True)
class Disguise:
    secret: Callable[[Any], object | None]
    """The seat's own secret, read from its view (None: not dealt yet)."""
    values: Sequence[object]
    """Every value the secret may take."""
    as_if: Callable[[Any, object], Any]
    """The view as it would be with the seat's secret being the value given."""
    chances: Callable[[Any, object], Mapping[object, float]]
    """Given the view and the seat's true secret, the chance of playing a period as if it were each value."""
    period: Callable[[Any], Hashable]
    """Which period of play a view is in: one value is drawn for each (a turn's decisions belong together)."""


LastTurn = Callable[[Any, Sequence[Action]], Action | None]
"""The exact best action, for the seat's true secret, of a period after which the game surely ends (the secret is
then revealed, so nothing the period shows can be used against the seat), else None."""


class Disguised:
    """A Player that plays each period through `inner` as if its secret were the value drawn for that period; with
    `last_turn`, a period that ends the game by its exact play for the true secret instead."""

    def __init__(
        self, inner: Player, disguise: Disguise, rng: random.Random, last_turn: LastTurn | None = None
    ) -> None:
        self.inner, self.disguise, self._rng, self.last_turn = inner, disguise, rng, last_turn
        self._drawn: tuple[Hashable, object] | None = None
        """The period being played and the value it is played as."""

    def choose(self, view: Any, legal: list[Action]) -> Action:
        secret = self.disguise.secret(view)
        if len(legal) == 1 or secret is None:
            return self.inner.choose(view, legal)
        if self.last_turn is not None and (last := self.last_turn(view, legal)) is not None:
            return last
        return self.inner.choose(self.disguise.as_if(view, self.played_as(view, secret)), legal)

    def played_as(self, view: Any, secret: object) -> object:
        period = self.disguise.period(view)
        if self._drawn is None or self._drawn[0] != period:
            chances = self.disguise.chances(view, secret)
            values = list(chances)
            self._drawn = (period, self._rng.choices(values, [chances[v] for v in values])[0])
        return self._drawn[1]
