"""Unpredictable secrets: a bot's secret choices are drawn from a capped mixed strategy, so that a spy who knows
its algorithm guesses them little better than blind (the big measurement: scripts/spy; here a few seeded games,
whose results are fixed by their seeds, against a looser bound)."""

import random

import pytest

from p2pfish.bots.mixed import SPY_MARGIN, capped_softmax
from p2pfish.tools.spy import measure_spy


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
