"""Property tests for the Kuna Yala rules: random legal games with random choices and random card mixes.

Games are driven only through the engine contract: the colour tiles shuffled and dealt privately (each
seat's label kept in its own knowledge under card_name), turn-ups drawn from the requested pool, and every
move picked from `legal_actions`. The checks re-derive what they can from the views alone, with their own
reading of the card labels, independently of the engine.
"""

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from campaign import examples, pick, some
from conformance_helpers import applied_purely, snapshot, start_options, strings_in
from hypothesis import event, given
from hypothesis import strategies as st
from test_kunayala_rules import census

from p2pfish.core.actions import Action, Chance, Dealt, RevealCard, Shuffled, card_name
from p2pfish.core.errors import IllegalAction
from p2pfish.core.game import ChanceRequest, DealRequest, ShuffleRequest
from p2pfish.games.kunayala.rules import (
    OVER,
    REVEAL,
    RULES,
    Discard,
    PlaceOctopus,
    PlaceOther,
    PlaceOwn,
    State,
    View,
    deck_labels,
    place_other,
    place_own,
)

SETTINGS = examples(10)
COLOURS = ("red", "yellow", "green", "blue")
Position = tuple[int, int]


# --- an independent reading of labels and schools -------------------------------------------------


def kind(label: str) -> str:
    """fish, coral, shark, octopus or bones (a two-fish card is a fish)."""
    head = label.partition("-")[0]
    return "fish" if head == "2fish" else head


def traits(label: str) -> tuple[str, str]:
    _, colour, background, _ = label.split("-")
    return colour, background


def fish_on(label: str) -> int:
    return 2 if label.startswith("2fish-") else 1


def may_touch(new: str, neighbour_top: str) -> bool:
    if kind(new) == "coral":
        return True
    if kind(neighbour_top) == "bones":
        return False
    if kind(neighbour_top) == "fish":
        return any(a == b for a, b in zip(traits(new), traits(neighbour_top), strict=True))
    return True


def tops(view: View, seat: int) -> dict[Position, tuple[str, int]]:
    return {(c.x, c.y): (c.top, c.height) for c in view.schools[seat]}


def live_fish(school: dict[Position, tuple[str, int]]) -> dict[Position, str]:
    return {p: top for p, (top, height) in school.items() if kind(top) == "fish" and height == 1}


def orthogonal(position: Position) -> Iterator[Position]:
    x, y = position
    yield from ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


def window(school: dict[Position, tuple[str, int]]) -> Iterator[Position]:
    """Every cell of the school's bounding box grown by two."""
    xs = [x for x, _ in school]
    ys = [y for _, y in school]
    for x in range(min(xs) - 2, max(xs) + 3):
        for y in range(min(ys) - 2, max(ys) + 3):
            yield (x, y)


def cells_for(label: str, school: dict[Position, tuple[str, int]]) -> set[Position]:
    """Empty cells next to a card whose every orthogonal neighbour lets `label` lie beside it."""
    if kind(label) == "shark":
        return set(live_fish(school))
    found = set()
    for position in window(school):
        if position in school:
            continue
        neighbours = [school[p][0] for p in orthogonal(position) if p in school]
        if neighbours and all(may_touch(label, top) for top in neighbours):
            found.add(position)
    return found


def expected_turn_actions(view: View, seat: int) -> set[Action]:
    """What the current seat may do in the own or the other phase, computed from its view."""
    schools = [tops(view, s) for s in range(view.players)]
    opponents = [s for s in range(view.players) if s != seat]
    face_up = {slot: label for slot, label in enumerate(view.face_up) if label is not None}
    to_opponent = {
        (slot, o, x, y) for slot, label in face_up.items() for o in opponents for x, y in cells_for(label, schools[o])
    }
    if view.phase == "other":
        return {PlaceOther(*placement) for placement in to_opponent}
    own: set[Action] = set()
    for slot, label in face_up.items():
        if kind(label) == "shark" or not any(other != slot for other, *_ in to_opponent):
            continue
        own |= {PlaceOwn(slot, x, y) for x, y in cells_for(label, schools[seat])}
    if own:
        return own
    slots = sorted(face_up)
    return {Discard(a, b) for i, a in enumerate(slots) for b in slots[i + 1 :]}


def runs_of_three(school: dict[Position, tuple[str, int]]) -> list[Position]:
    """Cells that start a horizontal or vertical run of 3 live fish with one background."""
    fish = live_fish(school)
    starts = []
    for (x, y), label in fish.items():
        background = traits(label)[1]
        for dx, dy in ((1, 0), (0, 1)):
            line = [fish.get((x + k * dx, y + k * dy)) for k in (1, 2)]
            if all(other is not None and traits(other)[1] == background for other in line):
                starts.append((x, y))
    return starts


# --- random games --------------------------------------------------------------------------------


@dataclass
class Setup:
    players: int
    options: dict[str, str]


@st.composite
def setups(draw: Any) -> Setup:
    players = draw(st.integers(2, 4))
    options = draw(start_options(players))
    if draw(st.booleans()):
        # a smaller mix, rich in sharks and octopuses: short games full of the rare cases
        options["singles"] = str(draw(st.integers(0, 2)))
        options["doubles"] = str(draw(st.integers(0, 1)))
        options["coral"] = str(draw(st.integers(players, 14)))
        options["sharks"] = str(draw(st.integers(0, 14)))
        options["octopuses"] = str(draw(st.integers(0, 10)))
    return Setup(players, options)


@dataclass
class Game:
    setup: Setup
    state: State
    known: list[dict[str, int | str]]
    tiles: list[str] = field(default_factory=list)
    log: list[tuple[int | None, Action]] = field(default_factory=list)


StepHook = Callable[[Game, int | None, Action, State], None]
"""Called after each step with (game before the step, seat, action, state after)."""


def choose(data: Any, game: Game) -> tuple[int | None, Action]:
    state = game.state
    request = RULES.chance(state)
    if isinstance(request, ShuffleRequest):
        game.tiles = list(data.draw(st.permutations(request.labels)))
        return None, Shuffled(request.deck, len(request.labels))
    if isinstance(request, DealRequest):
        assert request.to is not None
        for position in request.positions:
            game.known[request.to][card_name(request.deck, position)] = game.tiles[position]
        return None, Dealt(request.deck, request.positions, request.to, None)
    if isinstance(request, ChanceRequest):
        return None, Chance((pick(data, request.pool),))
    (seat,) = RULES.to_act(state)
    legal = RULES.legal_actions(state, seat, game.known[seat])
    assert legal, f"seat {seat} is to act in the {state.phase} phase but is offered nothing"
    return seat, pick(data, legal)


def play(data: Any, setup: Setup, on_step: StepHook | None = None) -> Game:
    game = Game(setup, RULES.new_game(setup.players, setup.options), [{} for _ in range(setup.players)])
    for _ in range(2000):
        if RULES.outcome(game.state) is not None:
            return game
        seat, action = choose(data, game)
        before = Game(setup, game.state, [dict(k) for k in game.known], game.tiles)
        after = applied_purely(RULES, game.state, seat, action)
        if on_step is not None:
            on_step(before, seat, action, after)
        game.state = after
        game.log.append((seat, action))
    raise AssertionError("the game did not end")


# --- properties ----------------------------------------------------------------------------------


@SETTINGS
@given(setup=setups(), data=st.data())
def test_cards_are_conserved_and_no_run_of_three_survives(setup: Setup, data: Any) -> None:
    state = RULES.new_game(setup.players, setup.options)
    mix = Counter(deck_labels(state.options))
    assert census(state) == mix
    assert max(state.stacks) - min(state.stacks) <= 1

    def check(before: Game, seat: int | None, action: Action, after: State) -> None:
        # no card created or lost: stacks + face-up + every school + discards (+ an octopus in hand) == the mix
        assert census(after) == mix
        assert sum(after.stacks) == len(after.unseen)
        assert all(size >= 0 for size in after.stacks)
        view = RULES.view(after, 0, {})
        for seat_ in range(setup.players):
            assert runs_of_three(tops(view, seat_)) == []

    game = play(data, setup, on_step=check)
    event(f"{sum(isinstance(a, Discard) for _, a in game.log)} discard turns")
    event(f"octopus placed: {any(isinstance(a, PlaceOctopus) for _, a in game.log)}")


@SETTINGS
@given(setup=setups(), data=st.data())
def test_legal_actions_match_an_independent_reading_of_the_rules(setup: Setup, data: Any) -> None:
    def check(before: Game, seat: int | None, action: Action, after: State) -> None:
        state = before.state
        to_act = RULES.to_act(state)
        for other in range(setup.players):
            if other not in to_act:
                assert RULES.legal_actions(state, other, before.known[other]) == ()
        if seat is None:
            return
        view = RULES.view(state, seat, before.known[seat])
        legal = list(RULES.legal_actions(state, seat, before.known[seat]))
        assert len(legal) == len(set(legal))
        if state.phase in ("own", "other"):
            expected = expected_turn_actions(view, seat)
            assert set(legal) == expected
            refused = refusable(view, seat, expected)
            for move in some(data, refused, 4):
                unchanged = snapshot(state)
                try:
                    RULES.apply(state, seat, move)
                except IllegalAction as error:
                    assert error.seat == seat
                    assert state == unchanged
                else:
                    raise AssertionError(f"{move} was not offered yet applied")
        elif state.phase == "octopus":
            school = tops(view, seat)
            assert set(legal) == {
                PlaceOctopus(x, y) for (x, y), (top, _) in school.items() if kind(top) in ("coral", "octopus")
            }
        else:
            assert state.phase == REVEAL
            assert RULES.reveal_due(state, seat)
            assert legal == [RevealCard("colours", seat, str(before.known[seat][card_name("colours", seat)]))]
        for offered in some(data, legal, 3):
            RULES.apply(state, seat, offered)  # never raises for an offered action

    play(data, setup, on_step=check)


def refusable(view: View, seat: int, expected: set[Action]) -> list[Action]:
    """Placements in and around every school that the rules should refuse now."""
    candidates: list[Action] = []
    for target in range(view.players):
        for x, y in window(tops(view, target)):
            for slot in range(4):
                candidates.append(place_own(slot, x, y) if target == seat else place_other(slot, target, x, y))
    return [move for move in candidates if move not in expected]


@SETTINGS
@given(setup=setups(), data=st.data())
def test_views_hide_other_colours_until_revealed_and_every_covered_card(setup: Setup, data: Any) -> None:
    def check(before: Game, seat: int | None, action: Action, after: State) -> None:
        state = after
        for viewer in range(setup.players):
            other_tiles = {card_name("colours", p): label for p, label in enumerate(before.tiles) if p != viewer}
            known = dict(before.known[viewer])
            if isinstance(action, Dealt) and action.to == viewer:
                known[card_name("colours", viewer)] = before.tiles[viewer]
            view = RULES.view(state, viewer, known)
            assert view.my_colour == known.get(card_name("colours", viewer))
            # what else a replica might hold never leaks into the view
            assert RULES.view(state, viewer, {**other_tiles, **known}) == view
            if state.phase not in (REVEAL, OVER):
                assert view.colours == (None,) * setup.players
            for other, colour in enumerate(view.colours):
                assert colour is None or colour == before.tiles[other]
            shown = strings_in(view.to_wire())
            covered = {label for school in state.schools for cell in school for label in cell.pile[:-1]}
            covered |= {cell.pile[0] for school in state.schools for cell in school if cell.bones}
            assert shown.isdisjoint(covered)

    game = play(data, setup, on_step=check)
    assert game.state.phase == OVER
    for viewer in range(setup.players):
        assert RULES.view(game.state, viewer, game.known[viewer]).colours == tuple(game.tiles[: setup.players])


@SETTINGS
@given(setup=setups(), data=st.data())
def test_the_outcome_matches_an_independent_count_from_the_final_view(setup: Setup, data: Any) -> None:
    game = play(data, setup)
    state = game.state
    assert sum(1 for size in state.stacks if size == 0) >= 3 or sum(x is not None for x in state.face_up) < 2
    view = RULES.view(state, 0, game.known[0])
    colours = view.colours
    schools = [tops(view, s) for s in range(setup.players)]
    fish = [Counter[str]() for _ in schools]
    for seat, school in enumerate(schools):
        for label in live_fish(school).values():
            fish[seat][traits(label)[0]] += fish_on(label)
    sharks = [sum(1 for top, _ in school.values() if kind(top) == "shark") for school in schools]
    octopuses = [sum(height - 1 for top, height in school.values() if kind(top) == "octopus") for school in schools]
    scores = []
    for seat, colour in enumerate(colours):
        assert colour is not None
        points = sum(f[colour] for f in fish) + octopuses[seat]
        if all(fish[seat][colour] > fish[seat][c] for c in COLOURS if c != colour):
            points += 3
        if max(sharks) > 0 and sharks[seat] == max(sharks):
            points += 2
        scores.append(points)
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome.scores == tuple(scores)
    best = max(scores)
    tied = [s for s in range(setup.players) if scores[s] == best]
    most_fish = max(sum(fish[s].values()) for s in tied)
    assert outcome.winners == tuple(s for s in tied if sum(fish[s].values()) == most_fish)
