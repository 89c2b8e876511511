"""Kuna Yala (RULES.md §2): build a school of fish on an open grid; score the fish of your secret colour.

The cards. Every physical card has a unique label:
- fish: ``fish-<colour>-<background>-<k>`` (one fish) and ``2fish-<colour>-<background>-<k>`` (two fish),
  k counting the copies of that colour x background cell from 1;
- ``coral-<k>``, ``shark-<k>``, ``octopus-<k>``, k from 1.
The mix is a game option (`singles`, `doubles`, `coral`, `sharks`, `octopuses`); DEFAULT_MIX holds the
defaults of RULES.md (16 cells x (3 + 1) fish cards, 22 coral, 8 sharks, 10 octopuses = 104 cards).

Setup, in log order:
1. The 4 colour tiles are shuffled face down in the mental-poker deck ``colours`` (ShuffleRequest), then
   dealt privately, position s to seat s (one DealRequest per seat): seat s knows its colour under
   ``card_name("colours", s)`` and nobody else does until the end.
2. The start player (the rulebook's youngest): the `start` option, or (default ``random``, as in
   Fish'n'Stones) a public draw among the seats.
3. Seat s starts its school with ``coral-<s+1>`` face up at (0, 0): the start corals are the first corals
   of the mix, taken deterministically (corals are all alike, so no chance is needed).
4. All other cards form 4 face-down stacks "as equal as possible": stack k holds N // 4 cards, plus one
   when k < N % 4. A stack is only a size: turning up its top card is a public draw (ChanceRequest, count
   1) from the multiset of every card not seen yet, since any unseen card is equally likely on top of any
   stack. Face-up slot k lies in front of stack k; slots 0, 1, 2, 3 are turned up in that order.

A turn is two actions of the current seat: PlaceOwn (a face-up card into its own school), then PlaceOther
(another face-up card into one opponent's school, or a shark onto a visible fish there). Then the two
emptied slots are refilled, the own card's slot first. A slot is refilled from its own stack or, when that
stack is empty, from the next non-empty stack clockwise (k+1, k+2, ... modulo 4); when every stack is
empty the slot stays empty. Seats play clockwise: seat s+1 (modulo the player count) follows seat s.

Settled here (on top of RULES.md):
- Schools are unbounded square grids; (x, y) with x growing east and y growing north.
- Placing: an empty cell orthogonally next to a card, compatible with the visible card of every orthogonal
  neighbour. A shark on a fish shows the shark; an octopus on a coral shows the octopus; a cursed fish
  shows fish bones. Covered cards are never shown again in a view (they were public when placed).
- A shark goes only onto a fish card that is neither covered nor turned to bones, in an opponent's school;
  so it is always the PlaceOther card, which makes two sharks in one turn impossible. A PlaceOwn is
  legal only if some other face-up card can then go to an opponent.
- If no pair of face-up cards can be placed (say three sharks and a coral, and no opponent shows a fish),
  the seat instead discards two face-up cards of its choice (Discard); they are refilled as usual.
- An octopus turned up goes to the seat with strictly the most coral cards (corals under an octopus
  count). The game then waits for that seat (to_act, phase "octopus") to choose any of its corals with
  PlaceOctopus, even one already under an octopus (the pile grows). On a tie it is discarded. Either way
  the same slot is then turned up again (from its stack, or the next non-empty one). At setup every
  school holds one coral, so an octopus turned up then is always discarded.
- Four sharks face up: the one just turned up is discarded and its slot turned up again.
- The fishes' curse runs after every placement: each horizontal or vertical run of 3 or more adjacent
  fish cards, uncovered, not yet bones, with the same background, turns to fish bones.
- The end is checked when the refills of a turn are done (and once after setup): 3 or more empty stacks,
  or fewer than 2 face-up cards (as slots are refilled from any non-empty stack, the second only comes
  true once every stack is empty). Then seats 0, 1, ... in turn reveal their colour tile: reveal_due is
  True for that seat, whose one legal action is RevealCard("colours", seat, its colour); the session checks
  the deck key, the rules check the position and that the revealed colours are distinct.
- Scoring: fish counted are fish on visible fish cards (a two-fish card counts 2). The +3 bonus goes to a
  seat whose colour has strictly more fish in its own school than each other colour. Winners: most
  points; tie -> most fish (any colour) in the own school; still tied -> shared.

Wire forms: {"t": "own", "slot", "x", "y"}, {"t": "other", "slot", "seat", "x", "y"}, {"t": "octopus",
"x", "y"}, {"t": "discard", "slots": [a, b]} with a < b, and the core "reveal-card"; decode_action
refuses any other field, a slot outside 0-3 and a non-integer coordinate as MalformedInput.
"""

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, NamedTuple

from p2pfish.core.actions import Action, RevealCard, card_name
from p2pfish.core.by_identity import ByIdentity
from p2pfish.core.errors import IllegalAction, MalformedInput
from p2pfish.core.game import (
    ChanceEvent,
    ChanceRequest,
    DealRequest,
    Known,
    Outcome,
    ShuffleRequest,
    check_turn,
    due_chance,
    replace_at,
)
from p2pfish.core.options import check_known, is_number, start_seat
from p2pfish.core.rules_parts import Rules, check_shuffled, dealt_labels, drawn, expect, start_draw
from p2pfish.core.text import shown_value
from p2pfish.core.wire import Json, field, int_field

# --- the cards -----------------------------------------------------------------------------------

FISH_COLOURS: Final = ("red", "yellow", "green", "blue")
BACKGROUNDS: Final = ("sand", "rock", "kelp", "deep")
DEFAULT_MIX: Final = {"singles": 3, "doubles": 1, "coral": 22, "sharks": 8, "octopuses": 10}
"""Cards of each kind: `singles` one-fish and `doubles` two-fish cards per colour x background cell."""
MAX_COPIES: Final = 99
COLOUR_DECK: Final = "colours"
STACKS: Final = 4
MAJORITY_BONUS: Final = 3
SHARK_BONUS: Final = 2
CURSE_RUN: Final = 3

FISH, CORAL, SHARK, OCTOPUS, BONES = "fish", "coral", "shark", "octopus", "bones"
TWO_FISH: Final = "2fish"


class Phase(StrEnum):
    """The setup phases, all chance: colour tiles shuffled, dealt, start seat drawn; turn-up refills face-up slots.
    Then the seats' phases: the coral leader places an octopus; a turn's two placements; the end's colour reveals."""

    SHUFFLE = "shuffle"
    DEAL = "deal"
    START = "start"
    TURN_UP = "turn-up"
    PLACE_OCTOPUS = "octopus"
    OWN = "own"
    OTHER = "other"
    REVEAL = "reveal"
    OVER = "over"


SHUFFLE, DEAL, START, TURN_UP, PLACE_OCTOPUS, OWN, OTHER, REVEAL, OVER = Phase


class Card(NamedTuple):
    """What a label means. `fish` is the number of fish drawn on the card (0 unless a fish card)."""

    kind: str
    colour: str | None = None
    background: str | None = None
    fish: int = 0


BONES_CARD: Final = Card(BONES)


@functools.cache
def card(label: str) -> Card:
    """The attributes of a card label; raises MalformedInput for anything that is not a card."""
    parts = label.split("-")
    number = parts[-1]
    if not (number.isascii() and number.isdigit() and number[0] != "0"):
        raise MalformedInput(f"{shown_value(label)} is not a Kuna Yala card")
    if len(parts) == 2 and parts[0] in (CORAL, SHARK, OCTOPUS):
        return Card(parts[0])
    if len(parts) == 4 and parts[0] in (FISH, TWO_FISH) and parts[1] in FISH_COLOURS and parts[2] in BACKGROUNDS:
        return Card(FISH, parts[1], parts[2], 2 if parts[0] == TWO_FISH else 1)
    raise MalformedInput(f"{shown_value(label)} is not a Kuna Yala card")


def fits(new: Card, neighbour: Card) -> bool:
    """Whether a fish or coral card may lie orthogonally next to a card showing `neighbour`."""
    if new.kind == CORAL:
        return True
    if neighbour.kind == BONES:
        return False
    if neighbour.kind == FISH:
        return new.colour == neighbour.colour or new.background == neighbour.background
    return True


# --- options -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Options:
    singles: int = DEFAULT_MIX["singles"]
    doubles: int = DEFAULT_MIX["doubles"]
    coral: int = DEFAULT_MIX["coral"]
    sharks: int = DEFAULT_MIX["sharks"]
    octopuses: int = DEFAULT_MIX["octopuses"]
    start: int | None = None
    """A start seat chosen in the lobby; None draws it with chance."""


@functools.cache
def deck_labels(options: Options) -> tuple[str, ...]:
    """Every card of the mix, one label each, in a fixed order."""
    labels: list[str] = []
    for colour in FISH_COLOURS:
        for background in BACKGROUNDS:
            labels += [f"{FISH}-{colour}-{background}-{k}" for k in range(1, options.singles + 1)]
            labels += [f"{TWO_FISH}-{colour}-{background}-{k}" for k in range(1, options.doubles + 1)]
    labels += [f"{CORAL}-{k}" for k in range(1, options.coral + 1)]
    labels += [f"{SHARK}-{k}" for k in range(1, options.sharks + 1)]
    labels += [f"{OCTOPUS}-{k}" for k in range(1, options.octopuses + 1)]
    return tuple(labels)


def start_coral(seat: int) -> str:
    return f"{CORAL}-{seat + 1}"


def parse_options(players: int, raw: Mapping[str, str]) -> Options:
    check_known("kunayala", raw, (*DEFAULT_MIX, "start"))
    counts = dict(DEFAULT_MIX)
    for name in DEFAULT_MIX:
        if name in raw:
            text = raw[name]
            if not is_number(text) or int(text) > MAX_COPIES:
                raise MalformedInput(f"{name} must be a number 0..{MAX_COPIES}, not {shown_value(text)}")
            counts[name] = int(text)
    if counts["coral"] < players:
        raise MalformedInput(f"every player needs a start coral: coral must be at least {players}")
    return Options(**counts, start=start_seat(raw, players))


# --- actions -------------------------------------------------------------------------------------


class Kind(StrEnum):
    """The tags ("t") of this game's own actions."""

    OWN = "own"
    OTHER = "other"
    OCTOPUS = "octopus"
    DISCARD = "discard"


@dataclass(frozen=True, slots=True)
class PlaceOwn(Action, tag=Kind.OWN, said="place face-up card {slot} in own school at ({x}, {y})"):
    """Put the face-up card in `slot` on cell (x, y) of the seat's own school."""

    slot: int
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class PlaceOther(Action, tag=Kind.OTHER, said="place face-up card {slot} in seat {seat}'s school at ({x}, {y})"):
    """Put the face-up card in `slot` on cell (x, y) of opponent `seat`'s school (a shark: onto the fish there)."""

    slot: int
    seat: int
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class PlaceOctopus(Action, tag=Kind.OCTOPUS, said="place the octopus on the coral at ({x}, {y})"):
    """Put the octopus just turned up onto the coral at (x, y) of the seat's own school."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Discard(Action, tag=Kind.DISCARD, said="discard face-up cards {first} and {second} (nothing can be placed)"):
    """When no pair can be placed: discard the face-up cards in slots `first` < `second`."""

    first: int
    second: int

    def to_wire(self) -> dict[str, Json]:
        return {"t": self.tag, "slots": [self.first, self.second]}


ACTION_CACHE_SIZE: Final = 1 << 16


@functools.lru_cache(maxsize=ACTION_CACHE_SIZE)
def place_own(slot: int, x: int, y: int) -> PlaceOwn:
    return PlaceOwn(slot, x, y)


@functools.lru_cache(maxsize=ACTION_CACHE_SIZE)
def place_other(slot: int, seat: int, x: int, y: int) -> PlaceOther:
    return PlaceOther(slot, seat, x, y)


@functools.lru_cache(maxsize=ACTION_CACHE_SIZE)
def place_octopus(x: int, y: int) -> PlaceOctopus:
    return PlaceOctopus(x, y)


DISCARDS: Final = {(a, b): Discard(a, b) for a in range(STACKS) for b in range(a + 1, STACKS)}

ACTION_FIELDS: Final[Mapping[str, set[str]]] = {
    Kind.OWN: {"t", "slot", "x", "y"},
    Kind.OTHER: {"t", "slot", "seat", "x", "y"},
    Kind.OCTOPUS: {"t", "x", "y"},
    Kind.DISCARD: {"t", "slots"},
}


def _slot_field(wire: Mapping[str, Json], name: str = "slot") -> int:
    slot = int_field(wire, name)
    if not 0 <= slot < STACKS:
        raise MalformedInput(f"{name} must be a face-up slot 0..{STACKS - 1}, not {slot}")
    return slot


def _discard_slots(wire: Mapping[str, Json]) -> tuple[int, int]:
    slots = field(wire, "slots")
    if not isinstance(slots, list) or len(slots) != 2:
        raise MalformedInput(f"slots must be a list of two face-up slots, not {shown_value(slots)}")
    first, second = (_slot_field({"slot": s}) for s in slots)
    if first >= second:
        raise MalformedInput(f"discard slots must be two different slots in increasing order, not {shown_value(slots)}")
    return first, second


# --- state ---------------------------------------------------------------------------------------

Position = tuple[int, int]


class Cell(NamedTuple):
    """One occupied cell: `pile` bottom card first (a fish under a shark, a coral under octopuses)."""

    x: int
    y: int
    pile: tuple[str, ...]
    bones: bool = False
    """The fish card was cursed: it shows fish bones now."""

    @property
    def position(self) -> Position:
        return (self.x, self.y)

    @property
    def base(self) -> Card:
        return card(self.pile[0])

    @property
    def top(self) -> Card:
        return BONES_CARD if self.bones else card(self.pile[-1])

    @property
    def top_label(self) -> str:
        return BONES if self.bones else self.pile[-1]

    @property
    def live_fish(self) -> Card | None:
        """The fish card here if it still counts: a fish card with nothing on it and not bones."""
        base = self.base
        return base if base.kind == FISH and len(self.pile) == 1 and not self.bones else None


School = tuple[Cell, ...]
"""Cells in the order they were first occupied."""


class State(NamedTuple):
    """Immutable (a NamedTuple: cheap to copy with one field changed, which the engine does a lot)."""

    players: int
    options: Options
    phase: Phase
    dealt: int
    """Colour tiles dealt so far (seat s gets position s)."""
    start: int
    current: int
    """The seat whose turn it is (during the refills: the seat that plays next)."""
    turns: int
    """Turns completed."""
    stacks: tuple[int, ...]
    """Cards left face down in each of the 4 stacks."""
    unseen: tuple[str, ...]
    """Every card in the stacks, in mix order: the pool of a turn-up."""
    face_up: tuple[str | None, ...]
    """The card in front of each stack, None for an empty slot."""
    refills: tuple[int, ...]
    """Slots still to be turned up, in order."""
    own_slot: int | None
    """The slot whose card went into the own school this turn (phase other)."""
    octopus: str | None
    """The octopus waiting for the coral leader to place it."""
    schools: tuple[School, ...]
    discards: tuple[str, ...]
    colours: tuple[str | None, ...]
    """Revealed colour tiles, by seat."""


def _around(x: int, y: int) -> tuple[Position, ...]:
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


def grid(school: School) -> Mapping[Position, Cell]:
    """The school's cells by position (shared: not to be changed)."""
    return school_info(school).grid


FISH_KINDS: Final = tuple(Card(FISH, colour, background, 1) for colour in FISH_COLOURS for background in BACKGROUNDS)
"""One fish card per colour x background: what decides where a fish fits (not its number of fish)."""
ANY_FISH: Final = (1 << len(FISH_KINDS)) - 1
ANY_CARD: Final = -1
"""The placing key of a coral: it fits on every open cell."""


@functools.cache
def fitting_fish(top: Card) -> int:
    """The fish kinds that may lie next to a card showing `top`, as a bit mask (bit k: FISH_KINDS[k])."""
    return sum(1 << k for k, fish in enumerate(FISH_KINDS) if fits(fish, top))


@functools.cache
def placing_key(new: Card) -> int | None:
    """What decides where `new` fits: ANY_CARD for a coral, its fish kind for a fish, None for other cards."""
    if new.kind == CORAL:
        return ANY_CARD
    if new.kind == FISH:
        return FISH_KINDS.index(new._replace(fish=1))
    return None


def open_fish_masks(tops: Mapping[Position, Card]) -> dict[Position, int]:
    """Every empty cell orthogonally next to a card of `tops` (in the order first met going through them), with
    the fish kinds that fit all of its neighbours (see fitting_fish)."""
    masks: dict[Position, int] = {}
    for (x, y), top in tops.items():
        mask = fitting_fish(top)
        for position in _around(x, y):
            if position not in tops:
                masks[position] = masks.get(position, ANY_FISH) & mask
    return masks


class SchoolInfo:
    """What the rules read from one school, worked out once: schools are immutable and the same school is asked
    about many times (every legal-action list, every placement check, every view, until it changes)."""

    __slots__ = ("_cells", "_view", "corals", "grid", "live_fish", "open", "school")

    def __init__(
        self,
        school: School,
        grid: dict[Position, Cell],
        open_masks: dict[Position, int],
        live_fish: tuple[Position, ...],
        corals: int,
    ) -> None:
        self.school: Final = school
        self.grid: Final[Mapping[Position, Cell]] = grid
        self.open: Final[Mapping[Position, int]] = open_masks
        """Every empty cell orthogonally next to a card (in the order first met going through the school), with
        the fish kinds that fit all of its neighbours."""
        self.live_fish: Final = live_fish
        """The cells of the fish cards that still count, in school order."""
        self.corals: Final = corals
        self._view: tuple[SchoolCell, ...] | None = None
        self._cells: dict[int, tuple[Position, ...]] = {}

    @classmethod
    def of(cls, school: School) -> "SchoolInfo":
        """Worked out from the school alone."""
        occupied = {(cell.x, cell.y): cell for cell in school}
        open_masks = open_fish_masks({position: cell.top for position, cell in occupied.items()})
        live_fish = tuple((cell.x, cell.y) for cell in school if cell.live_fish is not None)
        return cls(school, occupied, open_masks, live_fish, sum(1 for cell in school if cell.base.kind == CORAL))

    def changed(self, school: School, cells: Sequence[Cell]) -> "SchoolInfo":
        """The info of `school`: this school with `cells` changed, each one either replacing the cell on its
        position or (at most one, the last) added at the end of the school. The same as SchoolInfo.of(school),
        found from this one (the cards' order only matters for the open cells, and a new card is met last)."""
        occupied = dict(self.grid)
        corals = self.corals
        added: Cell | None = None
        for cell in cells:
            before = occupied.get(cell.position)
            if before is None:
                added = cell
            elif before.live_fish is None and cell.live_fish is not None:
                return SchoolInfo.of(school)  # a fish card uncovered: never in this game
            else:
                corals -= before.base.kind == CORAL
            corals += cell.base.kind == CORAL
            occupied[cell.position] = cell
        gone = {cell.position for cell in cells if cell.live_fish is None}
        live_fish = tuple(fish for fish in self.live_fish if fish not in gone) if gone else self.live_fish
        if added is not None and added.live_fish is not None:
            live_fish = (*live_fish, added.position)
        open_masks = dict(self.open)
        for cell in cells:
            open_masks.pop(cell.position, None)
        for cell in cells:
            for position in _around(cell.x, cell.y):
                if position not in occupied:
                    mask = ANY_FISH
                    for neighbour in _around(*position):
                        if neighbour in occupied:
                            mask &= fitting_fish(occupied[neighbour].top)
                    open_masks[position] = mask
        info = SchoolInfo(school, occupied, open_masks, live_fish, corals)
        if self._view is not None:
            seen = {cell.position: _seen(cell) for cell in cells}
            view = tuple(seen.pop((c.x, c.y), c) for c in self._view) if len(seen) > (added is not None) else self._view
            info._view = (*view, seen[added.position]) if added is not None else view
        return info

    def cells_for(self, new: Card) -> tuple[Position, ...]:
        """The open cells where `new` fits every neighbour."""
        key = placing_key(new)
        if key is None:
            occupied = self.grid
            return tuple(
                position
                for position in self.open
                if all(fits(new, occupied[p].top) for p in _around(*position) if p in occupied)
            )
        found = self._cells.get(key)
        if found is None:
            if key == ANY_CARD:
                found = tuple(self.open)
            else:
                found = tuple(position for position, mask in self.open.items() if mask >> key & 1)
            self._cells[key] = found
        return found

    @property
    def view(self) -> "tuple[SchoolCell, ...]":
        """The school as every seat sees it."""
        if self._view is None:
            self._view = tuple(_seen(cell) for cell in self.school)
        return self._view


def _seen(cell: Cell) -> "SchoolCell":
    return SchoolCell(cell.x, cell.y, cell.top_label, len(cell.pile))


SCHOOL_CACHE_SIZE: Final = 1024
_school_infos: Final = ByIdentity(SchoolInfo.of, SCHOOL_CACHE_SIZE)
"""SchoolInfo by the identity of its school (a state shares the schools it did not change with the state before
it)."""


def school_info(school: School) -> SchoolInfo:
    """The school's SchoolInfo, worked out on first use (and again after the cache was cleared)."""
    return _school_infos.get(school)


def with_cells(school: School, cells: Sequence[Cell]) -> School:
    """The school with `cells` changed: each replaces the cell on its position, or (at most one, the last) is
    added at the end. Its SchoolInfo is found from the school's at once."""
    info = school_info(school)
    replaced = {cell.position: cell for cell in cells if cell.position in info.grid}
    changed = tuple(replaced.get((cell.x, cell.y), cell) for cell in school) if replaced else school
    if cells[-1].position not in info.grid:
        changed = (*changed, cells[-1])
    return _school_infos.remember(changed, info.changed(changed, cells)).school


def cells_for(new: Card, school: School) -> tuple[Position, ...]:
    """The open cells of a school where a fish or coral card fits every neighbour."""
    return school_info(school).cells_for(new)


def live_fish_cells(school: School) -> tuple[Position, ...]:
    return school_info(school).live_fish


def corals(school: School) -> int:
    return school_info(school).corals


def coral_leader(schools: Sequence[School]) -> int | None:
    """The seat with strictly the most coral cards, or None on a tie."""
    counts = [corals(school) for school in schools]
    most = max(counts)
    return counts.index(most) if counts.count(most) == 1 else None


def source_stack(stacks: Sequence[int], slot: int) -> int | None:
    """The stack a slot is refilled from: its own, else the next non-empty one clockwise."""
    for step in range(STACKS):
        stack = (slot + step) % STACKS
        if stacks[stack]:
            return stack
    return None


def _without(labels: tuple[str, ...], label: str) -> tuple[str, ...]:
    """`labels` less `label` (every card label is unique)."""
    at = labels.index(label)
    return labels[:at] + labels[at + 1 :]


def game_ends(state: State) -> bool:
    empty_stacks = sum(1 for size in state.stacks if size == 0)
    face_up = sum(1 for label in state.face_up if label is not None)
    return empty_stacks >= STACKS - 1 or face_up < 2


def curse(school: School, placed: Position) -> School:
    """Turn to bones every run of 3+ live same-background fish through the fish just placed."""
    occupied = grid(school)
    fish = occupied[placed].live_fish
    if fish is None:
        return school
    cursed: list[Position] = []
    for dx, dy in ((1, 0), (0, 1)):
        run = [placed]
        for sign in (1, -1):
            x, y = placed
            while True:
                x, y = x + sign * dx, y + sign * dy
                neighbour = occupied.get((x, y))
                other = None if neighbour is None else neighbour.live_fish
                if other is None or other.background != fish.background:
                    break
                run.append((x, y))
        if len(run) >= CURSE_RUN:
            cursed.extend(position for position in run if position not in cursed)
    if not cursed:
        return school
    return with_cells(school, [occupied[position]._replace(bones=True) for position in cursed])


def fits_an_opponent(state: State, seat: int, new: Card) -> bool:
    """Whether a card can go into the school of one of seat's opponents."""
    opponents = [school_info(school) for opponent, school in enumerate(state.schools) if opponent != seat]
    if new.kind == SHARK:
        return any(info.live_fish for info in opponents)
    return any(info.cells_for(new) for info in opponents)


class SchoolCell(NamedTuple):
    """One cell of a school as every seat sees it."""

    x: int
    y: int
    top: str
    """The visible card's label, or "bones"."""
    height: int
    """Cards in the cell; those under the top are not shown."""


def school_view(school: School) -> tuple[SchoolCell, ...]:
    return school_info(school).view


# --- scoring -------------------------------------------------------------------------------------


class Tally(NamedTuple):
    """What counts for the score in one school, read from its visible cards (every card a school
    shows is public: only the colour tiles are secret, so a view scores as the rules do)."""

    fish: dict[str, int]
    """Fish on the fish cards that still count (nothing on them, not bones), by colour (a two-fish
    card counts 2)."""
    octopuses: int
    sharks: int


def tally(school: Sequence[SchoolCell]) -> Tally:
    fish = dict.fromkeys(FISH_COLOURS, 0)
    octopuses = sharks = 0
    for cell in school:
        if cell.top == BONES:
            continue
        kind = card(cell.top)
        if kind.kind == FISH and kind.colour is not None and cell.height == 1:
            fish[kind.colour] += kind.fish
        elif kind.kind == SHARK:
            sharks += 1
        elif kind.kind == OCTOPUS:
            octopuses += cell.height - 1
    return Tally(fish, octopuses, sharks)


def unseen_octopuses(options: Options, discards: Sequence[str], waiting: str | None, in_schools: int) -> int:
    """The octopuses of the mix not turned up yet: not in a school, not discarded, not waiting to be placed."""
    discarded = sum(1 for label in discards if card(label).kind == OCTOPUS)
    return max(0, options.octopuses - in_schools - discarded - (waiting is not None))


class Score(NamedTuple):
    """The parts of one seat's points."""

    colour_fish: int
    majority: int
    octopuses: int
    sharks: int

    @property
    def total(self) -> int:
        return self.colour_fish + self.majority + self.octopuses + self.sharks


def score(tallies: Sequence[Tally], seat: int, colour: str) -> Score:
    """The points of `seat` scoring `colour`, from every school's tally."""
    own = tallies[seat]
    most_sharks = max(t.sharks for t in tallies)
    strictly_most = all(own.fish[colour] > n for other, n in own.fish.items() if other != colour)
    return Score(
        colour_fish=sum(t.fish[colour] for t in tallies),
        majority=MAJORITY_BONUS if strictly_most else 0,
        octopuses=own.octopuses,
        sharks=SHARK_BONUS if most_sharks > 0 and own.sharks == most_sharks else 0,
    )


def scores(schools: Sequence[School], colours: Sequence[str]) -> tuple[Score, ...]:
    """Each seat's points, seat s scoring colour colours[s]."""
    tallies = [tally(school_view(school)) for school in schools]
    return tuple(score(tallies, seat, colour) for seat, colour in enumerate(colours))


def winners(totals: Sequence[int], own_fish: Sequence[int]) -> tuple[int, ...]:
    """Most points; a tie goes to the most fish in the own school; a tie after that is shared."""
    best = max(zip(totals, own_fish, strict=True))
    return tuple(seat for seat, key in enumerate(zip(totals, own_fish, strict=True)) if key == best)


# --- views ---------------------------------------------------------------------------------------


class View(NamedTuple):
    """What one seat sees."""

    seat: int
    players: int
    phase: Phase
    to_act: tuple[int, ...]
    start: int
    current: int
    turns: int
    face_up: tuple[str | None, ...]
    stacks: tuple[int, ...]
    schools: tuple[tuple[SchoolCell, ...], ...]
    corals: tuple[int, ...]
    """Coral cards in each school, those under octopuses included."""
    octopus: str | None
    """An octopus waiting for seat to_act[0] to place it on one of its corals."""
    discards: tuple[str, ...]
    my_colour: str | None
    colours: tuple[str | None, ...]
    """Colour tiles revealed so far (all of them once the game is over)."""
    options: Options = Options()
    """The table's options, public from the lobby on: the bots count the unseen cards from its mix (not in
    to_wire, which the golden games pin; an engine's view shows it)."""

    def to_wire(self) -> dict[str, Json]:
        return {
            "seat": self.seat,
            "phase": self.phase,
            "to_act": list(self.to_act),
            "start": self.start,
            "current": self.current,
            "turns": self.turns,
            "face_up": list(self.face_up),
            "stacks": list(self.stacks),
            "schools": [[[c.x, c.y, c.top, c.height] for c in school] for school in self.schools],
            "corals": list(self.corals),
            "octopus": self.octopus,
            "discards": list(self.discards),
            "my_colour": self.my_colour,
            "colours": list(self.colours),
        }


# --- the rules -----------------------------------------------------------------------------------


class KunaYala(Rules):
    id = "kunayala"
    title = "Kuna Yala"
    min_players = 2
    max_players = 4
    action_fields = ACTION_FIELDS

    def new_game(self, players: int, options: Mapping[str, str]) -> State:
        self.check_players(players)
        opts = parse_options(players, options)
        starts = {start_coral(seat) for seat in range(players)}
        unseen = tuple(label for label in deck_labels(opts) if label not in starts)
        size, extra = divmod(len(unseen), STACKS)
        return State(
            players=players,
            options=opts,
            phase=SHUFFLE,
            dealt=0,
            start=0,
            current=0,
            turns=0,
            stacks=tuple(size + (1 if k < extra else 0) for k in range(STACKS)),
            unseen=unseen,
            face_up=(None,) * STACKS,
            refills=(),
            own_slot=None,
            octopus=None,
            schools=tuple((Cell(0, 0, (start_coral(seat),)),) for seat in range(players)),
            discards=(),
            colours=(None,) * players,
        )

    def chance(self, state: State) -> ChanceEvent | None:
        phase = state.phase
        if phase == TURN_UP:
            stack = source_stack(state.stacks, state.refills[0])
            return ChanceRequest(f"stack/{stack}", state.unseen, 1)
        if phase == SHUFFLE:
            return ShuffleRequest(COLOUR_DECK, FISH_COLOURS)
        if phase == DEAL:
            return DealRequest(COLOUR_DECK, (state.dealt,), state.dealt)
        if phase == START:
            return start_draw(state.players)
        return None

    def to_act(self, state: State) -> tuple[int, ...]:
        phase = state.phase
        if phase in (OWN, OTHER):
            return (state.current,)
        if phase == PLACE_OCTOPUS:
            leader = coral_leader(state.schools)
            assert leader is not None
            return (leader,)
        if phase == REVEAL:
            return (state.colours.index(None),)
        return ()

    def reveal_due(self, state: State, seat: int) -> bool:
        return state.phase == REVEAL and state.colours.index(None) == seat

    # --- legal actions ---

    def legal_actions(self, state: State, seat: int, known: Known) -> Sequence[Action]:
        if seat not in self.to_act(state):
            return ()
        phase = state.phase
        if phase == OWN:
            return self._own_actions(state, seat)
        if phase == OTHER:
            return self._other_actions(state, seat)
        if phase == PLACE_OCTOPUS:
            return [place_octopus(cell.x, cell.y) for cell in state.schools[seat] if cell.base.kind == CORAL]
        colour = known.get(card_name(COLOUR_DECK, seat))
        return () if colour is None else (RevealCard(COLOUR_DECK, seat, str(colour)),)

    def _own_actions(self, state: State, seat: int) -> list[Action]:
        face_up = state.face_up
        for_an_opponent = [
            slot
            for slot, label in enumerate(face_up)
            if label is not None and fits_an_opponent(state, seat, card(label))
        ]
        school = state.schools[seat]
        actions: list[Action] = []
        for slot, label in enumerate(face_up):
            if label is None or not any(other != slot for other in for_an_opponent):
                continue
            new = card(label)
            if new.kind == SHARK:
                continue
            actions.extend(place_own(slot, x, y) for x, y in cells_for(new, school))
        if actions:
            return actions
        filled = [slot for slot, label in enumerate(face_up) if label is not None]
        return [DISCARDS[a, b] for i, a in enumerate(filled) for b in filled[i + 1 :]]

    def _other_actions(self, state: State, seat: int) -> list[Action]:
        opponents = [(o, school) for o, school in enumerate(state.schools) if o != seat]
        actions: list[Action] = []
        for slot, label in enumerate(state.face_up):
            if label is None:
                continue
            new = card(label)
            for opponent, school in opponents:
                positions = live_fish_cells(school) if new.kind == SHARK else cells_for(new, school)
                actions.extend(place_other(slot, opponent, x, y) for x, y in positions)
        return actions

    # --- applying actions ---

    def apply(self, state: State, seat: int | None, action: Action) -> State:
        if seat is None:
            return self._apply_chance(state, action)
        check_turn(seat, state.players, self.to_act(state), state.phase)
        phase = state.phase
        if phase == OWN:
            if isinstance(action, Discard):
                return self._apply_discard(state, seat, action)
            placed = expect(action, PlaceOwn, seat, "place a face-up card in your own school first")
            return self._apply_own(state, seat, placed)
        if phase == OTHER:
            return self._apply_other(
                state, seat, expect(action, PlaceOther, seat, "place a face-up card in an opponent's school")
            )
        if phase == PLACE_OCTOPUS:
            wanted = f"place the octopus {state.octopus} on one of your corals"
            return self._apply_octopus(state, seat, expect(action, PlaceOctopus, seat, wanted))
        return self._apply_reveal(state, seat, expect(action, RevealCard, seat, "reveal your colour tile"))

    def _apply_chance(self, state: State, action: Action) -> State:
        request = due_chance(self.chance(state), state.phase)
        if isinstance(request, ShuffleRequest):
            check_shuffled(request, action)
            return state._replace(phase=DEAL)
        if isinstance(request, DealRequest):
            dealt_labels(request, action)
            dealt = state.dealt + 1
            if dealt < state.players:
                return state._replace(dealt=dealt)
            if state.options.start is None:
                return state._replace(dealt=dealt, phase=START)
            start = state.options.start
            return self._settle(
                state._replace(dealt=dealt, phase=TURN_UP, start=start, current=start, refills=tuple(range(STACKS)))
            )
        value = drawn(request, action)[0]
        if state.phase == START:
            assert isinstance(value, int)
            return self._settle(state._replace(phase=TURN_UP, start=value, current=value, refills=tuple(range(STACKS))))
        return self._turn_up(state, str(value))

    def _turn_up(self, state: State, label: str) -> State:
        slot, *rest = state.refills
        stack = source_stack(state.stacks, slot)
        assert stack is not None
        drawn = state._replace(
            stacks=replace_at(state.stacks, stack, state.stacks[stack] - 1),
            unseen=_without(state.unseen, label),
        )
        kind = card(label).kind
        again = (slot, *rest)
        if kind == OCTOPUS:
            if coral_leader(state.schools) is None:
                return self._settle(drawn._replace(discards=(*state.discards, label), refills=again))
            return drawn._replace(phase=PLACE_OCTOPUS, octopus=label, refills=again)
        face_up = replace_at(state.face_up, slot, label)
        if all(other is not None and card(other).kind == SHARK for other in face_up):
            return self._settle(drawn._replace(discards=(*state.discards, label), refills=again))
        return self._settle(drawn._replace(face_up=face_up, refills=tuple(rest)))

    def _settle(self, state: State) -> State:
        """Once nothing is left to turn up: the end check, else the current seat's turn."""
        if state.refills and any(state.stacks):
            return state
        settled = state._replace(refills=())
        return settled._replace(phase=REVEAL if game_ends(settled) else OWN)

    def _take(self, state: State, seat: int, slot: int) -> tuple[str, Card]:
        if not 0 <= slot < STACKS:
            raise IllegalAction(f"there is no face-up slot {slot}", seat)
        label = state.face_up[slot]
        if label is None:
            raise IllegalAction(f"face-up slot {slot} is empty", seat)
        return label, card(label)

    def _placement_error(self, school: School, position: Position, new: Card) -> str | None:
        occupied = grid(school)
        if position in occupied:
            return f"{position} is already occupied"
        neighbours = [occupied[p] for p in _around(*position) if p in occupied]
        if not neighbours:
            return f"{position} is not orthogonally next to any card"
        for neighbour in neighbours:
            if not fits(new, neighbour.top):
                return f"{neighbour.top_label} at {neighbour.position} does not fit next to it"
        return None

    def _apply_own(self, state: State, seat: int, action: PlaceOwn) -> State:
        label, new = self._take(state, seat, action.slot)
        if new.kind == SHARK:
            raise IllegalAction(f"{label}: a shark always goes into an opponent's school", seat)
        position = (action.x, action.y)
        error = self._placement_error(state.schools[seat], position, new)
        if error is not None:
            raise IllegalAction(f"{label} cannot go there: {error}", seat)
        remaining = [other for slot, other in enumerate(state.face_up) if other is not None and slot != action.slot]
        if not any(fits_an_opponent(state, seat, card(other)) for other in remaining):
            raise IllegalAction(f"after taking {label} no face-up card could go to an opponent", seat)
        school = curse(with_cells(state.schools[seat], [Cell(action.x, action.y, (label,))]), position)
        return state._replace(
            phase=OTHER,
            schools=replace_at(state.schools, seat, school),
            face_up=replace_at(state.face_up, action.slot, None),
            own_slot=action.slot,
        )

    def _apply_other(self, state: State, seat: int, action: PlaceOther) -> State:
        label, new = self._take(state, seat, action.slot)
        opponent = action.seat
        if opponent == seat or not 0 <= opponent < state.players:
            raise IllegalAction(f"seat {opponent} is not an opponent of seat {seat}", seat)
        school = state.schools[opponent]
        position = (action.x, action.y)
        if new.kind == SHARK:
            target = grid(school).get(position)
            if target is None or target.live_fish is None:
                raise IllegalAction(f"{label} must go onto a visible fish card, and {position} shows none", seat)
            school = with_cells(school, [target._replace(pile=(*target.pile, label))])
        else:
            error = self._placement_error(school, position, new)
            if error is not None:
                raise IllegalAction(f"{label} cannot go there: {error}", seat)
            school = curse(with_cells(school, [Cell(action.x, action.y, (label,))]), position)
        assert state.own_slot is not None
        placed = state._replace(
            phase=TURN_UP,
            schools=replace_at(state.schools, opponent, school),
            face_up=replace_at(state.face_up, action.slot, None),
        )
        return self._end_turn(placed, (state.own_slot, action.slot))

    def _apply_discard(self, state: State, seat: int, action: Discard) -> State:
        if action.first == action.second:
            raise IllegalAction("discard two different face-up cards", seat)
        labels = [self._take(state, seat, slot)[0] for slot in (action.first, action.second)]
        if any(isinstance(a, PlaceOwn) for a in self._own_actions(state, seat)):
            raise IllegalAction("a pair of face-up cards can be placed: discarding is not allowed", seat)
        face_up = replace_at(replace_at(state.face_up, action.first, None), action.second, None)
        discarded = state._replace(face_up=face_up, discards=(*state.discards, *labels))
        return self._end_turn(discarded, (action.first, action.second))

    def _end_turn(self, state: State, emptied: tuple[int, int]) -> State:
        return self._settle(
            state._replace(
                phase=TURN_UP,
                refills=emptied,
                own_slot=None,
                current=(state.current + 1) % state.players,
                turns=state.turns + 1,
            )
        )

    def _apply_octopus(self, state: State, seat: int, action: PlaceOctopus) -> State:
        assert state.octopus is not None
        target = grid(state.schools[seat]).get((action.x, action.y))
        if target is None or target.base.kind != CORAL:
            raise IllegalAction(
                f"the octopus goes onto one of your corals, and ({action.x}, {action.y}) has none", seat
            )
        school = with_cells(state.schools[seat], [target._replace(pile=(*target.pile, state.octopus))])
        placed = state._replace(phase=TURN_UP, octopus=None, schools=replace_at(state.schools, seat, school))
        return self._settle(placed)

    def _apply_reveal(self, state: State, seat: int, action: RevealCard) -> State:
        if action.deck != COLOUR_DECK or action.position != seat:
            raise IllegalAction(f"reveal your own colour tile ({COLOUR_DECK} position {seat}), not {action}", seat)
        if action.label not in FISH_COLOURS:
            raise IllegalAction(f"{shown_value(action.label)} is not a fish colour", seat)
        if action.label in state.colours:
            raise IllegalAction(f"the {action.label} tile was revealed already: tiles are distinct", seat)
        colours = replace_at(state.colours, seat, action.label)
        return state._replace(colours=colours, phase=REVEAL if None in colours else OVER)

    # --- views and outcome ---

    def view(self, state: State, seat: int, known: Known) -> View:
        colour = known.get(card_name(COLOUR_DECK, seat))
        return View(
            seat=seat,
            players=state.players,
            phase=state.phase,
            to_act=self.to_act(state),
            start=state.start,
            current=state.current,
            turns=state.turns,
            face_up=state.face_up,
            stacks=state.stacks,
            schools=tuple(school_view(school) for school in state.schools),
            corals=tuple(corals(school) for school in state.schools),
            octopus=state.octopus,
            discards=state.discards,
            my_colour=None if colour is None else str(colour),
            colours=state.colours,
            options=state.options,
        )

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        colours = [colour for colour in state.colours if colour is not None]
        totals = tuple(score.total for score in scores(state.schools, colours))
        own_fish = [sum(tally(school_view(school)).fish.values()) for school in state.schools]
        return Outcome(totals, winners(totals, own_fish))

    def decode_own(self, tag: str, obj: Mapping[str, Json]) -> Action:
        if tag == Kind.OWN:
            return PlaceOwn(_slot_field(obj), int_field(obj, "x"), int_field(obj, "y"))
        if tag == Kind.OTHER:
            return PlaceOther(_slot_field(obj), int_field(obj, "seat"), int_field(obj, "x"), int_field(obj, "y"))
        if tag == Kind.OCTOPUS:
            return PlaceOctopus(int_field(obj, "x"), int_field(obj, "y"))
        return DISCARDS[_discard_slots(obj)]


RULES: Final = KunaYala()
