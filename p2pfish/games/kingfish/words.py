"""King Fish in words: the cards as players say them, and one line per move or chance event for the log.

A card label of the rules ("7H", "10S", "QD") is shown on the board with its suit sign ("7♥"), or as the
label itself in ASCII mode; everything outside the board (status, moves, log, refusals) uses the label,
because the app passes `ascii_only` to the board alone.

The log only gets the action, not the table around it. A face-down bait (PlayBait) carries only a deck
position, so its line never names a card; a bait is named when it is turned up (RevealCard). The rules
apply some steps by themselves — a reeler with one fish to take or none, the last tackle-box card, the last
pond — and those reach the log as no action at all: the board shows their results (see kingfish_screen).
"""

from p2pfish.core.actions import Action, Dealt, RevealCard, Shuffled
from p2pfish.core.options import is_number
from p2pfish.games.kingfish.rules import (
    HAND_SIZE,
    POND_SIZE,
    PONDS,
    Catch,
    ChoosePond,
    Keep,
    PlayBait,
    PlayLine,
    fish_points,
    is_label,
    suit,
)
from p2pfish.ui.drawing import drawn_seat, name_of

SUIT_SIGNS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RED_SUITS = frozenset({"H", "D"})
ROUND_DECK_PREFIX = "round-"


def card_text(label: str, ascii_only: bool = True) -> str:
    """A card as the screen shows it: "7♥", or "7H" in ASCII (a label that is no card is left as it is)."""
    if ascii_only or not is_label(label):
        return label
    return label[:-1] + SUIT_SIGNS[suit(label)]


def card_style(label: str) -> str:
    """Hearts and diamonds red, spades and clubs in the plain bold of the title."""
    return "class:red" if is_label(label) and suit(label) in RED_SUITS else "class:title"


def points_text(points: int) -> str:
    return f"{points} point{'' if points == 1 else 's'}"


def round_of(deck: str) -> int | None:
    """The round number of a round deck ``round-<r>``, None for anything else."""
    number = deck.removeprefix(ROUND_DECK_PREFIX)
    if deck.startswith(ROUND_DECK_PREFIX) and is_number(number):
        return int(number)
    return None


def narrate(seat: int | None, action: Action, names: tuple[str, ...]) -> str:
    if seat is None:
        return _chance(action, names)
    who = name_of(names, seat)
    if isinstance(action, ChoosePond):
        return f"{who} chose pond {action.pond + 1}."
    if isinstance(action, PlayLine):
        return f"{who} cast a line of {action.label}."
    if isinstance(action, PlayBait):
        return f"{who} put a bait face down."
    if isinstance(action, RevealCard):
        return f"{who} turned up the bait {action.label}."
    if isinstance(action, Catch):
        return f"{who} caught {action.fish} ({points_text(fish_points(action.fish))})."
    if isinstance(action, Keep):
        return f"{who} kept {action.card} from the tackle box."
    return f"{who}: {action}"


def _chance(action: Action, names: tuple[str, ...]) -> str:
    if isinstance(action, Shuffled):
        number = round_of(action.deck)
        return f"Round {number}: a fresh deck, shuffled by every seat." if number else "A deck is shuffled."
    if isinstance(action, Dealt):
        if action.to is not None:
            who = name_of(names, action.to)
            return f"{who} is dealt {len(action.positions)} cards, face down."
        labels = action.labels or ()
        if len(labels) == PONDS * POND_SIZE and action.positions[:1] == (len(names) * HAND_SIZE,):
            ponds = [labels[k * POND_SIZE : (k + 1) * POND_SIZE] for k in range(PONDS)]
            return "Ponds: " + " | ".join(" ".join(pond) for pond in ponds)
        return f"Tackle box: {' '.join(labels)}"
    seat = drawn_seat(action, len(names))
    if seat is not None:
        return f"{names[seat]} deals first (drawn by joint randomness)."
    return f"Chance: {action}."
