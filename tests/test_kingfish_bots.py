"""The King Fish bots: sensible greedy choices. (Their legal choices: tests/test_conformance.py; greedy
beating random: tests/test_bots.py.)"""

import random
from collections import Counter
from typing import Any

from p2pfish.bots.mixed import SPY_MARGIN
from p2pfish.games.kingfish import rules as kingfish
from p2pfish.games.kingfish.greedy import GreedyKingFish
from p2pfish.games.kingfish.rules import (
    BAIT,
    CHOOSE,
    LINE,
    REEL,
    TACKLE,
    View,
)
from p2pfish.games.registry import get_rules, make_bot

RULES = get_rules("kingfish")
DECK = "round-1"


def test_make_bot_gives_the_greedy_kingfish_bot() -> None:
    assert isinstance(make_bot("greedy", RULES.id, random.Random(0)), GreedyKingFish)


def view(phase: str, hand: tuple[str, ...], ponds: tuple[tuple[str, ...], ...], **fields: Any) -> View:
    """Seat 0's view of a 2-player table, hand positions 0, 1, ..., the rest as given or blank."""
    blank: dict[str, Any] = {
        "seat": 0,
        "players": 2,
        "phase": phase,
        "to_act": (0,),
        "round": 1,
        "rounds": 2,
        "dealer": 0,
        "chooser": 0,
        "excursion": 1,
        "hand": tuple(enumerate(hand)),
        "hand_sizes": (len(hand), len(hand)),
        "public_in_hand": ((), ()),
        "ponds": ponds,
        "pond": None,
        "lines": (None, None),
        "baits_down": (False, False),
        "baits": (None, None),
        "my_bait": None,
        "reeled": (False, False),
        "reel_log": (),
        "catchable": (),
        "tackle": (),
        "deck_left": 31,
        "caught": ((), ()),
        "history": (),
        "scores": (0, 0),
    }
    return View(**(blank | fields))


def choose(v: View, legal: Any) -> Any:
    return GreedyKingFish(random.Random(0)).choose(v, legal)


def lines_of(v: View) -> list[kingfish.PlayLine]:
    return [kingfish.PlayLine(DECK, position, label) for position, label in v.hand]


def test_takes_the_two_point_fish() -> None:
    v = view(REEL, ("2C",), (("5H", "QH", "3S"), (), ()), pond=0, lines=("KH", "9D"), baits=("4H", None))
    v = v._replace(catchable=("5H", "QH"), my_bait="4H")
    assert choose(v, [kingfish.Catch("5H"), kingfish.Catch("QH")]) == kingfish.Catch("QH")


def test_casts_the_line_that_catches_something() -> None:
    v = view(LINE, ("2C", "9D", "5D", "4S"), (("8D", "6C", "3H"), ("KS",), ()), pond=0)
    assert choose(v, lines_of(v)) == kingfish.PlayLine(DECK, 1, "9D")


def test_baits_the_suit_of_the_fish_the_line_catches_most_often_but_not_always() -> None:
    """The bait is a secret: its suit is drawn, the best one likeliest, none above 1/3 + SPY_MARGIN."""
    v = view(BAIT, ("2C", "4S", "5D"), (("8D", "6C", "3H"), (), ()), pond=0, lines=("9D", "7C"))
    v = v._replace(hand=((0, "2C"), (2, "4S"), (3, "5D")), baits_down=(False, True))
    bot = GreedyKingFish(random.Random(1))
    drawn = Counter(
        bot.choose(v, [kingfish.PlayBait(0), kingfish.PlayBait(2), kingfish.PlayBait(3)]) for _ in range(600)
    )
    assert drawn.most_common(1)[0][0] == kingfish.PlayBait(3)
    assert set(drawn) == {kingfish.PlayBait(0), kingfish.PlayBait(2), kingfish.PlayBait(3)}
    assert drawn[kingfish.PlayBait(3)] <= 600 * (1 / 3 + SPY_MARGIN) + 60


def test_keeps_a_court_card_out_of_the_bait() -> None:
    """A queen and a four both bait the hearts; the queen is kept for a later line."""
    v = view(BAIT, ("QH", "4H", "9C"), (("3H", "2S", "8D"), (), ()), pond=0, lines=("7H", "6C"))
    assert choose(v, [kingfish.PlayBait(0), kingfish.PlayBait(1), kingfish.PlayBait(2)]) == kingfish.PlayBait(1)


def test_chooses_the_pond_with_a_court_fish_it_can_catch() -> None:
    v = view(CHOOSE, ("KS", "3S", "2C", "4D"), (("9H", "8H", "AH"), ("JS", "7D"), ("5C", "6H")))
    assert choose(v, [kingfish.ChoosePond(0), kingfish.ChoosePond(1), kingfish.ChoosePond(2)]) == kingfish.ChoosePond(1)


def test_a_low_line_reels_before_a_rival() -> None:
    """One fish, a rival line of 6 played already: a line of 5 reels before it, a 9 after it."""
    v = view(LINE, ("9S", "5S", "2H"), (("4H",), (), ()), pond=0, dealer=1, lines=(None, "6C"), deck_left=1)
    assert choose(v, lines_of(v)) == kingfish.PlayLine(DECK, 1, "5S")


def test_keeps_the_tackle_card_that_catches_a_court_fish() -> None:
    v = view(TACKLE, ("4S", "3C"), (("QS", "7H", "2D"), (), ()), pond=0, lines=("8C", "5H"))
    v = v._replace(reeled=(True, True), tackle=("9C", "KH", "6D"))
    assert choose(v, [kingfish.Keep("9C"), kingfish.Keep("KH"), kingfish.Keep("6D")]) == kingfish.Keep("KH")
