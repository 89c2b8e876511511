"""Scenario tests for the greedy Fish'n'Stones bot's baiting (its cat column's mixing is in test_spy.py)."""

import random

from p2pfish.games.fishnstones.greedy import GreedyFishNStones, stack_value
from p2pfish.games.fishnstones.rules import BAIT, RULES, SPOT_BY_NAME, Bait, State, cat_purpose

ROWS = ("fish fish fish", "fish water fish", "fish stone water")
"""Round 3 of `p2pfish watch fishnstones --seed 8 --bots 1`, seen from the south shore (north row first)."""
HEIGHTS = ((3, 1, 1), (3, 1, 1), (3, 3, 3))


def round_three_after_north_baited() -> State:
    """North (seat 1) starts, so it baits and fishes first: it has baited a3 with the 3 fish of a2, which
    shows that its column is the a column. South (seat 0) has cast its cat on column 1, the a column too."""
    pond: list[tuple[str, ...]] = [()] * 9
    for row, (items, heights) in enumerate(zip(ROWS, HEIGHTS, strict=True)):
        for x, (item, height) in enumerate(zip(items.split(), heights, strict=True)):
            pond[3 * (2 - row) + x] = (item,) * height
    a3, a2 = SPOT_BY_NAME["a3"], SPOT_BY_NAME["a2"]
    pond[a3], pond[a2] = pond[a3] + pond[a2], ()
    state = RULES.new_game(2, {"start": "1"})
    return state._replace(
        phase=BAIT,
        round=3,
        start=1,
        pond=tuple(pond),
        turn=1,
        commitments=(bytes(32), bytes(32)),
        baits=((1, a3, a2),),
    )


def test_the_greedy_bot_does_not_pile_its_fish_onto_a_stack_an_earlier_fisher_baited() -> None:
    state = round_three_after_north_baited()
    known = {cat_purpose(3): 1}
    legal = list(RULES.legal_actions(state, 0, known))
    view = RULES.view(state, 0, known)
    assert Bait(SPOT_BY_NAME["a3"], SPOT_BY_NAME["b3"]) in legal
    for seed in range(5):
        action = GreedyFishNStones(random.Random(seed)).choose(view, legal)
        assert not (isinstance(action, Bait) and action.target == SPOT_BY_NAME["a3"]), action


def test_with_no_earlier_baiter_the_greedy_bot_still_builds_its_best_stack() -> None:
    state = round_three_after_north_baited()._replace(start=0, turn=0, baits=())
    known = {cat_purpose(3): 1}
    view = RULES.view(state, 0, known)
    action = GreedyFishNStones(random.Random(0)).choose(view, list(RULES.legal_actions(state, 0, known)))
    assert action == Bait(SPOT_BY_NAME["a3"], SPOT_BY_NAME["b3"])


def test_a_covered_card_is_worth_what_the_tables_mix_makes_it() -> None:
    """Under the default pond (18 fish, 9 stones, 9 water) a face-down card is worth +0.25 fish; a table whose
    pond holds more stones than fish makes it a loss, and the greedy bot values a tall stack by that."""
    state = round_three_after_north_baited()
    stony = state._replace(options=RULES.new_game(2, {"pond": "fish:9,stone:18,water:9"}).options)
    a3 = SPOT_BY_NAME["a3"]
    worth = [stack_value(RULES.view(s, 0, {}), a3) for s in (state, stony)]
    assert RULES.view(state, 0, {}).heights[a3] == 6
    assert worth == [1.0 + 5 * 0.25, 1.0 - 5 * 0.25]
