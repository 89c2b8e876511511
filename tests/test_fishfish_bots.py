"""The Fish Fish bots: no peeking at the Fisherman's cards, reading his habits, bluffing. (Their legal
choices: tests/test_conformance.py; greedy beating random: tests/test_bots.py.)"""

import copy
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from conformance_helpers import witnessed_decisions

from p2pfish.core.actions import Action, Commit
from p2pfish.games.fishfish.greedy import GreedyFishFish
from p2pfish.games.fishfish.rules import BAITS, BREDOUILLE, BUTIN_SLOTS, PRISE, Bait, Bet, Cast, View
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import Step, play_game

RULES = get_rules("fishfish")


def test_make_bot_gives_the_greedy_fishfish_bot() -> None:
    assert isinstance(make_bot("greedy", RULES.id, random.Random(0)), GreedyFishFish)


class BlindView(View):
    """A view whose Fisherman's cards cannot be read at all."""

    __slots__ = ()

    @property
    def my_peche(self) -> tuple[str, ...] | None:
        raise AssertionError("the bot read my_peche as a Fish")

    @property
    def my_cast(self) -> str | None:
        raise AssertionError("the bot read my_cast as a Fish")


SHOWN = (((PRISE, PRISE, BREDOUILLE), PRISE), ((BREDOUILLE,), BREDOUILLE), ((PRISE,), BREDOUILLE))
"""my_peche / my_cast a Fish's view never has, to slip in."""


class Witness:
    """Plays greedy, and checks each choice as a Fish against twins of the bot (same memory, same rng state)
    shown the Fisherman's cards, or shown a view where reading them fails."""

    def __init__(self, seed: int) -> None:
        self.bot = GreedyFishFish(random.Random(seed))
        self.decisions = 0

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        assert isinstance(view, View)
        if view.seat == view.fisherman:
            return self.bot.choose(view, legal)
        assert view.my_peche is None and view.my_cast is None, "a Fish's view holds no Pêche card"
        twins = [copy.deepcopy(self.bot) for _ in range(len(SHOWN) + 1)]
        choice = self.bot.choose(view, legal)
        for twin, (peche, cast) in zip(twins, SHOWN, strict=False):
            assert twin.choose(view._replace(my_peche=peche, my_cast=cast), legal) == choice
        assert twins[-1].choose(BlindView(*view), legal) == choice
        self.decisions += 1
        return choice


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_fish_never_reads_the_fishermans_cards(players: int) -> None:
    assert witnessed_decisions(RULES, players, 20 + players, Witness) > 20


class Honest:
    """As the Fisherman, lays his highest bait over a Prise while he holds one, then his lowest over a
    Bredouille; as a Fish, bets one tile on every line. Every view he gets is shown to a greedy bot too."""

    def __init__(self, shadow: GreedyFishFish) -> None:
        self.shadow = shadow

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        assert isinstance(view, View)
        self.shadow.choose(view, legal)
        first = legal[0]
        if isinstance(first, Bait):
            values = [a.value for a in legal if isinstance(a, Bait)]
            want = max(values) if PRISE in (view.my_peche or ()) else min(values)
            return BAITS[want]
        if isinstance(first, Cast):
            return next((a for a in legal if isinstance(a, Cast) and a.value == PRISE), first)
        if isinstance(first, Bet):
            return legal[1]
        return first


def first_line(bait: int) -> View:
    """Seat 1's view of the first line of a 2-player game in which seat 0 is the Fisherman."""
    state = RULES.new_game(2, {"start": "0"})
    state = RULES.apply(RULES.apply(state, 0, BAITS[bait]), 0, Commit("peche/1/1", bytes(32)))
    view = RULES.view(state, 1, {})
    assert isinstance(view, View) and view.bettor == 1
    return view


def test_greedy_fish_reads_a_fisherman_who_hides_prises_under_high_baits() -> None:
    shadow = GreedyFishFish(random.Random(1))
    play_game(RULES, 2, {"start": "0"}, [Honest(GreedyFishFish(random.Random(0))), Honest(shadow)], random.Random(1))
    memory = shadow.memory
    assert memory.odds(0, high=True) > 1.5, "seat 0 showed a Prise under a high bait in each of his rounds"
    assert memory.odds(0, high=False) == 1.0, "and no low bait before his first Prise"
    fresh = GreedyFishFish(random.Random(1))
    assert shadow.guesses(first_line(5))[0] > fresh.guesses(first_line(5))[0]
    assert shadow.guesses(first_line(2))[0] == pytest.approx(fresh.guesses(first_line(2))[0])


def test_memory_starts_afresh_with_a_new_game() -> None:
    shadow = GreedyFishFish(random.Random(2))
    play_game(RULES, 2, {"start": "0"}, [Honest(GreedyFishFish(random.Random(0))), Honest(shadow)], random.Random(2))
    assert shadow.memory.odds(0, high=True) > 1.5
    state = RULES.new_game(2, {"start": "1"})
    shadow.choose(RULES.view(state, 1, {}), RULES.legal_actions(state, 1, {}))
    assert shadow.memory.odds(0, high=True) == 1.0


def test_greedy_fisherman_bluffs() -> None:
    """Neither the bait nor the card is a fixed rule: every bait carries either card, some of the time, and
    the round's first bait varies."""
    cards: Counter[tuple[int, str]] = Counter()
    openings: Counter[int] = Counter()

    def record(step: Step) -> None:
        if step.seat == 0 and isinstance(step.choice, Cast):
            cards[(step.before.lines[-1].bait, str(step.choice.value))] += 1
        if step.seat == 0 and isinstance(step.choice, Bait) and not step.before.lines:
            openings[step.choice.value] += 1

    bots = [make_bot("greedy", RULES.id, random.Random(3)), make_bot("random", RULES.id, random.Random(4))]
    rng = random.Random(5)
    for _ in range(60):
        play_game(RULES, 2, {}, bots, rng, on_step=record)
    for bait in BUTIN_SLOTS:
        under = cards[(bait, PRISE)] + cards[(bait, BREDOUILLE)]
        assert min(cards[(bait, PRISE)], cards[(bait, BREDOUILLE)]) >= 0.1 * under, cards
    assert len(openings) == len(BUTIN_SLOTS) and max(openings.values()) <= 0.6 * openings.total(), openings
