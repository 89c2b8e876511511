"""A greedy Kuna Yala bot: every placement is valued by the change it makes to an estimate of the scores.

The bot knows its own colour and nothing else: each opponent's colour is taken as equally likely to be any
of the three others (`View.colours` is never read). The estimate, from the visible cards only:
- its own score: fish of its colour in all schools, +3 for its colour's strict majority in its own school,
  its octopuses, +2 while it has the most sharks, and the octopuses still to come while it leads on coral;
- each opponent's: the same, averaged over the three colours it may have.
A placement is worth (own estimate) - WEIGHT x (the opponents' mean estimate) after it; a fish placement
sees the curse it sets off (fish turned to bones), and a fish of its colour left in a run of two same-
background fish (one more fish of that background curses it) costs a little.

A turn is taken as a pair: the card for its own school is chosen together with the best placement for an
opponent of the cards left (valued on the board before the own card, as the two hardly interact), so the
bot does not take the one card that had a good use against an opponent. Ties go to the bot's rng.
"""

import random
from collections.abc import Callable, Sequence
from typing import Any, Final

from p2pfish.bots.base import pick_best
from p2pfish.core.actions import Action
from p2pfish.games.kunayala.rules import (
    BONES,
    BONES_CARD,
    CORAL,
    CURSE_RUN,
    DEFAULT_MIX,
    FISH,
    FISH_COLOURS,
    MAJORITY_BONUS,
    OCTOPUS,
    SHARK,
    SHARK_BONUS,
    Card,
    Discard,
    PlaceOther,
    PlaceOwn,
    View,
    card,
    fits,
)

WEIGHT: Final = 1.0
"""How much the opponents' mean estimated score counts against the bot's own."""
LEAD_WEIGHT: Final = 1.5
"""The part of the octopuses still to come that the current coral leader is counted as getting."""
EXPOSED: Final = 0.8
"""The cost, per fish of the bot's colour, of a run of two same-background fish: a third one curses them."""

COLOUR_INDEX: Final = {colour: i for i, colour in enumerate(FISH_COLOURS)}
AXES: Final = ((1, 0), (0, 1))
DISCARD_THREAT: Final = {SHARK: 2.0, FISH: 1.0, CORAL: 0.0}
"""Discarding (when nothing fits) removes a card from the next seat's choice: sharks first, then fish."""

Position = tuple[int, int]
Grid = dict[Position, Card]
Key = tuple[int, tuple[int, ...], int, int]
"""A placement's effect: the school, its fish change by colour, sharks added, corals added."""
NO_FISH: Final = (0,) * len(FISH_COLOURS)


def visible(top: str) -> Card:
    return BONES_CARD if top == BONES else card(top)


def around(x: int, y: int) -> tuple[Position, ...]:
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


def open_cells(grid: Grid) -> dict[Position, list[Card]]:
    """Every empty cell next to a card, with the visible cards around it."""
    cells: dict[Position, list[Card]] = {}
    for (x, y), top in grid.items():
        for position in around(x, y):
            if position not in grid:
                cells.setdefault(position, []).append(top)
    return cells


def runs_through(grid: Grid, position: Position, background: str | None) -> list[list[Position]]:
    """For each axis, the live fish with `background` in line with `position` (not counting it)."""
    runs = []
    for dx, dy in AXES:
        run = []
        for sign in (1, -1):
            x, y = position
            while True:
                x, y = x + sign * dx, y + sign * dy
                other = grid.get((x, y))
                if other is None or other.kind != FISH or other.background != background:
                    break
                run.append((x, y))
        runs.append(run)
    return runs


def strict_majority(row: Sequence[int], colour: int) -> bool:
    mine = row[colour]
    return all(mine > n for i, n in enumerate(row) if i != colour)


class Table:
    """The visible board of one decision, reduced to what the score estimate needs."""

    def __init__(self, view: View) -> None:
        assert view.my_colour is not None, "a seat knows its own colour tile from the deal on"
        self.seat = view.seat
        self.players = view.players
        self.mine = COLOUR_INDEX[view.my_colour]
        self.theirs = tuple(i for i in range(len(FISH_COLOURS)) if i != self.mine)
        self.grids: list[Grid] = [{(c.x, c.y): visible(c.top) for c in school} for school in view.schools]
        self.counts: list[list[int]] = []
        for grid in self.grids:
            row = [0] * len(FISH_COLOURS)
            for top in grid.values():
                if top.kind == FISH and top.colour is not None:
                    row[COLOUR_INDEX[top.colour]] += top.fish
            self.counts.append(row)
        self.totals = [sum(row[i] for row in self.counts) for i in range(len(FISH_COLOURS))]
        self.sharks = [sum(1 for top in grid.values() if top.kind == SHARK) for grid in self.grids]
        self.corals = list(view.corals)
        octopuses = [
            sum(c.height - 1 for c in school if c.top != BONES and card(c.top).kind == OCTOPUS)
            for school in view.schools
        ]
        seen = sum(octopuses) + sum(1 for label in view.discards if card(label).kind == OCTOPUS)
        seen += view.octopus is not None
        left = sum(view.stacks)
        to_come = max(0, DEFAULT_MIX["octopuses"] - seen) * (left - max(view.stacks)) / left if left else 0.0
        self.lead = LEAD_WEIGHT * to_come
        self.octopuses = octopuses
        self._memo: dict[Key, float] = {}

    # --- the estimate ---

    def value(self, key: Key) -> float:
        """The bot's estimate after a placement with effect `key`, memoised: many placements share one."""
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._estimate(*key)
        return found

    def _estimate(self, school: int, fish: tuple[int, ...], sharks_added: int, corals_added: int) -> float:
        counts = list(self.counts)
        counts[school] = [n + d for n, d in zip(counts[school], fish, strict=True)]
        totals = [n + d for n, d in zip(self.totals, fish, strict=True)]
        sharks = list(self.sharks)
        sharks[school] += sharks_added
        corals = list(self.corals)
        corals[school] += corals_added
        most_sharks = max(sharks)
        most_corals = max(corals)
        leader = corals.index(most_corals) if corals.count(most_corals) == 1 else None

        def common(seat: int) -> float:
            shark_bonus = SHARK_BONUS if most_sharks > 0 and sharks[seat] == most_sharks else 0
            return self.octopuses[seat] + shark_bonus + (self.lead if seat == leader else 0.0)

        mine = totals[self.mine] + common(self.seat)
        if strict_majority(counts[self.seat], self.mine):
            mine += MAJORITY_BONUS
        their_fish = sum(totals[i] for i in self.theirs)
        opponents = 0.0
        for seat in range(self.players):
            if seat != self.seat:
                majorities = sum(MAJORITY_BONUS for i in self.theirs if strict_majority(counts[seat], i))
                opponents += common(seat) + (their_fish + majorities) / len(self.theirs)
        return mine - WEIGHT * opponents / (self.players - 1)

    # --- placements ---

    def place(self, school: int, position: Position, new: Card) -> float:
        """The estimate after a fish, coral or shark goes on `position` of `school`."""
        grid = self.grids[school]
        if new.kind == CORAL:
            return self.value((school, NO_FISH, 0, 1))
        if new.kind == SHARK:
            prey = grid[position]
            assert prey.colour is not None
            return self.value((school, self._fish(prey.colour, -prey.fish), 1, 0))
        assert new.colour is not None
        runs = runs_through(grid, position, new.background)
        cursed = [p for run in runs if len(run) >= CURSE_RUN - 1 for p in run]
        if not cursed:
            new_mine = new.fish if COLOUR_INDEX[new.colour] == self.mine else 0
            exposed = sum(self._of_mine(grid, run) + new_mine for run in runs if len(run) == CURSE_RUN - 2)
            return self.value((school, self._fish(new.colour, new.fish), 0, 0)) - EXPOSED * exposed
        lost = [0] * len(FISH_COLOURS)
        for p in cursed:
            victim = grid[p]
            assert victim.colour is not None
            lost[COLOUR_INDEX[victim.colour]] -= victim.fish
        return self.value((school, tuple(lost), 0, 0))

    def _fish(self, colour: str, change: int) -> tuple[int, ...]:
        fish = [0] * len(FISH_COLOURS)
        fish[COLOUR_INDEX[colour]] = change
        return tuple(fish)

    def _of_mine(self, grid: Grid, run: list[Position]) -> int:
        return sum(grid[p].fish for p in run if grid[p].colour == FISH_COLOURS[self.mine])

    def best_for_an_opponent(self, new: Card) -> float | None:
        """The best estimate after `new` goes to some opponent, None if it fits nowhere."""
        best: float | None = None
        for seat, grid in enumerate(self.grids):
            if seat == self.seat:
                continue
            if new.kind == SHARK:
                positions = [p for p, top in grid.items() if top.kind == FISH]
            else:
                positions = [p for p, tops in open_cells(grid).items() if all(fits(new, top) for top in tops)]
            for position in positions:
                value = self.place(seat, position, new)
                if best is None or value > best:
                    best = value
        return best


class GreedyKunaYala:
    at_once = True
    """One ply, no search: it decides at once (core/player.py decides_at_once)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        return pick_best(self._rng, legal, self.values(view, legal))

    def values(self, view: Any, legal: Sequence[Action]) -> list[float]:
        """What the bot makes of each legal action (all equal for an octopus: any coral scores the same)."""
        assert isinstance(view, View)
        first = legal[0]
        value: Callable[[Action], float] = lambda action: 0.0  # noqa: E731
        if isinstance(first, PlaceOwn):
            value = self._own_turn(view)
        elif isinstance(first, PlaceOther):
            table = Table(view)
            value = lambda action: _placed_other(table, view, action)  # noqa: E731
        elif isinstance(first, Discard):
            value = lambda action: _discard_value(view, action)  # noqa: E731
        return [value(action) for action in legal]

    def _own_turn(self, view: View) -> Callable[[Action], float]:
        table = Table(view)
        cards = [None if label is None else card(label) for label in view.face_up]
        afterwards = [None if new is None else table.best_for_an_opponent(new) for new in cards]

        def value(action: Action) -> float:
            assert isinstance(action, PlaceOwn)
            new = cards[action.slot]
            assert new is not None
            then = max((v for slot, v in enumerate(afterwards) if slot != action.slot and v is not None), default=0.0)
            return table.place(view.seat, (action.x, action.y), new) + then

        return value


def _placed_other(table: Table, view: View, action: Action) -> float:
    assert isinstance(action, PlaceOther)
    label = view.face_up[action.slot]
    assert label is not None
    return table.place(action.seat, (action.x, action.y), card(label))


def _discard_value(view: View, action: Action) -> float:
    assert isinstance(action, Discard)
    mine = view.my_colour
    value = 0.0
    for slot in (action.first, action.second):
        label = view.face_up[slot]
        assert label is not None
        discarded = card(label)
        value += -1.0 if discarded.colour == mine else DISCARD_THREAT.get(discarded.kind, 0.0)
    return value


GREEDY: Final = GreedyKunaYala
"""This game's greedy bot, for its registry entry."""
