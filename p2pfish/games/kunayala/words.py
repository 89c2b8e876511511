"""Kuna Yala in words: the names of the cards, and one line per move or chance event for the log.

Given the reader's view just before and after the action, a line tells what a player at the table
would see: the card placed (not only its face-up slot), the fish a shark eats, the fish the curse turns
to bones, who gets an octopus or why it is discarded. Without those views it names the slot and cell.
"""

from p2pfish.core.actions import Action, Chance, Dealt, RevealCard, Shuffled
from p2pfish.core.errors import MalformedInput
from p2pfish.games.kunayala.rules import (
    BONES,
    COLOUR_DECK,
    CORAL,
    FISH,
    OCTOPUS,
    SHARK,
    Card,
    Discard,
    PlaceOctopus,
    PlaceOther,
    PlaceOwn,
    View,
    card,
)
from p2pfish.ui.drawing import drawn_seat


def card_text(label: str) -> str:
    """A card label as a player says it: "red fish, sand", "2 blue fish, deep", "shark", "fish bones"."""
    if label == BONES:
        return "fish bones"
    try:
        return kind_text(card(label))
    except MalformedInput:
        return label


def kind_text(kind: Card) -> str:
    """What a card shows, as card_text says it."""
    if kind.kind == FISH:
        return f"{'2 ' if kind.fish == 2 else ''}{kind.colour} fish, {kind.background}"
    return "fish bones" if kind.kind == BONES else kind.kind


def article(label: str) -> str:
    """A card with its article, for sentences: "a red fish on sand", "two blue fish on deep", "an octopus"."""
    try:
        kind = card(label)
    except MalformedInput:
        return label
    if kind.kind == FISH:
        return f"{'two' if kind.fish == 2 else 'a'} {kind.colour} fish on {kind.background}"
    return {CORAL: "a coral", SHARK: "a shark", OCTOPUS: "an octopus"}.get(kind.kind, kind.kind)


def cell_text(x: int, y: int) -> str:
    return f"({x}, {y})"


def narrate(
    seat: int | None, action: Action, names: tuple[str, ...], before: View | None = None, after: View | None = None
) -> str:
    line = _chance(action, names, before, after) if seat is None else _move(seat, action, names, before)
    if before is not None and after is not None:
        line += "".join(" " + told for told in _curses(before, after, names))
    return line


def _placed(action: PlaceOwn | PlaceOther, before: View | None) -> str:
    """The card a placement takes: its name when the view before it is known, else its face-up slot."""
    label = before.face_up[action.slot] if before is not None and action.slot < len(before.face_up) else None
    return f"face-up card {action.slot + 1}" if label is None else article(label)


def _cell_under(before: View | None, seat: int, x: int, y: int) -> str | None:
    if before is None or not 0 <= seat < len(before.schools):
        return None
    return next((cell.top for cell in before.schools[seat] if (cell.x, cell.y) == (x, y)), None)


def _move(seat: int, action: Action, names: tuple[str, ...], before: View | None) -> str:
    who = names[seat]
    if isinstance(action, PlaceOwn):
        return f"{who} puts {_placed(action, before)} into their own school at {cell_text(action.x, action.y)}."
    if isinstance(action, PlaceOther):
        whom = names[action.seat] if 0 <= action.seat < len(names) else f"seat {action.seat}"
        eaten = _cell_under(before, action.seat, action.x, action.y)
        if eaten is not None and _is_card(eaten) and card(eaten).kind == FISH:
            return (f"{who} sets a shark on {whom}'s {card_text(eaten)} at {cell_text(action.x, action.y)}: "
                    f"the shark eats it.")  # fmt: skip
        return f"{who} gives {_placed(action, before)} to {whom}'s school at {cell_text(action.x, action.y)}."
    if isinstance(action, PlaceOctopus):
        return f"{who} puts the octopus on their coral at {cell_text(action.x, action.y)}."
    if isinstance(action, Discard):
        if before is not None:
            pair = [before.face_up[slot] for slot in (action.first, action.second) if slot < len(before.face_up)]
            named = " and ".join(article(label) for label in pair if label is not None)
            return f"{who} can place no pair and discards {named}."
        return f"{who} can place no pair and discards face-up cards {action.first + 1} and {action.second + 1}."
    if isinstance(action, RevealCard):
        return f"{who} reveals their colour: {action.label}."
    return f"{who}: {action}"


def _curses(before: View, after: View, names: tuple[str, ...]) -> list[str]:
    """The fishes' curse, told: the fish of each school that this action turned to bones."""
    out = []
    for seat, (old, new) in enumerate(zip(before.schools, after.schools, strict=False)):
        was = {(cell.x, cell.y): cell.top for cell in old}
        cursed = [(cell.x, cell.y) for cell in new if cell.top == BONES and was.get((cell.x, cell.y), "") != BONES]
        if cursed:
            cells = ", ".join(cell_text(x, y) for x, y in sorted(cursed))
            out.append(f"The fishes' curse: {len(cursed)} fish of {names[seat]}'s school turn to bones at {cells}.")
    return out


def _chance(action: Action, names: tuple[str, ...], before: View | None, after: View | None) -> str:
    if isinstance(action, Shuffled):
        return "The colour tiles are shuffled face down (mental-poker deck)."
    if isinstance(action, Dealt):
        if action.deck == COLOUR_DECK and action.to is not None and 0 <= action.to < len(names):
            return f"{names[action.to]} is dealt a colour tile, face down: only they see it."
        return f"Chance: {action}."
    seat = drawn_seat(action, len(names))
    if seat is not None:
        return f"{names[seat]} starts (drawn by joint randomness)."
    if isinstance(action, Chance) and len(action.values) == 1:
        value = action.values[0]
        if isinstance(value, str) and _is_card(value):
            return _turned_up(value, names, before, after)
    return f"Chance: {action}."


def _turned_up(label: str, names: tuple[str, ...], before: View | None, after: View | None) -> str:
    """A card turned up, and what became of it: an octopus goes to the coral leader or is discarded, a fourth
    shark face up is discarded."""
    kind = card(label).kind
    discarded = after is not None and before is not None and label in after.discards and label not in before.discards
    if kind == OCTOPUS:
        if after is not None and after.octopus == label and after.to_act:
            leader = names[after.to_act[0]]
            return f"An octopus is turned up: it goes to {leader}, who has the most corals."
        if discarded:
            return "An octopus is turned up and discarded: no player has strictly the most corals."
        return "An octopus is turned up: it goes to the player with the most corals (discarded on a tie)."
    if kind == SHARK and discarded:
        return "A shark is turned up and discarded: four sharks may not lie face up."
    return f"{article(label).capitalize()} is turned up."


def _is_card(label: str) -> bool:
    try:
        card(label)
    except MalformedInput:
        return False
    return True
