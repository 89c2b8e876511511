"""The Kuna Yala search bot (games/kunayala/reading.py, sampler.py): who placed which card, read from the seat's
own views and moves alone; the colours a sampled world gives each seat; its default; a playout's judgement."""

import math
import random
from collections import Counter
from typing import Any

import pytest

from p2pfish.core.actions import Action, card_name
from p2pfish.core.player import PlaysBy
from p2pfish.games.kunayala import sampler
from p2pfish.games.kunayala.disguise import FULL_STACKS, colour_chances
from p2pfish.games.kunayala.greedy import LEAD_WEIGHT, GreedyKunaYala, Table
from p2pfish.games.kunayala.reading import GIVEN_FISH, OWN_FISH, SHARKED, TableReading
from p2pfish.games.kunayala.rules import (
    COLOUR_DECK,
    CORAL,
    DEFAULT_MIX,
    FISH,
    FISH_COLOURS,
    MAJORITY_BONUS,
    OCTOPUS,
    SHARK,
    Cell,
    Options,
    PlaceOther,
    PlaceOwn,
    Tally,
    View,
    card,
    coral_leader,
    corals,
    school_view,
    scores,
    tally,
)
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import Step, play_game

RULES = get_rules("kunayala")
MINE, THEIRS = card_name(COLOUR_DECK, 0), card_name(COLOUR_DECK, 1)


def played_and_logged(seed: int) -> tuple[TableReading, View, dict[str, float]]:
    """A heads-up game of greedy bots, seat 0 telling a reading its own moves: the reading, seat 0's last view, and
    the evidence on seat 1's colour until then, worked out from the game's true log of who placed what."""
    reading = TableReading()
    greedy = make_bot("greedy", "kunayala", random.Random(seed))
    views: list[tuple[View, dict[str, float]]] = []
    expected = dict.fromkeys(FISH_COLOURS, 0.0)

    def seat_0(view: Any, legal: list[Action]) -> Action:
        action = greedy.choose(view, legal)
        reading.chose(view, action)
        views.append((view, dict(expected)))
        return action

    def log(step: Step) -> None:
        action, before = step.choice, step.before
        if step.seat != 1 or not isinstance(action, PlaceOwn | PlaceOther):
            return
        placed = card(before.face_up[action.slot])
        school = step.after.schools[action.seat if isinstance(action, PlaceOther) else 1]
        if any(cell.bones for cell in school if (cell.x, cell.y) == (action.x, action.y)):
            return  # cursed as it was placed: seat 0 never sees that fish
        if placed.kind == FISH and placed.colour is not None:
            expected[placed.colour] += (OWN_FISH if isinstance(action, PlaceOwn) else GIVEN_FISH) * placed.fish
        elif placed.kind == SHARK and isinstance(action, PlaceOther):
            prey = next(cell for cell in before.schools[0] if (cell.x, cell.y) == (action.x, action.y))
            colour = card(prey.pile[-1]).colour
            assert colour is not None
            expected[colour] += SHARKED

    bots = [PlaysBy(seat_0), make_bot("greedy", "kunayala", random.Random(seed + 1))]
    play_game(RULES, 2, {}, bots, random.Random(seed), on_step=log)
    view, before = views[-1]
    return reading, view, before


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_reading_credits_the_other_seat_with_the_cards_it_placed_and_no_others(seed: int) -> None:
    """Read from seat 0's views and moves alone, the evidence on seat 1's colour is what the true log gives (the
    cards seat 1 placed; seat 0's own placements in seat 1's school count for nothing)."""
    reading, view, expected = played_and_logged(seed)
    weights = reading.weights(view)
    assert weights[0] == dict.fromkeys(FISH_COLOURS, 1.0), "nothing is read of the seat's own colour"
    for colour in FISH_COLOURS:
        assert math.log(weights[1][colour]) == pytest.approx(expected[colour], abs=1e-9)
    assert sum(abs(value) for value in expected.values()) > 0.3, "the game placed fish to read"


def some_view(turn: int) -> View:
    found: list[View] = []

    def keep(view: Any, legal: list[Action]) -> Action:
        if view.turns >= turn and not found:
            found.append(view)
        return legal[0]

    play_game(RULES, 2, {}, [PlaysBy(keep), PlaysBy(lambda view, legal: legal[0])], random.Random(5))
    return found[0]


def test_a_sampled_world_gives_the_seat_the_colour_shown_only_at_the_disguises_chance() -> None:
    """A turn is played as the view's colour; the seat's own is that one at the disguise's chance, so the worlds
    searched give the seat each colour as often as it is the seat's own given the colour shown."""
    view = some_view(10)
    assert view.my_colour is not None
    rng = random.Random(2)
    even = [dict.fromkeys(FISH_COLOURS, 1.0)] * 2
    drawn = [sampler.sample(view, rng, even).known for _ in range(2000)]
    own = Counter(str(known[0][MINE]) for known in drawn)
    chances = {c: colour_chances(view, c)[view.my_colour] for c in FISH_COLOURS}
    for colour in FISH_COLOURS:
        assert own[colour] / 2000 == pytest.approx(chances[colour] / sum(chances.values()), abs=0.035)
    assert all(known[0][MINE] != known[1][THEIRS] for known in drawn)


def test_the_other_seats_colour_follows_the_reading() -> None:
    view = some_view(10)
    rng = random.Random(3)
    sure = [dict.fromkeys(FISH_COLOURS, 1.0), {c: float(c == "green") for c in FISH_COLOURS}]
    drawn = [sampler.sample(view, rng, sure).known for _ in range(300)]
    assert {known[1][THEIRS] for known in drawn} == {"green"}
    assert "green" not in {known[0][MINE] for known in drawn}


def test_the_search_keeps_the_move_worth_most_over_the_colours_it_may_be_playing_for() -> None:
    """Its default (what it keeps unless a move is clearly better) is the best by the greedy values averaged over
    the colours it may be playing for, weighted as the sampler draws them."""
    prior_of: Any = sampler.SAMPLER.prior
    default_of: Any = sampler.SAMPLER.default
    found: list[tuple[View, list[Action]]] = []

    def keep(view: Any, legal: list[Action]) -> Action:
        if isinstance(legal[0], PlaceOwn) and len(legal) > 3 and len(found) < 5:
            found.append((view, legal))
        return legal[0]

    play_game(RULES, 2, {}, [PlaysBy(keep), PlaysBy(lambda view, legal: legal[0])], random.Random(6))
    assert len(found) == 5
    for view, legal in found:
        prior = prior_of(view, legal)
        assert prior[default_of(view, legal)] == max(prior)
        shown = GreedyKunaYala(random.Random(0)).values(view, legal)
        weights = sampler.own_weights(view)
        mixed = [sum(weights[c] * v for c, v in zip(FISH_COLOURS, per, strict=True)) for per in by_colour(view, legal)]
        assert prior == pytest.approx(mixed)
        assert view.my_colour is not None and weights[view.my_colour] < 1.0 and shown != prior


def by_colour(view: View, legal: list[Action]) -> list[list[float]]:
    """Per action, the greedy value for each colour (in FISH_COLOURS' order)."""
    values = [GreedyKunaYala(random.Random(0)).values(view._replace(my_colour=c), legal) for c in FISH_COLOURS]
    return [list(per) for per in zip(*values, strict=True)]


def test_a_majority_counts_as_a_race_the_larger_the_lead_the_surer() -> None:
    """A playout stopped at the horizon counts the majority bonus by the own colour's lead in the own school: more
    for a larger lead, never the whole bonus nor nothing, and a narrow lead surer the fewer cards are left."""
    own = Tally(dict(zip(FISH_COLOURS, (5, 3, 0, 0), strict=True)), 0, 0)
    leads = {colour: sampler._race(own, colour, 0.5) for colour in FISH_COLOURS}
    assert 0.0 < leads["blue"] == leads["green"] < leads["yellow"] < leads["red"] < MAJORITY_BONUS
    narrow = Tally(dict(zip(FISH_COLOURS, (4, 3, 0, 0), strict=True)), 0, 0)
    assert sampler._race(narrow, "red", 1.0) < sampler._race(narrow, "red", 0.0) < sampler._race(own, "red", 0.0)
    assert sampler._race(narrow, "yellow", 1.0) > sampler._race(narrow, "yellow", 0.0)


def test_a_playout_stops_after_a_turn_of_every_seat_judged_with_the_race() -> None:
    view = some_view(12)
    world = sampler.sample(view, random.Random(1))
    assert sampler._horizon(view, world) is None
    state = world.state._replace(turns=view.turns + 2)
    world.state = state
    judged = sampler._horizon(view, world)
    assert judged is not None
    colours = [str(world.known[s][card_name(COLOUR_DECK, s)]) for s in range(2)]
    tallies = [tally(school_view(school)) for school in state.schools]
    left = min(1.0, sum(state.stacks) / FULL_STACKS)
    leader = coral_leader(state.schools)
    for seat, points in enumerate(scores(state.schools, colours)):
        race = sampler._race(tallies[seat], colours[seat], left)
        lead = sampler._octopuses_to_come(state, tallies) if seat == leader else 0.0
        assert judged[seat] == pytest.approx(points.total - points.majority + race + lead)


def test_a_playout_credits_the_coral_leader_with_the_octopuses_still_to_come() -> None:
    """At the horizon the seat with strictly the most corals is counted as getting the greedy bot's share of the
    octopuses not seen yet (none on a tie, none with the stacks spent), as the greedy bot values a coral."""
    view = some_view(0)
    world = sampler.sample(view, random.Random(4))
    state = world.state._replace(turns=view.turns + 2)
    assert [corals(school) for school in state.schools] == [1, 1], "each seat starts with its coral"
    tallies = [tally(school_view(school)) for school in state.schools]
    seen = sum(t.octopuses for t in tallies) + sum(card(label).kind == OCTOPUS for label in state.discards)
    seen += state.octopus is not None
    left = sum(state.stacks)
    to_come = LEAD_WEIGHT * (DEFAULT_MIX["octopuses"] - seen) * (left - max(state.stacks)) / left
    assert sampler._octopuses_to_come(state, tallies) == pytest.approx(to_come) and to_come > 5.0
    world.state = state
    tied = sampler._horizon(view, world)
    school = state.schools[1]
    x = max(cell.x for cell in school) + 1
    y = next(cell.y for cell in school if cell.x == x - 1)
    more = (*school, Cell(x, y, (next(label for label in state.unseen if card(label).kind == CORAL),)))
    world.state = state._replace(schools=(state.schools[0], more))
    led = sampler._horizon(view, world)
    assert tied is not None and led is not None
    assert led[0] == pytest.approx(tied[0])
    assert led[1] == pytest.approx(tied[1] + sampler._octopuses_to_come(world.state, tallies))
    world.state = world.state._replace(stacks=(0,) * len(state.stacks))
    spent = sampler._horizon(view, world)
    assert spent is not None and sampler._octopuses_to_come(world.state, tallies) == 0.0


def test_the_octopuses_to_come_are_counted_from_the_tables_mix() -> None:
    """A table with more or fewer octopuses (`--option octopuses=N`) has more or fewer to come: the greedy bot
    and the playout's horizon count them from the table's options, not from the default mix."""
    view = some_view(0)
    state = sampler.sample(view, random.Random(4)).state
    tallies = [tally(school_view(school)) for school in state.schools]

    def to_come(octopuses: int) -> tuple[float, float]:
        options = Options(octopuses=octopuses)
        return (Table(view._replace(options=options)).lead,
                sampler._octopuses_to_come(state._replace(options=options), tallies))  # fmt: skip

    default = (Table(view).lead, sampler._octopuses_to_come(state, tallies))
    assert to_come(DEFAULT_MIX["octopuses"]) == default and min(default) > 5.0
    assert to_come(0) == (0.0, 0.0)
    more = to_come(DEFAULT_MIX["octopuses"] + 10)
    assert more[0] > default[0] and more[1] > default[1]
