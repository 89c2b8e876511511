"""Unpredictable secrets: a bot's secret choices are drawn from a capped mixed strategy, so that a spy who knows
its algorithm guesses them little better than blind (the big measurement: scripts/spy; here a few seeded games,
whose results are fixed by their seeds, against a looser bound). A Kuna Yala bot's dealt colour is disguised
(bots/disguise.py): a spy reading it from the moves, at each decision, does little better than blind."""

import math
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from p2pfish.bots.disguise import Disguise, Disguised
from p2pfish.bots.mixed import SPY_MARGIN, capped_softmax, draw_hidden, uniform_hidden
from p2pfish.core.player import Decision, PlaysBy
from p2pfish.games.kunayala.disguise import colour_chances
from p2pfish.games.registry import game_of, make_bot
from p2pfish.selfplay import play_game
from p2pfish.tools.spy import ColourSpy, measure_secret_spy, measure_spy


def test_no_secret_choice_is_likelier_than_blind_plus_the_margin() -> None:
    probabilities = capped_softmax([10.0, 0.0, -3.0], temperature=1.0)
    assert max(probabilities) == pytest.approx(1 / 3 + SPY_MARGIN)
    assert sum(probabilities) == pytest.approx(1.0)
    assert probabilities[0] > probabilities[1] > probabilities[2] > 0


def test_a_clearly_best_choice_stays_the_likeliest_and_near_equal_ones_stay_near_even() -> None:
    even = capped_softmax([1.0, 1.0], temperature=0.5)
    assert even == pytest.approx([0.5, 0.5])
    rng = random.Random(3)
    drawn = [rng.choices([0, 1, 2], capped_softmax([5.0, 0.0, 0.0], 1.0))[0] for _ in range(3000)]
    assert drawn.count(0) / 3000 == pytest.approx(1 / 3 + SPY_MARGIN, abs=0.04)


@pytest.mark.parametrize(("game_id", "games"), [("fishnstones", 12), ("fishfish", 4), ("kingfish", 3)])
def test_a_spy_guesses_the_greedy_bots_secrets_little_better_than_blind(game_id: str, games: int) -> None:
    tally = measure_spy(game_id, "greedy", games=games)
    assert tally.decisions >= 20
    assert tally.hits / tally.decisions <= tally.blind / tally.decisions + 0.2


def test_a_spy_guesses_the_search_bots_cat_column_little_better_than_blind() -> None:
    tally = measure_spy("fishnstones", "search", games=2, iterations=24)
    assert tally.decisions == 8
    assert tally.hits / tally.decisions <= tally.blind / tally.decisions + 0.3


def test_a_secret_hiding_several_actions_is_capped_over_what_it_hides() -> None:
    rng = random.Random(5)
    hand = {"h1": "hearts", "h2": "hearts", "h3": "hearts", "s1": "spades"}
    values = {"h1": 5.0, "h2": 4.0, "h3": 4.5, "s1": 0.0}
    drawn = [draw_hidden(rng, list(hand), [values[c] for c in hand], hand.__getitem__, 1.0) for _ in range(3000)]
    assert sum(hand[c] == "hearts" for c in drawn) / 3000 == pytest.approx(0.5 + SPY_MARGIN, abs=0.04)
    assert set(drawn) == {"h1", "s1"}, "within a suit the best card is played"
    evenly = [uniform_hidden(rng, list(hand), hand.__getitem__) for _ in range(3000)]
    assert sum(hand[c] == "hearts" for c in evenly) / 3000 == pytest.approx(0.5, abs=0.04)


def within_ten_points_of_blind(hits: int, decisions: int, blind: float) -> bool:
    """Whether `hits` in `decisions` fits a hit rate within 10 points of `blind` (a mean chance), with a margin of
    three standard deviations of a sample this small."""
    margin = 3 * math.sqrt(blind * (1 - blind) / decisions)
    return hits / decisions <= blind + 0.1 + margin


@pytest.mark.parametrize(("game_id", "games"), [("fishnstones", 12), ("fishfish", 6), ("kingfish", 4)])
def test_a_spy_guesses_the_random_bots_secrets_no_better_than_blind(game_id: str, games: int) -> None:
    tally = measure_spy(game_id, "random", games=games)
    assert tally.decisions >= 20
    assert within_ten_points_of_blind(tally.hits, tally.decisions, tally.blind / tally.decisions)


def test_a_spy_reads_an_undisguised_kuna_yala_bots_colour_from_its_moves() -> None:
    tally = measure_secret_spy("kunayala", "greedy", games=2, plain=True)
    assert tally.decisions >= 60
    assert tally.hits / tally.decisions >= 0.8
    assert tally.final_hits == tally.games


def test_a_spy_reads_a_disguised_kuna_yala_bots_colour_little_better_than_blind() -> None:
    tally = measure_secret_spy("kunayala", "greedy", games=3)
    assert tally.decisions >= 100
    assert tally.blind / tally.decisions == pytest.approx(1 / 3)
    assert within_ten_points_of_blind(tally.hits, tally.decisions, 1 / 3)


def test_a_spy_reads_a_disguised_kuna_yala_search_bots_colour_little_better_than_blind() -> None:
    """The search bot inside the disguise reads the colour a turn is played as and public moves only (its worlds
    and default mix the colours the disguise may have drawn; its reading of the table is of public placements)."""
    tally = measure_secret_spy("kunayala", "search", games=1, iterations=4)
    assert tally.decisions >= 30
    assert within_ten_points_of_blind(tally.hits, tally.decisions, 1 / 3)


def test_a_spy_reads_nothing_of_a_random_kuna_yala_bots_colour() -> None:
    tally = measure_secret_spy("kunayala", "random", games=1)
    assert tally.decisions >= 30
    assert within_ten_points_of_blind(tally.hits, tally.decisions, 1 / 3)


def test_the_kuna_yala_bots_are_disguised_and_the_random_one_needs_no_disguise() -> None:
    for kind in ("greedy", "search"):
        assert isinstance(make_bot(kind, "kunayala", random.Random(0)), Disguised)
        assert not isinstance(make_bot(kind, "fishnstones", random.Random(0)), Disguised)
    assert not isinstance(make_bot("random", "kunayala", random.Random(0)), Disguised)


def test_a_disguised_bot_plays_each_turn_as_one_colour_drawn_for_it() -> None:
    """An inner bot that shows its colour outright (it plays the colour it is told): through the disguise, each
    turn shows a colour drawn for that turn, the bot's own only at the Kuna Yala chances."""
    disguise, bot = colour_showing_bot(set(), 4)
    colours = list(disguise.values)
    legal: Any = colours
    turns = [[bot.choose({"colour": "red", "turn": turn}, legal) for _ in range(2)] for turn in range(3000)]
    assert all(first == second for first, second in turns), "a turn's decisions are played as one colour"
    counts: Counter[Any] = Counter(first for first, _ in turns)
    assert counts["red"] / 3000 == pytest.approx(0.3, abs=0.03)
    assert min(counts[c] for c in colours[1:]) / 3000 == pytest.approx(0.7 / 3, abs=0.03)


def colour_showing_bot(last_turns: set[int], seed: int) -> tuple[Disguise, Disguised]:
    """A disguised bot that plays the colour it is told, and on a turn in `last_turns` its true colour outright."""
    colours = ("red", "yellow", "green", "blue")
    disguise = Disguise(
        secret=lambda view: view["colour"],
        values=colours,
        as_if=lambda view, colour: {**view, "colour": colour},
        chances=lambda view, own: {c: 0.3 if c == own else 0.7 / 3 for c in colours},
        period=lambda view: view["turn"],
    )
    last: Any = lambda view, legal: view["colour"] if view["turn"] in last_turns and "octopus" not in view else None  # noqa: E731
    return disguise, Disguised(ShowsColour(), disguise, random.Random(seed), last)


class ShowsColour:
    """Plays the colour its view shows (a copy of it, as the spy makes one, draws from a generator of its own)."""

    def __init__(self) -> None:
        self._rng = random.Random(0)

    def choose(self, view: Any, legal: list[Any]) -> Any:
        return view["colour"]


@pytest.mark.parametrize("octopus_first", [False, True])
def test_a_disguised_bots_last_turn_shows_its_colour_and_the_spy_reads_it_so(octopus_first: bool) -> None:
    """Whatever the five disguised turns before showed (a spy blind to the last turn's nature names another colour
    in about one game of five), the last turn names the colour; also when a disguised move of the same period (an
    octopus placed before the seat's own turn) comes first."""
    for seed in range(20):
        disguise, bot = colour_showing_bot({5}, seed)
        spy = ColourSpy(bot, disguise, random.Random(1))
        legal: Any = list(disguise.values)
        views = [{"colour": "green", "turn": turn} for turn in range(6)]
        if octopus_first:
            views.insert(5, {"colour": "green", "turn": 5, "octopus": True})
        moves: list[Any] = []
        for view in views:
            moves.append(bot.choose(view, legal))
            spy.saw(view, legal, moves[-1])
        assert moves[-1] == "green", "the last turn is played for the true colour"
        assert spy.guess(["red", "yellow", "green"]) == "green"


def test_the_kuna_yala_disguise_favours_the_own_colour_by_its_share_only() -> None:
    view = next(decision.view for decision in kuna_yala_decisions())
    chances = colour_chances(view, view.my_colour)
    assert chances[view.my_colour] == pytest.approx(0.3)
    assert sum(chances.values()) == pytest.approx(1.0)
    assert max(p for c, p in chances.items() if c != view.my_colour) == pytest.approx(0.7 / 3)


def kuna_yala_decisions() -> Iterator[Decision]:
    rules = game_of("kunayala").rules
    found: list[Decision] = []

    def keep(view: Any, legal: list[Any]) -> Any:
        found.append(Decision(view, legal))
        return legal[0]

    play_game(rules, 2, {}, [PlaysBy(keep), PlaysBy(lambda view, legal: legal[0])], random.Random(1))
    return iter(d for d in found if len(d.legal) > 1)
