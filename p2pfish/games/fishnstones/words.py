"""What happened, in words, for the log: one line per move or chance event of Fish'n'Stones."""

from p2pfish.core.actions import Action, Commit, Reveal
from p2pfish.games.fishnstones.rules import SPOT_NAMES, Bait, Fish, NoBait
from p2pfish.ui.drawing import drawn_seat


def narrate(seat: int | None, action: Action, names: tuple[str, ...]) -> str:
    if seat is None:
        drawn = drawn_seat(action, len(names))
        if drawn is not None:
            return f"{names[drawn]} starts (drawn by joint randomness)."
        return "The pond is filled (joint randomness)."
    who = names[seat]
    if isinstance(action, Commit):
        return f"{who} casts the cat face down."
    if isinstance(action, Reveal):
        return f"{who} reveals the cat: column {action.value}."
    if isinstance(action, NoBait):
        return f"{who} does not bait."
    if isinstance(action, Bait):
        return f"{who} baits {SPOT_NAMES[action.target]} with the stack from {SPOT_NAMES[action.source]}."
    if isinstance(action, Fish):
        return (
            f"{who} fishes {SPOT_NAMES[action.spot]}." if action.spot is not None else f"{who} finds the column empty."
        )
    return f"{who}: {action}"
