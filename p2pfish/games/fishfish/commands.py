"""Typed commands for Fish Fish, read against the legal actions of the moment.

    bait 3             the Fisherman lays his bait card 3 face up: a new line
    cast prise         the Fisherman lays a Pêche card face down under it (cast bredouille; "prise",
    prise, bredouille  "bredouille", or any start of them after cast, like "cast b", will do)
    bet 2              a Fish player bets 2 of his tiles on the line (0 up to what he holds)
    pass               bet nothing (bet 0); "bet all" bets every tile in hand
    reveal             the Fisherman turns up the card (the session does it by itself)

Words of the move list ("tiles", "the", ...) and notes in parentheses may be typed too, so a line of
the move list reads back as its move. A command that is not legal now says why; nothing is sent.
Refusals never name the Fisherman's face-down card: a Fish player's refusals do not depend on it, and
only the Fisherman is told which Pêche cards he still holds.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from p2pfish.core.actions import Action, Reveal
from p2pfish.core.wire import Json
from p2pfish.games.fishfish.rules import (
    BAIT,
    BET,
    BETS,
    BUTIN_SLOTS,
    CAST,
    CATCH_POINTS,
    OVER,
    PECHE_KINDS,
    START,
    TILES_PER_FISH,
    Bait,
    Bet,
    Cast,
    View,
    peche_purpose,
)
from p2pfish.games.fishfish.screen import kinds_text, turn_text
from p2pfish.games.fishfish.words import KIND_MEANINGS, kind_text, tiles_text
from p2pfish.ui.drawing import name_of
from p2pfish.ui.reading import NO_COMMAND, NUMBER, command_words

VERBS = ("bait", "cast", "bet", "pass", "reveal")
ALIASES = {"peche": "cast", "pêche": "cast", "hide": "cast", "stake": "bet", "fold": "pass",
           "check": "pass", "no": "pass", "open": "reveal", "show": "reveal"}  # fmt: skip
FILLERS = frozenset({"a", "an", "the", "tile", "tiles", "on", "this", "line", "card", "cards", "peche", "pêche",
                     "with", "of", "your", "my", "under", "face", "down", "it", "to", "nothing"})  # fmt: skip
"""Words a command may hold that carry no meaning (they make the move list's own words readable back)."""
MIN_KIND_PREFIX = 3
"""How much of "prise" or "bredouille" a command needs when it is the verb itself ("bre", "pri")."""
HELP = f"""Fish Fish commands (then Enter):
  bait 3        Fisherman: bait card 3 face up, a new line worth 3 a tile
  cast prise    Fisherman: a Peche card face down under it (or cast bredouille;
                prise / bredouille alone will do). Only you see it until a bet.
  bet 2         Fish player: bet 2 of your tiles (0 to what you hold; bet all)
  pass          bet nothing on this line (bet 0)
Any bet reveals the card. Prise: the Fisherman catches every bet tile,
{CATCH_POINTS} points each. Bredouille: each bettor puts his tiles on his Butin slot
of the bait, worth the bait each. No bet: the card stays closed. The round
ends when all tiles are bet (line 5 takes the rest) or both Prise are out
(tiles in hand then go to the slot of the Fisherman's highest bait left).
Board: F = Fisherman, 1-7 = betting order; hand o / . = tile held / played;
butin 2 3 4 5 = tiles per slot; ### face down, (#) closed, PRISE / BRED."""


def words() -> list[str]:
    """What completion offers."""
    return [*VERBS, *PECHE_KINDS, "all", "say", "help", "quit"]


# --- moves in words ------------------------------------------------------------------------------


def describe(action: Action, view: View, names: tuple[str, ...] = ()) -> str:
    """An action in the words a player would use (typed back, it is read as the same action)."""
    if isinstance(action, Bait):
        return f"{command(action, view)} (a line worth {action.value} a tile)"
    if isinstance(action, Cast):
        return f"{command(action, view)} ({KIND_MEANINGS.get(str(action.value), 'a Peche card')})"
    if isinstance(action, Bet):
        if action.tiles == 0:
            return "pass (bet nothing)"
        held = view.hands[view.seat] if 0 <= view.seat < len(view.hands) else 0
        return f"bet {tiles_text(action.tiles)}" + (" (all you hold)" if action.tiles == held else "")
    if isinstance(action, Reveal):
        return f"reveal the Peche card ({kind_text(action.value)})"
    return str(action)


def command(action: Action, view: View, names: tuple[str, ...] = ()) -> str:
    """The shortest command that plays `action`."""
    if isinstance(action, Bait):
        return f"bait {action.value}"
    if isinstance(action, Cast):
        return f"cast {action.value}"
    if isinstance(action, Bet):
        return "pass" if action.tiles == 0 else f"bet {action.tiles}"
    if isinstance(action, Reveal):
        return "reveal"
    return str(action)


# --- reading commands ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WantReveal(Action):
    """A typed "reveal": the value is the Fisherman's own secret, so it comes from the legal Reveal."""

    def to_wire(self) -> dict[str, Json]:
        raise TypeError("a typed request of the UI is never sent")


REVEAL_WANTED = WantReveal()


def _kind(word: str, minimum: int = 1) -> str | None:
    """The Pêche kind a word starts (at least `minimum` letters), None if none or both."""
    found = [kind for kind in PECHE_KINDS if len(word) >= minimum and kind.startswith(word)]
    return found[0] if len(found) == 1 else None


def parse(text: str, view: View, legal: Sequence[Action], names: tuple[str, ...] = ()) -> Action | str:
    """The legal action `text` names, or a message saying why it is not one."""
    typed = command_words(text.lower())
    if not typed:
        return NO_COMMAND
    wanted = _read(typed, view)
    if isinstance(wanted, str):
        return wanted
    for action in legal:
        if action == wanted or (wanted is REVEAL_WANTED and isinstance(action, Reveal)):
            return action
    return why_not(wanted, view, legal, names)


def _read(tokens: list[str], view: View) -> Action | str:
    first, args = tokens[0], [t for t in tokens[1:] if t not in FILLERS]
    kind = _kind(first, MIN_KIND_PREFIX)
    if kind is not None:
        return _cast(kind, view) if not args else f"{first} takes nothing more: just {kind}, or cast {kind}"
    verb = ALIASES.get(first, first)
    if verb not in VERBS:
        return f"unknown command {first!r}: try bait N, cast prise, cast bredouille, bet N, pass, say TEXT or help"
    if verb in ("pass", "reveal"):
        if args:
            return f"{verb} takes nothing more" + (": to bet some tiles, type bet N" if verb == "pass" else "")
        return BETS[0] if verb == "pass" else REVEAL_WANTED
    if verb == "cast":
        kinds = [_kind(arg) for arg in args]
        if len(args) != 1 or kinds[0] is None:
            return "cast takes a Peche card: cast prise or cast bredouille"
        return _cast(kinds[0], view)
    if verb == "bet" and args == ["all"]:
        return Bet(view.hands[view.seat] if 0 <= view.seat < len(view.hands) else 0)
    if len(args) != 1 or not NUMBER.fullmatch(args[0]):
        if verb == "bait":
            return "bait takes a bait card's value: bait 3"
        return f"bet takes a number of tiles: bet 2 (0 to {TILES_PER_FISH}), bet all, or pass"
    number = int(args[0])
    return Bait(number) if verb == "bait" else Bet(number)


def _cast(kind: str, view: View) -> Cast:
    return Cast(peche_purpose(view.round, len(view.lines)), kind)


# --- why a command is not legal now --------------------------------------------------------------


def _not_your_turn(view: View, names: tuple[str, ...]) -> str:
    if view.phase == OVER:
        return "the game is over"
    if view.phase == START:
        return "it is not your turn: the first Fisherman is being drawn"
    return f"it is not your turn: {turn_text(view, names)}"


def why_not(wanted: Action, view: View, legal: Sequence[Action], names: tuple[str, ...] = ()) -> str:
    """Why `wanted` is not among the legal actions, from cheap checks against the view. A Fish player's
    answer never depends on the Fisherman's cards (his view does not hold them)."""
    fisher = view.seat == view.fisherman
    fisherman = name_of(names, view.fisherman) if names else f"seat {view.fisherman}"
    in_round = view.phase not in (START, OVER)
    if isinstance(wanted, (Bait, Cast, WantReveal)) and in_round and not fisher:
        return f"you are not the Fisherman ({fisherman} is): you bet tiles on his lines (bet N or pass)"
    if isinstance(wanted, Bet) and in_round and fisher:
        return "the Fisherman does not bet: he lays bait cards (bait N) and Peche cards (cast prise/bredouille)"
    if not legal or view.seat not in view.to_act:
        return _not_your_turn(view, names)
    if isinstance(wanted, Bait):
        return _why_not_bait(wanted, view)
    if isinstance(wanted, Cast):
        return _why_not_cast(wanted, view)
    if isinstance(wanted, WantReveal):
        return "the Peche card is revealed once tiles are bet on its line (by itself: nothing to type)"
    if isinstance(wanted, Bet):
        return _why_not_bet(wanted, view)
    return "that is not a legal move now"


def _why_not_bait(wanted: Bait, view: View) -> str:
    if view.phase == CAST:
        return f"first lay a Peche card face down under line {len(view.lines)}: cast prise or cast bredouille"
    if view.phase != BAIT:
        return "not now: the line on the water is not checked yet"
    if wanted.value not in BUTIN_SLOTS:
        return f"there is no bait card {wanted.value}: they are 2, 3, 3, 4 and 5"
    held = " ".join(str(b) for b in view.baits)
    return f"you no longer hold a bait card {wanted.value} (left: {held})"


def _why_not_cast(wanted: Cast, view: View) -> str:
    if view.phase == BAIT:
        held = " ".join(str(b) for b in view.baits)
        return f"first lay a bait card for the next line: bait N (left: {held})"
    if view.phase != CAST:
        return "not now: the card under this line is laid already"
    left = kinds_text(view.my_peche or ())
    return f"you hold no {kind_text(wanted.value)} card any more this round (left: {left})"


def _why_not_bet(wanted: Bet, view: View) -> str:
    if view.phase != BET:
        return "not now: nobody bets before the Fisherman has laid his bait and Peche card"
    held = view.hands[view.seat]
    if wanted.tiles < 0:
        return f"a bet is 0 tiles or more: bet 0 to {held} (pass is bet 0)"
    if wanted.tiles > held:
        return f"you have only {tiles_text(held)} in hand: bet 0 to {held}"
    return "that is not a legal bet now"
