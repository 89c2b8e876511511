"""The Kuna Yala bots (their legal choices: tests/test_conformance.py): no peeking at other seats' colours,
and greedy beats random clearly."""

import random
from collections.abc import Sequence
from typing import Any

import pytest

from p2pfish.core.actions import Action
from p2pfish.games.kunayala.greedy import GreedyKunaYala
from p2pfish.games.kunayala.rules import FISH_COLOURS, View
from p2pfish.games.registry import get_rules
from p2pfish.selfplay import play_game, selfplay

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
    rng = random.Random(10 + players)
    witnesses = [Witness(seat) for seat in range(players)]
    for _ in range(2):
        play_game(RULES, players, {}, witnesses, rng)
    assert sum(w.decisions for w in witnesses) > 100


def test_greedy_beats_random_heads_up() -> None:
    result = selfplay(RULES, 2, 200, seed=1, kinds=["greedy", "random"], options={})
    assert result.wins[0] >= 0.85 * result.games
    assert result.mean_score[0] > result.mean_score[1] + 8


def test_greedy_beats_two_randoms() -> None:
    result = selfplay(RULES, 3, 120, seed=2, kinds=["greedy", "random", "random"], options={})
    assert result.wins[0] >= 0.7 * result.games
    assert result.mean_score[0] > max(result.mean_score[1:]) + 6


def test_greedy_beats_random_at_a_full_table() -> None:
    result = selfplay(RULES, 4, 150, seed=3, kinds=["random", "greedy"], options={})
    greedy_wins = result.wins[1] + result.wins[3]
    random_wins = result.wins[0] + result.wins[2]
    assert greedy_wins >= 5 * random_wins
    assert min(result.mean_score[1], result.mean_score[3]) > max(result.mean_score[0], result.mean_score[2]) + 3
