"""What happened, in words, for the log: one line per move or chance event of Fish'n'Stones. Spots are
named as on every board's edges (a1..c3), never by a column number, which each seat counts from its own
left; given the views before and after, a fishing line says how many cards the fisher took."""

from p2pfish.core.actions import Action, Commit, Reveal
from p2pfish.games.fishnstones.rules import SPOT_NAMES, Bait, Fish, NoBait, View, column_spots
from p2pfish.ui.drawing import drawn_seat


def narrate(
    seat: int | None, action: Action, names: tuple[str, ...], before: View | None = None, after: View | None = None
) -> str:
    if seat is None:
        drawn = drawn_seat(action, len(names))
        if drawn is not None:
            return f"{names[drawn]} starts (drawn by joint randomness)."
        return "The pond is filled (joint randomness)."
    who = names[seat]
    if isinstance(action, Commit):
        return f"{who} casts the cat face down."
    if isinstance(action, Reveal):
        spots = column_spots(len(names), seat, int(action.value)) if action.value in (1, 2, 3) else ()
        where = " ".join(SPOT_NAMES[spot] for spot in spots) or str(action.value)
        return f"{who} reveals the cat: the column {where}."
    if isinstance(action, NoBait):
        return f"{who} does not bait."
    if isinstance(action, Bait):
        return f"{who} baits {SPOT_NAMES[action.target]} with the stack from {SPOT_NAMES[action.source]}."
    if isinstance(action, Fish):
        if action.spot is None:
            return f"{who} finds the column empty."
        took = ""
        if before is not None and after is not None:
            cards = after.bucket_sizes[seat] - before.bucket_sizes[seat]
            took = f" and takes {cards} card{'' if cards == 1 else 's'} into the bucket"
        return f"{who} fishes {SPOT_NAMES[action.spot]}{took}."
    return f"{who}: {action}"
