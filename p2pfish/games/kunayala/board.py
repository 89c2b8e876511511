"""A Kuna Yala board consistent with one seat's view: the rules' state with what the view hides drawn at random.

What a view does not show is the cards no view shows any more: those under sharks (fish) and octopuses (a coral,
then octopuses), and the fish turned to bones. Those are drawn from the cards not in sight, of the right kind; the
rest form the stacks' pool. The colour tiles are left as the view shows them (the search's sampler draws the
unknown ones, sampler.py).
"""

import random
from collections import Counter

from p2pfish.games.kunayala.rules import (
    BONES,
    CORAL,
    FISH,
    OCTOPUS,
    OTHER,
    PLACE_OCTOPUS,
    SHARK,
    Cell,
    State,
    View,
    card,
    deck_labels,
)


def board(view: View, rng: random.Random) -> State:
    """A state the seat's view could have come from."""
    visible = Counter(label for label in view.face_up if label is not None)
    visible.update(view.discards)
    if view.octopus is not None:
        visible[view.octopus] += 1
    visible.update(cell.top for school in view.schools for cell in school if cell.top != BONES)
    hidden: dict[str, list[str]] = {}
    for label in deck_labels(view.options):
        if visible[label] > 0:
            visible[label] -= 1
        else:
            hidden.setdefault(card(label).kind, []).append(label)
    for labels in hidden.values():
        rng.shuffle(labels)

    def take(kind: str) -> str:
        pool = hidden.get(kind) or next(labels for labels in hidden.values() if labels)
        return pool.pop()

    schools = []
    for school in view.schools:
        cells = []
        for cell in school:
            if cell.top == BONES:
                cells.append(Cell(cell.x, cell.y, (take(FISH),), bones=True))
            elif cell.height == 1:
                cells.append(Cell(cell.x, cell.y, (cell.top,)))
            elif card(cell.top).kind == SHARK:
                cells.append(Cell(cell.x, cell.y, (take(FISH), cell.top)))
            else:
                under = (take(CORAL), *(take(OCTOPUS) for _ in range(cell.height - 2)))
                cells.append(Cell(cell.x, cell.y, (*under, cell.top)))
        schools.append(tuple(cells))
    unseen = tuple(label for labels in hidden.values() for label in labels)
    empty = tuple(slot for slot, label in enumerate(view.face_up) if label is None)
    return State(
        players=view.players,
        options=view.options,
        phase=view.phase,
        dealt=view.players,
        start=view.start,
        current=view.current,
        turns=view.turns,
        stacks=view.stacks,
        unseen=tuple(sorted(unseen)),
        face_up=view.face_up,
        refills=empty if view.phase == PLACE_OCTOPUS else (),
        own_slot=empty[0] if view.phase == OTHER and empty else None,
        octopus=view.octopus,
        schools=tuple(schools),
        discards=view.discards,
        colours=view.colours,
    )
