"""A greedy Fish'n'Stones bot: values each stack by what it can see and always grabs the best.

A stack is worth its top card plus the expected worth of each covered card (by the table's mix). It values
each column by the best stack it could make there with one bait and draws its secret cat column from a capped
softmax of those values (bots/mixed.py: no column likelier than 1/3 + SPY_MARGIN, so a spy who computes the same
values gains little), baits to build its best stack, and fishes the best stack.
"""

import random
from collections.abc import Sequence
from typing import Any, Final

from p2pfish.bots.mixed import draw_secret
from p2pfish.core.actions import Action
from p2pfish.games.fishnstones.rules import (
    FISH,
    NEIGHBOURS,
    STONE,
    Bait,
    Cast,
    Fish,
    NoBait,
    View,
    column_spots,
)

CARD_VALUE = {FISH: 1.0, STONE: -1.0}
CAST_TEMPERATURE: Final = 1.0
"""The softmax temperature of the cat column, in fish."""


def stack_value(view: View, spot: int) -> float:
    top = view.tops[spot]
    if top is None:
        return 0.0
    return CARD_VALUE.get(top, 0.0) + (view.heights[spot] - 1) * covered_card_value(view.options.mix)


def covered_card_value(mix: tuple[int, int, int]) -> float:
    """What a face-down card is worth on average: (fish - stones) / cards of the mix."""
    fish, stones, water = mix
    return (fish - stones) / (fish + stones + water)


def column_prospect(view: View, cast: Action) -> float:
    """The best stack the seat could make in the cast's column with one bait."""
    assert isinstance(cast, Cast) and isinstance(cast.value, int)
    spots = view.column(view.seat, cast.value)
    best = max(stack_value(view, s) for s in spots)
    for target in spots:
        for source in NEIGHBOURS[target]:
            if view.tops[source] is not None:
                best = max(best, stack_value(view, target) + stack_value(view, source))
    return best


class GreedyFishNStones:
    at_once = True
    """One ply, no search: it decides at once (core/player.py decides_at_once)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        assert isinstance(view, View)
        first = legal[0]
        if isinstance(first, Cast):
            return draw_secret(self._rng, legal, [column_prospect(view, cast) for cast in legal], CAST_TEMPERATURE)
        if isinstance(first, NoBait):
            return max(legal, key=lambda bait: self._after_bait(view, bait))
        if isinstance(first, Fish) and first.spot is not None:
            return max(legal, key=lambda fish: _fish_value(view, fish))
        return first

    def _after_bait(self, view: View, bait: Action) -> float:
        """The best stack left in the bot's column when its turn to fish comes, after `bait`."""
        assert view.my_cat is not None
        values = [stack_value(view, spot) for spot in range(len(view.tops))]
        filled = [height > 0 for height in view.heights]
        if isinstance(bait, Bait):
            values[bait.target] += values[bait.source]
            values[bait.source], filled[bait.source] = 0.0, False
            filled[bait.target] = True
        for spots in columns_fished_before(view):
            taken = max((s for s in spots if filled[s]), key=lambda s: values[s], default=None)
            if taken is not None:
                values[taken], filled[taken] = 0.0, False
        best = max(values[s] for s in view.column(view.seat, view.my_cat))
        return best - 1e-9 if isinstance(bait, Bait) else best


def columns_fished_before(view: View) -> list[tuple[int, ...]]:
    """The columns, in fishing order, of the players who fish before this seat this round and whose bait showed
    their column (a bait's target lies in its baiter's column)."""
    order = [(view.start + turn) % view.players for turn in range(view.players)]
    earlier = order[: order.index(view.seat)]
    columns = []
    for seat in earlier:
        targets = [target for baiter, target, _ in view.baits if baiter == seat]
        if targets:
            columns.append(
                next(spots for k in (1, 2, 3) if targets[0] in (spots := column_spots(view.players, seat, k)))
            )
    return columns


def _fish_value(view: View, fish: Action) -> float:
    assert isinstance(fish, Fish) and fish.spot is not None
    return stack_value(view, fish.spot)


GREEDY: Final = GreedyFishNStones
"""This game's greedy bot, for its registry entry."""
