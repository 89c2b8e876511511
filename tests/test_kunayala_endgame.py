"""The last turn of a Kuna Yala game (games/kunayala/endgame.py): a turn said to end the game ends it whatever the
refills turn up, and it is played for the seat's own colour, the best of the pairs of placements that end it."""

import dataclasses
import random
from typing import Any

import pytest

from p2pfish.bots.disguise import Disguised
from p2pfish.core.actions import Action, Chance
from p2pfish.core.game import ChanceRequest
from p2pfish.games.kunayala.endgame import MARGIN_WEIGHT, ends_with, last_turn, octopus_chances
from p2pfish.games.kunayala.rules import (
    FISH_COLOURS,
    OWN,
    PLACE_OCTOPUS,
    REVEAL,
    PlaceOther,
    PlaceOwn,
    State,
    View,
    coral_leader,
    school_view,
    scores,
    tally,
    winners,
)
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import Step, play_game

RULES = get_rules("kunayala")


def own_turns(seed: int) -> list[tuple[State, View]]:
    """Every turn's start in a heads-up game of greedy bots: the state, and the view of the seat to play."""
    found: list[tuple[State, View]] = []

    def note(step: Step) -> None:
        state = step.after
        if state.phase == OWN:
            seat = state.current
            found.append((state, RULES.view(state, seat, step.known[seat])))

    bots = [make_bot("greedy", "kunayala", random.Random(seed + seat)) for seat in range(2)]
    play_game(RULES, 2, {}, bots, random.Random(seed), on_step=note)
    return found


def after_the_refills(state: State, rng: random.Random) -> State:
    """The state once the turn's refills are done (chance drawn at random, an octopus put on the first coral)."""
    while (request := RULES.chance(state)) is not None or state.phase == PLACE_OCTOPUS:
        if request is None:
            seat = RULES.to_act(state)[0]
            state = RULES.apply(state, seat, RULES.legal_actions(state, seat, {})[0])
        else:
            assert isinstance(request, ChanceRequest)
            state = RULES.apply(state, None, Chance(tuple(rng.sample(request.pool, request.count))))
    return state


def one_per_slot(actions: Any) -> dict[int, Action]:
    chosen: dict[int, Action] = {}
    for action in actions:
        chosen.setdefault(action.slot, action)
    return chosen


def test_a_turn_said_to_end_the_game_ends_it_whatever_the_refills_turn_up() -> None:
    ending = lasting = 0
    for seed in range(1, 5):
        for state, view in own_turns(seed)[-6:]:
            seat = view.seat
            for own in one_per_slot(RULES.legal_actions(state, seat, {})).values():
                assert isinstance(own, PlaceOwn)
                placed = RULES.apply(state, seat, own)
                for other in one_per_slot(RULES.legal_actions(placed, seat, {})).values():
                    assert isinstance(other, PlaceOther)
                    if not ends_with(view, (own.slot, other.slot)):
                        lasting += 1
                        continue
                    ending += 1
                    for draw in range(5):
                        done = after_the_refills(RULES.apply(placed, seat, other), random.Random(draw))
                        assert done.phase == REVEAL, (seed, own, other)
    assert ending >= 20 and lasting >= 20


def test_before_the_game_can_end_a_turn_is_left_to_the_disguise() -> None:
    for state, view in own_turns(1)[:20]:
        legal = list(RULES.legal_actions(state, view.seat, {}))
        assert last_turn(view, legal) is None


def win_share(state: State, seat: int, colour: str, octopuses: list[tuple[int, float]]) -> float:
    """The seat's share of the win on a finished board plus MARGIN_WEIGHT times its margin, over the colours the
    other seat may have (evenly) and the octopuses the coral leader may still get."""
    leader = coral_leader(state.schools)
    value = 0.0
    for theirs in (c for c in FISH_COLOURS if c != colour):
        colours = [colour if s == seat else theirs for s in range(2)]
        own_fish = [sum(tally(school_view(school)).fish.values()) for school in state.schools]
        for drawn, chance in octopuses:
            totals = [
                points.total + (drawn if s == leader else 0) for s, points in enumerate(scores(state.schools, colours))
            ]
            won = winners(totals, own_fish)
            margin = totals[seat] - totals[1 - seat]
            value += chance * ((1.0 / len(won) if seat in won else 0.0) + MARGIN_WEIGHT * margin) / 3
    return value


def best_ending(state: State, view: View, own: PlaceOwn, colour: str) -> float | None:
    placed = RULES.apply(state, view.seat, own)
    octopuses = octopus_chances(view, [tally(school_view(school)) for school in state.schools])
    values = [
        win_share(RULES.apply(placed, view.seat, other), view.seat, colour, octopuses)
        for other in RULES.legal_actions(placed, view.seat, {})
        if isinstance(other, PlaceOther) and ends_with(view, (own.slot, other.slot))
    ]
    return max(values, default=None)


def test_the_last_turn_is_played_for_the_own_colour_the_likeliest_win_of_the_pairs_that_end_the_game() -> None:
    checked, differs = 0, False
    for seed in range(1, 5):
        for state, view in own_turns(seed)[-3:]:
            legal = list(RULES.legal_actions(state, view.seat, {}))
            chosen = last_turn(view, legal)
            if chosen is None:
                continue
            assert view.my_colour is not None and isinstance(chosen, PlaceOwn)
            values = {own: best_ending(state, view, own, view.my_colour) for own in legal if isinstance(own, PlaceOwn)}
            best = max(v for v in values.values() if v is not None)
            assert values[chosen] == pytest.approx(best)
            checked += 1
            others = {last_turn(view._replace(my_colour=c), legal) for c in FISH_COLOURS if c != view.my_colour}
            differs = differs or others != {chosen}
    assert checked >= 3
    assert differs, "another colour would have played the last turn otherwise somewhere"


def test_only_the_search_bot_plays_its_last_turn_undisguised() -> None:
    search = make_bot("search", "kunayala", random.Random(0))
    greedy = make_bot("greedy", "kunayala", random.Random(0))
    assert isinstance(search, Disguised) and search.last_turn is last_turn
    assert isinstance(greedy, Disguised) and greedy.last_turn is None


def test_the_last_refills_turn_up_octopuses_at_their_chance_until_two_other_cards_show() -> None:
    view = own_turns(1)[0][1]

    def chances(cards: int, octopuses: int) -> dict[int, float]:
        stacks = (cards, 0, 0, 0)
        options = dataclasses.replace(view.options, octopuses=octopuses)
        return dict(octopus_chances(view._replace(stacks=stacks, discards=(), options=options), []))

    assert chances(2, 0) == {0: 1.0}
    assert chances(1, 1) == {1: 1.0}
    three = chances(3, 1)  # the octopus first or second of the three: drawn; last: never reached
    assert three[0] == pytest.approx(1 / 3) and three[1] == pytest.approx(2 / 3)
    many = chances(20, 4)
    assert sum(many.values()) == pytest.approx(1.0)
    assert sum(k * p for k, p in many.items()) == pytest.approx(2 * 4 / 17)  # each of 4 before the 2nd of 16
