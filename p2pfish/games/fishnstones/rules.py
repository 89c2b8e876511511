"""Fish'n'Stones (RULES.md §1): a 3x3 pond, secret cat columns, baiting and fishing over 4 rounds.

Pond coordinates: spot index = 3*y + x, x from west (a) to east (c), y from south (1) to north (3),
so spot names read like a chess board seen from the south shore: a1 is the south-west corner.
A seat's columns are numbered 1-3 from its own left, each listed from its own shore outward.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, NamedTuple

from p2pfish.core.actions import Action, Chance, Commit, Reveal, SecretChoice, decode_core_action
from p2pfish.core.errors import IllegalAction, MalformedInput
from p2pfish.core.game import ChanceRequest, Known, Outcome, check_chance, check_turn, due_chance, replace_at
from p2pfish.core.options import check_known, is_number, start_seat
from p2pfish.core.rules_parts import Rules, expect, start_draw
from p2pfish.core.text import shown_value
from p2pfish.core.wire import Json, as_object, field, str_field

ITEMS: Final = ("fish", "stone", "water")
FISH, STONE, WATER = ITEMS
ROUNDS: Final = 4
SPOTS: Final = 9
DEFAULT_MIX: Final = {"fish": 18, "stone": 9, "water": 9}
PILE_SIZE: Final = ROUNDS * SPOTS

SHORES_BY_PLAYERS: Final = {2: ("S", "N"), 3: ("S", "W", "N"), 4: ("S", "W", "N", "E")}
"""Seats in clockwise order, so "clockwise from seat s" is s, s+1, ... modulo the player count."""

SPOT_NAMES: Final = tuple(f"{'abc'[i % 3]}{i // 3 + 1}" for i in range(SPOTS))
SPOT_BY_NAME: Final = {name: i for i, name in enumerate(SPOT_NAMES)}


def _spot(x: int, y: int) -> int:
    return 3 * y + x


COLUMNS: Final[dict[str, tuple[tuple[int, ...], ...]]] = {
    "S": tuple(tuple(_spot(k, y) for y in (0, 1, 2)) for k in range(3)),
    "N": tuple(tuple(_spot(2 - k, y) for y in (2, 1, 0)) for k in range(3)),
    "W": tuple(tuple(_spot(x, 2 - k) for x in (0, 1, 2)) for k in range(3)),
    "E": tuple(tuple(_spot(x, k) for x in (2, 1, 0)) for k in range(3)),
}
"""COLUMNS[shore][k] are the spots of that shore's column k+1, nearest the shore first."""

NEIGHBOURS: Final = tuple(
    tuple(_spot(x + dx, y + dy) for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)) if 0 <= x + dx < 3 and 0 <= y + dy < 3)
    for y in range(3)
    for x in range(3)
)


class Phase(StrEnum):
    """The phases of a game: the start seat's draw, a round's pond filled, cats cast, baits, fishing; the end."""

    START = "start"
    FILL = "fill"
    CAST = "cast"
    BAIT = "bait"
    FISHING = "fish"
    OVER = "over"


START, FILL, CAST, BAIT, FISHING, OVER = Phase


def cat_purpose(round_number: int) -> str:
    return f"cat/{round_number}"


# --- actions -------------------------------------------------------------------------------------


class Kind(StrEnum):
    """The tags ("t") of this game's own actions."""

    BAIT = "bait"
    NO_BAIT = "nobait"
    FISH = "fish"


@dataclass(frozen=True, slots=True)
class Bait(Action, tag=Kind.BAIT):
    """Move the whole stack on `source` onto `target`, an orthogonal neighbour in the cat column."""

    target: int
    source: int

    def to_wire(self) -> dict[str, Json]:
        return {"t": self.tag, "target": SPOT_NAMES[self.target], "source": SPOT_NAMES[self.source]}

    def __str__(self) -> str:
        return f"bait {SPOT_NAMES[self.target]} from {SPOT_NAMES[self.source]}"


@dataclass(frozen=True, slots=True)
class NoBait(Action, tag=Kind.NO_BAIT, said="no bait"):
    """Leave the pond as it lies this turn."""


@dataclass(frozen=True, slots=True)
class Fish(Action, tag=Kind.FISH):
    """Take the whole stack on `spot` of the revealed column; None when the column is empty."""

    spot: int | None

    def to_wire(self) -> dict[str, Json]:
        return {"t": self.tag, "spot": None if self.spot is None else SPOT_NAMES[self.spot]}

    def __str__(self) -> str:
        return "fish nothing (empty column)" if self.spot is None else f"fish {SPOT_NAMES[self.spot]}"


@dataclass(frozen=True, slots=True)
class Cast(SecretChoice, said="cast the cat in column {value}"):
    """The secret cat column (1-3, from the seat's own left) for one round."""


NO_BAIT: Final = NoBait()
FISH_NOTHING: Final = Fish(None)
FISH_AT: Final = tuple(Fish(s) for s in range(SPOTS))
BAITS: Final = tuple(tuple(Bait(t, s) for s in range(SPOTS)) for t in range(SPOTS))
CASTS: Final = tuple(tuple(Cast(cat_purpose(r), c) for c in (1, 2, 3)) for r in range(ROUNDS + 1))


def _spot_field(wire: Mapping[str, Json], name: str) -> int:
    spot_name = str_field(wire, name)
    try:
        return SPOT_BY_NAME[spot_name]
    except KeyError:
        raise MalformedInput(f"{name} must be a spot a1..c3, not {shown_value(spot_name)}") from None


# --- state ---------------------------------------------------------------------------------------

Stack = tuple[str, ...]
Bucket = tuple[int, int, int]
"""Counts of fish, stones and water."""


@dataclass(frozen=True, slots=True)
class Options:
    mix: tuple[int, int, int] = (DEFAULT_MIX[FISH], DEFAULT_MIX[STONE], DEFAULT_MIX[WATER])
    start: int | None = None
    """A start seat chosen in the lobby; None draws it with chance."""


class State(NamedTuple):
    """Immutable (a NamedTuple: cheap to copy with one field changed, which the engine does a lot)."""

    players: int
    options: Options
    phase: Phase
    round: int
    """1-4 during play."""
    start: int
    pile: tuple[int, int, int]
    """Counts of fish, stones and water still face down."""
    pond: tuple[Stack, ...]
    """Nine stacks, bottom card first."""
    buckets: tuple[Bucket, ...]
    turn: int
    """How many seats have finished the current turn-based phase (bait or fish)."""
    commitments: tuple[bytes | None, ...]
    cats: tuple[int | None, ...]
    """Revealed cat columns of this round."""
    baits: tuple[tuple[int, int, int], ...]
    """This round's baits as (seat, target, source), checked against each cat at its reveal."""
    round_buckets: tuple[tuple[Bucket, ...], ...] = ()
    """Every bucket at the end of each round played (for the recap at the end)."""

    @property
    def shores(self) -> tuple[str, ...]:
        return SHORES_BY_PLAYERS[self.players]

    @property
    def current(self) -> int:
        return (self.start + self.turn) % self.players


def column_spots(players: int, seat: int, column: int) -> tuple[int, ...]:
    return COLUMNS[SHORES_BY_PLAYERS[players][seat]][column - 1]


def score(bucket: Bucket) -> int:
    return bucket[0] - bucket[1]


def _add(bucket: Bucket, stack: Stack) -> Bucket:
    return (bucket[0] + stack.count(FISH), bucket[1] + stack.count(STONE), bucket[2] + stack.count(WATER))


def parse_options(players: int, raw: Mapping[str, str]) -> Options:
    check_known("fishnstones", raw, ("pond", "start"))
    mix = Options().mix
    if "pond" in raw:
        counts = dict.fromkeys(ITEMS, 0)
        for part in raw["pond"].split(","):
            name, _, number = part.partition(":")
            if name not in counts or not is_number(number):
                raise MalformedInput(f"pond must look like fish:18,stone:9,water:9, not {shown_value(raw['pond'])}")
            counts[name] = int(number)
        mix = (counts[FISH], counts[STONE], counts[WATER])
        if sum(mix) != PILE_SIZE:
            raise MalformedInput(f"the pond mix must sum to {PILE_SIZE} cards, not {sum(mix)}")
    return Options(mix, start_seat(raw, players))


# --- the rules -----------------------------------------------------------------------------------


class View(NamedTuple):
    """What one seat sees."""

    seat: int
    players: int
    shores: tuple[str, ...]
    phase: Phase
    round: int
    start: int
    to_act: tuple[int, ...]
    tops: tuple[str | None, ...]
    heights: tuple[int, ...]
    pile_left: int
    my_cat: int | None
    committed: tuple[bool, ...]
    cats: tuple[int | None, ...]
    baits: tuple[tuple[int, int, int], ...]
    my_bucket: Bucket
    bucket_sizes: tuple[int, ...]
    buckets: tuple[Bucket, ...] | None
    """Every bucket, only once the game is over."""
    round_buckets: tuple[tuple[Bucket, ...], ...] = ()
    """Every bucket at the end of each round, only once the game is over (the end screen's recap; not in
    the wire form, which the golden games pin)."""
    options: Options = Options()
    """The table's options, public from the lobby on: the bots count the unseen cards from its mix (not in
    to_wire either; an engine's view shows it)."""

    def column(self, seat: int, column: int) -> tuple[int, ...]:
        return column_spots(self.players, seat, column)

    def to_wire(self) -> dict[str, Json]:
        return {
            "seat": self.seat,
            "phase": self.phase,
            "round": self.round,
            "start": self.start,
            "to_act": list(self.to_act),
            "pond": [None if t is None else f"{t}x{h}" for t, h in zip(self.tops, self.heights, strict=True)],
            "pile_left": self.pile_left,
            "my_cat": self.my_cat,
            "committed": list(self.committed),
            "cats": list(self.cats),
            "baits": [[s, SPOT_NAMES[t], SPOT_NAMES[f]] for s, t, f in self.baits],
            "my_bucket": list(self.my_bucket),
            "bucket_sizes": list(self.bucket_sizes),
            "buckets": None if self.buckets is None else [list(b) for b in self.buckets],
        }


class FishNStones(Rules):
    id = "fishnstones"
    title = "Fish'n'Stones"
    min_players = 2
    max_players = 4

    def new_game(self, players: int, options: Mapping[str, str]) -> State:
        self.check_players(players)
        opts = parse_options(players, options)
        state = State(
            players=players,
            options=opts,
            phase=START,
            round=1,
            start=0,
            pile=opts.mix,
            pond=((),) * SPOTS,
            buckets=((0, 0, 0),) * players,
            turn=0,
            commitments=(None,) * players,
            cats=(None,) * players,
            baits=(),
        )
        return state if opts.start is None else state._replace(phase=FILL, start=opts.start)

    def chance(self, state: State) -> ChanceRequest | None:
        if state.phase == START:
            return start_draw(state.players)
        if state.phase == FILL:
            pool = tuple(item for item, n in zip(ITEMS, state.pile, strict=True) for _ in range(n))
            return ChanceRequest(f"fill/{state.round}", pool, SPOTS)
        return None

    def to_act(self, state: State) -> tuple[int, ...]:
        if state.phase == CAST:
            return tuple(s for s in range(state.players) if state.commitments[s] is None)
        if state.phase in (BAIT, FISHING):
            return (state.current,)
        return ()

    def reveal_due(self, state: State, seat: int) -> bool:
        return state.phase == FISHING and seat == state.current and state.cats[seat] is None

    def legal_actions(self, state: State, seat: int, known: Known) -> Sequence[Action]:
        phase = state.phase
        if not 0 <= seat < state.players:
            return ()
        if phase == CAST:
            return CASTS[state.round] if state.commitments[seat] is None else ()
        if seat != state.current or phase not in (BAIT, FISHING):
            return ()
        column = state.cats[seat]
        if column is None:
            secret = known.get(cat_purpose(state.round))
            if not isinstance(secret, int):
                return ()
            if phase == FISHING:
                return (Reveal(cat_purpose(state.round), secret),)
            column = secret
        spots = column_spots(state.players, seat, column)
        pond = state.pond
        if phase == BAIT:
            baits: list[Action] = [NO_BAIT]
            for target in spots:
                row = BAITS[target]
                baits.extend(row[source] for source in NEIGHBOURS[target] if pond[source])
            return baits
        fishable = [FISH_AT[s] for s in spots if pond[s]]
        return fishable or (FISH_NOTHING,)

    def apply(self, state: State, seat: int | None, action: Action) -> State:
        if seat is None:
            if not isinstance(action, Chance):
                raise IllegalAction(f"chance cannot play {action}")
            return self._apply_chance(state, action)
        check_turn(seat, state.players, self.to_act(state), state.phase)
        if state.phase == CAST:
            return self._apply_commit(state, seat, action)
        if state.phase == BAIT:
            return self._apply_bait(state, seat, action)
        return self._apply_fishing(state, seat, action)

    def _apply_chance(self, state: State, action: Chance) -> State:
        request = due_chance(self.chance(state), state.phase)
        check_chance(request, action)
        if state.phase == START:
            start = action.values[0]
            assert isinstance(start, int)
            return state._replace(phase=FILL, start=start)
        pond = tuple((*stack, str(card)) for stack, card in zip(state.pond, action.values, strict=True))
        pile = tuple(n - action.values.count(item) for item, n in zip(ITEMS, state.pile, strict=True))
        return state._replace(phase=CAST, pond=pond, pile=(pile[0], pile[1], pile[2]))

    def _apply_commit(self, state: State, seat: int, action: Action) -> State:
        action = expect(action, Commit, seat, "in the cast phase only a commitment to the cat may be played")
        if action.purpose != cat_purpose(state.round):
            raise IllegalAction(
                f"commitment for {shown_value(action.purpose)}, expected {shown_value(cat_purpose(state.round))}", seat
            )
        commitments = replace_at(state.commitments, seat, action.digest)
        if all(c is not None for c in commitments):
            return state._replace(commitments=commitments, phase=BAIT, turn=0)
        return state._replace(commitments=commitments)

    def _apply_bait(self, state: State, seat: int, action: Action) -> State:
        if isinstance(action, NoBait):
            return self._next_turn(state, BAIT)
        if not isinstance(action, Bait):
            raise IllegalAction(f"in the bait phase play a bait or no bait, not {action}", seat)
        if action.source not in NEIGHBOURS[action.target]:
            raise IllegalAction(
                f"{SPOT_NAMES[action.source]} is not orthogonally next to {SPOT_NAMES[action.target]}", seat
            )
        if not state.pond[action.source]:
            raise IllegalAction(f"nothing lies on {SPOT_NAMES[action.source]} to bait with", seat)
        pond = list(state.pond)
        pond[action.target] = pond[action.target] + pond[action.source]
        pond[action.source] = ()
        baited = state._replace(pond=tuple(pond), baits=(*state.baits, (seat, action.target, action.source)))
        return self._next_turn(baited, BAIT)

    def _apply_fishing(self, state: State, seat: int, action: Action) -> State:
        column = state.cats[seat]
        if column is None:
            return self._apply_reveal(state, seat, expect(action, Reveal, seat, "reveal your cat before fishing"))
        action = expect(action, Fish, seat, "fishing is mandatory: play a fish action")
        spots = column_spots(state.players, seat, column)
        if action.spot is None:
            full = [SPOT_NAMES[s] for s in spots if state.pond[s]]
            if full:
                raise IllegalAction(f"column {column} is not empty ({', '.join(full)}): fishing is mandatory", seat)
            return self._next_turn(state, FISHING)
        if action.spot not in spots:
            raise IllegalAction(f"{SPOT_NAMES[action.spot]} is not in your cat column {column}", seat)
        stack = state.pond[action.spot]
        if not stack:
            raise IllegalAction(f"{SPOT_NAMES[action.spot]} is empty", seat)
        fished = state._replace(
            pond=replace_at(state.pond, action.spot, ()),
            buckets=replace_at(state.buckets, seat, _add(state.buckets[seat], stack)),
        )
        return self._next_turn(fished, FISHING)

    def _apply_reveal(self, state: State, seat: int, action: Reveal) -> State:
        if action.purpose != cat_purpose(state.round):
            raise IllegalAction(
                f"reveal of {shown_value(action.purpose)}, expected {shown_value(cat_purpose(state.round))}", seat
            )
        column = action.value
        if not isinstance(column, int) or column not in (1, 2, 3):
            raise IllegalAction(f"the cat column must be 1, 2 or 3, not {shown_value(column)}", seat)
        spots = column_spots(state.players, seat, column)
        for baiter, target, source in state.baits:
            if baiter == seat and target not in spots:
                raise IllegalAction(
                    f"bait onto {SPOT_NAMES[target]} (from {SPOT_NAMES[source]}) lies outside "
                    f"the revealed cat column {column}",
                    seat,
                )
        return state._replace(cats=replace_at(state.cats, seat, column))

    def _next_turn(self, state: State, phase: Phase) -> State:
        turn = state.turn + 1
        if turn < state.players:
            return state._replace(turn=turn)
        if phase == BAIT:
            return state._replace(phase=FISHING, turn=0)
        state = state._replace(round_buckets=(*state.round_buckets, state.buckets))
        if state.round == ROUNDS:
            return state._replace(phase=OVER, turn=0)
        return state._replace(
            phase=FILL,
            round=state.round + 1,
            start=(state.start + 1) % state.players,
            turn=0,
            commitments=(None,) * state.players,
            cats=(None,) * state.players,
            baits=(),
        )

    def view(self, state: State, seat: int, known: Known) -> View:
        secret = known.get(cat_purpose(state.round))
        over = state.phase == OVER
        return View(
            seat=seat,
            players=state.players,
            shores=state.shores,
            phase=state.phase,
            round=state.round,
            start=state.start,
            to_act=self.to_act(state),
            tops=tuple(stack[-1] if stack else None for stack in state.pond),
            heights=tuple(len(stack) for stack in state.pond),
            pile_left=sum(state.pile),
            my_cat=secret if isinstance(secret, int) and not over else None,
            committed=tuple(c is not None for c in state.commitments),
            cats=state.cats,
            baits=state.baits,
            my_bucket=state.buckets[seat],
            bucket_sizes=tuple(sum(b) for b in state.buckets),
            buckets=state.buckets if over else None,
            round_buckets=state.round_buckets if over else (),
            options=state.options,
        )

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome(tuple(score(b) for b in state.buckets), winners(state.buckets))

    def outcome_so_far(self, state: State, gone: int) -> Outcome | None:
        """The buckets so far, with the game's tie-break among the seats that remain."""
        scores = tuple(score(b) for b in state.buckets)
        kept = [seat for seat in range(state.players) if seat != gone]
        return Outcome(scores, tuple(kept[i] for i in winners([state.buckets[seat] for seat in kept])))

    def decode_action(self, wire: Json) -> Action:
        obj = as_object(wire)
        core = decode_core_action(obj)
        if core is not None:
            return core
        tag = field(obj, "t")
        if tag == Kind.BAIT:
            return BAITS[_spot_field(obj, "target")][_spot_field(obj, "source")]
        if tag == Kind.NO_BAIT:
            return NO_BAIT
        if tag == Kind.FISH:
            return FISH_NOTHING if field(obj, "spot") is None else FISH_AT[_spot_field(obj, "spot")]
        raise MalformedInput(f"unknown fishnstones action {shown_value(tag)}")


def winners(buckets: Sequence[Bucket]) -> tuple[int, ...]:
    """Highest score wins; a tie goes to the fewest stones; a tie after that is shared."""
    best = max((score(b), -b[1]) for b in buckets)
    return tuple(seat for seat, b in enumerate(buckets) if (score(b), -b[1]) == best)


RULES: Final = FishNStones()
