"""The Kuna Yala bots: no peeking at other seats' colours. (Their legal choices: tests/test_conformance.py;
greedy beating random: tests/test_bots.py.)"""

import random
from collections.abc import Sequence
from typing import Any

import pytest
from conformance_helpers import witnessed_decisions

from p2pfish.core.actions import Action
from p2pfish.games.kunayala.greedy import GreedyKunaYala
from p2pfish.games.kunayala.rules import FISH_COLOURS, View
from p2pfish.games.registry import get_rules

RULES = get_rules("kunayala")


class BlindView(View):
    """A view whose revealed colours cannot be read at all."""

    __slots__ = ()

    @property
    def colours(self) -> tuple[str | None, ...]:
        raise AssertionError("the greedy bot read the colour tiles of the table")


class Witness:
    """Plays greedy, and checks each choice against fresh greedy bots (same rng seed) shown other colours."""

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._rng = random.Random(seed)
        self.decisions = 0

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        assert isinstance(view, View) and view.my_colour is not None
        seed = self._rng.getrandbits(64)
        choice = GreedyKunaYala(random.Random(seed)).choose(view, legal)
        others = [colour for colour in FISH_COLOURS if colour != view.my_colour]
        opponents = [seat for seat in range(view.players) if seat != view.seat]
        for shift in range(len(others)):
            told: list[str | None] = [view.my_colour] * view.players
            for i, seat in enumerate(opponents):
                told[seat] = others[(i + shift) % len(others)]
            assert GreedyKunaYala(random.Random(seed)).choose(view._replace(colours=tuple(told)), legal) == choice
        assert GreedyKunaYala(random.Random(seed)).choose(BlindView(*view), legal) == choice
        self.decisions += 1
        return choice


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_never_reads_the_other_colours(players: int) -> None:
    assert witnessed_decisions(RULES, players, 10 + players, Witness) > 100
