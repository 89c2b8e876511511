"""Kuna Yala in words: the names of the cards, and one line per move or chance event for the log.

The log only gets the action, not the table around it, so a placement names the face-up slot
(1-4, as on the board) and the cell, and a turned-up card names the card but not its slot.
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


def narrate(seat: int | None, action: Action, names: tuple[str, ...]) -> str:
    if seat is None:
        return _chance(action, names)
    who = names[seat]
    if isinstance(action, PlaceOwn):
        return f"{who} puts face-up card {action.slot + 1} into their own school at {cell_text(action.x, action.y)}."
    if isinstance(action, PlaceOther):
        whom = names[action.seat] if 0 <= action.seat < len(names) else f"seat {action.seat}"
        return f"{who} gives face-up card {action.slot + 1} to {whom}'s school at {cell_text(action.x, action.y)}."
    if isinstance(action, PlaceOctopus):
        return f"{who} puts the octopus on their coral at {cell_text(action.x, action.y)}."
    if isinstance(action, Discard):
        return f"{who} can place no pair and discards face-up cards {action.first + 1} and {action.second + 1}."
    if isinstance(action, RevealCard):
        return f"{who} reveals their colour: {action.label}."
    return f"{who}: {action}"


def _chance(action: Action, names: tuple[str, ...]) -> str:
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
            if card(value).kind == OCTOPUS:
                return "An octopus is turned up: it goes to the player with the most corals (discarded on a tie)."
            return f"{article(value).capitalize()} is turned up."
    return f"Chance: {action}."


def _is_card(label: str) -> bool:
    try:
        card(label)
    except MalformedInput:
        return False
    return True
