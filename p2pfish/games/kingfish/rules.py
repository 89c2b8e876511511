"""King Fish (RULES.md §4, seed 004): hands of a standard deck, three ponds, lines, baits and reeling.

Components: a standard 52-card deck (labels like "AS", "10H", "QD": rank then suit S/H/D/C), ranks
A(1) < 2 .. 10 < J < Q < K. Defaults in one place below: HAND_SIZE, PONDS, POND_SIZE.

A game, in log order:
1. The first dealer: the `start` option, or by default a public draw among the seats (ChanceRequest
   "start"). Round r's dealer is seat (first + r - 1) mod players; there is one round per player.
2. Each round shuffles a fresh deck ``round-<r>`` through the mental-poker deck (ShuffleRequest), deals
   seat s the positions 6s..6s+5 privately (one DealRequest per seat: seat s knows the labels under
   ``card_name(deck, position)``, nobody else does), then turns up the next 9 positions publicly as the
   three ponds of three fish.
3. An excursion:
   - ChoosePond(pond): the chooser is the dealer on the round's first excursion, then the next seat
     clockwise each excursion; an empty pond may not be chosen (with one pond left it is chosen for him).
   - PlayLine(position, label): from the dealer clockwise, each seat plays one hand card face up. It
     turns the card up with the seat's own key (a RevealsCards action): the session checks the key and
     the label.
   - PlayBait(position): from the dealer clockwise, each seat plays one hand card face down. Only its
     deck position is public.
   - Reeling, lowest line first. The seats with the lowest line not yet reeled form a group; each of
     them turns its bait up (RevealCard of the bait's position, a reveal_due move), clockwise from the
     dealer; then they reel in order of bait rank, highest first, ties clockwise from the dealer. A
     reeler must take one fish of the chosen pond that its line and bait catch (see `catches`) with
     Catch(fish); with no such fish it takes nothing, with exactly one it takes that one (no decision:
     the rules apply it by themselves).
   - Line and bait cards are discarded; caught fish are kept as score.
   - Round end: when every pond is empty after reeling, or when the deck holds fewer cards than
     players at the tackle box, or when the players hold fewer than 2 cards at the next excursion
     (with empty hands the tackle box is skipped: one card could not make a line and a bait).
   - Tackle box: the next `players` deck positions are turned up publicly; from the dealer clockwise
     each keeps one with Keep(card) (the last seat keeps the last card by itself).
4. Score: FISH_POINTS per fish, COURT_FISH_POINTS per J/Q/K fish, summed over the rounds; the highest
   total wins and ties share.

Settled here (on top of RULES.md):
- The face-down bait names its deck position, as DESIGN.md prescribes. A card kept from the tackle box is
  public, so a bait that is such a card is known to all: the position gives it away. Every other hand
  card is known only to its holder until it is played face up or turned up at reeling.
- Equal lines are ordered by bait rank, so the baits of a tied group are all turned up before any of
  them reels (a lone lowest line turns its bait and reels at once, as the rulebook says).
- Cards left in hand at the end of a round are discarded with it.

Wire forms: {"t": "pond", "pond": 0..2}, {"t": "line", "position": p, "label": L}, {"t": "bait",
"position": p}, {"t": "catch", "fish": L}, {"t": "keep", "card": L}, and the core "reveal-card" (a bait
turned up) and "chance"; decode_action refuses any other field, an unknown tag and a bad label.
"""

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, NamedTuple

from p2pfish.core.actions import Action, RevealCard, TurnsUpCard, card_name
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
from p2pfish.core.options import check_known, start_seat
from p2pfish.core.rules_parts import Rules, check_shuffled, dealt_labels, drawn_seat, expect, start_draw
from p2pfish.core.text import shown_value
from p2pfish.core.wire import Json, int_field, str_field

# --- components (the defaults of RULES.md §4) -----------------------------------------------------

SUITS: Final = ("S", "H", "D", "C")
RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_VALUES: Final = {name: value for value, name in enumerate(RANKS, start=1)}
COURT: Final = RANK_VALUES["J"]
"""J, Q and K: court fish are caught only with a court line."""
DECK_LABELS: Final = tuple(rank + suit for suit in SUITS for rank in RANKS)
HAND_SIZE: Final = 6
PONDS: Final = 3
POND_SIZE: Final = 3
FISH_POINTS: Final = 1
COURT_FISH_POINTS: Final = 2
MIN_HAND: Final = 2
"""A round ends when the players hold fewer cards than this (a line and a bait)."""
MIN_PLAYERS, MAX_PLAYERS = 2, 5


class Phase(StrEnum):
    """The phases: the first dealer's draw; a round's shuffle, hands and ponds dealt; an excursion's pond chosen,
    lines, baits, reeling, the tackle box dealt and kept; the end."""

    START = "start"
    SHUFFLE = "shuffle"
    DEAL = "deal"
    POND_DEAL = "pond-deal"
    CHOOSE = "choose"
    LINE = "line"
    BAIT = "bait"
    REEL = "reel"
    TACKLE_DEAL = "tackle-deal"
    TACKLE = "tackle"
    OVER = "over"


START, SHUFFLE, DEAL, POND_DEAL, CHOOSE, LINE, BAIT, REEL, TACKLE_DEAL, TACKLE, OVER = Phase

assert len(DECK_LABELS) >= MAX_PLAYERS * HAND_SIZE + PONDS * POND_SIZE + MAX_PLAYERS


def rank(label: str) -> int:
    return _RANK_OF[label] if label in _RANK_OF else RANK_VALUES[label[:-1]]


def suit(label: str) -> str:
    return label[-1]


_RANK_OF: Final = {label: RANK_VALUES[label[:-1]] for label in DECK_LABELS}
"""Every card's rank, looked up (the search's playouts ask it millions of times)."""


def is_label(text: str) -> bool:
    return text in _LABEL_SET


_LABEL_SET: Final = frozenset(DECK_LABELS)


def catches(line: str, bait: str, fish: str) -> bool:
    """Whether a line and a bait catch a fish: same suit as the bait and, for a number line, a lower
    number; a court line (J/Q/K) catches every fish of the suit, court fish included."""
    return fish in CAUGHT[line][bait[-1]]


CAUGHT: Final = {
    line: {
        bait_suit: frozenset(
            fish
            for fish in DECK_LABELS
            if suit(fish) == bait_suit and (_RANK_OF[line] >= COURT or _RANK_OF[fish] < _RANK_OF[line])
        )
        for bait_suit in SUITS
    }
    for line in DECK_LABELS
}
"""The fish a line catches with a bait of each suit (`catches`, precomputed)."""


def fish_points(label: str) -> int:
    return COURT_FISH_POINTS if rank(label) >= COURT else FISH_POINTS


def round_deck(round_number: int) -> str:
    return _ROUND_DECKS[round_number] if round_number < len(_ROUND_DECKS) else f"round-{round_number}"


_ROUND_DECKS: Final = tuple(f"round-{r}" for r in range(MAX_PLAYERS + 1))


@functools.cache
def clockwise_from(first: int, players: int) -> tuple[int, ...]:
    return tuple((first + k) % players for k in range(players))


# --- actions -------------------------------------------------------------------------------------


class Kind(StrEnum):
    """The tags ("t") of this game's own actions."""

    POND = "pond"
    LINE = "line"
    BAIT = "bait"
    CATCH = "catch"
    KEEP = "keep"


@dataclass(frozen=True, slots=True)
class ChoosePond(Action, tag=Kind.POND):
    pond: int

    def __str__(self) -> str:
        return f"chose pond {self.pond + 1}"


@dataclass(frozen=True, slots=True)
class PlayLine(TurnsUpCard, tag=Kind.LINE, said="cast a line of {label}"):
    """A hand card played face up as the seat's line: its keys travel with the action."""


@dataclass(frozen=True, slots=True)
class PlayBait(Action, tag=Kind.BAIT, said="put a bait face down"):
    """A hand card played face down as the seat's bait: only its deck position is public."""

    position: int


@dataclass(frozen=True, slots=True)
class Catch(Action, tag=Kind.CATCH, said="caught {fish}"):
    fish: str


@dataclass(frozen=True, slots=True)
class Keep(Action, tag=Kind.KEEP, said="kept {card} from the tackle box"):
    card: str


ACTION_FIELDS: Final[Mapping[str, set[str]]] = {
    Kind.POND: {"t", "pond"},
    Kind.LINE: {"t", "deck", "position", "label"},
    Kind.BAIT: {"t", "position"},
    Kind.CATCH: {"t", "fish"},
    Kind.KEEP: {"t", "card"},
}


# --- options -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Options:
    start: int | None = None
    """The first dealer chosen in the lobby; None draws him with chance."""


def parse_options(players: int, raw: Mapping[str, str]) -> Options:
    check_known("kingfish", raw, ("start",))
    return Options(start=start_seat(raw, players))


# --- state ---------------------------------------------------------------------------------------


class State(NamedTuple):
    """Immutable. Cards are deck positions of the current round's deck; `shown` holds the label of every
    position turned up publicly this round (a hand card's label is only in its holder's Known)."""

    players: int
    options: Options
    phase: Phase
    first: int
    """The first round's dealer."""
    round: int
    """1-based; the last round stays current once the game is over."""
    dealt: int
    """Hands dealt so far this round."""
    next_position: int
    """The next deck position to deal from."""
    shown: tuple[str | None, ...]
    hands: tuple[tuple[int, ...], ...]
    ponds: tuple[tuple[int, ...], ...]
    excursion: int
    """1-based within the round (0 before the first)."""
    pond: int | None
    """The pond chosen for this excursion."""
    lines: tuple[int | None, ...]
    baits: tuple[int | None, ...]
    reeled: tuple[bool, ...]
    reel_log: tuple[tuple[int, str | None], ...]
    """(seat, fish caught or None) in reeling order, this excursion."""
    tackle: tuple[int, ...]
    """Tackle-box cards not yet kept."""
    discarded: tuple[int, ...]
    caught: tuple[tuple[str, ...], ...]
    """Fish each seat caught this round."""
    history: tuple[tuple[int, ...], ...]
    """The points of every finished round, by seat."""

    @property
    def deck(self) -> str:
        return round_deck(self.round)

    @property
    def dealer(self) -> int:
        return (self.first + self.round - 1) % self.players

    @property
    def order(self) -> tuple[int, ...]:
        """Seats clockwise from the dealer."""
        return clockwise_from(self.dealer, self.players)

    @property
    def chooser(self) -> int:
        return (self.dealer + max(self.excursion, 1) - 1) % self.players

    @property
    def kept(self) -> int:
        """Seats that kept a tackle-box card so far this excursion (one card per seat was turned up)."""
        return self.players - len(self.tackle)

    @property
    def deck_left(self) -> int:
        return len(DECK_LABELS) - self.next_position


def label_at(state: State, known: Known, position: int) -> str | None:
    """A card's label as one seat knows it: public, or in its own knowledge."""
    public = state.shown[position]
    if public is not None:
        return public
    label = known.get(card_name(state.deck, position))
    return None if label is None else str(label)


def round_points(caught: tuple[str, ...]) -> int:
    return sum(fish_points(fish) for fish in caught)


def totals(state: State) -> tuple[int, ...]:
    """Points of the finished rounds plus this round's catches so far (once the game is over, the last
    round's catches are in the history already)."""
    playing = len(state.history) < state.round
    return tuple(
        sum(scores[seat] for scores in state.history) + (round_points(state.caught[seat]) if playing else 0)
        for seat in range(state.players)
    )


def pond_labels(state: State, pond: int) -> tuple[str, ...]:
    return tuple(str(state.shown[p]) for p in state.ponds[pond])


def catchable(state: State, seat: int) -> tuple[str, ...]:
    """The fish of the chosen pond that seat's line and (turned-up) bait catch."""
    line, bait = state.lines[seat], state.baits[seat]
    if state.pond is None or line is None or bait is None:
        return ()
    line_label, bait_label = state.shown[line], state.shown[bait]
    if line_label is None or bait_label is None:
        return ()
    return tuple(fish for fish in pond_labels(state, state.pond) if catches(line_label, bait_label, fish))


def _line_rank(state: State, seat: int) -> int:
    position = state.lines[seat]
    assert position is not None
    return rank(str(state.shown[position]))


def _bait_label(state: State, seat: int) -> str | None:
    position = state.baits[seat]
    return None if position is None else state.shown[position]


def reel_step(state: State) -> tuple[str, int] | None:
    """("turn", seat) when a seat must turn its bait up, ("catch", seat) when it reels, None when done."""
    shown, lines, reeled = state.shown, state.lines, state.reeled
    group: list[int] = []
    lowest = 0
    for seat in clockwise_from(state.dealer, state.players):
        if reeled[seat]:
            continue
        line = lines[seat]
        assert line is not None
        line_rank = _RANK_OF[str(shown[line])]
        if not group or line_rank < lowest:
            group, lowest = [seat], line_rank
        elif line_rank == lowest:
            group.append(seat)
    if not group:
        return None
    for seat in group:
        if _bait_label(state, seat) is None:
            return ("turn", seat)
    return ("catch", max(group, key=lambda seat: rank(str(_bait_label(state, seat)))))


def _fresh_excursion(state: State) -> State:
    players = state.players
    return state._replace(
        pond=None,
        lines=(None,) * players,
        baits=(None,) * players,
        reeled=(False,) * players,
        reel_log=(),
        tackle=(),
    )


def _new_round(state: State, round_number: int) -> State:
    players = state.players
    return _fresh_excursion(state)._replace(
        phase=SHUFFLE,
        round=round_number,
        dealt=0,
        next_position=0,
        shown=(None,) * len(DECK_LABELS),
        hands=((),) * players,
        ponds=((),) * PONDS,
        excursion=0,
        discarded=(),
        caught=((),) * players,
    )


# --- views ---------------------------------------------------------------------------------------


class View(NamedTuple):
    """What one seat sees: its own hand's labels, and of the other hands only their size and the
    tackle-box cards they kept (public when kept)."""

    seat: int
    players: int
    phase: Phase
    to_act: tuple[int, ...]
    round: int
    rounds: int
    dealer: int
    chooser: int
    excursion: int
    hand: tuple[tuple[int, str], ...]
    """My hand: (deck position, label)."""
    hand_sizes: tuple[int, ...]
    public_in_hand: tuple[tuple[str, ...], ...]
    """Cards each seat holds that everyone saw it keep from the tackle box."""
    ponds: tuple[tuple[str, ...], ...]
    pond: int | None
    lines: tuple[str | None, ...]
    baits_down: tuple[bool, ...]
    """Which seats have a bait face down (not yet turned up)."""
    baits: tuple[str | None, ...]
    """Baits turned up."""
    my_bait: str | None
    """My own bait, face down or not."""
    reeled: tuple[bool, ...]
    reel_log: tuple[tuple[int, str | None], ...]
    catchable: tuple[str, ...]
    """The fish I may take now (when I reel)."""
    tackle: tuple[str, ...]
    deck_left: int
    caught: tuple[tuple[str, ...], ...]
    """This round's catches."""
    history: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    """Totals so far: finished rounds plus this round's catches."""


# --- the rules -----------------------------------------------------------------------------------


class KingFish(Rules):
    id = "kingfish"
    title = "King Fish"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    action_fields = ACTION_FIELDS

    def new_game(self, players: int, options: Mapping[str, str]) -> State:
        self.check_players(players)
        opts = parse_options(players, options)
        blank = State(
            players=players,
            options=opts,
            phase=START,
            first=0,
            round=1,
            dealt=0,
            next_position=0,
            shown=(None,) * len(DECK_LABELS),
            hands=((),) * players,
            ponds=((),) * PONDS,
            excursion=0,
            pond=None,
            lines=(None,) * players,
            baits=(None,) * players,
            reeled=(False,) * players,
            reel_log=(),
            tackle=(),
            discarded=(),
            caught=((),) * players,
            history=(),
        )
        if opts.start is None:
            return blank
        return _new_round(blank._replace(first=opts.start), 1)

    def chance(self, state: State) -> ChanceEvent | None:
        phase = state.phase
        if phase == START:
            return start_draw(state.players)
        if phase == SHUFFLE:
            return ShuffleRequest(state.deck, DECK_LABELS)
        if phase == DEAL:
            first = state.dealt * HAND_SIZE
            return DealRequest(state.deck, tuple(range(first, first + HAND_SIZE)), state.dealt)
        if phase == POND_DEAL:
            return DealRequest(state.deck, _next_positions(state, PONDS * POND_SIZE), None)
        if phase == TACKLE_DEAL:
            return DealRequest(state.deck, _next_positions(state, state.players), None)
        return None

    def to_act(self, state: State) -> tuple[int, ...]:
        phase = state.phase
        if phase == CHOOSE:
            return (state.chooser,)
        if phase == LINE:
            return (next(seat for seat in state.order if state.lines[seat] is None),)
        if phase == BAIT:
            return (next(seat for seat in state.order if state.baits[seat] is None),)
        if phase == REEL:
            step = reel_step(state)
            assert step is not None
            return (step[1],)
        if phase == TACKLE:
            return (state.order[state.kept],)
        return ()

    def reveal_due(self, state: State, seat: int) -> bool:
        if state.phase != REEL:
            return False
        step = reel_step(state)
        return step == ("turn", seat)

    # --- legal actions ---

    def legal_actions(self, state: State, seat: int, known: Known) -> Sequence[Action]:
        if seat not in self.to_act(state):
            return ()
        phase = state.phase
        if phase == CHOOSE:
            return [ChoosePond(pond) for pond in range(PONDS) if state.ponds[pond]]
        if phase == LINE:
            return [
                PlayLine(state.deck, position, label)
                for position in state.hands[seat]
                if (label := label_at(state, known, position)) is not None
            ]
        if phase == BAIT:
            return [PlayBait(position) for position in state.hands[seat]]
        if phase == REEL:
            step = reel_step(state)
            if step == ("turn", seat):
                position = state.baits[seat]
                assert position is not None
                label = label_at(state, known, position)
                return () if label is None else (RevealCard(state.deck, position, label),)
            return [Catch(fish) for fish in catchable(state, seat)]
        return [Keep(label) for label in dict.fromkeys(str(state.shown[p]) for p in state.tackle)]

    # --- applying actions ---

    def apply(self, state: State, seat: int | None, action: Action) -> State:
        if seat is None:
            return self._apply_chance(state, action)
        check_turn(seat, state.players, self.to_act(state), state.phase)
        phase = state.phase
        if phase == CHOOSE:
            return self._apply_pond(state, seat, expect(action, ChoosePond, seat, "choose a pond"))
        if phase == LINE:
            return self._apply_line(
                state, seat, expect(action, PlayLine, seat, "play a hand card face up as your line")
            )
        if phase == BAIT:
            return self._apply_bait(
                state, seat, expect(action, PlayBait, seat, "play a hand card face down as your bait")
            )
        if phase == REEL:
            return self._apply_reel(state, seat, action)
        return self._apply_keep(state, seat, expect(action, Keep, seat, "keep one card of the tackle box"))

    def _apply_chance(self, state: State, action: Action) -> State:
        request = due_chance(self.chance(state), state.phase)
        if isinstance(request, ChanceRequest):
            return _new_round(state._replace(first=drawn_seat(request, action)), 1)
        if isinstance(request, ShuffleRequest):
            check_shuffled(request, action)
            return state._replace(phase=DEAL)
        labels = dealt_labels(request, action)
        if labels is not None and not all(is_label(label) for label in labels):
            raise IllegalAction(f"the deal turned up a card that is not in the deck: {labels}")
        if request.to is not None:
            hands = replace_at(state.hands, request.to, request.positions)
            dealt = state.dealt + 1
            return state._replace(
                hands=hands,
                dealt=dealt,
                next_position=dealt * HAND_SIZE,
                phase=DEAL if dealt < state.players else POND_DEAL,
            )
        assert labels is not None
        shown = _show(state.shown, request.positions, labels)
        next_position = request.positions[-1] + 1
        if state.phase == POND_DEAL:
            ponds = tuple(request.positions[k * POND_SIZE : (k + 1) * POND_SIZE] for k in range(PONDS))
            started = state._replace(shown=shown, ponds=ponds, next_position=next_position)
            return self._next_excursion(started)
        return self._settle_tackle(
            state._replace(shown=shown, tackle=request.positions, next_position=next_position, phase=TACKLE)
        )

    def _next_excursion(self, state: State) -> State:
        if len(state.hands[state.dealer]) < MIN_HAND:
            return self._end_round(state)
        started = _fresh_excursion(state)._replace(phase=CHOOSE, excursion=state.excursion + 1)
        open_ponds = [pond for pond in range(PONDS) if started.ponds[pond]]
        if len(open_ponds) == 1:
            return started._replace(phase=LINE, pond=open_ponds[0])
        return started

    def _apply_pond(self, state: State, seat: int, action: ChoosePond) -> State:
        if not 0 <= action.pond < PONDS or not state.ponds[action.pond]:
            raise IllegalAction(f"pond {action.pond + 1} is empty or does not exist: choose a pond with fish", seat)
        return state._replace(phase=LINE, pond=action.pond)

    def _hand_card(self, state: State, seat: int, position: int, what: str) -> tuple[int, ...]:
        """The seat's hand without `position`, which must be in it."""
        hand = state.hands[seat]
        if position not in hand:
            raise IllegalAction(f"played deck position {position} as its {what}, a card it does not hold", seat)
        return tuple(p for p in hand if p != position)

    def _apply_line(self, state: State, seat: int, action: PlayLine) -> State:
        if action.deck != state.deck:
            raise IllegalAction(f"played a card of {action.deck}, but this round's deck is {state.deck}", seat)
        hand = self._hand_card(state, seat, action.position, "line")
        _check_face(state, seat, action.position, action.label, "line card")
        lines = replace_at(state.lines, seat, action.position)
        shown = _show(state.shown, (action.position,), (action.label,))
        phase = BAIT if None not in lines else LINE
        return state._replace(hands=replace_at(state.hands, seat, hand), lines=lines, shown=shown, phase=phase)

    def _apply_bait(self, state: State, seat: int, action: PlayBait) -> State:
        hand = self._hand_card(state, seat, action.position, "bait")
        baits = replace_at(state.baits, seat, action.position)
        played = state._replace(hands=replace_at(state.hands, seat, hand), baits=baits)
        if None in baits:
            return played
        return self._settle_reel(played._replace(phase=REEL))

    def _apply_reel(self, state: State, seat: int, action: Action) -> State:
        step = reel_step(state)
        if step == ("turn", seat):
            action = expect(action, RevealCard, seat, "turn your bait up")
            if action.deck != state.deck or action.position != state.baits[seat]:
                raise IllegalAction(
                    f"turned up {action.deck} position {action.position}, not the bait it played "
                    f"(position {state.baits[seat]})",
                    seat,
                )
            _check_face(state, seat, action.position, action.label, "bait")
            shown = _show(state.shown, (action.position,), (action.label,))
            return self._settle_reel(state._replace(shown=shown))
        action = expect(action, Catch, seat, "take a fish your line and bait catch")
        if action.fish not in catchable(state, seat):
            raise IllegalAction(f"{action.fish} is not a fish in pond {_pond_number(state)} that you can catch", seat)
        return self._settle_reel(_catch(state, seat, action.fish))

    def _settle_reel(self, state: State) -> State:
        """Reel every seat that has no choice to make (no fish, or just one), until a decision is due."""
        while (step := reel_step(state)) is not None:
            kind, seat = step
            if kind == "turn":
                return state
            options = catchable(state, seat)
            if len(options) > 1:
                return state
            if options:
                state = _catch(state, seat, options[0])
            else:
                state = state._replace(
                    reeled=replace_at(state.reeled, seat, True), reel_log=(*state.reel_log, (seat, None))
                )
        return self._end_excursion(state)

    def _end_excursion(self, state: State) -> State:
        played = tuple(p for p in (*state.lines, *state.baits) if p is not None)
        state = state._replace(discarded=(*state.discarded, *played))
        if not any(state.ponds):
            return self._end_round(state)
        if state.deck_left < state.players or len(state.hands[state.dealer]) + 1 < MIN_HAND:
            return self._end_round(state)
        return state._replace(phase=TACKLE_DEAL)

    def _apply_keep(self, state: State, seat: int, action: Keep) -> State:
        position = next((p for p in state.tackle if state.shown[p] == action.card), None)
        if position is None:
            raise IllegalAction(f"{action.card} is not in the tackle box", seat)
        return self._settle_tackle(_keep(state, seat, position))

    def _settle_tackle(self, state: State) -> State:
        if len(state.tackle) == 1:
            state = _keep(state, state.order[state.kept], state.tackle[0])
        if state.tackle:
            return state
        return self._next_excursion(state)

    def _end_round(self, state: State) -> State:
        leftovers = tuple(p for hand in state.hands for p in hand)
        history = (*state.history, tuple(round_points(fish) for fish in state.caught))
        ended = state._replace(history=history, discarded=(*state.discarded, *leftovers), hands=((),) * state.players)
        if state.round == state.players:
            return ended._replace(phase=OVER)
        return _new_round(ended, state.round + 1)

    # --- views and outcome ---

    def view(self, state: State, seat: int, known: Known) -> View:
        shown, deck = state.shown, state.deck
        hand = []
        for p in state.hands[seat]:
            label = shown[p]
            if label is None:
                secret = known.get(card_name(deck, p))
                if secret is None:
                    continue
                label = str(secret)
            hand.append((p, label))
        my_bait_position = state.baits[seat]
        baits = tuple(None if p is None else shown[p] for p in state.baits)
        reeling = state.phase == REEL and reel_step(state) == ("catch", seat)
        return View(
            seat=seat,
            players=state.players,
            phase=state.phase,
            to_act=self.to_act(state),
            round=state.round,
            rounds=state.players,
            dealer=state.dealer,
            chooser=state.chooser,
            excursion=state.excursion,
            hand=tuple(hand),
            hand_sizes=tuple(len(h) for h in state.hands),
            public_in_hand=tuple(tuple(str(shown[p]) for p in h if shown[p] is not None) for h in state.hands),
            ponds=tuple(tuple(str(shown[p]) for p in pond) for pond in state.ponds),
            pond=state.pond,
            lines=tuple(None if p is None else shown[p] for p in state.lines),
            baits_down=tuple(p is not None and b is None for p, b in zip(state.baits, baits, strict=True)),
            baits=baits,
            my_bait=None if my_bait_position is None else label_at(state, known, my_bait_position),
            reeled=state.reeled,
            reel_log=state.reel_log,
            catchable=catchable(state, seat) if reeling else (),
            tackle=tuple(str(shown[p]) for p in state.tackle),
            deck_left=state.deck_left,
            caught=state.caught,
            history=state.history,
            scores=totals(state),
        )

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome.highest_wins(totals(state))

    def outcome_so_far(self, state: State, gone: int) -> Outcome | None:
        """The rounds scored so far and this round's catches."""
        return Outcome.highest_wins(totals(state), gone)

    def decode_own(self, tag: str, obj: Mapping[str, Json]) -> Action:
        if tag == Kind.POND:
            return ChoosePond(int_field(obj, "pond"))
        if tag == Kind.LINE:
            return PlayLine(str_field(obj, "deck"), int_field(obj, "position"), _label_field(obj, "label"))
        if tag == Kind.BAIT:
            return PlayBait(int_field(obj, "position"))
        if tag == Kind.CATCH:
            return Catch(_label_field(obj, "fish"))
        return Keep(_label_field(obj, "card"))


def _label_field(obj: Mapping[str, Json], name: str) -> str:
    label = str_field(obj, name)
    if not is_label(label):
        raise MalformedInput(f"{shown_value(label)} is not a card of the deck (rank A,2..10,J,Q,K then suit S,H,D,C)")
    return label


def _check_face(state: State, seat: int, position: int, label: str, what: str) -> None:
    """A card turned up must be named as a card of the deck, as itself when it is public already, and not
    as a card already on the table (its keys prove the rest, in the session)."""
    public = state.shown[position]
    if not is_label(label) or (public is not None and public != label):
        raise IllegalAction(f"named its {what} {shown_value(label)}, which is not the card it played there", seat)
    if public is None and label in state.shown:
        raise IllegalAction(f"named its {what} {label}, which is already on the table", seat)


def _next_positions(state: State, count: int) -> tuple[int, ...]:
    return tuple(range(state.next_position, state.next_position + count))


def _show(shown: tuple[str | None, ...], positions: Sequence[int], labels: Sequence[str]) -> tuple[str | None, ...]:
    updated = list(shown)
    for position, label in zip(positions, labels, strict=True):
        updated[position] = label
    return tuple(updated)


def _pond_number(state: State) -> int:
    return -1 if state.pond is None else state.pond + 1


def _catch(state: State, seat: int, fish: str) -> State:
    assert state.pond is not None
    pond = state.ponds[state.pond]
    position = next(p for p in pond if state.shown[p] == fish)
    return state._replace(
        ponds=replace_at(state.ponds, state.pond, tuple(p for p in pond if p != position)),
        caught=replace_at(state.caught, seat, (*state.caught[seat], fish)),
        reeled=replace_at(state.reeled, seat, True),
        reel_log=(*state.reel_log, (seat, fish)),
    )


def _keep(state: State, seat: int, position: int) -> State:
    return state._replace(
        hands=replace_at(state.hands, seat, (*state.hands[seat], position)),
        tackle=tuple(p for p in state.tackle if p != position),
    )


RULES: Final = KingFish()
