"""Scenario tests for the King Fish rules (RULES.md §4, the rulebook in seeds/004).

Scenarios fix the first dealer with the `start` option. A `Table` answers chance the way a driver does,
with a deck order the scenario picks: the ShuffleRequest gets that order (52 labels by position), a
private deal puts each label into the seat's own knowledge under `card_name(deck, position)`, a public
deal turns the labels up. Hands are written as strings of labels ("10C KS KH"); a hand shorter than six
cards is filled up with unnamed cards.

A "dry" deck puts the nine J/Q/K of spades, hearts and diamonds in the ponds and the J/Q/K of clubs at the
bottom of the deck, where no round reaches: every card a seat ever holds is then a number card, which
never catches a court fish, so nothing is ever caught whatever the seats play.
Seats sit clockwise: the next seat clockwise from seat s is seat s+1.
"""

import json
from collections.abc import Mapping
from typing import Any

import pytest
from conformance_helpers import illegal_checker

from p2pfish.core.actions import Action, Chance, Dealt, RevealCard, Shuffled, card_name
from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import ChanceRequest, DealRequest, ShuffleRequest
from p2pfish.core.wire import Scalar
from p2pfish.games.kingfish import rules as kingfish
from p2pfish.games.kingfish.rules import (
    BAIT,
    CHOOSE,
    DECK_LABELS,
    HAND_SIZE,
    LINE,
    OVER,
    REEL,
    RULES,
    SHUFFLE,
    TACKLE,
    State,
    View,
    catches,
    fish_points,
)

DRY_PONDS = "JS QS KS JH QH KH JD QD KD"
DRY_LAST = "JC QC KC"


# --- helpers -------------------------------------------------------------------------------------


def deck_order(players: int, hands: Mapping[int, str], ponds: str, tackle: str = "", last: str = "") -> list[str]:
    """52 labels by position: the hands (filled up with unnamed cards), the ponds, the tackle-box cards in
    the order they are turned up, the unnamed rest, and `last` at the bottom."""
    named = [label for text in (*hands.values(), ponds, tackle, last) for label in text.split()]
    assert len(set(named)) == len(named), "a card named twice"
    assert set(named) <= set(DECK_LABELS)
    filler = iter([label for label in DECK_LABELS if label not in named])
    order: list[str] = []
    for seat in range(players):
        cards = hands.get(seat, "").split()
        assert len(cards) <= HAND_SIZE
        order += cards + [next(filler) for _ in range(HAND_SIZE - len(cards))]
    assert len(ponds.split()) == 9
    order += [*ponds.split(), *tackle.split(), *filler, *last.split()]
    assert sorted(order) == sorted(DECK_LABELS)
    return order


class Table:
    """A rules-only table: the state, each seat's knowledge of its own cards, and the deck orders."""

    def __init__(self, players: int, start: int = 0) -> None:
        self.players = players
        self.state: State = RULES.new_game(players, {"start": str(start)})
        self.known: list[dict[str, Scalar]] = [{} for _ in range(players)]
        self.decks: dict[str, list[str]] = {}
        self.log: list[tuple[int | None, Action]] = []

    # chance

    def deal(
        self, hands: Mapping[int, str] | None = None, ponds: str = DRY_PONDS, tackle: str = "", last: str = DRY_LAST
    ) -> None:
        """Fix the order of this round's deck, then shuffle and deal it."""
        assert isinstance(RULES.chance(self.state), ShuffleRequest)
        self.decks[self.state.deck] = deck_order(self.players, hands or {}, ponds, tackle, last)
        self.settle()

    def settle(self) -> None:
        """Answer every chance event due, as long as this round's deck order is known."""
        while (request := RULES.chance(self.state)) is not None:
            if isinstance(request, ChanceRequest) or request.deck not in self.decks:
                return
            order = self.decks[request.deck]
            action: Action
            if isinstance(request, ShuffleRequest):
                action = Shuffled(request.deck, len(request.labels))
            elif request.to is None:
                action = Dealt(request.deck, request.positions, None, tuple(order[p] for p in request.positions))
            else:
                for position in request.positions:
                    self.known[request.to][card_name(request.deck, position)] = order[position]
                action = Dealt(request.deck, request.positions, request.to, None)
            self.state = RULES.apply(self.state, None, action)
            self.log.append((None, action))

    # moves

    def play(self, seat: int, action: Action) -> State:
        self.state = RULES.apply(self.state, seat, action)
        self.log.append((seat, action))
        self.settle()
        return self.state

    def pos(self, label: str) -> int:
        return self.decks[self.state.deck].index(label)

    def actor(self) -> int:
        (seat,) = RULES.to_act(self.state)
        return seat

    def choose(self, pond: int) -> int:
        seat = self.actor()
        self.play(seat, kingfish.ChoosePond(pond))
        return seat

    def line(self, seat: int, label: str) -> None:
        self.play(seat, kingfish.PlayLine(self.state.deck, self.pos(label), label))

    def bait(self, seat: int, label: str) -> None:
        self.play(seat, kingfish.PlayBait(self.pos(label)))

    def cast(self, lines: str, baits: str) -> list[int]:
        """Every seat's line then bait (labels by seat), each when its turn comes; returns the order."""
        order = []
        line_of, bait_of = lines.split(), baits.split()
        for _ in range(self.players):
            seat = self.actor()
            order.append(seat)
            self.line(seat, line_of[seat])
        for _ in range(self.players):
            seat = self.actor()
            order.append(seat)
            self.bait(seat, bait_of[seat])
        return order

    def turn(self, seat: int) -> State:
        """Turn the seat's bait up: its one legal action; returns the state after it."""
        assert RULES.reveal_due(self.state, seat)
        position = self.state.baits[seat]
        assert position is not None
        action = RevealCard(self.state.deck, position, self.label(seat, position))
        assert RULES.legal_actions(self.state, seat, self.known[seat]) == (action,)
        return self.play(seat, action)

    def reel(self, catches: Mapping[int, str] | None = None) -> list[tuple[str, int]]:
        """Turn the baits and make the catches due (`catches[seat]`), in the order the rules ask for."""
        steps = []
        while self.state.phase == REEL:
            seat = self.actor()
            if RULES.reveal_due(self.state, seat):
                steps.append(("turn", seat))
                self.turn(seat)
            else:
                steps.append(("catch", seat))
                self.play(seat, kingfish.Catch((catches or {})[seat]))
        return steps

    def keep(self, cards: Mapping[int, str] | None = None) -> list[int]:
        """Every due kingfish.Keep (`cards[seat]`, default the first card); returns the seats that chose."""
        order = []
        while self.state.phase == TACKLE:
            seat = self.actor()
            order.append(seat)
            card = (cards or {}).get(seat) or self.view(seat).tackle[0]
            self.play(seat, kingfish.Keep(card))
        return order

    def step(self) -> None:
        """The first legal action of the seat to act."""
        seat = self.actor()
        self.play(seat, RULES.legal_actions(self.state, seat, self.known[seat])[0])

    def dry_round(self) -> State:
        """Deal a dry deck and play the round out with first legal moves; returns the state before the
        move that ended it."""
        self.deal()
        number = self.state.round
        before = self.state
        while self.state.round == number and self.state.phase != OVER:
            before = self.state
            self.step()
        return before

    def view(self, seat: int) -> View:
        return RULES.view(self.state, seat, self.known[seat])

    def label(self, seat: int, position: int) -> str:
        return str(self.known[seat][card_name(self.state.deck, position)])


expect_illegal = illegal_checker(RULES)


def tackle_positions(table: Table) -> list[tuple[int, ...]]:
    """The deck positions of each public deal of one card per player (the tackle boxes) in the log."""
    return [
        action.positions
        for seat, action in table.log
        if isinstance(action, Dealt) and action.to is None and len(action.positions) == table.players
    ]


def tackle_deals(table: Table) -> int:
    """Public deals of one card per player (the tackle boxes) in the log."""
    return len(tackle_positions(table))


# --- setup ---------------------------------------------------------------------------------------


def test_first_dealer_is_drawn_by_chance_by_default() -> None:
    for options in ({}, {"start": "random"}):
        state = RULES.new_game(3, options)
        assert RULES.chance(state) == ChanceRequest("start", (0, 1, 2), 1)
        assert RULES.to_act(state) == ()
        expect_illegal(state, None, Chance((3,)))
        expect_illegal(state, None, Chance((0, 1)))
        expect_illegal(state, None, Shuffled("round-1", 52))
        expect_illegal(state, 0, kingfish.ChoosePond(0))
        drawn = RULES.apply(state, None, Chance((2,)))
        assert (drawn.first, drawn.dealer, drawn.round, drawn.phase) == (2, 2, 1, SHUFFLE)
        assert RULES.chance(drawn) == ShuffleRequest("round-1", DECK_LABELS)


def test_each_round_shuffles_a_fresh_deck_deals_six_private_cards_each_then_three_ponds_face_up() -> None:
    state = RULES.new_game(3, {"start": "1"})
    assert RULES.chance(state) == ShuffleRequest("round-1", DECK_LABELS)
    expect_illegal(state, None, Shuffled("round-2", 52))
    expect_illegal(state, None, Shuffled("round-1", 51))
    state = RULES.apply(state, None, Shuffled("round-1", 52))
    labels = tuple(DECK_LABELS)
    for seat in range(3):
        positions = tuple(range(6 * seat, 6 * seat + 6))
        assert RULES.chance(state) == DealRequest("round-1", positions, seat)
        expect_illegal(state, None, Dealt("round-1", positions, seat, labels[:6]))  # a private deal shows nothing
        expect_illegal(state, None, Dealt("round-1", positions, (seat + 1) % 3, None))
        expect_illegal(state, None, Dealt("round-1", tuple(p + 1 for p in positions), seat, None))
        expect_illegal(state, 0, kingfish.ChoosePond(0))
        state = RULES.apply(state, None, Dealt("round-1", positions, seat, None))
    ponds = tuple(range(18, 27))
    assert RULES.chance(state) == DealRequest("round-1", ponds, None)
    expect_illegal(state, None, Dealt("round-1", ponds, None, None))
    expect_illegal(state, None, Dealt("round-1", ponds, None, ("ZZ",) * 9))
    state = RULES.apply(state, None, Dealt("round-1", ponds, None, labels[18:27]))
    assert RULES.chance(state) is None
    assert state.phase == CHOOSE
    assert state.ponds == ((18, 19, 20), (21, 22, 23), (24, 25, 26))
    assert state.hands == tuple(tuple(range(6 * s, 6 * s + 6)) for s in range(3))
    assert RULES.to_act(state) == (1,)


def test_each_seat_sees_its_own_six_cards_and_the_ponds() -> None:
    t = Table(3, start=1)
    t.deal({1: "AS 2S 3S 4S 5S 6S"}, ponds="2H 3H 4H 5H 6H 7H 2D 3D 4D")
    view = t.view(1)
    assert view.hand == tuple(zip(range(6, 12), ("AS", "2S", "3S", "4S", "5S", "6S"), strict=True))
    assert view.hand_sizes == (6, 6, 6)
    assert view.ponds == (("2H", "3H", "4H"), ("5H", "6H", "7H"), ("2D", "3D", "4D"))
    assert (view.round, view.rounds, view.dealer, view.chooser, view.excursion) == (1, 3, 1, 1, 1)
    assert view.deck_left == 52 - 18 - 9
    assert view.to_act == (1,)
    assert len(t.view(0).hand) == 6 and not {label for _, label in t.view(0).hand} & {"AS", "2S", "3S"}
    assert RULES.view(t.state, 0, {}).hand == ()


# --- the pond ------------------------------------------------------------------------------------


def test_ponds_emptied_one_by_one_choosers_rotate_and_the_last_pond_is_chosen_by_itself() -> None:
    """The EMPTY POND round: three seats empty a pond per excursion; the round ends with fish still in hand
    and cards still in the deck."""
    t = Table(3, start=0)
    t.deal(
        {0: "10C KS KH KD 9C 8C", 1: "7C QS QH QD 6C 5C", 2: "10H JS JH JD 9H 8H"},
        ponds="2S 3S 4S 2H 3H 4H 2D 3D 4D",
    )
    # excursion 1: the dealer chooses
    assert t.view(2).chooser == 0
    assert RULES.legal_actions(t.state, 0, t.known[0]) == [
        kingfish.ChoosePond(0),
        kingfish.ChoosePond(1),
        kingfish.ChoosePond(2),
    ]
    assert RULES.legal_actions(t.state, 1, t.known[1]) == ()
    expect_illegal(t.state, 1, kingfish.ChoosePond(0))
    for bad in (-1, 3):
        expect_illegal(t.state, 0, kingfish.ChoosePond(bad))
    assert t.choose(0) == 0
    t.cast("10C 7C 10H", "KS QS JS")
    assert t.reel({1: "4S", 0: "3S"}) == [("turn", 1), ("catch", 1), ("turn", 0), ("turn", 2), ("catch", 0)]
    assert t.state.reel_log == ((1, "4S"), (0, "3S"), (2, "2S"))
    t.keep()
    # excursion 2: the next seat clockwise chooses; the empty pond cannot be chosen
    assert t.state.phase == CHOOSE and t.state.excursion == 2
    assert t.view(0).chooser == 1 and t.view(0).ponds[0] == ()
    assert RULES.legal_actions(t.state, 1, t.known[1]) == [kingfish.ChoosePond(1), kingfish.ChoosePond(2)]
    error = expect_illegal(t.state, 1, kingfish.ChoosePond(0))
    assert "empty" in error.reason
    expect_illegal(t.state, 0, kingfish.ChoosePond(1))
    assert t.choose(1) == 1
    t.cast("9C 6C 9H", "KH QH JH")
    t.reel({1: "2H", 0: "4H"})
    assert t.state.reel_log == ((1, "2H"), (0, "4H"), (2, "3H"))
    t.keep()
    # excursion 3: one pond left, chosen for seat 2
    assert (t.state.phase, t.state.pond, t.state.excursion) == (LINE, 2, 3)
    assert t.view(0).chooser == 2
    assert RULES.to_act(t.state) == (0,)
    expect_illegal(t.state, 2, kingfish.ChoosePond(2))
    t.cast("8C 5C 8H", "KD QD JD")
    before_end = t.state
    t.reel({1: "3D", 0: "2D"})
    # every pond empty: the round ends at once, with no tackle box, though hands and deck could go on
    assert before_end.deck_left == 52 - 27 - 6 >= 3
    assert all(len(hand) == 2 for hand in before_end.hands)
    assert tackle_deals(t) == 2
    assert t.state.round == 2 and t.state.phase == SHUFFLE
    assert RULES.chance(t.state) == ShuffleRequest("round-2", DECK_LABELS)
    assert t.state.history == ((1 + 1 + 1, 1 + 1 + 1, 1 + 1 + 1),)
    assert t.state.dealer == 1


# --- lines and baits -----------------------------------------------------------------------------


def test_lines_then_baits_are_played_from_the_dealer_clockwise() -> None:
    t = Table(4, start=2)
    t.deal({0: "2C 3C", 1: "4C 5C", 2: "6C 7C", 3: "8C 9C"})
    t.choose(0)
    assert t.state.phase == LINE
    assert t.cast("2C 4C 6C 8C", "3C 5C 7C 9C") == [2, 3, 0, 1, 2, 3, 0, 1]


def test_line_is_face_up_and_bait_face_down() -> None:
    t = Table(4, start=2)
    t.deal({0: "2C 3C", 1: "4C 5C", 2: "6C 7C", 3: "8C 9C"})
    t.choose(1)
    assert RULES.legal_actions(t.state, 2, t.known[2]) == [
        kingfish.PlayLine("round-1", p, t.label(2, p)) for p in range(12, 18)
    ]
    assert RULES.legal_actions(t.state, 3, t.known[3]) == ()
    expect_illegal(t.state, 3, kingfish.PlayLine("round-1", t.pos("8C"), "8C"))  # out of turn
    expect_illegal(t.state, 2, kingfish.PlayBait(t.pos("7C")))  # a bait before the line
    t.line(2, "6C")
    assert t.view(0).lines == (None, None, "6C", None)
    assert t.state.hands[2] == (13, 14, 15, 16, 17)
    for seat, label in ((3, "8C"), (0, "2C"), (1, "4C")):
        t.line(seat, label)
    assert t.state.phase == BAIT
    assert RULES.legal_actions(t.state, 2, t.known[2]) == [kingfish.PlayBait(p) for p in (13, 14, 15, 16, 17)]
    expect_illegal(t.state, 2, kingfish.PlayLine("round-1", t.pos("7C"), "7C"))  # a line after the lines
    t.bait(2, "7C")
    assert t.state.baits[2] == t.pos("7C")
    mine = t.view(2)
    assert (mine.my_bait, mine.baits_down[2], mine.baits[2]) == ("7C", True, None)
    for seat in (0, 1, 3):
        other = t.view(seat)
        assert (other.my_bait, other.baits_down[2], other.baits[2]) == (None, True, None)
        assert "'7C'" not in repr(other)
    assert t.view(3).hand_sizes == (5, 5, 4, 5)


def test_a_card_the_seat_does_not_hold_cannot_be_played() -> None:
    t = Table(3, start=0)
    t.deal({0: "2C 3C 4C", 1: "5C 6C", 2: "7C 8C"}, ponds="2S 3S 4S 2H 3H 4H 2D 3D 4D")
    t.choose(0)
    deck = t.state.deck
    others = (
        kingfish.PlayLine(deck, t.pos("5C"), "5C"),  # seat 1's card
        kingfish.PlayLine(deck, t.pos("2S"), "2S"),  # a fish in a pond
        kingfish.PlayLine(deck, 40, DECK_LABELS[0]),  # still in the deck
        kingfish.PlayLine(deck, 52, "2C"),
        kingfish.PlayLine(deck, -1, "2C"),
    )
    for action in others:
        error = expect_illegal(t.state, 0, action)
        assert "does not hold" in error.reason or "not the card" in error.reason
    expect_illegal(t.state, 0, kingfish.PlayLine("round-2", t.pos("2C"), "2C"))  # another round's deck
    expect_illegal(t.state, 0, kingfish.PlayLine(deck, t.pos("2C"), "ZZ"))
    expect_illegal(t.state, 0, kingfish.PlayLine(deck, t.pos("2C"), "3S"))  # a label already face up in a pond
    t.line(0, "2C")
    t.line(1, "5C")
    expect_illegal(t.state, 2, kingfish.PlayLine(deck, t.pos("7C"), "2C"))  # a label already face up as a line
    t.line(2, "7C")
    for position in (t.pos("2C"), t.pos("5C"), t.pos("2S"), 40):  # played, another seat's, a fish, the deck
        expect_illegal(t.state, 0, kingfish.PlayBait(position))
    t.bait(0, "3C")
    expect_illegal(t.state, 1, kingfish.PlayBait(t.pos("3C")))  # seat 0's bait
    expect_illegal(t.state, 1, kingfish.PlayBait(t.pos("4C")))  # seat 0's hand
    t.bait(1, "6C")
    t.bait(2, "8C")
    assert t.state.phase == REEL
    t.reel()  # clubs baits: nothing to catch
    t.keep()
    # the next excursion: played cards are discarded, no longer held
    assert t.choose(0) == 1
    for label in ("2C", "3C"):
        error = expect_illegal(t.state, 0, kingfish.PlayLine(deck, t.pos(label), label))
        assert "does not hold" in error.reason


def test_a_kept_tackle_card_is_public_in_hand_and_must_be_played_under_its_label() -> None:
    t = Table(3, start=1)
    t.deal(tackle="5H 6H 7H")
    t.step()  # seat 1 chooses
    for _ in range(6):
        t.step()
    t.reel()
    assert t.state.phase == TACKLE
    assert t.view(0).tackle == ("5H", "6H", "7H")
    assert RULES.to_act(t.state) == (1,)
    assert RULES.legal_actions(t.state, 1, t.known[1]) == [
        kingfish.Keep("5H"),
        kingfish.Keep("6H"),
        kingfish.Keep("7H"),
    ]
    assert RULES.legal_actions(t.state, 2, t.known[2]) == ()
    expect_illegal(t.state, 2, kingfish.Keep("5H"))  # out of turn
    expect_illegal(t.state, 1, kingfish.Keep("8H"))  # not in the box
    expect_illegal(t.state, 1, kingfish.ChoosePond(0))
    t.play(1, kingfish.Keep("6H"))
    assert RULES.to_act(t.state) == (2,)
    expect_illegal(t.state, 2, kingfish.Keep("6H"))  # already kept
    t.play(2, kingfish.Keep("5H"))
    # seat 0, the last, keeps the last card by itself
    assert t.state.phase == CHOOSE and t.state.excursion == 2
    assert t.state.tackle == ()
    assert t.state.hands[0][-1] == t.pos("7H")
    assert t.state.hands[1][-1] == t.pos("6H")
    assert t.state.hands[2][-1] == t.pos("5H")
    view = t.view(0)
    assert view.public_in_hand == (("7H",), ("6H",), ("5H",))
    assert view.hand_sizes == (5, 5, 5)
    assert (t.pos("7H"), "7H") in view.hand
    assert (t.pos("6H"), "6H") in t.view(1).hand
    assert view.chooser == 2
    assert t.choose(0) == 2
    t.line(1, "6H")
    first = t.state.hands[2][0]
    t.line(2, t.label(2, first))
    expect_illegal(t.state, 0, kingfish.PlayLine(t.state.deck, t.pos("7H"), "8S"))  # not the card everyone saw kept
    t.line(0, "7H")
    assert t.view(2).lines == ("7H", "6H", t.label(2, first))


def test_a_kept_card_played_as_bait_is_known_to_all_and_is_not_turned() -> None:
    t = Table(2, start=0)
    t.deal(
        {0: "9C 2C 8C 7C 6C 5C", 1: "9D 3C 8D 7D 6D 5D"},
        ponds="2H 3H 4H JS QS KS JD QD KD",
        tackle="5H 6H",
        last="JH QH KH JC QC KC",
    )
    t.choose(1)  # court fish only: nothing to catch
    t.cast("9C 9D", "2C 3C")
    assert t.reel() == [("turn", 0), ("turn", 1)]
    t.keep({0: "5H"})
    assert t.view(1).public_in_hand == (("5H",), ("6H",))
    assert t.choose(0) == 1
    t.line(0, "8C")
    t.line(1, "8D")
    t.bait(0, "5H")
    # the position gives the bait away: everyone saw seat 0 keep the 5H
    assert t.view(1).baits == ("5H", None) and t.view(1).baits_down == (False, False)
    t.bait(1, "7D")
    # both lines are 8s: only seat 1 has a bait to turn; then the 7 bait reels before the 5
    assert RULES.to_act(t.state) == (1,) and not RULES.reveal_due(t.state, 0)
    assert t.reel({0: "3H"}) == [("turn", 1), ("catch", 0)]
    assert t.state.reel_log == ((1, None), (0, "3H"))


# --- reeling -------------------------------------------------------------------------------------


def test_reeling_goes_from_the_lowest_line_each_turning_the_bait_and_reeling_at_once() -> None:
    t = Table(3, start=0)
    t.deal({0: "9C 5S", 1: "3C 6S", 2: "6C 7S"}, ponds="2S 3S 4S 2H 3H 4H 2D 3D 4D")
    t.choose(0)
    t.cast("9C 3C 6C", "5S 6S 7S")
    assert t.state.phase == REEL
    assert RULES.to_act(t.state) == (1,)
    assert RULES.reveal_due(t.state, 1) and not RULES.reveal_due(t.state, 0)
    assert RULES.legal_actions(t.state, 1, t.known[1]) == (RevealCard("round-1", t.pos("6S"), "6S"),)
    assert RULES.legal_actions(t.state, 0, t.known[0]) == ()
    t.turn(1)  # line 3 catches only the 2S: taken by itself
    assert t.state.caught[1] == ("2S",)
    assert RULES.to_act(t.state) == (2,)
    assert t.view(0).baits_down == (True, False, True)
    assert t.view(0).baits == (None, "6S", None)
    t.turn(2)  # line 6: 3S or 4S, a choice
    assert RULES.to_act(t.state) == (2,) and not RULES.reveal_due(t.state, 2)
    assert RULES.legal_actions(t.state, 2, t.known[2]) == [kingfish.Catch("3S"), kingfish.Catch("4S")]
    assert t.view(2).catchable == ("3S", "4S")
    assert t.view(0).catchable == ()
    t.play(2, kingfish.Catch("4S"))
    assert RULES.to_act(t.state) == (0,) and RULES.reveal_due(t.state, 0)
    t.turn(0)
    assert t.state.reel_log == ((1, "2S"), (2, "4S"), (0, "3S"))
    assert t.state.caught == (("3S",), ("2S",), ("4S",))
    assert t.state.phase == TACKLE
    assert t.state.ponds[0] == ()
    assert set(t.state.discarded) == {t.pos(label) for label in ("9C", "3C", "6C", "5S", "6S", "7S")}


def test_equal_lines_turn_all_baits_first_then_reel_by_bait_rank_then_clockwise_from_the_dealer() -> None:
    t = Table(4, start=2)
    t.deal(
        {0: "5S 3H", 1: "5H 9H", 2: "5D 9D", 3: "2C AH"},
        ponds="2H 4H 2D 3S 4S 5C 6S 7S 8S",
    )
    t.choose(0)
    t.cast("5S 5H 5D 2C", "3H 9H 9D AH")
    steps = t.reel({1: "4H"})
    # seat 3's lone lowest line turns and reels (nothing below a 2 of hearts); the three 5s turn their
    # baits clockwise from the dealer (2, 0, 1); then the 9s reel, the dealer's first, then the 3
    assert steps == [("turn", 3), ("turn", 2), ("turn", 0), ("turn", 1), ("catch", 1)]
    assert t.state.reel_log == ((3, None), (2, "2D"), (1, "4H"), (0, "2H"))


def test_a_tied_group_does_not_reel_before_every_bait_of_it_is_up() -> None:
    t = Table(3, start=0)
    t.deal({0: "7S 2H", 1: "7H KH", 2: "9C 3H"}, ponds="AH 4H 5H 2S 3S 4S 2D 3D 4D")
    t.choose(0)
    t.cast("7S 7H 9C", "2H KH 3H")
    t.turn(0)
    # seat 0 has a catch in reach, but seat 1 (tied) must turn its bait first
    assert RULES.to_act(t.state) == (1,) and RULES.reveal_due(t.state, 1)
    assert t.state.reel_log == ()
    expect_illegal(t.state, 1, kingfish.Catch("AH"))
    t.turn(1)
    assert RULES.to_act(t.state) == (1,)  # the K bait reels first
    t.play(1, kingfish.Catch("AH"))
    # seat 0 has 4H, 5H; seat 2 (line 9) waits
    assert RULES.to_act(t.state) == (0,)
    t.play(0, kingfish.Catch("5H"))
    assert t.turn(2).reel_log == ((1, "AH"), (0, "5H"), (2, "4H"))


# --- the catch -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "bait", "fish", "caught"),
    [
        ("9H", "3S", "2S", True),  # the bait's suit, below the line
        ("9S", "3H", "2S", False),  # the line's suit does not count
        ("9H", "3S", "9S", False),  # not below the line
        ("10H", "3S", "9S", True),
        ("10H", "3S", "JS", False),  # a number line never catches a court fish
        ("2H", "3S", "AS", True),
        ("AH", "3S", "AS", False),  # an Ace line catches nothing
        ("AH", "KS", "2S", False),
        ("JH", "3S", "10S", True),  # a court line catches every number fish of the suit
        ("JH", "3S", "AS", True),
        ("JH", "3S", "KS", True),  # and every court fish, whatever the order
        ("QH", "3S", "KS", True),
        ("KH", "3S", "JS", True),
        ("KH", "3S", "QS", True),
        ("KH", "3D", "QS", False),
        ("QH", "3S", "QS", True),
    ],
)
def test_catch_rule(line: str, bait: str, fish: str, caught: bool) -> None:
    assert catches(line, bait, fish) is caught


def test_king_fish_rule_in_play_court_lines_take_court_fish_number_lines_do_not() -> None:
    t = Table(3, start=0)
    t.deal({0: "QD 3S", 1: "10D 4S", 2: "AD 5S"}, ponds="KS 10S 9S JH 9H 8H 2D 3D 4D")
    t.choose(0)
    t.cast("QD 10D AD", "3S 4S 5S")
    assert t.turn(2).reel_log == ((2, None),)  # the Ace line: nothing
    # the 10 line: not the 10S, not the KS: only the 9S, taken by itself
    assert t.turn(1).reel_log == ((2, None), (1, "9S"))
    t.turn(0)  # the Queen line: the King fish above it and the 10S
    assert t.view(0).catchable == ("KS", "10S")
    t.play(0, kingfish.Catch("KS"))
    assert t.state.caught == (("KS",), ("9S",), ())
    assert t.view(1).scores == (2, 1, 0)


def test_must_take_a_fish_it_catches_and_only_such_a_fish() -> None:
    t = Table(2, start=0)
    t.deal({0: "5C 6S", 1: "KC 3C"}, ponds="2S 3S 9S 2H 4S 5H 2D 3D 4D", last="")
    t.choose(0)
    t.cast("5C KC", "6S 3C")
    expect_illegal(t.state, 0, kingfish.Catch("2S"))  # the bait is still face down
    t.turn(0)
    for fish in ("9S", "4S", "2H", "AS", "KC", "6S"):  # not below the line, another pond, other suits, own cards
        error = expect_illegal(t.state, 0, kingfish.Catch(fish))
        assert "can catch" in error.reason
    expect_illegal(t.state, 1, kingfish.Catch("2S"))
    expect_illegal(t.state, 0, RevealCard("round-1", t.pos("6S"), "6S"))  # already up
    expect_illegal(t.state, 0, kingfish.Keep("2S"))
    t.play(0, kingfish.Catch("3S"))
    # seat 1's clubs bait catches nothing in pond 1, even with a King line: the excursion moves on
    t.turn(1)
    assert t.state.reel_log == ((0, "3S"), (1, None))
    assert t.state.phase == TACKLE
    assert t.view(0).ponds[0] == ("2S", "9S")


def test_turning_up_a_bait_must_name_the_bait_and_its_card() -> None:
    t = Table(2, start=0)
    t.deal({0: "5C 6S", 1: "7C 3C"}, ponds="2S 3S 9S 2H 4S 5H 2D 3D 4D")
    t.choose(0)
    t.cast("5C 7C", "6S 3C")
    deck = t.state.deck
    assert RULES.to_act(t.state) == (0,)
    for action in (
        RevealCard(deck, t.pos("5C"), "5C"),  # its line
        RevealCard(deck, t.pos("3C"), "3C"),  # seat 1's bait
        RevealCard(deck, t.state.hands[0][0], t.label(0, t.state.hands[0][0])),  # a hand card
        RevealCard("round-2", t.pos("6S"), "6S"),
        RevealCard(deck, t.pos("6S"), "ZZ"),
        RevealCard(deck, t.pos("6S"), "2S"),  # a fish already face up
        RevealCard(deck, t.pos("6S"), "5C"),  # a line already face up
        kingfish.Catch("2S"),
    ):
        expect_illegal(t.state, 0, action)
    expect_illegal(t.state, 1, RevealCard(deck, t.pos("3C"), "3C"))  # not its turn
    t.play(0, RevealCard(deck, t.pos("6S"), "6S"))
    assert t.state.shown[t.pos("6S")] == "6S"


def test_a_seat_with_a_single_fish_in_reach_takes_it_without_a_decision() -> None:
    t = Table(2, start=1)
    t.deal({0: "3C 2S", 1: "4C 3S"}, ponds="AS 2H 3H 4S 5S 6S 2D 3D 4D")
    t.choose(0)
    t.cast("3C 4C", "2S 3S")
    # the AS was seat 0's only fish: taken; seat 1 turns next, its only fish is gone
    assert t.turn(0).reel_log == ((0, "AS"),)
    assert t.turn(1).reel_log == ((0, "AS"), (1, None))
    assert RULES.to_act(t.state) == (1,) and t.state.phase == TACKLE


# --- round ends ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "excursions", "tackles"), [(5, 3, 2), (4, 5, 4)])
def test_the_deck_running_short_at_the_tackle_box_ends_the_round(players: int, excursions: int, tackles: int) -> None:
    t = Table(players, start=players - 1)
    last = t.dry_round()
    assert last.excursion == excursions
    assert last.deck_left == 52 - players * 6 - 9 - tackles * players < players
    assert last.phase in (BAIT, REEL)  # the excursion's end, not a tackle box (a kept bait needs no turning)
    assert tackle_deals(t) == tackles
    left = [len(hand) - (bait is None) for hand, bait in zip(last.hands, last.baits, strict=True)]
    assert left == [6 - 2 * excursions + tackles] * players
    assert t.state.round == 2 and t.state.dealer == 0
    assert RULES.chance(t.state) == ShuffleRequest("round-2", DECK_LABELS)
    assert t.state.history == ((0,) * players,)


@pytest.mark.parametrize("players", [2, 3])
def test_empty_hands_after_reeling_end_the_round_at_once_with_no_tackle_box(players: int) -> None:
    t = Table(players, start=1)
    for number in range(1, players + 1):
        t.log.clear()
        last = t.dry_round()
        assert last.round == number
        # six cards, two played and one kept each excursion: the 5th excursion's line and bait empty the hands
        assert last.excursion == 5
        assert last.phase in (BAIT, REEL)  # the round ends with the 5th reeling, no 5th tackle box
        left = [len(hand) - (bait is None) for hand, bait in zip(last.hands, last.baits, strict=True)]
        assert left == [0] * players
        dealt = players * 6 + 9 + 4 * players
        assert last.next_position == dealt and last.deck_left == 52 - dealt >= players  # not the deck
        assert tackle_deals(t) == 4
        first = players * 6 + 9
        assert tackle_positions(t) == [tuple(range(first + k * players, first + (k + 1) * players)) for k in range(4)]
        assert sum(isinstance(action, kingfish.Keep) for _, action in t.log) == 4 * (
            players - 1
        )  # the last keeps itself
        if number < players:
            assert t.state.round == number + 1 and t.state.dealer == (1 + number) % players
            assert RULES.chance(t.state) == ShuffleRequest(f"round-{number + 1}", DECK_LABELS)
    # the last round's end is left to see: nothing dealt past the 4th tackle box, every card discarded
    assert t.state.phase == OVER
    assert t.state.hands == ((),) * players and t.state.tackle == ()
    assert t.state.next_position == players * 6 + 9 + 4 * players
    fish = [p for pond in t.state.ponds for p in pond]
    assert len(fish) == 9  # nothing was caught: the ponds are full, every other card is discarded
    assert sorted([*t.state.discarded, *fish]) == list(range(t.state.next_position))
    assert t.state.history == ((0,) * players,) * players


def test_cards_left_in_hand_are_discarded_with_the_round() -> None:
    # five players: the deck runs short after the 3rd excursion, when each seat still holds two cards
    t = Table(5, start=0)
    for _ in range(4):
        t.dry_round()
    last = t.dry_round()
    assert t.state.phase == OVER
    assert last.excursion == 3
    final = t.log[-1][1]
    played = {p for p in (*last.lines, *last.baits) if p is not None}
    if isinstance(final, kingfish.PlayBait):
        played.add(final.position)
    held = {p for hand in last.hands for p in hand} - played
    assert len(held) == 5 * 2
    assert t.state.hands == ((),) * 5
    dealt = 5 * 6 + 9 + 2 * 5
    assert t.state.next_position == dealt
    fish = [p for pond in t.state.ponds for p in pond]
    assert len(fish) == 9  # nothing was caught: the ponds are full, every other card is discarded
    assert sorted([*t.state.discarded, *fish]) == list(range(dealt))
    assert set(t.state.discarded[-10:]) == held  # the cards still held went with the round, last


# --- rounds and scores ---------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "start"), [(2, 1), (3, 2), (5, 3)])
def test_one_round_per_player_and_the_dealer_rotates_clockwise(players: int, start: int) -> None:
    t = Table(players, start=start)
    dealers, choosers = [], []
    while t.state.phase != OVER:
        assert t.state.phase == SHUFFLE
        dealers.append(t.state.dealer)
        t.deal()
        choosers.append(t.view(0).chooser)
        assert RULES.to_act(t.state) == (t.state.dealer,)
        number = t.state.round
        while t.state.round == number and t.state.phase != OVER:
            t.step()
    assert dealers == [(start + r) % players for r in range(players)]
    assert choosers == dealers
    assert len(t.state.history) == players
    assert t.view(0).rounds == players
    outcome = RULES.outcome(t.state)
    assert outcome is not None
    assert outcome.scores == (0,) * players
    assert outcome.winners == tuple(range(players))  # a tie shares the win
    assert RULES.to_act(t.state) == ()
    assert RULES.chance(t.state) is None
    for seat in range(players):
        assert RULES.legal_actions(t.state, seat, t.known[seat]) == ()
        expect_illegal(t.state, seat, kingfish.ChoosePond(0))
    expect_illegal(t.state, None, Shuffled("round-1", 52))


def test_fish_score_one_and_court_fish_two() -> None:
    assert [fish_points(label) for label in ("AS", "2H", "10D", "JC", "QS", "KH")] == [1, 1, 1, 2, 2, 2]


@pytest.mark.parametrize(
    ("bait", "first", "totals", "winners"), [("3S", (2, 1), (3, 3), (0, 1)), ("3C", (0, 1), (1, 3), (1,))]
)
def test_scores_sum_over_the_rounds_and_the_highest_total_wins(
    bait: str, first: tuple[int, int], totals: tuple[int, int], winners: tuple[int, ...]
) -> None:
    t = Table(2, start=0)
    # round 1 (dealer 0): seat 1's 9 line takes the 8H; seat 0's Queen line takes the King fish above it
    # when its bait is a spade. Court fish are all that is left: number lines take nothing more.
    t.deal({0: "QC " + bait, 1: "9D 4H"}, ponds="KS 8H JD JH QH KH QD KD JC", last="JS QS KC")
    t.choose(0)
    t.cast("QC 9D", bait + " 4H")
    t.reel()
    assert t.state.reel_log[0] == (1, "8H")
    while t.state.round == 1:
        t.step()
    assert t.state.history == (first,)
    assert t.state.dealer == 1
    # round 2 (dealer 1): seat 0's 10 line takes the 9S (1 point), seat 1's Jack line the QH (2 points)
    t.deal({0: "10D 3S", 1: "JC 2H"}, ponds="QH 9S KD JS QS KS JH KH JD", last="QD QC KC")
    t.choose(0)
    t.cast("10D JC", "3S 2H")
    t.reel()
    assert t.state.caught == (("9S",), ("QH",))
    assert t.view(1).scores == (first[0] + 1, first[1] + 2)
    while t.state.phase != OVER:
        t.step()
    final = t.state
    assert final.history == (first, (1, 2))
    outcome = RULES.outcome(final)
    assert outcome is not None
    assert outcome.scores == totals
    assert outcome.winners == winners
    assert t.view(0).scores == totals  # the last round counts once, in the history


def test_no_outcome_before_the_last_round_ends() -> None:
    t = Table(2, start=0)
    t.dry_round()
    assert RULES.outcome(t.state) is None
    t.dry_round()
    assert RULES.outcome(t.state) is not None


# --- views ---------------------------------------------------------------------------------------


def private_labels(t: Table, seat: int) -> set[str]:
    """Labels of seat's cards nobody else has seen: its hand and its face-down bait."""
    positions = [*t.state.hands[seat], t.state.baits[seat]]
    return {t.label(seat, p) for p in positions if p is not None and t.state.shown[p] is None}


def test_views_never_show_another_seats_hidden_cards() -> None:
    t = Table(3, start=0)
    t.deal({0: "9C 5S", 1: "3C 6S", 2: "6C 7S"}, ponds="2S 3S 4S 2H 3H 4H 2D 3D 4D", tackle="8D 9D 10D")
    checked = 0
    while t.state.round == 1:
        for seat in range(3):
            text = repr(t.view(seat))
            for other in range(3):
                hidden = private_labels(t, other)
                for label in hidden:
                    assert (f"'{label}'" in text) == (other == seat), (seat, other, label)
                    checked += 1
        t.step()
    assert checked > 100


def test_only_the_baiter_sees_its_face_down_bait() -> None:
    t = Table(3, start=0)
    t.deal({0: "9C 5S", 1: "3C 6S", 2: "6C 7S"}, ponds="2S 3S 4S 2H 3H 4H 2D 3D 4D")
    t.choose(0)
    t.line(0, "9C")
    t.line(1, "3C")
    t.line(2, "6C")
    t.bait(0, "5S")
    assert t.view(0).my_bait == "5S"
    assert t.view(1).my_bait is None and t.view(2).my_bait is None
    assert RULES.view(t.state, 1, t.known[0]).my_bait is None  # even with seat 0's knowledge
    assert [t.view(s).baits_down for s in range(3)] == [(True, False, False)] * 3
    t.bait(1, "6S")
    t.bait(2, "7S")
    t.turn(1)
    assert t.view(2).baits == (None, "6S", None)
    assert t.view(0).my_bait == "5S" and t.view(1).my_bait == "6S"


# --- wire forms ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        kingfish.ChoosePond(0),
        kingfish.ChoosePond(2),
        kingfish.PlayLine("round-3", 17, "10H"),
        kingfish.PlayLine("round-1", 0, "AS"),
        kingfish.PlayBait(51),
        kingfish.Catch("KD"),
        kingfish.Catch("10C"),
        kingfish.Keep("QS"),
        RevealCard("round-2", 4, "7C"),
        Chance((1,)),
    ],
)
def test_wire_round_trip(action: Action) -> None:
    wire = action.to_wire()
    assert RULES.decode_action(json.loads(json.dumps(wire))) == action
    assert str(action)


def test_wire_forms() -> None:
    assert kingfish.ChoosePond(1).to_wire() == {"t": "pond", "pond": 1}
    assert kingfish.PlayLine("round-1", 3, "QH").to_wire() == {
        "t": "line",
        "deck": "round-1",
        "position": 3,
        "label": "QH",
    }
    assert kingfish.PlayBait(7).to_wire() == {"t": "bait", "position": 7}
    assert kingfish.Catch("2S").to_wire() == {"t": "catch", "fish": "2S"}
    assert kingfish.Keep("AC").to_wire() == {"t": "keep", "card": "AC"}


@pytest.mark.parametrize(
    "wire",
    [
        None,
        [],
        {},
        {"t": "fish"},
        {"t": 3},
        {"t": "pond"},
        {"t": "pond", "pond": "1"},
        {"t": "pond", "pond": True},
        {"t": "pond", "pond": 1, "seat": 0},
        {"t": "line", "deck": "round-1", "position": 3},
        {"t": "line", "deck": "round-1", "position": 3, "label": "1S"},
        {"t": "line", "deck": "round-1", "position": 3, "label": "11H"},
        {"t": "line", "deck": "round-1", "position": 3, "label": "as"},
        {"t": "line", "deck": "round-1", "position": 3.0, "label": "AS"},
        {"t": "line", "deck": 1, "position": 3, "label": "AS"},
        {"t": "line", "deck": "round-1", "position": 3, "label": "AS", "seat": 1},
        {"t": "bait", "position": 3, "label": "AS"},
        {"t": "bait", "position": "3"},
        {"t": "catch", "fish": "1S"},
        {"t": "catch", "fish": "11H"},
        {"t": "catch", "fish": "as"},
        {"t": "catch", "fish": 2},
        {"t": "catch", "fish": "2S", "pond": 0},
        {"t": "keep", "card": "as"},
        {"t": "keep", "card": "11H"},
        {"t": "keep", "card": "1S"},
        {"t": "keep", "fish": "2S"},
        {"t": "chance", "values": 3},
    ],
)
def test_malformed_wire_forms(wire: Any) -> None:
    with pytest.raises(MalformedInput):
        RULES.decode_action(wire)


def test_a_table_log_replays_to_the_same_state() -> None:
    t = Table(3, start=2)
    for _ in range(3):
        t.dry_round()
    state = RULES.new_game(3, {"start": "2"})
    for seat, action in t.log:
        sent = action
        if not isinstance(action, (Shuffled, Dealt)):  # the session's deck turns, never sent as actions
            sent = RULES.decode_action(json.loads(json.dumps(action.to_wire())))
            assert sent == action
        state = RULES.apply(state, seat, sent)
    assert state == t.state
    assert RULES.outcome(state) == RULES.outcome(t.state)
