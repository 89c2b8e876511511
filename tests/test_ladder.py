"""`p2pfish ladder` (p2pfish/tools/ladder.py): its games are the games a table of the same bots plays, seat for seat,
and its figures are the standard ones."""

import random
from typing import Any

import pytest

from p2pfish.bots.search import Budget
from p2pfish.core.player import PlaysBy
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import play_game
from p2pfish.tools.ladder import LadderConfig, Timed, play_one, seat_kinds, wilson


def test_every_decision_reaches_the_bot_and_only_real_choices_are_timed() -> None:
    seen: list[int] = []

    def first(view: Any, legal: list[Any]) -> Any:
        seen.append(len(legal))
        return legal[0]

    sink: list[tuple[str, float]] = []
    timed = Timed("greedy", PlaysBy(first), sink)
    one: Any = ["only"]
    two: Any = ["a", "b"]
    chosen: list[Any] = [timed.choose({}, one), timed.choose({}, two)]
    assert chosen == ["only", "a"]
    assert seen == [1, 2]
    assert [kind for kind, _ in sink] == ["greedy"]


def test_a_ladder_game_is_the_game_the_same_bots_play_at_a_table() -> None:
    """Game 3 of a Kuna Yala ladder (seed 1: seeded 4, seats rotated by 3) against the same bots, built with the
    same seeds and played by selfplay: the search bot's reading of the table sees every view in both."""
    config = LadderConfig("kunayala", 2, ("search", "greedy"), games=4, seed=1, iterations=2, options={})
    record = play_one(config, 3)
    kinds = seat_kinds(config.kinds, 2, 3)
    assert kinds == record.kinds == ("greedy", "search")
    bots = [make_bot(kind, "kunayala", random.Random(f"4/{seat}"), budget=Budget(2)) for seat, kind in enumerate(kinds)]
    outcome, _ = play_game(get_rules("kunayala"), 2, {}, bots, random.Random(4))
    assert outcome.scores == record.scores and outcome.winners == record.winners


def test_the_interval_is_wilsons() -> None:
    low, high = wilson(242, 400)
    assert (low, high) == pytest.approx((0.5562, 0.6518), abs=5e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=5e-4)
