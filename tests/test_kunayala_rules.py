"""Scenario tests for the Kuna Yala rules (RULES.md §2, the rulebook in seeds/002).

A Table plays the colour-tile setup through the real chance actions, then each scenario turns up exact
cards. Schools are drawn as pictures, the north row first; `lay` swaps the cards of a picture with cards
from the stacks, so that no card is created or lost. Picture tokens:
  co = coral, oc = an octopus on a coral, . = empty,
  <colour><background> = a one-fish card (colours r y g b = red yellow green blue, backgrounds
  s r k d = sand rock kelp deep), with a 2 after it for a two-fish card,
  ^<fish> = a shark on that fish, ~<fish> = that fish card turned to fish bones.
"""

import random
from collections import Counter
from typing import Any

import pytest
from conformance_helpers import illegal_checker, random_table

from p2pfish.core.actions import Action, Chance, Dealt, RevealCard, Shuffled, card_name
from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import ChanceRequest, DealRequest, ShuffleRequest
from p2pfish.core.wire import Json
from p2pfish.games.kunayala.rules import (
    BACKGROUNDS,
    COLOUR_DECK,
    DEFAULT_MIX,
    FISH_COLOURS,
    OTHER,
    OVER,
    OWN,
    PLACE_OCTOPUS,
    REVEAL,
    RULES,
    TURN_UP,
    Card,
    Cell,
    Discard,
    Options,
    PlaceOctopus,
    PlaceOther,
    PlaceOwn,
    SchoolInfo,
    State,
    card,
    deck_labels,
    game_ends,
    parse_options,
    school_info,
    scores,
)
from p2pfish.games.registry import make_bot
from p2pfish.selfplay import Step, play_game
from p2pfish.session.audit import audit

COLOUR_LETTERS = dict(zip("rygb", FISH_COLOURS, strict=True))
BACKGROUND_LETTERS = dict(zip("srkd", BACKGROUNDS, strict=True))


# --- helpers -------------------------------------------------------------------------------------


def fish_label(token: str) -> str:
    """The first copy of the fish card a token like "rs" or "bd2" names."""
    colour, background = COLOUR_LETTERS[token[0]], BACKGROUND_LETTERS[token[1]]
    return f"{'2fish' if token.endswith('2') else 'fish'}-{colour}-{background}-1"


def same_card(label: str, token: str) -> bool:
    """Whether `label` is a copy of the card a fish token names."""
    return label.rsplit("-", 1)[0] == fish_label(token).rsplit("-", 1)[0]


expect_illegal = illegal_checker(RULES)


class Table:
    """A game driven by hand, from the deal of the colour tiles on; each seat keeps its own colour."""

    def __init__(self, players: int = 2, start: int | None = 0, colours: str = "rygb", **options: int) -> None:
        opts = {name: str(value) for name, value in options.items()}
        if start is not None:
            opts["start"] = str(start)
        self.players = players
        self.state: State = RULES.new_game(players, opts)
        self.known: list[dict[str, int | str]] = [{} for _ in range(players)]
        self.log: list[tuple[int | None, Action]] = []
        self.play(None, Shuffled(COLOUR_DECK, len(FISH_COLOURS)))
        for seat in range(players):
            self.known[seat][card_name(COLOUR_DECK, seat)] = COLOUR_LETTERS[colours[seat]]
            self.play(None, Dealt(COLOUR_DECK, (seat,), seat, None))

    def play(self, seat: int | None, action: Action) -> State:
        self.state = RULES.apply(self.state, seat, action)
        self.log.append((seat, action))
        return self.state

    def turn_up(self, *labels: str) -> None:
        for label in labels:
            self.play(None, Chance((label,)))

    def deal_face_up(self, *tokens: str) -> None:
        """Turn up the four starting cards: fish tokens, or whole labels like "coral-9"."""
        for token in tokens:
            self.turn_up(self.fresh(token))

    def fresh(self, token: str) -> str:
        """An unseen card for a token: a fish token, or a kind ("coral", "shark", "octopus"), or a label."""
        unseen = self.state.unseen
        if token in unseen:
            return token
        if token in ("coral", "shark", "octopus"):
            return next(label for label in unseen if card(label).kind == token)
        return next(label for label in unseen if same_card(label, token))

    def own(self, slot: int, x: int, y: int) -> State:
        return self.play(self.state.current, PlaceOwn(slot, x, y))

    def other(self, slot: int, seat: int, x: int, y: int) -> State:
        return self.play(self.state.current, PlaceOther(slot, seat, x, y))

    def legal(self, seat: int) -> list[Action]:
        return list(RULES.legal_actions(self.state, seat, self.known[seat]))

    def view(self, seat: int) -> Any:
        return RULES.view(self.state, seat, self.known[seat])

    def lay(self, seat: int, picture: str, origin: tuple[int, int] = (0, 0)) -> None:
        """Replace seat's school by a picture, its lower-left token at `origin`, trading cards with the stacks."""
        state = self.state
        unseen = list(state.unseen)
        stacks = list(state.stacks)
        for cell in state.schools[seat]:
            for label in cell.pile:
                unseen.append(label)
                stacks[stacks.index(min(stacks))] += 1

        def take(kind_or_token: str) -> str:
            if kind_or_token in ("coral", "shark", "octopus"):
                label = next(x for x in unseen if card(x).kind == kind_or_token)
            else:
                label = next(x for x in unseen if same_card(x, kind_or_token))
            unseen.remove(label)
            stacks[stacks.index(max(stacks))] -= 1
            return label

        cells = []
        rows = [line.split() for line in picture.strip().splitlines()]
        for r, row in enumerate(rows):
            y = origin[1] + len(rows) - 1 - r
            for c, token in enumerate(row):
                x = origin[0] + c
                if token == ".":
                    continue
                if token == "co":
                    cells.append(Cell(x, y, (take("coral"),)))
                elif token == "oc":
                    cells.append(Cell(x, y, (take("coral"), take("octopus"))))
                elif token.startswith("^"):
                    cells.append(Cell(x, y, (take(token[1:]), take("shark"))))
                elif token.startswith("~"):
                    cells.append(Cell(x, y, (take(token[1:]),), bones=True))
                else:
                    cells.append(Cell(x, y, (take(token),)))
        order = {label: i for i, label in enumerate(deck_labels(state.options))}
        schools = (*state.schools[:seat], tuple(cells), *state.schools[seat + 1 :])
        self.state = state._replace(unseen=tuple(sorted(unseen, key=order.__getitem__)), stacks=tuple(stacks))
        self.state = self.state._replace(schools=schools)

    def set_stacks(self, *sizes: int) -> None:
        """Leave exactly `sizes` cards face down; the others go to the discards (the mix stays whole)."""
        state = self.state
        keep = sum(sizes)
        assert keep <= len(state.unseen)
        self.state = state._replace(
            stacks=tuple(sizes), unseen=state.unseen[:keep], discards=(*state.discards, *state.unseen[keep:])
        )


def census(state: State) -> Counter[str]:
    cards: Counter[str] = Counter(state.unseen)
    cards.update(label for label in state.face_up if label is not None)
    cards.update(label for school in state.schools for cell in school for label in cell.pile)
    cards.update(state.discards)
    if state.octopus is not None:
        cards[state.octopus] += 1
    return cards


def all_cells(state: State, seat: int) -> dict[tuple[int, int], Cell]:
    return {(cell.x, cell.y): cell for cell in state.schools[seat]}


def own_cells(actions: list[Action], slot: int) -> set[tuple[int, int]]:
    return {(a.x, a.y) for a in actions if isinstance(a, PlaceOwn) and a.slot == slot}


def other_cells(actions: list[Action], slot: int, seat: int) -> set[tuple[int, int]]:
    return {(a.x, a.y) for a in actions if isinstance(a, PlaceOther) and a.slot == slot and a.seat == seat}


def ready(players: int = 2, face_up: tuple[str, str, str, str] = ("coral", "coral", "coral", "coral")) -> Table:
    """A table at the first turn of seat 0, with these cards face up."""
    table = Table(players)
    table.deal_face_up(*face_up)
    assert table.state.phase == OWN
    return table


# --- cards and options ---------------------------------------------------------------------------


def test_the_default_mix_is_the_rulebooks_104_cards_with_unique_labels() -> None:
    labels = deck_labels(Options())
    assert len(labels) == len(set(labels)) == 104
    kinds = Counter(card(label).kind for label in labels)
    assert kinds == {"fish": 64, "coral": 22, "shark": 8, "octopus": 10}
    fish = [card(label) for label in labels if card(label).kind == "fish"]
    for colour in FISH_COLOURS:
        assert sum(c.fish for c in fish if c.colour == colour) == 20  # 4 backgrounds x (3 x 1 + 1 x 2)
    cells = Counter((c.colour, c.background) for c in fish)
    assert set(cells.values()) == {4}
    assert len(cells) == 16
    assert card("fish-red-sand-1") == Card("fish", "red", "sand", 1)
    assert card("2fish-blue-deep-1") == Card("fish", "blue", "deep", 2)
    assert card("octopus-10") == Card("octopus")
    assert DEFAULT_MIX == {"singles": 3, "doubles": 1, "coral": 22, "sharks": 8, "octopuses": 10}


@pytest.mark.parametrize("label", ["fish-red-sand", "fish-pink-sand-1", "coral-0", "coral-x", "whale-1", "2fish-red-1"])
def test_labels_that_are_no_card_are_malformed(label: str) -> None:
    with pytest.raises(MalformedInput):
        card(label)


def test_options_change_the_mix() -> None:
    options = parse_options(2, {"singles": "1", "doubles": "2", "coral": "5", "sharks": "0", "octopuses": "1"})
    labels = deck_labels(options)
    assert Counter(card(x).kind for x in labels) == {"fish": 48, "coral": 5, "octopus": 1}
    assert sum(card(x).fish for x in labels) == 16 * 5
    state = RULES.new_game(2, {"coral": "5", "sharks": "0"})
    assert sum(state.stacks) == len(state.unseen) == 104 - 17 - 8 - 2


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {"whales": "3"}),
        (2, {"coral": "-1"}),
        (2, {"coral": "x"}),
        (2, {"sharks": "100"}),
        (3, {"coral": "2"}),
        (2, {"start": "2"}),
        (2, {"start": "first"}),
    ],
)
def test_bad_options_are_malformed(players: int, options: dict[str, str]) -> None:
    with pytest.raises(MalformedInput):
        RULES.new_game(players, options)


# --- setup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_shuffles_the_colour_tiles_and_deals_one_privately_to_each_seat(players: int) -> None:
    state = RULES.new_game(players, {})
    assert RULES.chance(state) == ShuffleRequest("colours", ("red", "yellow", "green", "blue"))
    expect_illegal(state, None, Chance(("red",)))
    expect_illegal(state, None, Shuffled("colours", 3))
    state = RULES.apply(state, None, Shuffled("colours", 4))
    for seat in range(players):
        assert RULES.chance(state) == DealRequest("colours", (seat,), seat)
        assert RULES.to_act(state) == ()
        expect_illegal(state, None, Dealt("colours", (seat,), seat, ("red",)))  # a private deal shows no label
        expect_illegal(state, None, Dealt("colours", (seat + 1,), seat, None))
        state = RULES.apply(state, None, Dealt("colours", (seat,), seat, None))
    request = RULES.chance(state)
    assert request == ChanceRequest("start", tuple(range(players)), 1)
    state = RULES.apply(state, None, Chance((players - 1,)))
    assert (state.start, state.current) == (players - 1, players - 1)
    # every school starts with one coral, face up at (0, 0): the first corals of the mix
    assert state.schools == tuple((Cell(0, 0, (f"coral-{seat + 1}",)),) for seat in range(players))


@pytest.mark.parametrize(("players", "stacks"), [(2, (26, 26, 25, 25)), (3, (26, 25, 25, 25)), (4, (25, 25, 25, 25))])
def test_four_stacks_as_equal_as_possible_each_turning_up_one_card(players: int, stacks: tuple[int, ...]) -> None:
    table = Table(players)
    assert table.state.stacks == stacks
    assert table.state.phase == TURN_UP
    drawn = []
    for slot in range(4):
        request = RULES.chance(table.state)
        assert isinstance(request, ChanceRequest)
        assert request.purpose == f"stack/{slot}"
        assert request.count == 1
        # any card not seen yet may lie on top of any stack
        assert Counter(request.pool) == Counter(table.state.unseen)
        assert set(request.pool).isdisjoint({f"coral-{s + 1}" for s in range(players)})
        assert len(request.pool) == 104 - players - slot
        label = str(request.pool[7 * slot])  # fish cards come first in the mix
        drawn.append(label)
        table.turn_up(label)
    assert table.state.face_up == tuple(drawn)
    assert table.state.stacks == tuple(n - 1 for n in stacks)
    assert table.state.phase == OWN
    assert RULES.to_act(table.state) == (0,)


def test_start_option_skips_the_draw() -> None:
    table = Table(3, start=2)
    request = RULES.chance(table.state)
    assert isinstance(request, ChanceRequest) and request.purpose == "stack/0"
    table.deal_face_up("coral", "coral", "coral", "coral")
    assert RULES.to_act(table.state) == (2,)


def test_a_turn_up_must_come_from_the_unseen_cards() -> None:
    table = Table(2)
    expect_illegal(table.state, None, Chance(("coral-1",)))  # seat 0's start coral is not in a stack
    expect_illegal(table.state, None, Chance(("whale-1",)))
    expect_illegal(table.state, None, Chance(("coral-3", "coral-4")))
    expect_illegal(table.state, 0, PlaceOwn(0, 1, 0))  # nobody acts while chance is due


# --- placement -----------------------------------------------------------------------------------


def test_a_coral_goes_on_any_empty_cell_orthogonally_next_to_a_card() -> None:
    table = ready()
    assert own_cells(table.legal(0), 0) == {(1, 0), (-1, 0), (0, 1), (0, -1)}
    expect_illegal(table.state, 0, PlaceOwn(0, 1, 1))  # diagonal only
    expect_illegal(table.state, 0, PlaceOwn(0, 2, 0))  # not next to anything
    expect_illegal(table.state, 0, PlaceOwn(0, 0, 0))  # occupied
    table.own(0, 1, 0)
    assert all_cells(table.state, 0)[(1, 0)].pile[0].startswith("coral-")
    assert table.state.phase == OTHER
    assert table.state.face_up[0] is None


def test_fish_next_to_fish_need_a_shared_colour_or_background() -> None:
    table = ready(face_up=("ys", "rk", "yk", "coral"))
    table.lay(0, "co rs")  # a red fish on sand at (1, 0)
    legal = table.legal(0)
    east = (2, 0)
    assert east in own_cells(legal, 1)  # red on kelp: same colour
    assert east in own_cells(legal, 0)  # yellow on sand: same background
    assert east not in own_cells(legal, 2)  # yellow on kelp: nothing in common
    error = expect_illegal(table.state, 0, PlaceOwn(2, 2, 0))
    assert "does not fit" in error.reason
    table.own(1, 2, 0)
    assert all_cells(table.state, 0)[east].pile[0].startswith("fish-red-kelp-")


def test_a_fish_must_fit_every_orthogonal_neighbour() -> None:
    table = ready(face_up=("gs", "rk", "coral", "coral"))
    table.lay(
        0,
        """
        co bk co
        co .  rs
        """,
    )
    gap = (1, 0)  # between the coral at (0, 0) and the red-sand fish, under the blue-kelp fish
    legal = table.legal(0)
    assert gap not in own_cells(legal, 0)  # green sand fits the red sand fish but not the blue kelp one
    assert gap in own_cells(legal, 1)  # red kelp shares kelp with one, red with the other
    expect_illegal(table.state, 0, PlaceOwn(0, *gap))
    assert gap in own_cells(legal, 2)  # a coral fits anything


def test_fish_and_coral_may_go_next_to_sharks_and_octopuses_but_only_coral_next_to_bones() -> None:
    table = ready(face_up=("bd", "coral", "ys", "coral"))
    table.lay(
        0,
        """
        oc .  ~rs
        co .  ^gk
        """,
    )
    legal = table.legal(0)
    assert (1, 0) in own_cells(legal, 0)  # next to a coral and a shark (on a green fish)
    assert (1, 1) not in own_cells(legal, 0)  # next to fish bones
    assert (1, 1) not in own_cells(legal, 2)
    assert (1, 1) in own_cells(legal, 1)  # a coral goes next to bones
    assert (0, 2) in own_cells(legal, 0)  # above the octopus
    expect_illegal(table.state, 0, PlaceOwn(0, 1, 1))
    # every open cell but those by the bones: (1, 1), (2, 2), (3, 1)
    assert own_cells(legal, 0) == {(-1, 0), (-1, 1), (0, -1), (0, 2), (1, 0), (2, -1), (3, 0)}


def test_the_card_in_the_other_school_follows_the_same_placement_rules() -> None:
    table = ready(face_up=("coral", "rs", "bk", "coral"))
    table.lay(1, "co rr")
    table.own(0, 1, 0)
    legal = table.legal(0)
    assert other_cells(legal, 1, 1) == {(2, 0), (1, 1), (1, -1), (-1, 0), (0, 1), (0, -1)}
    assert other_cells(legal, 2, 1) == {(-1, 0), (0, 1), (0, -1)}  # blue kelp shares nothing with red rock
    expect_illegal(table.state, 0, PlaceOther(2, 1, 2, 0))
    expect_illegal(table.state, 0, PlaceOther(1, 1, 1, 0))  # occupied
    expect_illegal(table.state, 0, PlaceOther(1, 1, 5, 5))  # not adjacent
    expect_illegal(table.state, 0, PlaceOther(0, 1, 2, 0))  # slot 0 went into the own school
    expect_illegal(table.state, 0, PlaceOther(1, 0, 2, 0))  # not an opponent
    expect_illegal(table.state, 0, PlaceOther(1, 2, 0, 1))  # no seat 2 at two players
    expect_illegal(table.state, 0, PlaceOwn(1, 2, 0))  # the own card is placed already
    table.other(1, 1, 2, 0)
    assert all_cells(table.state, 1)[(2, 0)].pile[0].startswith("fish-red-sand-")
    assert table.state.phase == TURN_UP
    assert table.state.current == 1


def test_only_the_current_seat_plays_and_only_its_own_placement_first() -> None:
    table = ready(players=3)
    expect_illegal(table.state, 1, PlaceOwn(0, 1, 0))
    expect_illegal(table.state, 5, PlaceOwn(0, 1, 0))
    expect_illegal(table.state, 0, PlaceOther(0, 1, 1, 0))
    expect_illegal(table.state, 0, PlaceOctopus(0, 0))
    expect_illegal(table.state, 0, RevealCard("colours", 0, "red"))
    expect_illegal(table.state, None, Chance(("coral-9",)))
    assert table.legal(1) == table.legal(2) == []


# --- sharks --------------------------------------------------------------------------------------


def test_a_shark_eats_a_visible_fish_in_an_opponents_school() -> None:
    table = ready(players=3, face_up=("coral", "shark", "coral", "coral"))
    table.lay(1, "co rs ~gs")
    table.lay(2, "co ^bd")
    table.own(0, 1, 0)
    legal = table.legal(0)
    sharks = {(a.seat, a.x, a.y) for a in legal if isinstance(a, PlaceOther) and a.slot == 1}
    assert sharks == {(1, 1, 0)}  # not on coral, bones, an eaten fish, an empty cell or the own school
    for seat, x, y in [(1, 0, 0), (1, 2, 0), (1, 3, 0), (2, 1, 0), (2, 0, 0), (0, 1, 0), (0, 0, 0)]:
        expect_illegal(table.state, 0, PlaceOther(1, seat, x, y))
    before = scores(table.state.schools, ["red", "yellow", "green"])[0].colour_fish
    table.other(1, 1, 1, 0)
    cell = all_cells(table.state, 1)[(1, 0)]
    assert card(cell.pile[0]).colour == "red" and card(cell.pile[1]).kind == "shark"
    assert scores(table.state.schools, ["red", "yellow", "green"])[0].colour_fish == before - 1
    view = RULES.view(table.state, 2, table.known[2])
    shown = {(c.x, c.y): (c.top, c.height) for c in view.schools[1]}
    assert shown[(1, 0)] == (cell.pile[1], 2)  # the shark hides the fish it ate


def test_a_shark_never_goes_into_the_own_school() -> None:
    table = ready(face_up=("shark", "coral", "coral", "coral"))
    table.lay(0, "co rs")
    table.lay(1, "co rs")
    assert own_cells(table.legal(0), 0) == set()
    error = expect_illegal(table.state, 0, PlaceOwn(0, 1, 0))
    assert "opponent" in error.reason
    expect_illegal(table.state, 0, PlaceOwn(0, 2, 0))


def test_two_sharks_in_one_turn_are_impossible() -> None:
    """The shark is always the card for the opponent, so the other shark cannot be taken this turn."""
    table = ready(face_up=("shark", "shark", "coral", "ys"))
    table.lay(1, "co rs")
    legal = table.legal(0)
    assert {a.slot for a in legal if isinstance(a, PlaceOwn)} == {2, 3}
    expect_illegal(table.state, 0, PlaceOwn(1, 1, 0))
    table.own(2, 1, 0)
    table.other(0, 1, 1, 0)
    assert table.state.face_up[1] is not None  # the second shark stays face up
    assert table.state.face_up[0] is None and table.state.face_up[2] is None


def test_no_shark_can_be_taken_when_no_opponent_shows_a_fish() -> None:
    table = ready(face_up=("shark", "shark", "coral", "ys"))
    table.lay(1, "co ^rs ~gs")
    legal = table.legal(0)
    assert all(not (isinstance(a, PlaceOther) and a.slot in (0, 1)) for a in legal)
    assert {a.slot for a in legal if isinstance(a, PlaceOwn)} == {2, 3}  # the other leaves a coral or a fish
    table.own(3, 1, 0)
    assert {a.slot for a in table.legal(0) if isinstance(a, PlaceOther)} == {2}
    expect_illegal(table.state, 0, PlaceOther(0, 1, 1, 0))


def test_a_seat_that_cannot_place_a_pair_discards_two_face_up_cards() -> None:
    table = ready(face_up=("shark", "shark", "coral", "shark"))
    legal = table.legal(0)
    assert set(legal) == {Discard(a, b) for a in range(4) for b in range(a + 1, 4)}
    expect_illegal(table.state, 0, PlaceOwn(2, 1, 0))  # then only sharks would be left for the opponent
    stacks = table.state.stacks
    table.play(0, Discard(0, 2))
    assert table.state.discards[-2:] == ("shark-1", "coral-3")
    assert table.state.phase == TURN_UP and table.state.refills == (0, 2)
    assert table.state.current == 1
    table.turn_up(table.fresh("coral"), table.fresh("rs"))
    assert table.state.stacks == (stacks[0] - 1, stacks[1], stacks[2] - 1, stacks[3])
    assert table.state.phase == OWN


def test_discarding_is_only_for_a_seat_that_cannot_place() -> None:
    table = ready(face_up=("shark", "shark", "coral", "coral"))
    assert not any(isinstance(a, Discard) for a in table.legal(0))
    expect_illegal(table.state, 0, Discard(0, 1))


# --- four sharks ---------------------------------------------------------------------------------


def test_a_fourth_shark_face_up_is_discarded_and_its_stack_turns_up_the_next_card() -> None:
    table = Table(2)
    table.turn_up("shark-1", "shark-2", "shark-3")
    stacks = table.state.stacks
    table.turn_up("shark-4")
    first = table.state
    assert first.discards == ("shark-4",)
    assert first.face_up == ("shark-1", "shark-2", "shark-3", None)
    assert first.phase == TURN_UP
    request = RULES.chance(table.state)
    assert isinstance(request, ChanceRequest) and request.purpose == "stack/3"
    assert "shark-4" not in request.pool
    table.turn_up("shark-5")  # again four sharks: discarded again
    table.turn_up("coral-9")
    last = table.state
    assert last.face_up == ("shark-1", "shark-2", "shark-3", "coral-9")
    assert last.discards == ("shark-4", "shark-5")
    assert last.stacks == (*stacks[:3], stacks[3] - 3)
    assert census(table.state) == Counter(deck_labels(table.state.options))


def test_four_sharks_after_a_turn_discard_the_last_turned_up() -> None:
    table = ready(face_up=("shark", "shark", "coral", "shark"))
    table.lay(1, "co rs")
    table.own(2, 1, 0)  # a coral for seat 0
    table.other(0, 1, 1, 0)  # the first shark eats the fish
    table.turn_up("shark-4")  # slot 2: three sharks and an empty slot
    table.turn_up("shark-5")  # slot 0: four sharks -> discarded
    assert table.state.discards == ("shark-5",)
    assert table.state.face_up == (None, "shark-2", "shark-4", "shark-3")
    assert table.state.refills == (0,)
    request = RULES.chance(table.state)
    assert isinstance(request, ChanceRequest) and request.purpose == "stack/0"


# --- octopuses -----------------------------------------------------------------------------------


def test_an_octopus_goes_to_the_strict_coral_leader_who_places_it_on_a_coral() -> None:
    table = ready(players=3, face_up=("coral", "rs", "coral", "coral"))
    table.lay(1, "oc co co")  # three corals, one already under an octopus
    table.lay(2, "co co")
    table.own(1, 1, 0)
    table.other(0, 1, 3, 0)  # seat 1 leads with four corals to two and one
    stacks = table.state.stacks
    table.turn_up("octopus-5")  # the refill of slot 1, from stack 1
    assert table.state.phase == PLACE_OCTOPUS
    assert table.state.octopus == "octopus-5"
    assert RULES.to_act(table.state) == (1,)
    assert not RULES.reveal_due(table.state, 1)
    assert table.state.stacks[1] == stacks[1] - 1
    legal = table.legal(1)
    assert set(legal) == {PlaceOctopus(x, 0) for x in range(4)}  # any coral, even one under an octopus
    assert table.legal(0) == table.legal(2) == []
    expect_illegal(table.state, 2, PlaceOctopus(1, 0))
    expect_illegal(table.state, None, Chance(("coral-13",)))
    assert RULES.chance(table.state) is None
    assert census(table.state) == Counter(deck_labels(table.state.options))
    table.play(1, PlaceOctopus(0, 0))
    cell = all_cells(table.state, 1)[(0, 0)]
    assert [card(label).kind for label in cell.pile] == ["coral", "octopus", "octopus"]
    view = table.view(0)
    assert view.corals == (1, 4, 2)  # corals under octopuses still count
    assert {(c.x, c.y): (c.top, c.height) for c in view.schools[1]}[(0, 0)] == ("octopus-5", 3)
    # then the next card of that stack is turned up into the same slot, then slot 0 as usual
    request = RULES.chance(table.state)
    assert isinstance(request, ChanceRequest) and request.purpose == "stack/1"
    table.turn_up("coral-13")
    assert table.state.face_up[1] == "coral-13"
    assert table.state.stacks[1] == stacks[1] - 2
    request = RULES.chance(table.state)
    assert isinstance(request, ChanceRequest) and request.purpose == "stack/0"
    table.turn_up("coral-14")
    assert table.state.phase == OWN
    assert RULES.to_act(table.state) == (1,)  # the turn passed from seat 0 to seat 1 as usual
    assert scores(table.state.schools, ["red", "yellow", "green"])[1].octopuses == 2
    assert census(table.state) == Counter(deck_labels(table.state.options))


def test_an_octopus_may_only_go_on_a_coral() -> None:
    table = ready(face_up=("coral", "coral", "coral", "coral"))
    table.lay(1, "co rs co")
    table.own(0, 1, 0)
    table.other(1, 1, 0, 1)  # seat 1 has 3 corals to 2
    table.turn_up("octopus-1")
    assert RULES.to_act(table.state) == (1,)
    for x, y in [(1, 0), (5, 5), (0, -1)]:
        expect_illegal(table.state, 1, PlaceOctopus(x, y))
    expect_illegal(table.state, 1, PlaceOwn(0, 1, 1))


def test_an_octopus_is_discarded_on_a_coral_tie_and_the_stack_turns_up_the_next_card() -> None:
    table = ready(players=3, face_up=("coral", "coral", "coral", "coral"))
    table.lay(1, "co co")
    table.own(0, 1, 0)  # seats 0 and 1 both have two corals
    table.other(1, 2, 1, 0)  # and seat 2 as well
    stacks = table.state.stacks
    table.turn_up("octopus-3")
    assert table.state.phase == TURN_UP
    assert table.state.discards == ("octopus-3",)
    assert table.state.face_up[0] is None
    request = RULES.chance(table.state)
    assert isinstance(request, ChanceRequest) and request.purpose == "stack/0"
    table.turn_up(table.fresh("rs"))
    assert table.state.stacks[0] == stacks[0] - 2
    assert card(str(table.state.face_up[0])).kind == "fish"


def test_octopuses_turned_up_at_setup_are_discarded() -> None:
    table = Table(4)
    table.turn_up("octopus-1", "coral-9", "octopus-2", "octopus-3", "coral-10", "coral-11", "coral-12")
    assert table.state.discards == ("octopus-1", "octopus-2", "octopus-3")
    assert table.state.face_up == ("coral-9", "coral-10", "coral-11", "coral-12")
    assert table.state.stacks == (25 - 2, 25 - 3, 25 - 1, 25 - 1)


# --- the fishes' curse ---------------------------------------------------------------------------


def test_three_fish_on_the_same_background_in_a_row_turn_to_bones() -> None:
    table = ready(face_up=("gs", "coral", "coral", "coral"))
    table.lay(0, "co rs ys")
    table.own(0, 3, 0)  # green sand joins red sand and yellow sand
    school = all_cells(table.state, 0)
    assert [school[(x, 0)].bones for x in range(4)] == [False, True, True, True]
    view = table.view(1)
    tops = [c.top for c in sorted(view.schools[0])]
    assert tops[0].startswith("coral-") and tops[1:] == ["bones", "bones", "bones"]
    assert scores(table.state.schools, ["red", "yellow"]) == scores(((), ()), ["red", "yellow"])


def test_the_curse_strikes_a_column_and_a_longer_run_when_the_gap_is_filled() -> None:
    table = ready(face_up=("bk", "coral", "coral", "coral"))
    table.lay(
        0,
        """
        co rk
        co .  yk gk
        co gk
        """,
    )
    table.own(0, 1, 1)  # fills the gap: a column of 3 kelp fish and a row of 4
    school = all_cells(table.state, 0)
    cursed = {position for position, cell in school.items() if cell.bones}
    assert cursed == {(1, 2), (1, 1), (1, 0), (2, 1), (3, 1)}


def test_an_eaten_fish_fish_bones_and_coral_break_a_run() -> None:
    table = ready(face_up=("rs", "coral", "ys", "coral"))
    table.lay(0, "gs ^bs . co", origin=(-2, 0))
    table.own(0, 0, 0)  # red sand between a shark (on blue sand, after green sand) and a coral
    assert not any(cell.bones for cell in table.state.schools[0])
    table.lay(1, "co . gs ~bs")
    table.other(2, 1, 1, 0)  # yellow sand, then green sand, then the bones of a sand fish
    assert sum(cell.bones for cell in table.state.schools[1]) == 1
    table = ready(face_up=("rs", "coral", "ys", "coral"))
    table.lay(1, "co . gs bs")
    table.own(1, 1, 0)
    table.other(2, 1, 1, 0)  # the same row with a live fish at its end: cursed
    assert sum(cell.bones for cell in table.state.schools[1]) == 3


def test_different_backgrounds_never_curse() -> None:
    table = ready(face_up=("rd", "coral", "coral", "coral"))
    table.lay(0, "co rs rk")
    table.own(0, 3, 0)
    assert not any(cell.bones for cell in table.state.schools[0])


# --- refills -------------------------------------------------------------------------------------


def test_after_a_turn_each_slot_is_refilled_from_its_own_stack_the_own_card_first() -> None:
    table = ready(face_up=("coral", "coral", "coral", "coral"))
    stacks = table.state.stacks
    table.own(2, 1, 0)
    table.other(1, 1, 1, 0)
    assert table.state.refills == (2, 1)
    purposes = []
    for label in ("coral-20", "coral-21"):
        request = RULES.chance(table.state)
        assert isinstance(request, ChanceRequest)
        purposes.append(request.purpose)
        table.turn_up(label)
    assert purposes == ["stack/2", "stack/1"]
    assert table.state.face_up[1:3] == ("coral-21", "coral-20")
    assert table.state.stacks == (stacks[0], stacks[1] - 1, stacks[2] - 1, stacks[3])


@pytest.mark.parametrize(
    ("stacks", "slot", "source"),
    [((0, 3, 3, 3), 0, 1), ((3, 0, 0, 3), 1, 3), ((3, 3, 3, 0), 3, 0), ((0, 3, 0, 0), 2, 1)],
)
def test_an_empty_stack_refills_its_slot_from_the_next_non_empty_stack_clockwise(
    stacks: tuple[int, ...], slot: int, source: int
) -> None:
    table = ready(face_up=("coral", "coral", "coral", "coral"))
    table.set_stacks(*stacks)
    other = (slot + 2) % 4
    table.own(slot, 1, 0)
    table.other(other, 1, 1, 0)
    request = RULES.chance(table.state)
    assert isinstance(request, ChanceRequest) and request.purpose == f"stack/{source}"
    label = str(request.pool[0])
    table.turn_up(label)
    assert table.state.face_up[slot] == label
    assert table.state.stacks[source] == stacks[source] - 1
    assert census(table.state) == Counter(deck_labels(table.state.options))


def test_when_every_stack_is_empty_the_slots_stay_empty_and_the_game_ends() -> None:
    table = ready(face_up=("coral", "coral", "coral", "coral"))
    table.set_stacks(1, 0, 0, 0)
    table.own(0, 1, 0)
    table.other(1, 1, 1, 0)
    table.turn_up(table.state.unseen[0])
    assert table.state.phase == REVEAL
    assert table.state.face_up[1] is None


# --- the end -------------------------------------------------------------------------------------


def test_the_game_ends_after_the_turn_that_empties_a_third_stack() -> None:
    table = ready(face_up=("coral", "coral", "coral", "coral"))
    table.set_stacks(1, 0, 1, 5)
    table.own(0, 1, 0)
    table.other(1, 1, 1, 0)  # slot 1's stack is empty: it takes the next, stack 2
    table.turn_up(table.state.unseen[0])  # stack 0 now empty too: three empty, one more refill pending
    assert table.state.phase == TURN_UP
    table.turn_up(table.state.unseen[0])
    assert table.state.stacks == (0, 0, 0, 5)
    assert table.state.phase == REVEAL
    assert RULES.to_act(table.state) == (0,)


@pytest.mark.parametrize(
    ("first_stack", "other_card", "stacks_after", "phase_after"),
    [(1, 1, (0, 0, 0, 4), REVEAL), (2, 3, (1, 0, 0, 4), OWN)],
)
def test_two_empty_stacks_do_not_end_the_game(
    first_stack: int, other_card: int, stacks_after: tuple[int, ...], phase_after: str
) -> None:
    table = ready(face_up=("coral", "coral", "coral", "coral"))
    table.set_stacks(first_stack, 0, 0, 5)
    table.own(0, 1, 0)
    table.other(other_card, 1, 1, 0)
    table.turn_up(table.state.unseen[0], table.state.unseen[1])
    assert table.state.stacks == stacks_after
    assert table.state.phase == phase_after


def test_fewer_than_two_face_up_cards_end_the_game() -> None:
    table = Table(2, singles=0, doubles=0, coral=3, sharks=0, octopuses=0)
    assert table.state.stacks == (1, 0, 0, 0)
    table.turn_up("coral-3")
    assert table.state.face_up == ("coral-3", None, None, None)
    assert table.state.phase == REVEAL
    assert game_ends(table.state)
    assert not game_ends(table.state._replace(stacks=(1, 1, 0, 0), face_up=("coral-3", "coral-4", None, None)))
    assert game_ends(table.state._replace(stacks=(1, 1, 1, 0), face_up=("coral-3", None, None, None)))


# --- reveals and scoring -------------------------------------------------------------------------


def finish(table: Table) -> None:
    """End the game at once (three stacks emptied) after a turn that places two corals."""
    table.set_stacks(0, 0, 0, 4)
    seat = table.state.current
    coral_slots = [s for s, label in enumerate(table.state.face_up) if label and card(label).kind == "coral"]
    free = next(p for p in [(0, -1), (0, 1), (-1, 0), (1, 0)] if p not in all_cells(table.state, seat))
    table.own(coral_slots[0], *free)
    target = (seat + 1) % table.players
    spot = next(p for p in [(0, -1), (0, 1), (-1, 0), (1, 0)] if p not in all_cells(table.state, target))
    table.other(coral_slots[1], target, *spot)
    table.turn_up(table.state.unseen[0], table.state.unseen[1])
    assert table.state.phase == REVEAL


def test_at_the_end_each_seat_in_turn_reveals_its_own_colour_tile() -> None:
    table = Table(3, colours="bry")
    table.deal_face_up("coral", "coral", "coral", "coral")
    finish(table)
    for seat in range(3):
        assert RULES.to_act(table.state) == (seat,)
        assert [RULES.reveal_due(table.state, s) for s in range(3)] == [s == seat for s in range(3)]
        colour = table.known[seat][card_name("colours", seat)]
        assert table.legal(seat) == [RevealCard("colours", seat, str(colour))]
        assert RULES.legal_actions(table.state, seat, {}) == ()  # the tile is only known to its seat
        for other in range(3):
            if other != seat:
                assert table.legal(other) == []
        expect_illegal(table.state, seat, RevealCard("colours", (seat + 1) % 4, str(colour)))
        expect_illegal(table.state, seat, RevealCard("deck", seat, str(colour)))
        expect_illegal(table.state, seat, RevealCard("colours", seat, "purple"))
        if seat > 0:
            expect_illegal(table.state, seat, RevealCard("colours", seat, "blue"))  # seat 0 showed blue
        expect_illegal(table.state, (seat + 1) % 3, RevealCard("colours", (seat + 1) % 3, "green"))
        assert RULES.outcome(table.state) is None
        table.play(seat, RevealCard("colours", seat, str(colour)))
    assert table.state.phase == OVER
    assert table.state.colours == ("blue", "red", "yellow")
    assert RULES.to_act(table.state) == ()
    assert RULES.outcome(table.state) is not None
    for seat in range(3):
        assert table.view(seat).colours == ("blue", "red", "yellow")


def reveal_all(table: Table) -> None:
    for seat in range(table.players):
        table.play(seat, table.legal(seat)[0])


def test_scores_count_your_colour_in_every_school_two_fish_cards_twice() -> None:
    table = Table(3, colours="rgy")
    table.deal_face_up("coral", "coral", "coral", "coral")
    table.lay(0, "co rs rk2 gd")  # red 3 own; green 1
    table.lay(1, "co rd2 ^rr ~rk")  # red 2 (eaten and cursed fish do not count)
    table.lay(2, "co yd gd gk2")  # green 3, yellow 1
    finish(table)
    reveal_all(table)
    outcome = RULES.outcome(table.state)
    assert outcome is not None
    # red: 3 + 2 + 0 = 5, majority in own school (3 red > 1 green) +3; shark bonus to seat 1 (the only shark)
    # green: 1 + 0 + 3 = 4, no majority in seat 1's school (it has only red); yellow: 1, green beats it in seat 2
    assert outcome.scores == (5 + 3, 4 + 2, 1)
    assert outcome.winners == (0,)


def test_the_majority_bonus_needs_strictly_the_most_fish_of_your_colour() -> None:
    colours = ["red", "green"]
    table = Table(2)
    table.lay(0, "co rs gs2 rk")  # red 2, green 2: a tie, no bonus
    table.lay(1, "co gk2 rk")  # green 2, red 1: bonus
    tied, strict = scores(table.state.schools, colours)
    assert tied.majority == 0 and tied.colour_fish == 3
    assert strict.majority == 3 and strict.colour_fish == 4
    table.lay(1, "co rs")  # no green fish at all: no bonus
    assert scores(table.state.schools, colours)[1].majority == 0


def test_octopuses_score_one_each_and_the_shark_majority_two_for_every_tied_leader() -> None:
    table = Table(4)
    table.lay(0, "oc oc ^rs")
    table.lay(1, "co ^rs ^gs")
    table.lay(2, "co ^bs ^ys")
    table.lay(3, "oc")
    points = scores(table.state.schools, list(FISH_COLOURS))
    assert [p.octopuses for p in points] == [2, 0, 0, 1]
    assert [p.sharks for p in points] == [0, 2, 2, 0]
    table.lay(1, "co")
    table.lay(2, "co")
    table.lay(0, "co")
    points = scores(table.state.schools, list(FISH_COLOURS))
    assert [p.sharks for p in points] == [0, 0, 0, 0]  # nobody has a shark: no bonus


def test_a_tie_on_points_goes_to_the_most_fish_in_the_own_school_then_is_shared() -> None:
    table = Table(3, colours="ryb")
    table.deal_face_up("coral", "coral", "coral", "coral")
    table.lay(0, "co rs gd gk")  # red 1 + majority? no (green 2): 1 point; 3 fish own
    table.lay(1, "co ys bd")  # yellow 1 (tie with blue: no bonus) = 1 point; 2 fish own
    table.lay(2, "co bk")  # blue 1 + 1 in seat 1 = 2 + bonus 3 = 5
    finish(table)
    reveal_all(table)
    outcome = RULES.outcome(table.state)
    assert outcome is not None
    assert outcome.scores == (1, 1, 5)
    assert outcome.winners == (2,)
    table = Table(2, colours="ry")
    table.deal_face_up("coral", "coral", "coral", "coral")
    table.lay(0, "co rs gs")  # red 1, no bonus: 1; own fish 2
    table.lay(1, "co ys bs")  # yellow 1, no bonus: 1; own fish 2
    finish(table)
    reveal_all(table)
    outcome = RULES.outcome(table.state)
    assert outcome is not None
    assert outcome.scores == (1, 1)
    assert outcome.winners == (0, 1)
    table = Table(2, colours="ry")
    table.deal_face_up("coral", "coral", "coral", "coral")
    table.lay(0, "co rs gs")
    table.lay(1, "co ys bs bk")  # one fish more in the own school breaks the tie
    finish(table)
    reveal_all(table)
    outcome = RULES.outcome(table.state)
    assert outcome is not None
    assert outcome.scores == (1, 1)
    assert outcome.winners == (1,)


# --- views ---------------------------------------------------------------------------------------


def test_a_view_shows_only_the_own_colour_until_the_end() -> None:
    table = Table(4, colours="gbry")
    table.deal_face_up("coral", "coral", "coral", "coral")
    everything = {card_name("colours", s): COLOUR_LETTERS["gbry"[s]] for s in range(4)}
    for seat in range(4):
        view = table.view(seat)
        assert view.my_colour == COLOUR_LETTERS["gbry"[seat]]
        assert view.colours == (None, None, None, None)
        # a view reads nothing but the seat's own tile, whatever else the seat might hold
        assert RULES.view(table.state, seat, everything)._replace(my_colour=None) == view._replace(my_colour=None)
        assert RULES.view(table.state, seat, {}).my_colour is None
    view = table.view(1)
    assert view.face_up == table.state.face_up
    assert view.stacks == table.state.stacks
    assert view.phase == OWN and view.to_act == (0,) and view.current == 0
    assert view.schools == tuple(((0, 0, f"coral-{s + 1}", 1),) for s in range(4))
    wire = view.to_wire()
    assert wire["my_colour"] == "blue"
    assert wire["schools"] == [[[0, 0, f"coral-{s + 1}", 1]] for s in range(4)]


# --- wire forms ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [PlaceOwn(2, -3, 4), PlaceOther(0, 3, 1, -1), PlaceOctopus(0, 7), Discard(1, 3), RevealCard("colours", 2, "red")],
)
def test_actions_round_trip_through_their_wire_form(action: Action) -> None:
    assert RULES.decode_action(action.to_wire()) == action
    assert str(action)


@pytest.mark.parametrize(
    "wire",
    [
        [],
        {"t": "whale"},
        {"slot": 1, "x": 0, "y": 0},
        {"t": "own", "slot": 1, "x": 0},
        {"t": "own", "slot": 4, "x": 0, "y": 0},
        {"t": "own", "slot": -1, "x": 0, "y": 0},
        {"t": "own", "slot": 1, "x": 0, "y": True},
        {"t": "own", "slot": 1, "x": 0.5, "y": 0},
        {"t": "own", "slot": 1, "x": 0, "y": 0, "seat": 1},
        {"t": "other", "slot": 1, "x": 0, "y": 0},
        {"t": "other", "slot": "1", "seat": 1, "x": 0, "y": 0},
        {"t": "octopus", "x": 0},
        {"t": "discard", "slots": [1]},
        {"t": "discard", "slots": [2, 1]},
        {"t": "discard", "slots": [1, 1]},
        {"t": "discard", "slots": [0, 4]},
        {"t": "discard", "slots": "01"},
        {"t": 3},
    ],
)
def test_malformed_wire_forms_are_refused(wire: Json) -> None:
    with pytest.raises(MalformedInput):
        RULES.decode_action(wire)


# --- whole games ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_bots_play_whole_games_to_an_outcome(players: int) -> None:
    rng = random.Random(players)
    bots = [make_bot("random", RULES.id, random.Random(seat)) for seat in range(players)]
    for _ in range(3):
        outcome, state = play_game(RULES, players, {}, bots, rng)
        assert state.phase == OVER
        assert len(outcome.scores) == players
        assert outcome.winners
        assert None not in state.colours and len(set(state.colours)) == players
        assert sum(1 for size in state.stacks if size == 0) >= 3
        assert census(state) == Counter(deck_labels(state.options))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_what_the_rules_read_from_a_school_is_kept_up_to_date_move_by_move(players: int) -> None:
    """Each placement works out the new school's SchoolInfo from the one before: it is the same as worked out
    afresh, the open cells in the same order (the legal actions' order follows it)."""
    rng = random.Random(players)
    bots = [make_bot("greedy" if seat % 2 else "random", RULES.id, random.Random(seat)) for seat in range(players)]

    def check(step: Step) -> None:
        for school in step.after.schools:
            kept, afresh = school_info(school), SchoolInfo.of(school)
            assert kept.grid == afresh.grid
            assert list(kept.open.items()) == list(afresh.open.items())
            assert (kept.live_fish, kept.corals, kept.view) == (afresh.live_fish, afresh.corals, afresh.view)

    for _ in range(2):
        play_game(RULES, players, {}, bots, rng, on_step=check)


def test_a_game_through_the_session_deals_each_colour_privately_and_audits_clean() -> None:
    """The colour tiles go through the real mental-poker deck: each seat knows only its own tile."""
    players = 3
    game = random_table(RULES.id, players, 5)
    game.start()
    while game.sessions[0].state.phase != OWN and game.step():
        pass
    for session in game.sessions:
        assert session.seat is not None
        tiles = {name for name in session.known() if name.startswith("colours#")}
        assert tiles == {card_name("colours", session.seat)}
    game.run()
    assert all(session.finished and session.fault is None for session in game.sessions)
    outcomes = {str(session.outcome()) for session in game.sessions}
    assert len(outcomes) == 1
    final = game.sessions[0].state
    assert final.colours == tuple(str(s.known()[card_name("colours", seat)]) for seat, s in enumerate(game.sessions))
    result = audit(game.sessions[0].transcript(), game.sessions[0].rules)
    assert result.verified and str(result.outcome) in outcomes
