"""Typed commands for Kuna Yala, read against the legal actions of the moment.

    own 2 1 0          the face-up card in slot 2 into your own school at x=1, y=0
    give 3 bob 0 1     the card in slot 3 to Bob's school at (0, 1); a player by name (case does not
    give 3 2 0 1       matter, a unique start is enough) or by seat number; with one opponent the
                       player may be left out: give 3 0 1
    octopus 0 0        the octopus onto your coral at (0, 0)
    discard 1 3        when no pair can be placed: discard the cards in slots 1 and 3
    reveal             at the end: turn up your colour tile
Slots are numbered 1-4 as on the board. Punctuation and the words of the move list ("slot", "to",
"at", ...) may be typed too, so a line of the move list reads back as its move. A command that is not
legal now says why; nothing is sent.
"""

import re
from collections.abc import Sequence

from p2pfish.core.actions import Action, RevealCard
from p2pfish.games.kunayala.rules import (
    BONES,
    BONES_CARD,
    COLOUR_DECK,
    CORAL,
    DISCARDS,
    FISH,
    OTHER,
    OWN,
    PLACE_OCTOPUS,
    REVEAL,
    SHARK,
    STACKS,
    Card,
    Discard,
    PlaceOctopus,
    PlaceOther,
    PlaceOwn,
    SchoolCell,
    View,
    card,
    fits,
    place_octopus,
    place_other,
    place_own,
)
from p2pfish.games.kunayala.screen import TOKEN_HELP
from p2pfish.games.kunayala.words import card_text, cell_text, kind_text
from p2pfish.ui.reading import NO_COMMAND, NUMBER

VERBS = ("own", "give", "octopus", "discard", "reveal")
ALIASES = {"place": "own", "mine": "own", "other": "give", "send": "give", "octo": "octopus", "oc": "octopus"}
FILLERS = frozenset({"slot", "slots", "card", "cards", "to", "at", "on", "onto", "in", "into", "the", "and", "your",
                     "my", "colour", "color", "tile", "coral", "school", "seat", "of"})  # fmt: skip
"""Words a command may hold that carry no meaning (they make the move list's own words readable back)."""
HELP = f"""Kuna Yala commands (then Enter). Slots 1-4 are the face-up cards; x grows east, y north.
  own 2 1 0        slot 2 into your school at x=1 y=0
  give 3 bob 0 1   slot 3 to Bob's school at (0, 1); give 3 2 0 1: to seat 2 (give 3 0 1 if
                   there is one opponent). A shark goes onto an opponent's fish.
  octopus 0 0      the octopus onto your coral at (0, 0)     reveal   your colour, at the end
  discard 1 3      slots 1 and 3, when no pair of face-up cards can be placed
{TOKEN_HELP}
Your turn: a card into your school, then one to an opponent. A fish must share colour or
background with each fish next to it; only coral goes next to bones; 3 fish of a background in
a row turn to bones. You score your secret colour's fish in every school, +3 if it has the most
fish in your school, +1 per octopus you hold, +2 for the most sharks received."""


def words() -> list[str]:
    """What completion offers."""
    return [*VERBS, "say", "help", "quit"]


# --- moves in words ------------------------------------------------------------------------------


def _slot_text(view: View, slot: int) -> str:
    """A face-up slot as the moves name it: its number, then its card ("2 (red fish, sand)")."""
    label = view.face_up[slot] if 0 <= slot < len(view.face_up) else None
    return f"{slot + 1} ({'empty' if label is None else card_text(label)})"


def describe(action: Action, view: View, names: tuple[str, ...] = ()) -> str:
    """An action in the words a player would use (typed back, it is read as the same action)."""
    if isinstance(action, PlaceOwn):
        return f"own: slot {_slot_text(view, action.slot)} to {cell_text(action.x, action.y)}"
    if isinstance(action, PlaceOther):
        whom = _whom(action.seat, view, names)
        return f"give: slot {_slot_text(view, action.slot)} to {whom} at {cell_text(action.x, action.y)}"
    if isinstance(action, PlaceOctopus):
        return f"octopus: on the coral at {cell_text(action.x, action.y)}"
    if isinstance(action, Discard):
        return f"discard: slots {_slot_text(view, action.first)} and {_slot_text(view, action.second)}"
    if isinstance(action, RevealCard):
        return f"reveal your colour ({action.label})"
    return str(action)


def _whom(seat: int, view: View, names: tuple[str, ...]) -> str:
    """A player as a command may name them: the name if it reads back as that seat, else "seat N"."""
    if seat < len(names) and _seat_named(names[seat].lower(), view, names) == seat:
        return names[seat]
    return f"seat {seat}"


def command(action: Action, view: View, names: tuple[str, ...] = ()) -> str:
    """The shortest command that plays `action` (a player by name when `names` gives one that reads back)."""
    if isinstance(action, PlaceOwn):
        return f"own {action.slot + 1} {action.x} {action.y}"
    if isinstance(action, PlaceOther):
        whom = _whom(action.seat, view, names).removeprefix("seat ")
        return f"give {action.slot + 1} {whom} {action.x} {action.y}"
    if isinstance(action, PlaceOctopus):
        return f"octopus {action.x} {action.y}"
    if isinstance(action, Discard):
        return f"discard {action.first + 1} {action.second + 1}"
    if isinstance(action, RevealCard):
        return "reveal"
    return str(action)


# --- reading commands ----------------------------------------------------------------------------

CARD_NOTE = re.compile(r"\([^)]*[a-z][^)]*\)")
"""A parenthesised card name in a line of the move list, like "(red fish, sand)"."""


def parse(text: str, view: View, legal: Sequence[Action], names: tuple[str, ...] = ()) -> Action | str:
    """The legal action `text` names, or a message saying why it is not one."""
    lowered = CARD_NOTE.sub(" ", text.lower())
    tokens = re.sub(r"[(),:;]", " ", lowered).split()
    if not tokens:
        return NO_COMMAND
    verb = ALIASES.get(tokens[0], tokens[0])
    if verb not in VERBS:
        return f"unknown command {tokens[0]!r}: try {', '.join(VERBS)}, say TEXT, help or quit"
    wanted = _read(verb, tokens[1:], view, names)
    if isinstance(wanted, str):
        return wanted
    for action in legal:
        if action == wanted:
            return action
    return why_not(wanted, view, legal, names)


def _numbers(args: list[str]) -> list[int] | None:
    kept = [a for a in args if a not in FILLERS]
    if not all(NUMBER.fullmatch(a) for a in kept):
        return None
    return [int(a) for a in kept]


def _slot(number: int) -> int | str:
    if not 1 <= number <= STACKS:
        return f"there is no slot {number}: the face-up cards are slots 1 to {STACKS}"
    return number - 1


def _read(verb: str, args: list[str], view: View, names: tuple[str, ...]) -> Action | str:
    if verb == "reveal":
        return RevealCard(COLOUR_DECK, view.seat, view.my_colour or "")
    if verb == "give":
        return _read_give(args, view, names)
    numbers = _numbers(args)
    if verb == "own":
        if numbers is None or len(numbers) != 3:
            return "own takes a slot and a cell: own 2 1 0 puts slot 2 into your school at x=1, y=0"
        slot = _slot(numbers[0])
        return slot if isinstance(slot, str) else place_own(slot, numbers[1], numbers[2])
    if verb == "octopus":
        if numbers is None or len(numbers) != 2:
            return "octopus takes the cell of one of your corals: octopus 0 0"
        return place_octopus(numbers[0], numbers[1])
    if numbers is None or len(numbers) != 2:
        return "discard takes two slots: discard 1 3"
    first, second = _slot(numbers[0]), _slot(numbers[1])
    if isinstance(first, str):
        return first
    if isinstance(second, str):
        return second
    if first == second:
        return "discard two different slots, like discard 1 3"
    return DISCARDS[min(first, second), max(first, second)]


def _read_give(args: list[str], view: View, names: tuple[str, ...]) -> Action | str:
    usage = "give takes a slot, a player and a cell: give 3 bob 0 1 (or give 3 2 0 1 for seat 2)"
    while args and args[0] in FILLERS:
        args = args[1:]
    if len(args) < 3 or not all(NUMBER.fullmatch(a) for a in (args[0], args[-2], args[-1])):
        return usage
    slot = _slot(int(args[0]))
    if isinstance(slot, str):
        return slot
    x, y = int(args[-2]), int(args[-1])
    who = args[1:-2]
    if not who:
        opponents = [seat for seat in range(view.players) if seat != view.seat]
        if len(opponents) != 1:
            return "say to whom: give 3 bob 0 1, or give 3 2 0 1 for seat 2"
        return place_other(slot, opponents[0], x, y)
    seat = _seat_typed(who, view, names)
    return seat if isinstance(seat, str) else place_other(slot, seat, x, y)


def _seat_typed(who: list[str], view: View, names: tuple[str, ...]) -> int | str:
    """The seat the words between slot and cell name, read whole first, then without the filler words
    around them ("to Bob's school at")."""
    while True:
        typed = " ".join(who)
        found = _seat_named(typed, view, names)
        if isinstance(found, str) and typed.endswith("'s"):
            found = _seat_named(typed.removesuffix("'s"), view, names)
        if not isinstance(found, str):
            return found
        if len(who) > 1 and who[-1] in FILLERS:
            who = who[:-1]
        elif len(who) > 1 and who[0] in FILLERS:
            who = who[1:]
        else:
            return found


def _seat_named(who: str, view: View, names: tuple[str, ...]) -> int | str:
    """A seat by name (any case; a unique start of a name will do) or by number."""
    lowered = [name.lower() for name in names[: view.players]]
    if who in lowered and lowered.count(who) == 1:
        return lowered.index(who)
    if NUMBER.fullmatch(who):
        seat = int(who)
        if 0 <= seat < view.players:
            return seat
        return f"there is no seat {seat}: seats are 0 to {view.players - 1}"
    starting = [seat for seat, name in enumerate(lowered) if name.startswith(who)]
    if len(starting) == 1:
        return starting[0]
    if len(starting) > 1:
        return f"{who!r} could be {' or '.join(names[s] for s in starting)}: type more of the name"
    known = ", ".join(f"{name} ({seat})" for seat, name in enumerate(names[: view.players]))
    return f"no player is called {who!r}" + (f" (players: {known})" if known else "; use a seat number")


# --- why a command is not legal now --------------------------------------------------------------


def _visible(top: str) -> Card:
    return BONES_CARD if top == BONES else card(top)


def _seen(seat: int, view: View, names: tuple[str, ...]) -> str:
    if seat == view.seat:
        return "your school"
    return f"{names[seat]}'s school" if seat < len(names) else f"seat {seat}'s school"


def placement_error(school: Sequence[SchoolCell], x: int, y: int, new: Card, where: str) -> str | None:
    """Why a fish or coral card may not go on (x, y) of a school, or None if it may (the view's check)."""
    cells = {(c.x, c.y): c for c in school}
    here = cells.get((x, y))
    if here is not None:
        return f"{cell_text(x, y)} in {where} is taken: it shows {card_text(here.top)}"
    around = [cells[p] for p in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if p in cells]
    if not around:
        return f"{cell_text(x, y)} is not next to any card of {where} (no diagonals)"
    for neighbour in around:
        top = _visible(neighbour.top)
        if fits(new, top):
            continue
        at = cell_text(neighbour.x, neighbour.y)
        if top.kind == BONES:
            return f"the fish bones at {at} take nothing but coral next to them"
        return (
            f"the {card_text(neighbour.top)} at {at} does not fit next to a {kind_text(new)}: "
            "a fish needs the colour or the background of every fish next to it"
        )
    return None


def _wrong_phase(wanted: Action, view: View, legal: Sequence[Action]) -> str | None:
    phase = view.phase
    if phase == REVEAL:
        return None if isinstance(wanted, RevealCard) else "the game is over: reveal your colour (reveal, or Enter)"
    if isinstance(wanted, RevealCard):
        return "colours are revealed only at the end of the game"
    if phase == PLACE_OCTOPUS:
        if isinstance(wanted, PlaceOctopus):
            return None
        return "first put the octopus on one of your corals: octopus X Y"
    if isinstance(wanted, PlaceOctopus):
        return "there is no octopus for you to place now"
    if phase == OTHER:
        if isinstance(wanted, PlaceOther):
            return None
        if isinstance(wanted, PlaceOwn):
            return "your own card is placed: now give a card to an opponent (give SLOT PLAYER X Y)"
        return "you placed a card this turn, so you cannot discard now: give one to an opponent"
    if phase != OWN:
        return "not now: nothing is yours to play"
    if isinstance(wanted, PlaceOther):
        return "first a card into your own school (own SLOT X Y); then one for an opponent"
    can_place = any(isinstance(action, PlaceOwn) for action in legal)
    if isinstance(wanted, Discard) and can_place:
        return "a pair of face-up cards can be placed, so you may not discard"
    if isinstance(wanted, PlaceOwn) and not can_place:
        return "no pair of face-up cards can be placed: discard two of them (discard A B)"
    return None


def why_not(wanted: Action, view: View, legal: Sequence[Action], names: tuple[str, ...] = ()) -> str:
    """Why `wanted` is not among the legal actions, from cheap checks against the view."""
    if not legal:
        return "it is not your turn"
    wrong = _wrong_phase(wanted, view, legal)
    if wrong is not None:
        return wrong
    if isinstance(wanted, Discard):
        for slot in (wanted.first, wanted.second):
            if view.face_up[slot] is None:
                return f"slot {slot + 1} is empty"
        return "that is not a legal discard now"
    if isinstance(wanted, PlaceOctopus):
        cell = next((c for c in view.schools[view.seat] if (c.x, c.y) == (wanted.x, wanted.y)), None)
        if cell is None:
            return f"your school has no card at {cell_text(wanted.x, wanted.y)}: the octopus goes onto a coral"
        return f"{cell_text(wanted.x, wanted.y)} shows {card_text(cell.top)}, not a coral of yours"
    if isinstance(wanted, (PlaceOwn, PlaceOther)):
        return _why_not_placed(wanted, view, names)
    return "that is not a legal move now"


def _why_not_placed(wanted: PlaceOwn | PlaceOther, view: View, names: tuple[str, ...]) -> str:
    label = view.face_up[wanted.slot]
    if label is None:
        return f"slot {wanted.slot + 1} is empty"
    new = card(label)
    seat = view.seat if isinstance(wanted, PlaceOwn) else wanted.seat
    if isinstance(wanted, PlaceOther) and seat == view.seat:
        return "that is your own school: a card goes there with own SLOT X Y"
    where = _seen(seat, view, names)
    school = view.schools[seat]
    at = cell_text(wanted.x, wanted.y)
    if new.kind == SHARK:
        if isinstance(wanted, PlaceOwn):
            return "a shark never goes into your own school: it goes onto an opponent's fish (one shark a turn)"
        cell = next((c for c in school if (c.x, c.y) == (wanted.x, wanted.y)), None)
        if cell is None:
            return f"{where} has no card at {at}: a shark goes onto a fish"
        if cell.top == BONES:
            return f"the fish at {at} turned to bones: a shark goes onto a live fish"
        shown = card(cell.top).kind
        if shown == SHARK:
            return f"the fish at {at} has a shark on it already: two sharks never share a fish"
        return f"{at} in {where} shows {card_text(cell.top)}: a shark goes onto a fish"
    if new.kind not in (FISH, CORAL):
        return f"a {new.kind} cannot be placed"
    error = placement_error(school, wanted.x, wanted.y, new, where)
    if error is not None:
        return error
    if isinstance(wanted, PlaceOwn):
        return f"if you take slot {wanted.slot + 1}, no other face-up card could go to an opponent"
    return "that is not a legal move now"
