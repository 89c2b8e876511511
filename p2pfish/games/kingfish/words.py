"""King Fish in words: the cards as players say them, and one line per move or chance event for the log.

A card label of the rules ("7H", "10S", "QD") is shown on the board and in the log with its suit sign
("7♥"), as the board draws it (the app turns the signs back into letters in ASCII mode); the status, moves
and refusals use the label.

A face-down bait (PlayBait) carries only a deck position, so its line never names a card; a bait is named
when it is turned up (RevealCard). The rules apply some steps by themselves — a reeler with one fish to take
or none, the last tackle-box card — which reach the log as no action: given the reader's views before and
after an action, its line also tells those (who reeled in what, or nothing; who kept what).
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
    View,
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


def narrate(
    seat: int | None, action: Action, names: tuple[str, ...], before: View | None = None, after: View | None = None
) -> str:
    line = _chance(action, names) if seat is None else _move(seat, action, names)
    if before is not None and after is not None:
        line += "".join(" " + told for told in _by_the_rules(seat, action, before, after, names))
    return line


def _move(seat: int, action: Action, names: tuple[str, ...]) -> str:
    who = name_of(names, seat)
    if isinstance(action, ChoosePond):
        return f"{who} chose pond {action.pond + 1}."
    if isinstance(action, PlayLine):
        return f"{who} cast a line of {card_text(action.label, False)}."
    if isinstance(action, PlayBait):
        return f"{who} put a bait face down."
    if isinstance(action, RevealCard):
        return f"{who} turned up the bait {card_text(action.label, False)}."
    if isinstance(action, Catch):
        return f"{who} caught {card_text(action.fish, False)} ({points_text(fish_points(action.fish))})."
    if isinstance(action, Keep):
        return f"{who} kept {card_text(action.card, False)} from the tackle box."
    return f"{who}: {action}"


def _by_the_rules(seat: int | None, action: Action, before: View, after: View, names: tuple[str, ...]) -> list[str]:
    """What the rules did by themselves after the action: fish reeled in (or nothing caught) with no
    choice to make, tackle-box cards kept with no choice left."""
    out = []
    old = before.reel_log if after.reel_log[: len(before.reel_log)] == before.reel_log else ()
    for reeler, fish in after.reel_log[len(old) :]:
        if reeler == seat and isinstance(action, Catch):
            continue
        who = name_of(names, reeler)
        if fish is None:
            out.append(f"{who} caught nothing: no fish of the pond fits the line and bait.")
        else:
            points = points_text(fish_points(fish))
            out.append(f"{who} reeled in {card_text(fish, False)} ({points}), the only fish to take.")
    for keeper in range(min(len(before.public_in_hand), len(after.public_in_hand))):
        kept = [c for c in after.public_in_hand[keeper] if c not in before.public_in_hand[keeper]]
        if keeper == seat and isinstance(action, Keep):
            kept = [c for c in kept if c != action.card]
        out += [f"{name_of(names, keeper)} kept {card_text(c, False)}, the last card of the tackle box." for c in kept]
    return out


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
            return "Ponds: " + " | ".join(" ".join(card_text(c, False) for c in pond) for pond in ponds)
        return f"Tackle box: {' '.join(card_text(c, False) for c in labels)}"
    seat = drawn_seat(action, len(names))
    if seat is not None:
        return f"{names[seat]} deals first (drawn by joint randomness)."
    return f"Chance: {action}."
