"""Typed commands for King Fish, read against the legal actions of the moment.

    pond 2           choose pond 2 for this excursion (choose 2, choose pond 2)
    line 7H          cast your line: a hand card, face up (cast 7h, line 7♥; line 3 = the 3rd card of
                     your hand as the board numbers it)
    bait QS          put a hand card face down as your bait (bait 2: the 2nd card of your hand)
    catch KH         reel in that fish of the chosen pond (reel KH, take KH; catch 2: its 2nd fish)
    keep 4D          keep that card of the tackle box (keep 1: its first card)
    turn             turn your bait up (the software does it by itself when it is due)

A card alone ("7h", "QS") or a number alone plays the move of the moment with it: "2" chooses pond 2 when
a pond is chosen, "qs" casts QS as your line when lines are cast, and so on. Cards may be typed with
their suit letter in either case, with a suit sign (♠ ♥ ♦ ♣), and 10 as T. Words of the move list and
notes in parentheses may be typed too, so a line of the move list reads back as its move. A command that
is not legal now says why; nothing is sent. No refusal names a card that is not yours or on the table.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from p2pfish.core.actions import Action, RevealCard
from p2pfish.games.kingfish import rules
from p2pfish.games.kingfish.rules import (
    BAIT,
    CHOOSE,
    COURT,
    LINE,
    OVER,
    PONDS,
    REEL,
    START,
    TACKLE,
    View,
    catches,
    fish_points,
    is_label,
    rank,
    suit,
)
from p2pfish.games.kingfish.screen import hand_label, sorted_hand, turn_text, turning
from p2pfish.games.kingfish.words import SUIT_NAMES, points_text
from p2pfish.ui.reading import NO_COMMAND, NUMBER, command_words

VERBS = ("pond", "line", "bait", "catch", "keep", "turn")
ALIASES = {"choose": "pond", "cast": "line", "reel": "catch", "take": "catch", "fish": "catch",
           "reveal": "turn", "show": "turn", "kept": "keep"}  # fmt: skip
FILLERS = frozenset({"a", "an", "the", "of", "my", "your", "card", "pond", "fish", "up", "face", "down",
                     "from", "tackle", "box", "in", "with", "it", "number", "no"})  # fmt: skip
"""Words a command may hold that carry no meaning (they make the move list's own words readable back)."""
PHASE_VERBS = {CHOOSE: "pond", LINE: "line", BAIT: "bait", REEL: "catch", TACKLE: "keep"}
"""The verb of a card or a number typed alone."""
SIGNS = {"♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C"}
CARD = re.compile(r"(10|[2-9]|[ajqkt])([shdc])")
CARD_CHARS = 3
"""The longest token that names a card ("10h")."""
HELP = """King Fish commands (then Enter); cards as 7H, QS, 10D (or 7h, qs, th):
  pond 2      choose pond 2 for this excursion
  line 7H     cast your line: a hand card, face up (line 3: your 3rd card)
  bait QS     put a hand card face down as your bait (bait 2: your 2nd card)
  catch KH    reel in that fish of the chosen pond, when you have a choice
  keep 4D     keep that card of the tackle box
  A card or a number alone plays the move of the moment: 7h, qs, 2.
The lowest line reels first: its bait is turned up and it takes one fish of
the bait's suit below the line (a J/Q/K line: any fish of that suit); a lone
fish is taken by itself. A fish scores 1, a J/Q/K fish 2.
Board: D dealer; ## another's bait face down, (QS) yours; reeled: the fish
taken (- none); Kept: tackle-box cards others were seen keeping."""


def words() -> list[str]:
    """What completion offers."""
    return [*VERBS, "choose", "cast", "reel", "say", "help", "quit"]


# --- moves in words ------------------------------------------------------------------------------


def describe(action: Action, view: View, names: tuple[str, ...] = ()) -> str:
    """An action in the words a player would use: its command with a note in parentheses (typed back, it
    is read as the same action, notes being left out)."""
    said = command(action, view, names)
    if isinstance(action, rules.ChoosePond):
        fish = view.ponds[action.pond] if 0 <= action.pond < len(view.ponds) else ()
        return f"{said} ({' '.join(fish) or 'empty'})"
    if isinstance(action, rules.PlayBait):
        return f"{said} (face down)" if hand_label(view, action.position) else "bait (a hand card face down)"
    if isinstance(action, RevealCard):
        return f"turn up your bait {action.label}"
    if isinstance(action, rules.Catch):
        return f"{said} ({points_text(fish_points(action.fish))})"
    return said


def command(action: Action, view: View, names: tuple[str, ...] = ()) -> str:
    """The shortest command that plays `action`."""
    if isinstance(action, rules.ChoosePond):
        return f"pond {action.pond + 1}"
    if isinstance(action, rules.PlayLine):
        return f"line {action.label}"
    if isinstance(action, rules.PlayBait):
        return f"bait {hand_label(view, action.position)}"
    if isinstance(action, RevealCard):
        return "turn"
    if isinstance(action, rules.Catch):
        return f"catch {action.fish}"
    if isinstance(action, rules.Keep):
        return f"keep {action.card}"
    return str(action)


# --- reading commands ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Wanted:
    """A command as typed: its verb and either a card label or a number (a pond, or a place in a list)."""

    verb: str
    card: str | None = None
    number: int | None = None


def read_card(token: str) -> str | None:
    """The card label a token names ("7h", "q♠", "th" -> "7H", "QS", "10H"), None if none."""
    if len(token) > CARD_CHARS:
        return None
    text = "".join(SIGNS.get(char, char) for char in token).lower()
    match = CARD.fullmatch(text)
    if match is None:
        return None
    value, suit_letter = match.groups()
    label = ("10" if value == "t" else value.upper()) + suit_letter.upper()
    return label if is_label(label) else None


def parse(text: str, view: View, legal: Sequence[Action], names: tuple[str, ...] = ()) -> Action | str:
    """The legal action `text` names, or a message saying why it is not one."""
    typed = command_words(text)
    if not typed:
        return NO_COMMAND
    wanted = _read(typed, view, legal, names)
    if isinstance(wanted, str):
        return wanted
    return _resolve(wanted, view, legal, names)


def _read(tokens: list[str], view: View, legal: Sequence[Action], names: tuple[str, ...]) -> Wanted | str:
    first = tokens[0].lower()
    verb = ALIASES.get(first, first)
    args = tokens[1:]
    if verb not in VERBS:
        if read_card(tokens[0]) is None and not NUMBER.fullmatch(first):
            return _unknown(tokens[0], view, legal)
        implicit = PHASE_VERBS.get(view.phase)
        if implicit is None or view.seat not in view.to_act:
            return _not_your_turn(view, names)
        verb, args = implicit, tokens
    meaningful = [arg for arg in args if arg.lower() not in FILLERS]
    if verb == "turn":
        extra = [arg for arg in meaningful if arg.lower() != "bait" and read_card(arg) is None]
        return f"turn takes nothing more: {extra[0]!r}?" if extra else Wanted("turn")
    what = {"pond": "a pond number: pond 2", "line": "a card of your hand: line 7H, or line 3 (its 3rd card)",
            "bait": "a card of your hand: bait QS, or bait 2 (its 2nd card)",
            "catch": "a fish of the pond: catch KH", "keep": "a card of the tackle box: keep 4D"}[verb]  # fmt: skip
    if len(meaningful) != 1:
        return f"{verb} takes {what}"
    card = read_card(meaningful[0])
    if card is not None and verb != "pond":
        return Wanted(verb, card=card)
    if NUMBER.fullmatch(meaningful[0]):
        return Wanted(verb, number=int(meaningful[0]))
    return f"{verb} takes {what} (not {meaningful[0]!r})"


def _unknown(word: str, view: View, legal: Sequence[Action]) -> str:
    if legal and view.seat in view.to_act:
        commands = [command(action, view) for action in legal]
        shown = ", ".join(commands[:5]) + (", ..." if len(commands) > 5 else "")
        return f"unknown command {word!r}: now you can type {shown} (? for help)"
    return f"unknown command {word!r}: try pond N, line CARD, bait CARD, catch CARD, keep CARD, say TEXT or help"


# --- from a command to a legal action, or why not ------------------------------------------------


def _not_your_turn(view: View, names: tuple[str, ...]) -> str:
    if view.phase == OVER:
        return "the game is over"
    if view.phase == START:
        return "it is not your turn: the first dealer is being drawn"
    if view.phase not in PHASE_VERBS or not view.to_act:
        return f"it is not your turn: {turn_text(view, names).lower()}"
    return f"it is not your turn: {turn_text(view, names)}"


def _phase_hint(view: View) -> str:
    """What this seat is to do in this phase, as a command."""
    if view.phase == CHOOSE:
        open_ponds = ", ".join(str(pond + 1) for pond in range(PONDS) if view.ponds[pond])
        return f"choose a pond first: pond N ({open_ponds})"
    if view.phase == LINE:
        return "cast your line first: line CARD, or line N for the N-th card of your hand"
    if view.phase == BAIT:
        return "your line is out; now your bait, face down: bait CARD, or bait N"
    if view.phase == REEL:
        if turning(view):
            return "your bait is being turned up (by itself: nothing to type)"
        return f"reel in a fish: catch CARD ({' '.join(view.catchable)})"
    if view.phase == TACKLE:
        return f"keep a card of the tackle box: keep CARD ({' '.join(view.tackle)})"
    return "that is not a move of this phase"


def _resolve(wanted: Wanted, view: View, legal: Sequence[Action], names: tuple[str, ...]) -> Action | str:
    if not legal or view.seat not in view.to_act:
        return _not_your_turn(view, names)
    if wanted.verb == "turn":
        found = next((action for action in legal if isinstance(action, RevealCard)), None)
        if found is not None:
            return found
        if view.phase == REEL and view.baits[view.seat] is not None:
            return "your bait is turned up already: catch a fish (catch CARD)"
        return "your bait is turned up when your line is the lowest left to reel (by itself)"
    if PHASE_VERBS.get(view.phase) != wanted.verb or turning(view):
        return f"not now: {_phase_hint(view)}"
    if wanted.verb == "pond":
        return _pond(wanted, view, legal)
    if wanted.verb in ("line", "bait"):
        return _hand_card(wanted, view, legal)
    if wanted.verb == "catch":
        return _catch(wanted, view, legal)
    return _keep(wanted, view, legal)


def _pond(wanted: Wanted, view: View, legal: Sequence[Action]) -> Action | str:
    number = wanted.number or 0
    found = next((a for a in legal if isinstance(a, rules.ChoosePond) and a.pond == number - 1), None)
    if found is not None:
        return found
    open_ponds = [str(pond + 1) for pond in range(PONDS) if view.ponds[pond]]
    if not 1 <= number <= PONDS:
        return f"there are ponds 1 to {PONDS}: choose one with fish ({', '.join(open_ponds)})"
    return f"pond {number} is empty: choose a pond with fish ({', '.join(open_ponds)})"


def _hand_card(wanted: Wanted, view: View, legal: Sequence[Action]) -> Action | str:
    hand = sorted_hand(view)
    held = " ".join(label for _, label in hand)
    if wanted.number is not None:
        if not 1 <= wanted.number <= len(hand):
            return f"your hand has {len(hand)} cards: {wanted.verb} 1 to {wanted.verb} {len(hand)} ({held})"
        position = hand[wanted.number - 1][0]
    else:
        position = next((p for p, label in hand if label == wanted.card), -1)
        if position < 0:
            where = _where(str(wanted.card), view)
            return f"you do not hold {wanted.card}{where} (your hand: {held})"
    for action in legal:
        if isinstance(action, (rules.PlayLine, rules.PlayBait)) and action.position == position:
            return action
    return "that is not a legal move now"


def _where(card: str, view: View) -> str:
    """Where a card not in my hand is, if the table shows it."""
    if any(card in pond for pond in view.ponds):
        return ": it is a fish in a pond"
    if card in view.lines or card in view.baits:
        return ": it is on the table"
    if card in view.tackle:
        return ": it is in the tackle box"
    return ""


def _catch(wanted: Wanted, view: View, legal: Sequence[Action]) -> Action | str:
    fish_here = view.ponds[view.pond] if view.pond is not None else ()
    number = f"pond {(view.pond or 0) + 1}"
    fish, refusal = _chosen(wanted, fish_here, f"{number} holds {len(fish_here)} fish", "catch")
    if refusal:
        return refusal
    found = next((a for a in legal if isinstance(a, rules.Catch) and a.fish == fish), None)
    if found is not None:
        return found
    if fish not in fish_here:
        return f"{fish} is not in {number} ({' '.join(fish_here) or 'empty'})"
    return f"{_cannot(fish, view)}: you can catch {' '.join(view.catchable)}"


def _chosen(wanted: Wanted, cards: Sequence[str], holding: str, verb: str) -> tuple[str, str]:
    """(the card `wanted` names among `cards`, by its place from 1 or by its label; "") or ("", why not)."""
    if wanted.number is None:
        return str(wanted.card), ""
    if not 1 <= wanted.number <= len(cards):
        return "", f"{holding}: {verb} 1 to {verb} {len(cards)} ({' '.join(cards)})"
    return cards[wanted.number - 1], ""


def _cannot(fish: str, view: View) -> str:
    """Why my line and bait do not catch `fish` (a fish of the chosen pond)."""
    line, bait = view.lines[view.seat], view.baits[view.seat]
    if line is None or bait is None or catches(line, bait, fish):
        return f"you cannot take {fish} now"
    if suit(fish) != suit(bait):
        return f"your bait {bait} catches {SUIT_NAMES[suit(bait)]} only, not {fish}"
    if rank(fish) >= COURT:
        return f"only a J/Q/K line catches the court fish {fish}, and your line is {line}"
    return f"your line {line} catches only fish below {line[:-1]}, not {fish}"


def _keep(wanted: Wanted, view: View, legal: Sequence[Action]) -> Action | str:
    box = view.tackle
    card, refusal = _chosen(wanted, box, f"the tackle box holds {len(box)} cards", "keep")
    if refusal:
        return refusal
    found = next((a for a in legal if isinstance(a, rules.Keep) and a.card == card), None)
    if found is not None:
        return found
    return f"{card} is not in the tackle box ({' '.join(box)})"
