"""Fish Fish (RULES.md §3, the French rulebook in seeds/003): bluff a line, bet fish tiles, catch or feed.

Components (defaults in one place, below): 5 Pêche cards (PECHE_DECK: 2 "prise", 3 "bredouille"), 5 bait
cards (BAIT_CARDS: 2, 3, 3, 4, 5), 4 fish tiles per Fish player (TILES_PER_FISH), a Butin board per Fish
player with slots BUTIN_SLOTS = 2..5. The Fisherman scores CATCH_POINTS per captured tile.

Seats sit clockwise: the left of seat s is seat s+1 (modulo the player count), as in the other games.

A game, in log order:
1. The first Fisherman: the `start` option (the lobby's "last to have eaten fish"), or by default
   (``start=random``) a public draw among the seats (ChanceRequest "start").
2. Rounds. Round r's Fisherman is seat (first + r - 1) mod players: the Fisherman passes to the left.
   There are `players` rounds for 4-8 players and 2 x `players` for 2-3 players (each player is the
   Fisherman once, resp. twice). Every round starts afresh: the Fisherman holds all 5 Pêche and 5 bait
   cards, each Fish player 4 tiles and an empty Butin board.
3. A line (at most 5 per round), all by the Fisherman first:
   - Bait(value): the public bait card, one the Fisherman still holds;
   - Cast(purpose, kind): a SecretChoice of one Pêche card he still holds, purpose
     ``peche/<round>/<line>`` (both 1-based). It never goes on the wire: the session logs a Commit for
     that purpose and keeps the value in the Fisherman's own knowledge.
   - Bets: each Fish player in turn plays Bet(tiles), 0..(tiles still in hand), once per line. Order:
     odd rounds from the Fisherman's left clockwise (f+1, f+2, ...), even rounds from his right
     anticlockwise (f-1, f-2, ...): the direction reverses with every round of the game.
   - Check: no tile bet -> the line is discarded and the Pêche card stays closed (until the end of the
     game). Otherwise the Fisherman must Reveal it (reveal_due; the session sends it by itself):
     "prise" -> he captures every bet tile; "bredouille" -> each bettor puts his bet tiles on the Butin
     slot of the bait value.
4. The round ends after the check of a line when every fish tile has been bet (which the 5th line
   always brings about), or at once when both Prise cards have been revealed: then each Fish player's
   tiles still in hand go to his Butin slot of the highest bait value the Fisherman still holds.
5. Round score: the Fisherman CATCH_POINTS per captured tile; a Fish player the sum of the bait values
   of the tiles on his Butin board. Totals add up over the rounds; the highest total wins, ties share.

Settled here (on top of RULES.md):
- The bait is its own public action, played before the secret Pêche choice of the same line.
- A Fish player with no tile left in hand is skipped in the betting order (he has nothing to decide).
- On the Fisherman's 5th line every Fish player must bet all his remaining tiles: the rules place those
  bets themselves right after the Cast's commitment (no Bet action: there is no choice to make).
- 2 players: one Fish player against the Fisherman, 4 rounds (each player Fisherman twice); no other change.
- The legal Cast choices are the Pêche kinds the Fisherman still holds this round, worked out from his own
  knowledge of this round's earlier commitments. A cheating peer may commit to anything: a reveal is
  refused (IllegalAction naming the Fisherman) when its value is not a Pêche kind or would make more than
  2 Prise or 3 Bredouille revealed in the round; at the end `audit` checks every commitment of every
  round, closed ones included, the same way.

Wire forms: {"t": "bait", "value": 2..5}, {"t": "bet", "tiles": 0..4}, and the core "commit" (purpose
``peche/<round>/<line>``), "reveal" (value "prise" or "bredouille") and "chance"; decode_action refuses
any other field, an unknown tag and an out-of-range number as MalformedInput.
"""

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, NamedTuple

from p2pfish.core.actions import Action, Commit, Reveal, SecretChoice
from p2pfish.core.errors import IllegalAction, MalformedInput
from p2pfish.core.game import ChanceRequest, Known, Outcome, check_turn, due_chance, replace_at
from p2pfish.core.options import check_known, start_seat
from p2pfish.core.rules_parts import Rules, drawn_seat, expect, start_draw
from p2pfish.core.text import shown_value
from p2pfish.core.wire import Json, Scalar, int_field

# --- components (the defaults of RULES.md §3) -----------------------------------------------------

PRISE, BREDOUILLE = "prise", "bredouille"
PECHE_KINDS: Final = (PRISE, BREDOUILLE)
PECHE_DECK: Final = {PRISE: 2, BREDOUILLE: 3}
"""The Pêche cards the Fisherman holds at the start of each round."""
BAIT_CARDS: Final = (2, 3, 3, 4, 5)
LINES: Final = len(BAIT_CARDS)
"""Lines per round at most: one per bait card (and per Pêche card)."""
BUTIN_SLOTS: Final = (2, 3, 4, 5)
TILES_PER_FISH: Final = 4
CATCH_POINTS: Final = 4
TWICE_FISHERMAN_UP_TO: Final = 3
"""With this many players or fewer, everyone is the Fisherman twice."""
MIN_PLAYERS, MAX_PLAYERS = 2, 8


class Phase(StrEnum):
    """The phases: the first Fisherman's draw; a line's bait, secret Pêche card, bets and reveal; the end."""

    START = "start"
    BAIT = "bait"
    CAST = "cast"
    BET = "bet"
    REVEAL = "reveal"
    OVER = "over"


START, BAIT, CAST, BET, REVEAL, OVER = Phase

ORDINALS: Final = ("first", "second", "third", "fourth", "fifth", "sixth")

assert len(BAIT_CARDS) == sum(PECHE_DECK.values()), "one Pêche card per bait card"
assert set(BAIT_CARDS) <= set(BUTIN_SLOTS)


def peche_purpose(round_number: int, line: int) -> str:
    return f"peche/{round_number}/{line}"


def rounds_for(players: int) -> int:
    return players * (2 if players <= TWICE_FISHERMAN_UP_TO else 1)


def fisherman_of(players: int, first: int, round_number: int) -> int:
    """The Fisherman passes to the left (seat + 1) each round."""
    return (first + round_number - 1) % players


@functools.cache
def betting_order(players: int, fisherman: int, round_number: int) -> tuple[int, ...]:
    """Every Fish player once: odd rounds clockwise from the Fisherman's left, even rounds anticlockwise
    from his right."""
    step = 1 if round_number % 2 == 1 else -1
    return tuple((fisherman + step * k) % players for k in range(1, players))


# --- actions -------------------------------------------------------------------------------------


class Kind(StrEnum):
    """The tags ("t") of this game's own actions."""

    BAIT = "bait"
    BET = "bet"


@dataclass(frozen=True, slots=True)
class Bait(Action, tag=Kind.BAIT, said="cast a line with bait {value}"):
    """The Fisherman lays one of his bait cards face up: the line's value."""

    value: int


@dataclass(frozen=True, slots=True)
class Bet(Action, tag=Kind.BET):
    """A Fish player bets `tiles` of the tiles in his hand on the current line (0: no bet)."""

    tiles: int

    def __str__(self) -> str:
        if self.tiles == 0:
            return "bet nothing on this line"
        return f"bet {self.tiles} tile{'s' if self.tiles > 1 else ''} on this line"


class Cast(SecretChoice, said="put a {value} card under the line"):
    """The Fisherman's secret Pêche card ("prise" or "bredouille") under the line's bait."""


BAITS: Final = {value: Bait(value) for value in BUTIN_SLOTS}
BETS: Final = tuple(Bet(tiles) for tiles in range(TILES_PER_FISH + 1))
ACTION_FIELDS: Final[Mapping[str, set[str]]] = {Kind.BAIT: {"t", "value"}, Kind.BET: {"t", "tiles"}}


# --- options -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Options:
    start: int | None = None
    """The first Fisherman chosen in the lobby; None draws him with chance."""


def parse_options(players: int, raw: Mapping[str, str]) -> Options:
    check_known("fishfish", raw, ("start",))
    return Options(start=start_seat(raw, players))


# --- state ---------------------------------------------------------------------------------------

Butin = tuple[int, ...]
"""Tiles on each slot of a Butin board, in BUTIN_SLOTS order."""
EMPTY_BUTIN: Final[Butin] = (0,) * len(BUTIN_SLOTS)


class Line(NamedTuple):
    """One line of the current round. It holds no secret: the Pêche card is only `committed` until revealed."""

    bait: int
    committed: bool
    bets: tuple[int, ...]
    """Tiles bet by each seat (0 for the Fisherman and for a seat that did not bet)."""
    peche: str | None
    """The revealed Pêche card, None while (or if it stays) face down."""
    checked: bool
    """The check is done: the bet tiles left the line (to the Fisherman or to the Butin boards)."""


class State(NamedTuple):
    """Immutable (a NamedTuple: cheap to copy with one field changed)."""

    players: int
    options: Options
    phase: Phase
    round: int
    """1-based; the last round stays current once the game is over."""
    first: int
    """The first round's Fisherman."""
    fisherman: int
    turn: int
    """Index in the betting order of the Fish player to bet now (phase bet)."""
    baits: tuple[int, ...]
    """Bait cards the Fisherman still holds this round (public), in increasing order."""
    lines: tuple[Line, ...]
    """This round's lines, the current one last."""
    hands: tuple[int, ...]
    """Tiles still in hand, by seat (0 for the Fisherman)."""
    butins: tuple[Butin, ...]
    captured: int
    """Tiles the Fisherman captured this round."""
    history: tuple[tuple[int, ...], ...]
    """The scores of every finished round, by seat."""
    casts: tuple[tuple[int, int, str], ...]
    """(round, seat, purpose) of every Pêche commitment of the game, for the final audit."""

    @property
    def order(self) -> tuple[int, ...]:
        return betting_order(self.players, self.fisherman, self.round)

    @property
    def line(self) -> int:
        """The current line's number, 1-based (0 before the round's first bait)."""
        return len(self.lines)

    @property
    def purpose(self) -> str:
        return peche_purpose(self.round, self.line)

    @property
    def bettor(self) -> int | None:
        return self.order[self.turn] if self.phase == BET else None

    def revealed(self, kind: str) -> int:
        return sum(1 for line in self.lines if line.peche == kind)


HISTORY_CACHE_SIZE: Final = 64
"""Views ask for the same few totals again and again."""


def _add_to_slot(butin: Butin, value: int, tiles: int) -> Butin:
    slot = BUTIN_SLOTS.index(value)
    return replace_at(butin, slot, butin[slot] + tiles)


@functools.cache
def butin_points(butin: Butin) -> int:
    return sum(value * tiles for value, tiles in zip(BUTIN_SLOTS, butin, strict=True))


def round_scores(state: State) -> tuple[int, ...]:
    """The current round's points so far, by seat."""
    return tuple(
        CATCH_POINTS * state.captured if seat == state.fisherman else butin_points(state.butins[seat])
        for seat in range(state.players)
    )


@functools.lru_cache(maxsize=HISTORY_CACHE_SIZE)
def totals(history: tuple[tuple[int, ...], ...], players: int) -> tuple[int, ...]:
    return tuple(sum(scores[seat] for scores in history) for seat in range(players))


def peche_left(state: State, known: Known) -> tuple[str, ...]:
    """The Pêche cards the Fisherman still holds this round, as his own knowledge of his commitments tells."""
    held = Counter(PECHE_DECK)
    for line in range(1, state.line + 1):
        if state.lines[line - 1].committed:
            value = known.get(peche_purpose(state.round, line))
            if isinstance(value, str) and held[value] > 0:
                held[value] -= 1
    return tuple(kind for kind in PECHE_KINDS for _ in range(held[kind]))


def _new_round(state: State, round_number: int) -> State:
    fisherman = fisherman_of(state.players, state.first, round_number)
    return state._replace(
        phase=BAIT,
        round=round_number,
        fisherman=fisherman,
        turn=0,
        baits=tuple(sorted(BAIT_CARDS)),
        lines=(),
        hands=tuple(0 if seat == fisherman else TILES_PER_FISH for seat in range(state.players)),
        butins=(EMPTY_BUTIN,) * state.players,
        captured=0,
    )


# --- views ---------------------------------------------------------------------------------------


class View(NamedTuple):
    """What one seat sees. Only the Fisherman's own view holds his Pêche cards (my_peche, my_cast)."""

    seat: int
    players: int
    phase: Phase
    to_act: tuple[int, ...]
    round: int
    rounds: int
    first: int
    fisherman: int
    order: tuple[int, ...]
    """This round's betting order."""
    clockwise: bool
    bettor: int | None
    baits: tuple[int, ...]
    """The bait cards the Fisherman still holds."""
    peche_count: int
    """How many Pêche cards the Fisherman still holds (their kinds are his secret)."""
    lines: tuple[Line, ...]
    hands: tuple[int, ...]
    butins: tuple[Butin, ...]
    captured: int
    round_scores: tuple[int, ...]
    """This round's points so far (at the end: the last round's)."""
    history: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    """The sums over the finished rounds."""
    my_peche: tuple[str, ...] | None
    """The Fisherman's own remaining Pêche cards; None for everyone else."""
    my_cast: str | None
    """The Pêche card under the current line, for the Fisherman only, once committed."""

    def to_wire(self) -> dict[str, Json]:
        return {
            "seat": self.seat,
            "phase": self.phase,
            "to_act": list(self.to_act),
            "round": self.round,
            "rounds": self.rounds,
            "first": self.first,
            "fisherman": self.fisherman,
            "order": list(self.order),
            "clockwise": self.clockwise,
            "bettor": self.bettor,
            "baits": list(self.baits),
            "peche_count": self.peche_count,
            "lines": [
                {
                    "bait": ln.bait,
                    "committed": ln.committed,
                    "bets": list(ln.bets),
                    "peche": ln.peche,
                    "checked": ln.checked,
                }
                for ln in self.lines
            ],
            "hands": list(self.hands),
            "butins": [list(b) for b in self.butins],
            "captured": self.captured,
            "round_scores": list(self.round_scores),
            "history": [list(scores) for scores in self.history],
            "totals": list(self.totals),
            "my_peche": None if self.my_peche is None else list(self.my_peche),
            "my_cast": self.my_cast,
        }


# --- the rules -----------------------------------------------------------------------------------


class FishFish(Rules):
    id = "fishfish"
    title = "Fish Fish"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    action_fields = ACTION_FIELDS

    def new_game(self, players: int, options: Mapping[str, str]) -> State:
        self.check_players(players)
        opts = parse_options(players, options)
        state = State(
            players=players,
            options=opts,
            phase=START,
            round=1,
            first=0,
            fisherman=0,
            turn=0,
            baits=tuple(sorted(BAIT_CARDS)),
            lines=(),
            hands=(0,) * players,
            butins=(EMPTY_BUTIN,) * players,
            captured=0,
            history=(),
            casts=(),
        )
        return state if opts.start is None else _new_round(state._replace(first=opts.start), 1)

    def chance(self, state: State) -> ChanceRequest | None:
        if state.phase == START:
            return start_draw(state.players)
        return None

    def to_act(self, state: State) -> tuple[int, ...]:
        phase = state.phase
        if phase in (BAIT, CAST, REVEAL):
            return (state.fisherman,)
        if phase == BET:
            return (state.order[state.turn],)
        return ()

    def reveal_due(self, state: State, seat: int) -> bool:
        return state.phase == REVEAL and seat == state.fisherman

    def legal_actions(self, state: State, seat: int, known: Known) -> Sequence[Action]:
        if seat not in self.to_act(state):
            return ()
        phase = state.phase
        if phase == BAIT:
            return tuple(BAITS[value] for value in sorted(set(state.baits)))
        if phase == CAST:
            return tuple(Cast(state.purpose, kind) for kind in PECHE_KINDS if kind in peche_left(state, known))
        if phase == BET:
            return BETS[: state.hands[seat] + 1]
        secret = known.get(state.purpose)
        return () if secret is None else (Reveal(state.purpose, secret),)

    # --- applying actions ---

    def apply(self, state: State, seat: int | None, action: Action) -> State:
        if seat is None:
            return self._apply_chance(state, action)
        check_turn(seat, state.players, self.to_act(state), state.phase)
        if isinstance(action, SecretChoice):
            raise IllegalAction(f"a secret choice is never applied, only its commitment ({action.purpose})", seat)
        phase = state.phase
        if phase == BAIT:
            return self._apply_bait(state, seat, action)
        if phase == CAST:
            return self._apply_commit(state, seat, action)
        if phase == BET:
            return self._apply_bet(state, seat, action)
        return self._apply_reveal(state, seat, action)

    def _apply_chance(self, state: State, action: Action) -> State:
        first = drawn_seat(due_chance(self.chance(state), state.phase), action)
        return _new_round(state._replace(first=first), 1)

    def _apply_bait(self, state: State, seat: int, action: Action) -> State:
        action = expect(action, Bait, seat, "lay a bait card to start the line")
        if action.value not in state.baits:
            held = ", ".join(str(b) for b in state.baits)
            raise IllegalAction(f"you hold no bait card {action.value} (left: {held})", seat)
        baits = list(state.baits)
        baits.remove(action.value)
        line = Line(action.value, False, (0,) * state.players, None, False)
        return state._replace(phase=CAST, baits=tuple(baits), lines=(*state.lines, line))

    def _apply_commit(self, state: State, seat: int, action: Action) -> State:
        action = expect(action, Commit, seat, "put a Pêche card under the line (a commitment)")
        if action.purpose != state.purpose:
            raise IllegalAction(
                f"commitment for {shown_value(action.purpose)}, expected {shown_value(state.purpose)}", seat
            )
        line = state.lines[-1]._replace(committed=True)
        committed = state._replace(
            lines=(*state.lines[:-1], line), casts=(*state.casts, (state.round, seat, action.purpose))
        )
        if state.line == LINES:
            bets = state.hands  # the last line: every Fish player bets all he still holds
            line = line._replace(bets=bets)
            return self._check(committed._replace(lines=(*state.lines[:-1], line), hands=(0,) * state.players))
        return self._next_bettor(committed._replace(phase=BET), 0)

    def _apply_bet(self, state: State, seat: int, action: Action) -> State:
        action = expect(action, Bet, seat, "bet 0 or more tiles on the line")
        hand = state.hands[seat]
        if not 0 <= action.tiles <= hand:
            raise IllegalAction(f"you can bet 0 to {hand} tiles (the tiles in your hand), not {action.tiles}", seat)
        line = state.lines[-1]
        line = line._replace(bets=replace_at(line.bets, seat, action.tiles))
        bet = state._replace(lines=(*state.lines[:-1], line), hands=replace_at(state.hands, seat, hand - action.tiles))
        return self._next_bettor(bet, state.turn + 1)

    def _next_bettor(self, state: State, turn: int) -> State:
        """The next Fish player from `turn` on in the betting order who still holds a tile, else the check."""
        order = state.order
        while turn < len(order) and state.hands[order[turn]] == 0:
            turn += 1
        if turn < len(order):
            return state._replace(turn=turn)
        return self._check(state._replace(turn=0))

    def _check(self, state: State) -> State:
        """All bets are in: reveal if any tile was bet, else discard the line unrevealed."""
        line = state.lines[-1]
        if sum(line.bets) > 0:
            return state._replace(phase=REVEAL)
        discarded = state._replace(lines=(*state.lines[:-1], line._replace(checked=True)))
        return self._after_line(discarded)

    def _apply_reveal(self, state: State, seat: int, action: Action) -> State:
        action = expect(action, Reveal, seat, "tiles were bet: reveal the Pêche card of the line")
        if action.purpose != state.purpose:
            raise IllegalAction(f"reveal of {shown_value(action.purpose)}, expected {shown_value(state.purpose)}", seat)
        kind = action.value
        if kind not in PECHE_KINDS:
            raise IllegalAction(f"{shown_value(kind)} is not a Pêche card (prise or bredouille)", seat)
        assert isinstance(kind, str)
        count = state.revealed(kind) + 1
        if count > PECHE_DECK[kind]:
            raise IllegalAction(
                f"a {ORDINALS[count - 1]} {kind.capitalize()} in round {state.round}: "
                f"a Fisherman holds only {PECHE_DECK[kind]}",
                seat,
            )
        line = state.lines[-1]
        if kind == PRISE:
            resolved = state._replace(captured=state.captured + sum(line.bets))
        else:
            butins = tuple(
                _add_to_slot(butin, line.bait, tiles) if tiles else butin
                for butin, tiles in zip(state.butins, line.bets, strict=True)
            )
            resolved = state._replace(butins=butins)
        resolved = resolved._replace(lines=(*state.lines[:-1], line._replace(peche=kind, checked=True)))
        if kind == PRISE and count == PECHE_DECK[PRISE]:
            return self._end_round(self._flush_hands(resolved))
        return self._after_line(resolved)

    def _flush_hands(self, state: State) -> State:
        """Both Prise revealed: every tile still in hand goes to the slot of the highest bait still held."""
        if not any(state.hands):
            return state
        top = max(state.baits)
        butins = tuple(
            _add_to_slot(butin, top, hand) if hand else butin
            for butin, hand in zip(state.butins, state.hands, strict=True)
        )
        return state._replace(butins=butins, hands=(0,) * state.players)

    def _after_line(self, state: State) -> State:
        if state.line == LINES or not any(state.hands):
            return self._end_round(state)
        return state._replace(phase=BAIT)

    def _end_round(self, state: State) -> State:
        ended = state._replace(history=(*state.history, round_scores(state)), turn=0)
        if state.round == rounds_for(state.players):
            return ended._replace(phase=OVER)
        return _new_round(ended, state.round + 1)

    # --- views and outcome ---

    def view(self, state: State, seat: int, known: Known) -> View:
        fisher = seat == state.fisherman and state.phase not in (START, OVER)
        my_cast: str | None = None
        if fisher and state.lines and state.lines[-1].committed and not state.lines[-1].checked:
            secret = known.get(state.purpose)
            my_cast = None if secret is None else str(secret)
        over = state.phase == OVER
        return View(
            seat=seat,
            players=state.players,
            phase=state.phase,
            to_act=self.to_act(state),
            round=state.round,
            rounds=rounds_for(state.players),
            first=state.first,
            fisherman=state.fisherman,
            order=state.order,
            clockwise=state.round % 2 == 1,
            bettor=state.bettor,
            baits=state.baits,
            peche_count=LINES - sum(1 for line in state.lines if line.committed),
            lines=state.lines,
            hands=state.hands,
            butins=state.butins,
            captured=state.captured,
            round_scores=state.history[-1] if over else round_scores(state),
            history=state.history,
            totals=totals(state.history, state.players),
            my_peche=peche_left(state, known) if fisher else None,
            my_cast=my_cast,
        )

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome.highest_wins(totals(state.history, state.players))

    def outcome_so_far(self, state: State, gone: int) -> Outcome | None:
        """The rounds scored so far (a round under way counts nothing yet)."""
        return Outcome.highest_wins(totals(state.history, state.players), gone)

    def audit(self, state: State, opened: Mapping[tuple[int, str], Scalar]) -> None:
        """Every Pêche commitment of the game, open now: each a Pêche card, and per round at most the
        Fisherman's 2 Prise and 3 Bredouille (closed cards included: a bluff with a third Prise that
        nobody bet on shows only here)."""
        by_round: dict[int, list[tuple[int, str]]] = {}
        for round_number, seat, purpose in state.casts:
            by_round.setdefault(round_number, []).append((seat, purpose))
        for round_number, casts in sorted(by_round.items()):
            counts: Counter[str] = Counter()
            for seat, purpose in casts:
                if (seat, purpose) not in opened:
                    raise IllegalAction(f"the Pêche card {purpose} was never opened", seat)
                value = opened[(seat, purpose)]
                if value not in PECHE_KINDS:
                    raise IllegalAction(
                        f"the Pêche card {purpose} opened as {shown_value(value)}, not prise or bredouille", seat
                    )
                assert isinstance(value, str)
                counts[value] += 1
                if counts[value] > PECHE_DECK[value]:
                    raise IllegalAction(
                        f"a {ORDINALS[counts[value] - 1]} {value.capitalize()} in round {round_number} "
                        f"({purpose}): a Fisherman holds only {PECHE_DECK[value]}",
                        seat,
                    )

    def decode_own(self, tag: str, obj: Mapping[str, Json]) -> Action:
        if tag == Kind.BAIT:
            value = int_field(obj, "value")
            if value not in BAITS:
                raise MalformedInput(f"a bait value is one of {list(BAITS)}, not {value}")
            return BAITS[value]
        tiles = int_field(obj, "tiles")
        if not 0 <= tiles < len(BETS):
            raise MalformedInput(f"a bet is 0..{len(BETS) - 1} tiles, not {tiles}")
        return BETS[tiles]


RULES: Final = FishFish()
