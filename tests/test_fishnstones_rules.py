"""Scenario tests for the Fish'n'Stones rules (RULES.md §1, the rulebooks in seeds/000 and seeds/001).

Every scenario fixes the start player with the `start` option and builds each fill explicitly, so the
pond is exact. Ponds are drawn as pictures seen from the south shore: the first line is the north row
(a3 b3 c3), the last line the south row (a1 b1 c1); F = fish, S = stone, W = water.
"""

import hashlib
import json
from collections import Counter
from typing import Any

import pytest
from conformance_helpers import illegal_checker

from p2pfish.core.actions import Action, Chance, Commit, Reveal
from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json
from p2pfish.games.fishnstones.rules import (
    COLUMNS,
    OVER,
    RULES,
    SPOT_BY_NAME,
    Bait,
    Cast,
    Fish,
    NoBait,
    State,
    cat_purpose,
)

ITEM = {"F": "fish", "S": "stone", "W": "water"}
ALL_SPOTS = tuple(f"{col}{row}" for row in "123" for col in "abc")


# --- helpers -------------------------------------------------------------------------------------


def sp(name: str) -> int:
    return SPOT_BY_NAME[name]


def names(spots: Any) -> set[str]:
    inverse = {i: n for n, i in SPOT_BY_NAME.items()}
    return {inverse[s] for s in spots}


def pond(picture: str) -> tuple[str, ...]:
    """The nine cards of a fill, by spot index, from a picture drawn north row first."""
    rows = [line.split() for line in picture.strip().splitlines()]
    assert len(rows) == 3, picture
    assert all(len(row) == 3 for row in rows), picture
    cards = [""] * 9
    for r, row in enumerate(rows):
        for x, token in enumerate(row):
            cards[sp("abc"[x] + str(3 - r))] = ITEM[token]
    return tuple(cards)


def orthogonal(a: str, b: str) -> bool:
    """Independent adjacency: one step along a row or a column."""
    dx = abs(ord(a[0]) - ord(b[0]))
    dy = abs(int(a[1]) - int(b[1]))
    return dx + dy == 1


def digest(seat: int, purpose: str, column: int) -> bytes:
    return hashlib.sha256(f"test/{seat}/{purpose}/{column}".encode()).digest()


expect_illegal = illegal_checker(RULES)


class Table:
    """A game driven by hand: the log is applied one action at a time, each seat keeps its secrets."""

    def __init__(self, players: int, start: int | None = 0, **options: str) -> None:
        opts = dict(options)
        if start is not None:
            opts["start"] = str(start)
        self.state: State = RULES.new_game(players, opts)
        self.players = players
        self.known: list[dict[str, int | str]] = [{} for _ in range(players)]
        self.log: list[tuple[int | None, Action]] = []

    def play(self, seat: int | None, action: Action) -> State:
        self.state = RULES.apply(self.state, seat, action)
        self.log.append((seat, action))
        return self.state

    def fill(self, picture: str) -> None:
        self.play(None, Chance(pond(picture)))

    def commit(self, seat: int, column: int) -> None:
        purpose = cat_purpose(self.state.round)
        self.known[seat][purpose] = column
        self.play(seat, Commit(purpose, digest(seat, purpose, column)))

    def cast(self, *columns: int) -> None:
        for seat, column in enumerate(columns):
            self.commit(seat, column)

    def bait(self, seat: int, target: str, source: str) -> None:
        self.play(seat, Bait(sp(target), sp(source)))

    def no_bait(self, seat: int) -> None:
        self.play(seat, NoBait())

    def reveal(self, seat: int) -> None:
        purpose = cat_purpose(self.state.round)
        self.play(seat, Reveal(purpose, self.known[seat][purpose]))

    def fish(self, seat: int, spot: str | None) -> None:
        self.play(seat, Fish(None if spot is None else sp(spot)))

    def reveal_and_fish(self, seat: int, spot: str | None) -> None:
        self.reveal(seat)
        self.fish(seat, spot)

    def legal(self, seat: int) -> list[Action]:
        return list(RULES.legal_actions(self.state, seat, self.known[seat]))

    def view(self, seat: int) -> Any:
        return RULES.view(self.state, seat, self.known[seat])

    def stack(self, name: str) -> tuple[str, ...]:
        return tuple(self.state.pond[sp(name)])


FULL_OF_FISH = """
F F F
F F F
F F F
"""


def fish_spots(actions: list[Action]) -> set[str]:
    return names(a.spot for a in actions if isinstance(a, Fish) and a.spot is not None)


def bait_pairs(actions: list[Action]) -> set[tuple[str, str]]:
    inverse = {i: n for n, i in SPOT_BY_NAME.items()}
    return {(inverse[a.target], inverse[a.source]) for a in actions if isinstance(a, Bait)}


# --- spots, seating, shores, columns -------------------------------------------------------------


def test_spot_names_index_is_3y_plus_x() -> None:
    assert len(SPOT_BY_NAME) == 9
    for name in ALL_SPOTS:
        x = "abc".index(name[0])
        y = int(name[1]) - 1
        assert SPOT_BY_NAME[name] == 3 * y + x


@pytest.mark.parametrize(
    ("players", "shores"),
    [(2, ("S", "N")), (3, ("S", "W", "N")), (4, ("S", "W", "N", "E"))],
)
def test_seating_clockwise_from_south(players: int, shores: tuple[str, ...]) -> None:
    table = Table(players)
    assert table.state.shores == shores
    assert table.view(0).shores == shores
    assert table.view(0).players == players


# The three columns of every shore, numbered from that player's own left, nearest spot first.
EXPECTED_COLUMNS = {
    "S": (("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3")),
    "N": (("c3", "c2", "c1"), ("b3", "b2", "b1"), ("a3", "a2", "a1")),
    "W": (("a3", "b3", "c3"), ("a2", "b2", "c2"), ("a1", "b1", "c1")),
    "E": (("c1", "b1", "a1"), ("c2", "b2", "a2"), ("c3", "b3", "a3")),
}


@pytest.mark.parametrize("shore", ["S", "N", "W", "E"])
def test_columns_table_matches_explicit_spot_names(shore: str) -> None:
    inverse = {i: n for n, i in SPOT_BY_NAME.items()}
    got = tuple(tuple(inverse[s] for s in column) for column in COLUMNS[shore])
    assert got == EXPECTED_COLUMNS[shore]


def test_mirrored_columns() -> None:
    s, n, w, e = (COLUMNS[x] for x in "SNWE")
    # N's column 1 is S's column 3, and so on.
    for k in range(3):
        assert set(n[k]) == set(s[2 - k])
        assert set(e[k]) == set(w[2 - k])
    # W's columns are the pond's rows, column 1 being the north row (W's left); E's column 1 is the south row.
    assert names(w[0]) == {"a3", "b3", "c3"}
    assert names(w[2]) == {"a1", "b1", "c1"}
    assert names(e[0]) == {"a1", "b1", "c1"}
    assert names(e[2]) == {"a3", "b3", "c3"}


SEAT_COLUMN_CASES = [
    (players, seat, column)
    for players, shores in ((2, "SN"), (3, "SWN"), (4, "SWNE"))
    for seat in range(len(shores))
    for column in (1, 2, 3)
]


@pytest.mark.parametrize(("players", "seat", "column"), SEAT_COLUMN_CASES)
def test_each_seat_baits_and_fishes_in_its_own_column(players: int, seat: int, column: int) -> None:
    shore = {2: "SN", 3: "SWN", 4: "SWNE"}[players][seat]
    expected = set(EXPECTED_COLUMNS[shore][column - 1])
    table = Table(players, start=seat)
    table.fill(FULL_OF_FISH)
    table.cast(*(column if s == seat else 1 for s in range(players)))
    assert RULES.to_act(table.state) == (seat,)
    baits = table.legal(seat)
    assert {target for target, _ in bait_pairs(baits)} == expected
    table.no_bait(seat)
    for _ in range(players - 1):
        table.no_bait(RULES.to_act(table.state)[0])
    assert RULES.to_act(table.state) == (seat,)
    table.reveal(seat)
    assert fish_spots(table.legal(seat)) == expected
    for name in ALL_SPOTS:
        if name not in expected:
            expect_illegal(table.state, seat, Fish(sp(name)))


def test_north_column_one_is_south_column_three_in_play() -> None:
    table = Table(2)
    table.fill(FULL_OF_FISH)
    table.cast(3, 1)
    table.no_bait(0)
    table.no_bait(1)
    table.reveal(0)
    south = fish_spots(table.legal(0))
    table.fish(0, "c2")
    table.reveal(1)
    north = fish_spots(table.legal(1))
    assert south == {"c1", "c2", "c3"}
    assert north == {"c1", "c3"}  # the same column, without the spot S just emptied


# --- start player --------------------------------------------------------------------------------


def test_start_player_drawn_by_chance_by_default() -> None:
    state = RULES.new_game(4, {})
    request = RULES.chance(state)
    assert request is not None
    assert request.count == 1
    assert sorted(request.pool) == [0, 1, 2, 3]
    assert RULES.to_act(state) == ()
    expect_illegal(state, 0, Commit(cat_purpose(1), bytes(32)))
    expect_illegal(state, None, Chance((4,)))
    expect_illegal(state, None, Chance((1, 2)))
    state = RULES.apply(state, None, Chance((2,)))
    assert state.start == 2
    request = RULES.chance(state)
    assert request is not None
    assert request.count == 9


def test_start_option_skips_the_draw() -> None:
    state = RULES.new_game(3, {"start": "2"})
    assert state.start == 2
    request = RULES.chance(state)
    assert request is not None
    assert request.count == 9
    assert RULES.new_game(3, {"start": "random"}).phase == RULES.new_game(3, {}).phase


# --- fill ----------------------------------------------------------------------------------------


def test_fill_request_draws_nine_from_the_whole_mix() -> None:
    state = RULES.new_game(2, {"start": "0"})
    request = RULES.chance(state)
    assert request is not None
    assert request.count == 9
    assert Counter(request.pool) == Counter({"fish": 18, "stone": 9, "water": 9})


def test_fill_puts_one_card_on_each_spot_on_top_of_what_lies_there() -> None:
    table = Table(2)
    first = """
    F S W
    W F S
    S W F
    """
    table.fill(first)
    assert [table.stack(n) for n in ALL_SPOTS] == [(c,) for c in pond(first)]
    assert table.stack("a3") == ("fish",)
    assert table.stack("a1") == ("stone",)
    assert table.stack("c1") == ("fish",)
    table.cast(1, 1)  # S: a1 a2 a3 ; N: c3 c2 c1
    table.no_bait(0)
    table.no_bait(1)
    table.reveal_and_fish(0, "a3")
    table.reveal_and_fish(1, "c1")
    remaining = {n: table.stack(n) for n in ALL_SPOTS}
    assert remaining["a3"] == ()
    assert remaining["c1"] == ()
    second = """
    W W W
    F F F
    S S S
    """
    table.fill(second)
    for name, card in zip(ALL_SPOTS, pond(second), strict=True):
        assert table.stack(name) == (*remaining[name], card)
    assert table.stack("a3") == ("water",)
    assert table.stack("b2") == ("fish", "fish")
    assert table.stack("a1") == ("stone", "stone")
    assert table.view(0).heights[sp("b2")] == 2
    assert table.view(0).pile_left == 36 - 18
    assert table.state.pile == (18 - 3 - 3, 9 - 3 - 3, 9 - 3 - 3)


def test_fill_must_draw_exactly_nine_cards_left_in_the_pile() -> None:
    table = Table(2, pond="fish:20,stone:8,water:8")
    state = table.state
    expect_illegal(state, None, Chance(pond(FULL_OF_FISH)[:8]))
    expect_illegal(state, None, Chance((*pond(FULL_OF_FISH), "fish")))
    expect_illegal(state, None, Chance((*pond(FULL_OF_FISH)[:8], "boot")))
    expect_illegal(state, None, Chance(("stone",) * 9))  # only 8 stones in this mix
    table.fill(
        """
        S S S
        S S S
        S S F
        """
    )
    table.cast(1, 1)
    table.no_bait(0)
    table.no_bait(1)
    table.reveal_and_fish(0, "a1")
    table.reveal_and_fish(1, "c3")
    expect_illegal(table.state, None, Chance(("stone", *("fish",) * 8)))  # no stone left
    table.fill(FULL_OF_FISH)


def test_actions_of_other_games_are_illegal_here() -> None:
    from p2pfish.core.actions import Dealt, RevealCard, Shuffled

    table = Table(2)
    expect_illegal(table.state, None, Shuffled("pond", 36))
    expect_illegal(table.state, None, Dealt("pond", (0,), None, ("fish",)))
    table.fill(FULL_OF_FISH)
    expect_illegal(table.state, 0, RevealCard("pond", 0, "fish"))
    table.cast(1, 1)
    expect_illegal(table.state, 0, RevealCard("pond", 0, "fish"))
    table.no_bait(0)
    table.no_bait(1)
    expect_illegal(table.state, 0, RevealCard("pond", 0, "fish"))
    table.reveal(0)
    expect_illegal(table.state, 0, RevealCard("pond", 0, "fish"))


def test_chance_is_refused_outside_the_fill() -> None:
    table = Table(2)
    table.fill(FULL_OF_FISH)
    assert RULES.chance(table.state) is None
    expect_illegal(table.state, None, Chance(pond(FULL_OF_FISH)))
    expect_illegal(table.state, None, NoBait())


# --- cast (simultaneous, secret) -----------------------------------------------------------------


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 2, 0), (2, 0, 1)])
def test_cast_is_simultaneous_in_any_order(order: tuple[int, ...]) -> None:
    table = Table(3, start=1)
    table.fill(FULL_OF_FISH)
    waiting = {0, 1, 2}
    for seat in order:
        assert set(RULES.to_act(table.state)) == waiting
        for other in waiting:
            assert table.legal(other) == [Cast(cat_purpose(1), c) for c in (1, 2, 3)]
        table.commit(seat, 2)
        waiting.remove(seat)
        if waiting:
            assert table.legal(seat) == []
        assert table.view(2).committed == tuple(s not in waiting for s in range(3))
    assert table.state.phase == "bait"
    assert RULES.to_act(table.state) == (1,)  # baiting starts with the start player


def test_all_seats_must_commit_before_baiting() -> None:
    table = Table(3)
    table.fill(FULL_OF_FISH)
    table.commit(0, 1)
    table.commit(2, 1)
    state = table.state
    assert state.phase == "cast"
    expect_illegal(state, 0, NoBait())  # the start player has committed but must wait
    expect_illegal(state, 0, Bait(sp("a2"), sp("b2")))
    expect_illegal(state, 1, NoBait())  # the last seat must commit first
    expect_illegal(state, 1, Bait(sp("a2"), sp("b2")))
    expect_illegal(state, 1, Reveal(cat_purpose(1), 1))
    expect_illegal(state, 1, Fish(sp("a1")))
    expect_illegal(state, 1, Chance((0,)))
    table.commit(1, 3)
    assert table.state.phase == "bait"


def test_a_second_commit_from_the_same_seat_is_illegal() -> None:
    table = Table(2)
    table.fill(FULL_OF_FISH)
    table.commit(0, 1)
    error = expect_illegal(table.state, 0, Commit(cat_purpose(1), digest(0, cat_purpose(1), 3)))
    assert error.seat == 0
    table.commit(1, 2)
    expect_illegal(table.state, 0, Commit(cat_purpose(1), digest(0, cat_purpose(1), 3)))
    expect_illegal(table.state, 1, Commit(cat_purpose(1), digest(1, cat_purpose(1), 1)))


def test_commit_for_the_wrong_round_is_illegal() -> None:
    table = Table(2)
    table.fill(FULL_OF_FISH)
    expect_illegal(table.state, 0, Commit(cat_purpose(2), bytes(32)))
    expect_illegal(table.state, 0, Commit("colour", bytes(32)))


def test_a_secret_choice_itself_is_never_applied() -> None:
    table = Table(2)
    table.fill(FULL_OF_FISH)
    cast = table.legal(0)[0]
    assert isinstance(cast, Cast)
    expect_illegal(table.state, 0, cast)
    with pytest.raises(TypeError):
        cast.to_wire()


# --- bait ----------------------------------------------------------------------------------------

BAIT_POND = """
F S W
W F S
S W F
"""


def _bait_table() -> Table:
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(2, 2)  # S: b1 b2 b3 ; N: b3 b2 b1
    return table


def test_baiting_is_optional() -> None:
    table = _bait_table()
    before = table.state.pond
    table.no_bait(0)
    assert table.state.pond == before
    assert RULES.to_act(table.state) == (1,)
    table.no_bait(1)
    assert table.state.pond == before
    assert table.state.phase == "fish"


def test_bait_moves_the_whole_source_stack_onto_the_target() -> None:
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(1, 1)  # S: a1 a2 a3 ; N: c3 c2 c1
    table.bait(0, "a2", "b2")  # b2 (fish) onto a2 (water)
    assert table.stack("a2") == ("water", "fish")
    assert table.stack("b2") == ()
    table.bait(1, "c2", "c1")  # N moves c1 (fish) onto c2 (stone), inside its own column
    table.reveal_and_fish(0, "a3")
    table.reveal_and_fish(1, "c3")
    table.fill(FULL_OF_FISH)
    # Round 2: a2 holds three cards now; N starts and moves the whole stack.
    assert table.stack("a2") == ("water", "fish", "fish")
    table.cast(2, 3)  # S: b1 b2 b3 ; N: a3 a2 a1
    assert RULES.to_act(table.state) == (1,)
    table.bait(1, "a1", "a2")
    assert table.stack("a1") == ("stone", "fish", "water", "fish", "fish")
    assert table.stack("a2") == ()
    view = table.view(0)
    assert view.heights[sp("a1")] == 5
    assert view.tops[sp("a1")] == "fish"
    assert view.heights[sp("a2")] == 0
    assert view.tops[sp("a2")] is None


def test_bait_onto_an_empty_target() -> None:
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(2, 1)
    table.bait(0, "b2", "c2")  # c2 (stone) onto b2 (fish): c2 is empty now
    assert table.stack("c2") == ()
    assert ("c2", "c1") in bait_pairs(table.legal(1))  # N (column c) may bait onto the empty c2
    table.bait(1, "c2", "c1")
    assert table.stack("c2") == ("fish",)
    assert table.stack("c1") == ()


@pytest.mark.parametrize(
    ("target", "source"),
    [
        ("b2", "a1"),  # diagonal
        ("b2", "c3"),  # diagonal
        ("b1", "a2"),  # diagonal
        ("b1", "b3"),  # two steps along the column
        ("b3", "b1"),
        ("b2", "b2"),  # onto itself
    ],
)
def test_bait_must_come_from_an_orthogonal_neighbour(target: str, source: str) -> None:
    table = _bait_table()
    assert (target, source) not in bait_pairs(table.legal(0))
    error = expect_illegal(table.state, 0, Bait(sp(target), sp(source)))
    assert error.seat == 0


def test_bait_from_two_steps_along_a_row_is_illegal_for_west() -> None:
    table = Table(3)
    table.fill(BAIT_POND)
    table.cast(1, 2, 1)  # W column 2 is the middle row a2 b2 c2
    table.no_bait(0)
    assert ("a2", "c2") not in bait_pairs(table.legal(1))
    expect_illegal(table.state, 1, Bait(sp("a2"), sp("c2")))
    expect_illegal(table.state, 1, Bait(sp("c2"), sp("a2")))
    table.bait(1, "a2", "b2")


def test_bait_source_must_hold_a_card() -> None:
    table = _bait_table()
    table.bait(0, "b2", "a2")
    assert table.stack("a2") == ()
    # N's column is b too: a2 is now empty, so N cannot bait b2 from it.
    assert ("b2", "a2") not in bait_pairs(table.legal(1))
    expect_illegal(table.state, 1, Bait(sp("b2"), sp("a2")))
    table.bait(1, "b2", "c2")


@pytest.mark.parametrize(("players", "seat", "column"), SEAT_COLUMN_CASES)
def test_legal_baits_are_exactly_the_orthogonal_moves_into_the_own_column(players: int, seat: int, column: int) -> None:
    shore = {2: "SN", 3: "SWN", 4: "SWNE"}[players][seat]
    table = Table(players, start=seat)
    table.fill(BAIT_POND)
    table.cast(*(column if s == seat else 1 for s in range(players)))
    # Empty two spots so that the source rule matters.
    table.state = table.state._replace(
        pond=tuple(() if n in ("b2", "a1") else s for n, s in zip(ALL_SPOTS, table.state.pond, strict=True)),
    )
    legal = table.legal(seat)
    assert legal.count(NoBait()) == 1
    assert len(legal) == len(set(legal))
    expected = {
        (target, source)
        for target in EXPECTED_COLUMNS[shore][column - 1]
        for source in ALL_SPOTS
        if orthogonal(target, source) and source not in ("b2", "a1")
    }
    assert bait_pairs(legal) == expected
    for target, source in expected:
        RULES.apply(table.state, seat, Bait(sp(target), sp(source)))


def test_a_stack_can_move_twice_in_one_round() -> None:
    # "This clockwise baiting can actually make a fishing spot move around more than once."
    table = Table(4)
    table.fill(
        """
        F S W
        W F S
        S F W
        """
    )
    table.cast(2, 2, 1, 1)  # S: column b ; W: middle row ; N: column c ; E: south row
    table.bait(0, "b2", "b1")  # S: b1 (fish) onto b2 (fish)
    assert table.stack("b2") == ("fish", "fish")
    table.bait(1, "c2", "b2")  # W: the whole b2 stack onto c2 (stone)
    assert table.stack("c2") == ("stone", "fish", "fish")
    assert table.stack("b2") == ()
    table.bait(2, "c3", "c2")  # N: the same stack again, onto c3
    assert table.stack("c3") == ("water", "stone", "fish", "fish")
    assert table.stack("c2") == ()
    table.no_bait(3)
    assert table.state.baits == ((0, sp("b2"), sp("b1")), (1, sp("c2"), sp("b2")), (2, sp("c3"), sp("c2")))
    # Everyone's baits were inside their columns: all reveals pass.
    table.reveal_and_fish(0, "b3")
    table.reveal_and_fish(1, "a2")
    table.reveal_and_fish(2, "c3")
    assert table.state.buckets[2] == (2, 1, 1)


def test_baiting_goes_clockwise_from_the_start_player_one_bait_each() -> None:
    table = Table(4, start=2)
    table.fill(BAIT_POND)
    table.cast(1, 1, 1, 1)
    order = []
    while table.state.phase == "bait":
        (seat,) = RULES.to_act(table.state)
        order.append(seat)
        for other in range(4):
            if other != seat:
                assert table.legal(other) == []
                expect_illegal(table.state, other, NoBait())
        table.no_bait(seat)
        # A bait, once made, cannot be undone or repeated in this round.
        if table.state.phase == "bait":
            expect_illegal(table.state, seat, NoBait())
    assert order == [2, 3, 0, 1]


def test_bait_outside_the_committed_column_is_caught_at_reveal() -> None:
    table = Table(3)
    table.fill(BAIT_POND)
    table.cast(1, 2, 3)  # S: column a ; W: the middle row ; N: column a (its 3rd)
    table.no_bait(0)
    # W committed to the middle row but baits onto the north row: the rules cannot see it yet.
    assert ("b3", "b2") not in bait_pairs(table.legal(1))
    table.bait(1, "b3", "b2")
    table.no_bait(2)
    table.reveal_and_fish(0, "a1")
    assert RULES.to_act(table.state) == (1,)
    state = table.state
    error = expect_illegal(state, 1, Reveal(cat_purpose(1), 2))
    assert error.seat == 1
    assert "b3" in error.reason
    # Revealing the column the bait lay in would pass the rules; the session checks the opening.
    after = RULES.apply(state, 1, Reveal(cat_purpose(1), 1))
    assert after.cats[1] == 1


def test_reveal_checks_only_the_revealing_seats_own_baits_of_this_round() -> None:
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(1, 1)  # S: column a ; N: column c
    table.bait(0, "a2", "b2")
    table.bait(1, "c2", "c1")
    table.reveal_and_fish(0, "a2")
    table.reveal_and_fish(1, "c3")
    table.fill(FULL_OF_FISH)
    # Round 2: S's round-1 bait onto a2 is not checked against S's round-2 column.
    table.cast(3, 3)
    table.no_bait(1)
    table.no_bait(0)
    table.reveal_and_fish(1, "a1")
    table.reveal_and_fish(0, "c1")
    assert table.state.round == 3


# --- fish ----------------------------------------------------------------------------------------


def _fish_table() -> Table:
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(2, 1)  # S: b1 b2 b3 ; N: c3 c2 c1
    table.no_bait(0)
    table.no_bait(1)
    return table


def test_reveal_comes_before_fishing() -> None:
    table = _fish_table()
    assert table.legal(0) == [Reveal(cat_purpose(1), 2)]
    expect_illegal(table.state, 0, Fish(sp("b2")))
    expect_illegal(table.state, 0, Fish(None))
    expect_illegal(table.state, 0, NoBait())
    table.reveal(0)
    assert table.state.cats == (2, None)
    assert table.view(1).cats == (2, None)
    expect_illegal(table.state, 0, Reveal(cat_purpose(1), 2))  # a second reveal
    table.fish(0, "b2")


@pytest.mark.parametrize("value", [0, 4, -1, 10, "2", "b"])
def test_reveal_of_a_value_other_than_1_to_3_is_illegal(value: int | str) -> None:
    table = _fish_table()
    expect_illegal(table.state, 0, Reveal(cat_purpose(1), value))


def test_reveal_for_the_wrong_purpose_is_illegal() -> None:
    table = _fish_table()
    expect_illegal(table.state, 0, Reveal(cat_purpose(2), 2))
    expect_illegal(table.state, 0, Reveal("start", 2))


def test_fishing_is_mandatory_and_takes_the_whole_stack() -> None:
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(2, 1)
    table.bait(0, "b2", "a2")  # water onto the fish at b2
    table.no_bait(1)
    table.reveal(0)
    legal = table.legal(0)
    assert fish_spots(legal) == {"b1", "b2", "b3"}
    assert Fish(None) not in legal
    assert NoBait() not in legal
    error = expect_illegal(table.state, 0, Fish(None))
    assert error.seat == 0
    expect_illegal(table.state, 0, NoBait())
    expect_illegal(table.state, 0, Fish(sp("a2")))  # empty and not in the column
    expect_illegal(table.state, 0, Fish(sp("c2")))  # not in the column
    table.fish(0, "b2")
    assert table.state.buckets[0] == (1, 0, 1)
    assert table.stack("b2") == ()
    assert table.view(0).my_bucket == (1, 0, 1)


def test_fishing_an_empty_spot_of_a_non_empty_column_is_illegal() -> None:
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(2, 2)  # both in column b
    table.no_bait(0)
    table.no_bait(1)
    table.reveal_and_fish(0, "b2")
    table.reveal(1)
    expect_illegal(table.state, 1, Fish(sp("b2")))
    assert fish_spots(table.legal(1)) == {"b1", "b3"}


@pytest.mark.parametrize("start", [0, 1, 2, 3])
def test_fishing_goes_clockwise_from_the_start_player(start: int) -> None:
    table = Table(4, start=start)
    table.fill(FULL_OF_FISH)
    table.cast(1, 1, 1, 1)
    for _ in range(4):
        table.no_bait(RULES.to_act(table.state)[0])
    order = []
    while table.state.phase == "fish":
        (seat,) = RULES.to_act(table.state)
        order.append(seat)
        for other in range(4):
            if other != seat:
                expect_illegal(table.state, other, Reveal(cat_purpose(1), 1))
        table.reveal(seat)
        assert RULES.to_act(table.state) == (seat,)  # the same seat fishes after its reveal
        table.play(seat, table.legal(seat)[0])
    assert order == [(start + i) % 4 for i in range(4)]


# --- the rulebook's worked examples ----------------------------------------------------------------


def test_rulebook_baiting_example_from_player_a() -> None:
    # A (south, start player) has the cat in the middle column and baits the fish lying
    # horizontally next to it; the diagonal fish may not be baited.
    table = Table(2)
    table.fill(
        """
        F S W
        F S W
        W W S
        """
    )
    table.cast(2, 1)
    legal = bait_pairs(table.legal(0))
    assert ("b2", "a2") in legal
    assert ("b2", "a3") not in legal  # diagonal
    assert ("b1", "a2") not in legal  # diagonal
    expect_illegal(table.state, 0, Bait(sp("b2"), sp("a3")))
    table.bait(0, "b2", "a2")
    assert table.stack("b2") == ("stone", "fish")
    assert table.view(1).tops[sp("b2")] == "fish"
    assert table.view(1).heights[sp("b2")] == 2
    table.no_bait(1)
    table.reveal_and_fish(0, "b2")  # the whole stack: the fish and the stone under it
    assert table.state.buckets[0] == (1, 1, 0)


def test_rulebook_baiting_example_from_player_b_declines() -> None:
    # B's neighbouring spots show only stones and water: baiting is optional, B does not bait.
    table = Table(2)
    table.fill(
        """
        F S W
        F W S
        F S W
        """
    )
    table.cast(1, 1)  # A: column a ; B (north): column c
    table.no_bait(0)
    offered = bait_pairs(table.legal(1))
    assert offered
    assert {table.view(1).tops[sp(source)] for _, source in offered} <= {"stone", "water"}
    assert NoBait() in table.legal(1)
    before = table.state.pond
    table.no_bait(1)
    assert table.state.pond == before


def test_rulebook_mistaken_bait_cannot_be_undone() -> None:
    # A forgets where the cat lies and baits into another column: no undo, and the reveal exposes it.
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(1, 1)
    table.bait(0, "b2", "b1")
    expect_illegal(table.state, 0, Bait(sp("b1"), sp("b2")))
    expect_illegal(table.state, 0, NoBait())
    table.no_bait(1)
    expect_illegal(table.state, 0, Reveal(cat_purpose(1), 1))


def test_rulebook_fishing_example_from_player_a() -> None:
    # A, the start player, fishes first: only A's cat is revealed, then A takes one spot of that column.
    table = Table(2)
    table.fill(
        """
        S F W
        F S W
        W W S
        """
    )
    table.cast(1, 3)  # A: a1 a2 a3 ; B (north, 3rd column from B's left): a3 a2 a1
    table.no_bait(0)
    table.no_bait(1)
    table.reveal(0)
    assert table.view(1).cats == (1, None)  # B still keeps its cat hidden
    assert fish_spots(table.legal(0)) == {"a1", "a2", "a3"}
    table.fish(0, "a2")
    assert table.state.buckets[0] == (1, 0, 0)
    assert table.view(1).bucket_sizes == (1, 0)
    table.reveal(1)
    assert fish_spots(table.legal(1)) == {"a1", "a3"}


def test_rulebook_fishing_example_from_player_b_only_stones_and_water() -> None:
    # "Who can fish must fish!": B's column holds only a stone and water once A has fished.
    table = Table(2)
    table.fill(
        """
        F W F
        F F F
        F S F
        """
    )
    table.cast(2, 2)  # A and B share column b (b1 b2 b3)
    table.no_bait(0)
    table.no_bait(1)
    table.reveal_and_fish(0, "b2")
    table.reveal(1)
    legal = table.legal(1)
    assert fish_spots(legal) == {"b1", "b3"}
    assert len(legal) == 2
    expect_illegal(table.state, 1, Fish(None))
    table.fish(1, "b3")
    assert table.state.buckets[1] == (0, 0, 1)


def test_rulebook_fishing_example_from_player_b_empty_column() -> None:
    # Four players: the others empty E's column (the south row) before E gets to fish.
    table = Table(4)
    table.fill(
        """
        F F F
        F F F
        S W S
        """
    )
    table.cast(1, 2, 1, 1)  # S: column a ; W: middle row ; N: column c ; E: south row
    table.bait(0, "a2", "a1")
    table.bait(1, "b2", "b1")
    table.bait(2, "c2", "c1")
    table.no_bait(3)
    table.reveal_and_fish(0, "a2")
    table.reveal_and_fish(1, "b2")
    table.reveal_and_fish(2, "c2")
    assert [table.stack(n) for n in ("a1", "b1", "c1")] == [(), (), ()]
    table.reveal(3)
    assert table.legal(3) == [Fish(None)]
    for name in ALL_SPOTS:
        expect_illegal(table.state, 3, Fish(sp(name)))
    pond_before = table.state.pond
    table.fish(3, None)
    assert table.state.buckets == ((1, 1, 0), (1, 0, 1), (1, 1, 0), (0, 0, 0))
    assert table.state.round == 2
    assert table.state.pond == pond_before


def test_rulebook_unfished_cards_are_covered_and_stay_hidden() -> None:
    def play(under_a2: str, under_b2: str) -> Table:
        table = Table(2)
        table.fill(
            f"""
            F F F
            {under_a2} {under_b2} F
            F F F
            """
        )
        table.cast(1, 1)
        table.no_bait(0)
        table.no_bait(1)
        table.reveal_and_fish(0, "a1")
        table.reveal_and_fish(1, "c3")
        table.fill(FULL_OF_FISH)
        return table

    x, y = play("S", "W"), play("W", "S")
    assert x.state != y.state
    assert x.stack("a2") == ("stone", "fish")
    # A covered card is never shown: every seat's view is the same in both games.
    for seat in (0, 1):
        assert x.view(seat) == y.view(seat)
        assert x.view(seat).to_wire() == y.view(seat).to_wire()
    # Round 2: N baits the covered a2 stack onto a1, S keeps still; still nothing to tell them apart.
    for t in (x, y):
        t.cast(2, 3)  # S: column b ; N: a3 a2 a1
        t.bait(1, "a1", "a2")
        t.no_bait(0)
    for seat in (0, 1):
        assert x.view(seat) == y.view(seat)
    # N fishes a3; S fishes the b2 stack with a covered card in it: only S learns what it was.
    for t in (x, y):
        t.reveal_and_fish(1, "a3")
        t.reveal_and_fish(0, "b2")
    assert x.view(0).my_bucket == (2, 0, 1)
    assert y.view(0).my_bucket == (2, 1, 0)
    assert x.view(1) == y.view(1)
    assert x.view(1).bucket_sizes == (3, 3)
    assert x.view(1).buckets is None


# --- rounds, start rotation, end ------------------------------------------------------------------


def _first_legal_round(table: Table) -> None:
    request = RULES.chance(table.state)
    assert request is not None
    table.play(None, Chance(tuple(sorted(request.pool))[:9]))
    for seat in range(table.players):
        table.commit(seat, 1 + seat % 3)
    while table.state.phase in ("bait", "fish"):
        (seat,) = RULES.to_act(table.state)
        table.play(seat, table.legal(seat)[0])


@pytest.mark.parametrize(("players", "start"), [(2, 1), (3, 1), (4, 3)])
def test_start_player_passes_clockwise_each_round(players: int, start: int) -> None:
    table = Table(players, start=start)
    for round_number in range(1, 5):
        assert table.state.round == round_number
        assert table.state.phase == "fill"
        expected = (start + round_number - 1) % players
        assert table.state.start == expected
        assert table.view(0).start == expected
        request = RULES.chance(table.state)
        assert request is not None
        table.play(None, Chance(tuple(sorted(request.pool))[:9]))
        for seat in range(players):
            table.commit(seat, 2)
        assert RULES.to_act(table.state) == (expected,)
        while table.state.phase in ("bait", "fish"):
            (seat,) = RULES.to_act(table.state)
            table.play(seat, table.legal(seat)[0])
    assert table.state.phase == OVER


@pytest.mark.parametrize("players", [2, 3, 4])
def test_game_is_over_after_exactly_four_rounds(players: int) -> None:
    table = Table(players)
    for round_number in range(1, 5):
        assert RULES.outcome(table.state) is None
        request = RULES.chance(table.state)
        assert request is not None
        assert request.purpose == f"fill/{round_number}"
        _first_legal_round(table)
    state = table.state
    assert state.phase == OVER
    assert state.pile == (0, 0, 0)
    assert RULES.chance(state) is None
    assert RULES.to_act(state) == ()
    assert RULES.outcome(state) is not None
    for seat in range(players):
        assert table.legal(seat) == []
        expect_illegal(state, seat, NoBait())
        expect_illegal(state, seat, Commit(cat_purpose(5), bytes(32)))
        expect_illegal(state, seat, Fish(None))
    expect_illegal(state, None, Chance(()))


def test_replaying_the_log_gives_the_same_game() -> None:
    table = Table(3, start=2)
    for _ in range(4):
        _first_legal_round(table)
    state = RULES.new_game(3, {"start": "2"})
    for seat, action in table.log:
        state = RULES.apply(state, seat, RULES.decode_action(json.loads(json.dumps(action.to_wire()))))
    assert state == table.state


# --- scoring and tie-breaks -----------------------------------------------------------------------


def scripted_two_player_game(south: str, north: str) -> Table:
    """S always fishes a1, N always fishes c3; `south`/`north` name what lies there in rounds 1-4."""
    table = Table(2)
    for r in range(4):
        future = Counter(ITEM[t] for t in south[r + 1 :] + north[r + 1 :])
        pile = Counter(dict(zip(("fish", "stone", "water"), table.state.pile, strict=True)))
        others = list((pile - future - Counter([ITEM[south[r]], ITEM[north[r]]])).elements())[:7]
        cards = []
        for name in ALL_SPOTS:
            if name == "a1":
                cards.append(ITEM[south[r]])
            elif name == "c3":
                cards.append(ITEM[north[r]])
            else:
                cards.append(others.pop())
        table.play(None, Chance(tuple(cards)))
        table.cast(1, 1)  # S: a1 a2 a3 ; N: c3 c2 c1
        first = table.state.start
        for seat in (first, 1 - first):
            table.no_bait(seat)
        for seat in (first, 1 - first):
            table.reveal_and_fish(seat, "a1" if seat == 0 else "c3")
    assert table.state.phase == OVER
    return table


@pytest.mark.parametrize(
    ("south", "north", "scores", "winners"),
    [
        ("FFSW", "FFFW", (1, 3), (1,)),  # highest score wins
        ("FFFF", "FFWW", (4, 2), (0,)),
        ("FFSW", "FWWW", (1, 1), (1,)),  # tie -> fewest stones
        ("FFSW", "FFSW", (1, 1), (0, 1)),  # still tied -> shared
        ("WWWW", "WWWW", (0, 0), (0, 1)),  # water is worth nothing
        ("SSSS", "WWWW", (-4, 0), (1,)),  # a stone costs one point
        ("FFFS", "FFWW", (2, 2), (1,)),
    ],
)
def test_scripted_games_score_and_break_ties(
    south: str, north: str, scores: tuple[int, int], winners: tuple[int, ...]
) -> None:
    table = scripted_two_player_game(south, north)
    outcome = RULES.outcome(table.state)
    assert outcome is not None
    assert outcome.scores == scores
    assert outcome.winners == winners
    assert outcome.to_wire() == {"scores": list(scores), "winners": list(winners)}
    for seat in (0, 1):
        view = table.view(seat)
        assert view.buckets == table.state.buckets  # everything is shown at the end


@pytest.mark.parametrize(
    ("buckets", "scores", "winners"),
    [
        # highest score wins, even with more stones
        (((5, 3, 0), (1, 0, 4)), (2, 1), (0,)),
        # tie on score -> fewest stones
        (((4, 2, 0), (3, 1, 5), (2, 0, 0)), (2, 2, 2), (2,)),
        (((4, 2, 0), (3, 1, 5), (9, 9, 0)), (2, 2, 0), (1,)),
        # still tied -> shared, water does not break ties
        (((3, 1, 0), (3, 1, 7), (1, 0, 0), (2, 0, 0)), (2, 2, 1, 2), (3,)),
        (((3, 1, 0), (3, 1, 7), (1, 0, 0), (5, 3, 0)), (2, 2, 1, 2), (0, 1)),
        (((0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)), (0, 0, 0, 0), (0, 1, 2, 3)),
        # all negative
        (((0, 2, 0), (0, 3, 0), (1, 3, 0)), (-2, -3, -2), (0,)),
    ],
)
def test_end_state_tie_breaks(
    buckets: tuple[tuple[int, int, int], ...], scores: tuple[int, ...], winners: tuple[int, ...]
) -> None:
    state = Table(len(buckets)).state._replace(phase=OVER, round=4, buckets=buckets)
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome.scores == scores
    assert outcome.winners == winners


# --- visibility ----------------------------------------------------------------------------------


def test_view_shows_tops_and_heights_only() -> None:
    table = Table(2)
    table.fill(BAIT_POND)
    table.cast(2, 1)
    table.bait(0, "b2", "b1")  # b1 (water) onto b2 (fish)
    view = table.view(1)
    assert view.tops == tuple(table.stack(n)[-1] if table.stack(n) else None for n in ALL_SPOTS)
    assert view.heights == tuple(len(table.stack(n)) for n in ALL_SPOTS)
    assert view.tops[sp("b2")] == "water"
    assert view.heights[sp("b2")] == 2
    assert view.to_wire()["pond"][sp("b2")] == "waterx2"
    assert view.to_wire()["pond"][sp("b1")] is None
    # The covered fish under b2 appears nowhere in the view: replace it and nothing changes.
    hidden = table.state._replace(
        pond=tuple(("stone", "water") if i == sp("b2") else s for i, s in enumerate(table.state.pond)),
    )
    for seat in (0, 1):
        assert RULES.view(hidden, seat, table.known[seat]) == table.view(seat)


def test_my_cat_comes_only_from_the_seats_own_knowledge() -> None:
    table = Table(3)
    table.fill(BAIT_POND)
    assert table.view(0).my_cat is None
    table.commit(0, 2)
    assert table.view(0).my_cat == 2
    assert table.view(1).my_cat is None
    table.commit(1, 3)
    table.commit(2, 1)
    assert [table.view(s).my_cat for s in range(3)] == [2, 3, 1]
    assert RULES.view(table.state, 1, {}).my_cat is None
    assert RULES.view(table.state, 1, table.known[1]).cats == (None, None, None)
    # Seat 1's view does not depend on what seat 0 chose (nor on its digest).
    other = Table(3)
    other.fill(BAIT_POND)
    other.commit(0, 1)
    other.commit(1, 3)
    other.commit(2, 1)
    assert other.state != table.state
    assert other.view(1) == table.view(1)
    assert other.view(2) == table.view(2)
    wire = json.dumps(table.view(1).to_wire())
    assert table.state.commitments[0] is not None
    assert table.state.commitments[0].hex() not in wire


def test_own_bucket_contents_others_only_sizes_until_the_end() -> None:
    def game(north_gets: str) -> Table:
        table = Table(2)
        table.fill(
            f"""
            F F {north_gets}
            F F F
            S F F
            """
        )
        table.cast(1, 1)
        table.no_bait(0)
        table.no_bait(1)
        table.reveal_and_fish(0, "a1")
        table.reveal_and_fish(1, "c3")
        return table

    x, y = game("S"), game("W")
    assert x.view(1).my_bucket == (0, 1, 0)
    assert y.view(1).my_bucket == (0, 0, 1)
    assert x.view(0).my_bucket == (0, 1, 0)
    assert x.view(0) == y.view(0)  # S sees only that N holds one card
    assert x.view(0).bucket_sizes == (1, 1)
    assert x.view(0).buckets is None
    assert x.view(0).to_wire()["buckets"] is None


# --- errors: out of turn, wrong phase, wrong seat -------------------------------------------------


@pytest.mark.parametrize("seat", [-1, 2, 3, 7])
def test_an_unknown_seat_number_is_illegal(seat: int) -> None:
    table = Table(2)
    table.fill(BAIT_POND)
    error = expect_illegal(table.state, seat, Commit(cat_purpose(1), bytes(32)))
    assert error.seat == seat
    table.cast(1, 1)
    expect_illegal(table.state, seat, NoBait())


def test_out_of_turn_and_wrong_phase_actions_are_illegal() -> None:
    table = Table(2, start=1)
    expect_illegal(table.state, 0, Commit(cat_purpose(1), bytes(32)))  # fill phase
    expect_illegal(table.state, 1, NoBait())
    table.fill(BAIT_POND)
    expect_illegal(table.state, 0, NoBait())
    expect_illegal(table.state, 0, Fish(sp("a1")))
    table.cast(1, 1)
    state = table.state
    expect_illegal(state, 0, NoBait())  # seat 1 starts
    expect_illegal(state, 1, Commit(cat_purpose(1), bytes(32)))
    expect_illegal(state, 1, Reveal(cat_purpose(1), 1))
    expect_illegal(state, 1, Fish(sp("c3")))
    expect_illegal(state, 1, Chance((0,)))
    expect_illegal(state, None, Chance(pond(BAIT_POND)))
    table.no_bait(1)
    table.no_bait(0)
    state = table.state
    expect_illegal(state, 0, Reveal(cat_purpose(1), 1))  # seat 1 fishes first
    expect_illegal(state, 1, NoBait())
    expect_illegal(state, 1, Bait(sp("c2"), sp("b2")))
    table.reveal(1)
    expect_illegal(table.state, 1, Bait(sp("c2"), sp("b2")))
    expect_illegal(table.state, 1, Commit(cat_purpose(1), bytes(32)))
    expect_illegal(table.state, 0, Fish(sp("a1")))


def test_legal_actions_are_empty_for_seats_not_to_act() -> None:
    table = Table(3)
    assert all(table.legal(s) == [] for s in range(3))
    table.fill(BAIT_POND)
    table.cast(1, 1, 1)
    assert table.legal(0) != []
    assert table.legal(1) == []
    assert table.legal(2) == []
    # Without its own secret a seat is offered nothing (it cannot know its column).
    assert list(RULES.legal_actions(table.state, 0, {})) == []


@pytest.mark.parametrize("seat", [-1, 3, 7])
def test_legal_actions_for_an_unknown_seat_in_the_cast_phase_are_empty(seat: int) -> None:
    table = Table(3)
    table.fill(BAIT_POND)
    # Regression: the cast phase once indexed state.commitments[seat] unchecked (IndexError for 3 or 7,
    # and seat -1 was offered seat 2's casts).
    assert list(RULES.legal_actions(table.state, seat, {})) == []


# --- wire forms ----------------------------------------------------------------------------------

ROUND_TRIP = [
    NoBait(),
    Fish(None),
    *(Fish(i) for i in range(9)),
    *(Bait(t, s) for t in range(9) for s in range(9)),
    Commit(cat_purpose(1), bytes(range(32))),
    Commit(cat_purpose(4), bytes(32)),
    Reveal(cat_purpose(1), 1),
    Reveal(cat_purpose(3), 3),
    Chance((2,)),
    Chance(pond(BAIT_POND)),
]


@pytest.mark.parametrize("action", ROUND_TRIP, ids=str)
def test_wire_round_trip(action: Action) -> None:
    wire = action.to_wire()
    assert RULES.decode_action(wire) == action
    assert RULES.decode_action(json.loads(json.dumps(wire))) == action
    assert RULES.decode_action(wire).to_wire() == wire
    assert str(action)


def test_wire_forms_use_spot_names() -> None:
    assert Bait(sp("b2"), sp("a2")).to_wire() == {"t": "bait", "target": "b2", "source": "a2"}
    assert Fish(sp("c3")).to_wire() == {"t": "fish", "spot": "c3"}
    assert Fish(None).to_wire() == {"t": "fish", "spot": None}
    assert NoBait().to_wire() == {"t": "nobait"}
    assert "b2" in str(Bait(sp("b2"), sp("a2")))
    assert "a2" in str(Bait(sp("b2"), sp("a2")))
    assert "c3" in str(Fish(sp("c3")))


MALFORMED: list[Any] = [
    None,
    5,
    "bait",
    ["bait", "a1", "a2"],
    {},
    {"target": "a1", "source": "a2"},
    {"t": "cast", "value": 1},
    {"t": "Bait", "target": "a1", "source": "a2"},
    {"t": 7},
    {"t": None},
    {"t": "bait", "target": "d1", "source": "a1"},
    {"t": "bait", "target": "a4", "source": "a3"},
    {"t": "bait", "target": "a0", "source": "a1"},
    {"t": "bait", "target": "A1", "source": "a2"},
    {"t": "bait", "target": "", "source": "a2"},
    {"t": "bait", "target": "b22", "source": "b2"},
    {"t": "bait", "target": 4, "source": 3},
    {"t": "bait", "target": "a1"},
    {"t": "bait", "source": "a1"},
    {"t": "fish"},
    {"t": "fish", "spot": "z9"},
    {"t": "fish", "spot": 4},
    {"t": "fish", "spot": ["a1"]},
    {"t": "commit", "purpose": "cat/1"},
    {"t": "commit", "digest": "00" * 32},
    {"t": "commit", "purpose": "cat/1", "digest": "zz" * 32},
    {"t": "commit", "purpose": "cat/1", "digest": "0" * 63},
    {"t": "commit", "purpose": "cat/1", "digest": "00" * 31},
    {"t": "commit", "purpose": "cat/1", "digest": "00" * 33},
    {"t": "commit", "purpose": "cat/1", "digest": 0},
    {"t": "commit", "purpose": 1, "digest": "00" * 32},
    {"t": "reveal", "purpose": "cat/1"},
    {"t": "reveal", "value": 1},
    {"t": "reveal", "purpose": "cat/1", "value": True},
    {"t": "reveal", "purpose": "cat/1", "value": None},
    {"t": "reveal", "purpose": "cat/1", "value": 1.5},
    {"t": "reveal", "purpose": "cat/1", "value": [1]},
    {"t": "chance"},
    {"t": "chance", "values": "fish"},
    {"t": "chance", "values": [True]},
    {"t": "chance", "values": [None]},
]


@pytest.mark.parametrize("wire", MALFORMED, ids=repr)
def test_malformed_wire_forms(wire: Any) -> None:
    with pytest.raises(MalformedInput):
        RULES.decode_action(wire)


def test_commit_digest_with_whitespace_is_malformed() -> None:
    wire: dict[str, Json] = {"t": "commit", "purpose": "cat/1", "digest": " ".join(["ab"] * 32)}
    # Regression: bytes.fromhex() skips whitespace, which once gave one action several wire forms.
    with pytest.raises(MalformedInput):
        RULES.decode_action(wire)


# --- options and player counts ---------------------------------------------------------------------


@pytest.mark.parametrize("mix", ["fish:20,stone:8,water:8", "water:8,fish:20,stone:8"])
def test_pond_mix_option(mix: str) -> None:
    state = RULES.new_game(2, {"pond": mix, "start": "0"})
    request = RULES.chance(state)
    assert request is not None
    assert Counter(request.pool) == Counter({"fish": 20, "stone": 8, "water": 8})
    assert RULES.view(state, 0, {}).pile_left == 36


def test_pond_mix_may_leave_out_an_item() -> None:
    state = RULES.new_game(2, {"pond": "fish:27,stone:9", "start": "0"})
    request = RULES.chance(state)
    assert request is not None
    assert Counter(request.pool) == Counter({"fish": 27, "stone": 9})


@pytest.mark.parametrize(
    "mix",
    [
        "fish:20,stone:9,water:9",  # 38
        "fish:18,stone:9,water:8",  # 35
        "fish:1",
        "fish:0,stone:0,water:0",
        "",
        "fish",
        "fish:",
        "fish:x,stone:9,water:9",
        "fish:-1,stone:28,water:9",
        "fish:1.5,stone:25.5,water:9",
        "fish=18,stone=9,water=9",
        "fish:18;stone:9;water:9",
        "fish:18,stone:9,water:9,",
        "fish:18, stone:9, water:9",
        "trout:18,stone:9,water:9",
        "Fish:18,stone:9,water:9",
        "fish:18,stone:9,water:9,boot:0",
    ],
)
def test_bad_pond_mix_is_malformed(mix: str) -> None:
    with pytest.raises(MalformedInput):
        RULES.new_game(3, {"pond": mix})


def test_pond_mix_with_a_non_ascii_digit_is_malformed() -> None:
    # str.isdigit() accepts "²" but int("²") raises ValueError: the option must still be MalformedInput.
    with pytest.raises(MalformedInput):
        RULES.new_game(2, {"pond": "fish:²,stone:9,water:9"})


def test_start_with_a_non_ascii_digit_is_malformed() -> None:
    # The same trap for start: "²" is a digit to str.isdigit() but not to int().
    with pytest.raises(MalformedInput):
        RULES.new_game(2, {"start": "²"})


@pytest.mark.parametrize("options", [{"colour": "red"}, {"Pond": "fish:18,stone:9,water:9"}, {"rounds": "5"}])
def test_unknown_option_is_malformed(options: dict[str, str]) -> None:
    with pytest.raises(MalformedInput):
        RULES.new_game(2, options)


@pytest.mark.parametrize(("players", "start"), [(2, "2"), (4, "4"), (3, "-1"), (3, "one"), (3, ""), (2, "1.0")])
def test_bad_start_option_is_malformed(players: int, start: str) -> None:
    with pytest.raises(MalformedInput):
        RULES.new_game(players, {"start": start})
