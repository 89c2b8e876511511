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
from p2pfish.core.by_identity import ByIdentity
from p2pfish.games.kunayala.reading import TableReading
from p2pfish.games.kunayala.rules import (
    ANY_CARD,
    BONES,
    BONES_CARD,
    CORAL,
    CURSE_RUN,
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
    SchoolCell,
    View,
    card,
    fits,
    open_fish_masks,
    placing_key,
    unseen_octopuses,
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
SchoolView = tuple[SchoolCell, ...]
Key = tuple[int, tuple[int, ...], int, int]
"""A placement's effect: the school, its fish change by colour, sharks added, corals added."""
Effect = tuple[tuple[int, ...], int, int, int | None]
"""A placement's effect within its school: the fish change by colour, sharks added, corals added, and (for a fish
that curses nothing) the fish of the bot's colour it leaves exposed to a curse."""
NO_FISH: Final = (0,) * len(FISH_COLOURS)
CORAL_EFFECT: Final[Effect] = (NO_FISH, 0, 1, None)


def visible(top: str) -> Card:
    return BONES_CARD if top == BONES else card(top)


def around(x: int, y: int) -> tuple[Position, ...]:
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


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


def fish_change(colour: str, change: int) -> tuple[int, ...]:
    fish = [0] * len(FISH_COLOURS)
    fish[COLOUR_INDEX[colour]] = change
    return tuple(fish)


class Reading:
    """What the bot reads from one school as seen, worked out once per school view object (the rules hand out
    the same object for a school until it changes, so it serves every decision until then)."""

    __slots__ = ("_effects", "counts", "fish", "grid", "octopuses", "open", "school", "sharks")

    def __init__(self, school: SchoolView) -> None:
        self.school: Final = school
        grid: Grid = {(c.x, c.y): visible(c.top) for c in school}
        self.grid: Final = grid
        counts = [0] * len(FISH_COLOURS)
        for top in grid.values():
            if top.kind == FISH and top.colour is not None:
                counts[COLOUR_INDEX[top.colour]] += top.fish
        self.counts: Final = tuple(counts)
        """Fish on the visible fish cards, by colour."""
        self.sharks: Final = sum(1 for top in grid.values() if top.kind == SHARK)
        self.octopuses: Final = sum(c.height - 1 for c in school if c.top != BONES and card(c.top).kind == OCTOPUS)
        self.fish: Final = [p for p, top in grid.items() if top.kind == FISH]
        """Where a shark may go."""
        self.open: Final = open_fish_masks(grid)
        """Every empty cell next to a card, with the fish kinds that fit all of its neighbours."""
        self._effects: dict[tuple[Position, Card, int], Effect] = {}

    def positions_for(self, new: Card) -> list[Position]:
        """Where `new` may go in this school (a shark: onto a fish)."""
        if new.kind == SHARK:
            return self.fish
        key = placing_key(new)
        if key == ANY_CARD:
            return list(self.open)
        if key is None:
            grid = self.grid
            return [(x, y) for x, y in self.open if all(fits(new, grid[p]) for p in around(x, y) if p in grid)]
        return [position for position, mask in self.open.items() if mask >> key & 1]

    def effect(self, position: Position, new: Card, mine: int) -> Effect:
        """What placing `new` on `position` does here, for a bot of colour FISH_COLOURS[mine] (memoised)."""
        memo = (position, new, mine)
        found = self._effects.get(memo)
        if found is None:
            found = self._effects[memo] = self._effect(position, new, mine)
        return found

    def _effect(self, position: Position, new: Card, mine: int) -> Effect:
        grid = self.grid
        if new.kind == CORAL:
            return CORAL_EFFECT
        if new.kind == SHARK:
            prey = grid[position]
            assert prey.colour is not None
            return fish_change(prey.colour, -prey.fish), 1, 0, None
        assert new.colour is not None
        if not any(
            other.kind == FISH and other.background == new.background
            for other in (grid.get(p) for p in around(*position))
            if other is not None
        ):
            return fish_change(new.colour, new.fish), 0, 0, 0  # no run to join (what runs_through would find)
        runs = runs_through(grid, position, new.background)
        cursed = [p for run in runs if len(run) >= CURSE_RUN - 1 for p in run]
        if not cursed:
            new_mine = new.fish if COLOUR_INDEX[new.colour] == mine else 0
            exposed = sum(self._of_colour(run, mine) + new_mine for run in runs if len(run) == CURSE_RUN - 2)
            return fish_change(new.colour, new.fish), 0, 0, exposed
        lost = [0] * len(FISH_COLOURS)
        for p in cursed:
            victim = grid[p]
            assert victim.colour is not None
            lost[COLOUR_INDEX[victim.colour]] -= victim.fish
        return tuple(lost), 0, 0, None

    def _of_colour(self, run: list[Position], colour: int) -> int:
        grid = self.grid
        return sum(grid[p].fish for p in run if grid[p].colour == FISH_COLOURS[colour])


READING_CACHE_SIZE: Final = 512
_readings: Final = ByIdentity(Reading, READING_CACHE_SIZE)
"""Readings by the identity of their school view."""


def reading(school: SchoolView) -> Reading:
    return _readings.get(school)


class Table:
    """The visible board of one decision, reduced to what the score estimate needs."""

    def __init__(self, view: View) -> None:
        assert view.my_colour is not None, "a seat knows its own colour tile from the deal on"
        self.seat = view.seat
        self.players = view.players
        self.mine = COLOUR_INDEX[view.my_colour]
        self.theirs = tuple(i for i in range(len(FISH_COLOURS)) if i != self.mine)
        self.readings = [reading(school) for school in view.schools]
        self.counts: list[Sequence[int]] = [r.counts for r in self.readings]
        self.totals = [sum(row[i] for row in self.counts) for i in range(len(FISH_COLOURS))]
        self.sharks = [r.sharks for r in self.readings]
        self.corals = list(view.corals)
        octopuses = [r.octopuses for r in self.readings]
        unseen = unseen_octopuses(view.options, view.discards, view.octopus, sum(octopuses))
        left = sum(view.stacks)
        to_come = unseen * (left - max(view.stacks)) / left if left else 0.0
        self.lead = LEAD_WEIGHT * to_come
        self.octopuses = octopuses
        self.majorities = [self._majorities(seat, row) for seat, row in enumerate(self.counts)]
        """Each seat's majority bonus as the board stands (see _majorities)."""
        self._memo: dict[Key, float] = {}

    # --- the estimate ---

    def value(self, key: Key) -> float:
        """The bot's estimate after a placement with effect `key`, memoised: many placements share one."""
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._estimate(*key)
        return found

    def _estimate(self, school: int, fish: tuple[int, ...], sharks_added: int, corals_added: int) -> float:
        changed = [n + d for n, d in zip(self.counts[school], fish, strict=True)]
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

        def majorities(seat: int) -> int:
            return self._majorities(seat, changed) if seat == school else self.majorities[seat]

        mine = totals[self.mine] + common(self.seat)
        if majorities(self.seat):
            mine += MAJORITY_BONUS
        their_fish = sum(totals[i] for i in self.theirs)
        opponents = 0.0
        for seat in range(self.players):
            if seat != self.seat:
                opponents += common(seat) + (their_fish + majorities(seat)) / len(self.theirs)
        return mine - WEIGHT * opponents / (self.players - 1)

    def _majorities(self, seat: int, row: Sequence[int]) -> int:
        """The majority bonus that `seat` is counted as getting with fish `row` in its own school: the bot its own
        colour's, an opponent the sum of the three colours' it may have (the estimate divides by three)."""
        if seat == self.seat:
            return MAJORITY_BONUS if strict_majority(row, self.mine) else 0
        return sum(MAJORITY_BONUS for i in self.theirs if strict_majority(row, i))

    # --- placements ---

    def place(self, school: int, position: Position, new: Card) -> float:
        """The estimate after a fish, coral or shark goes on `position` of `school`; a fish that curses nothing
        costs EXPOSED for each fish of the bot's colour it leaves in a run of two (itself included)."""
        fish, sharks, corals, exposed = self.readings[school].effect(position, new, self.mine)
        value = self.value((school, fish, sharks, corals))
        return value if exposed is None else value - EXPOSED * exposed

    def best_for_an_opponent(self, new: Card) -> float | None:
        """The best estimate after `new` goes to some opponent, None if it fits nowhere."""
        best: float | None = None
        for seat, school in enumerate(self.readings):
            if seat == self.seat:
                continue
            for position in school.positions_for(new):
                value = self.place(seat, position, new)
                if best is None or value > best:
                    best = value
        return best


class GreedyKunaYala:
    at_once = True
    """One ply, no search: it decides at once (core/player.py decides_at_once)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.reading = TableReading()
        """Who placed which card, as far as the seat's own moves have been told (`chose`): a search bot's memory."""

    def chose(self, view: Any, action: Action) -> None:
        """The seat played `action` at `view` (a search bot playing along says so; the greedy bot alone never does,
        and plays the same either way)."""
        assert isinstance(view, View)
        self.reading.chose(view, action)

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
        # The best placement for an opponent left after taking each slot's card.
        thens = [
            max((v for slot, v in enumerate(afterwards) if slot != taken and v is not None), default=0.0)
            for taken in range(len(cards))
        ]

        def value(action: Action) -> float:
            assert isinstance(action, PlaceOwn)
            new = cards[action.slot]
            assert new is not None
            return table.place(view.seat, (action.x, action.y), new) + thens[action.slot]

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
