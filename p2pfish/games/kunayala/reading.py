"""What a Kuna Yala seat reads of the other seats' colours from the cards they placed (public evidence only).

A seat remembers where it placed its own cards and, of every cell it has seen, the card it first showed. A card
it did not place was placed by another seat: in that seat's own school (its own card of the turn), or, heads-up,
in this seat's school (the other seat's card for an opponent). The evidence, in log-odds per fish for the placing
seat's colour, was fitted on 300 heads-up games of disguised greedy bots (6,444 readings, every fourth turn): a
fish of a colour in its own school OWN_FISH, given to the opponent GIVEN_FISH, a shark on a fish of it SHARKED.
It is weak, as the disguise means it to be: the likeliest colour by it is right 36 % of the time against 33 %
blind (the old reading, COLOUR_EVIDENCE 0.4 per fish in a school whoever placed it, scored worse than blind in
log-likelihood: it was sure of far more than the moves show).
"""

import math
from typing import Final

from p2pfish.core.actions import Action
from p2pfish.games.kunayala.rules import BONES, FISH, FISH_COLOURS, SHARK, PlaceOther, PlaceOwn, View, card

OWN_FISH: Final = 0.05
GIVEN_FISH: Final = 0.05
SHARKED: Final = -0.15

Place = tuple[int, int, int]
"""A school (its seat) and a cell in it."""


class TableReading:
    """One seat's memory of who placed what (see the module's docstring)."""

    def __init__(self) -> None:
        self.mine: set[Place] = set()
        """Where this seat placed cards (not its sharks, which cover a fish that was there)."""
        self.first: dict[Place, str] = {}
        """The card each cell showed when this seat first saw it."""

    def saw(self, view: View) -> None:
        for seat, school in enumerate(view.schools):
            for cell in school:
                self.first.setdefault((seat, cell.x, cell.y), cell.top)

    def chose(self, view: View, action: Action) -> None:
        """This seat played `action` at `view`."""
        self.saw(view)
        if isinstance(action, PlaceOwn):
            self.mine.add((view.seat, action.x, action.y))
        elif isinstance(action, PlaceOther) and not _is_shark(view.face_up[action.slot]):
            self.mine.add((action.seat, action.x, action.y))  # not a shark: it covers a fish another seat placed

    def weights(self, view: View) -> list[dict[str, float]]:
        """Each seat's colour weights by the evidence so far (even for this seat and where there is none)."""
        self.saw(view)
        evidence = [dict.fromkeys(FISH_COLOURS, 0.0) for _ in range(view.players)]
        for (seat, x, y), top in self.first.items():
            if (seat, x, y) in self.mine or top == BONES:
                continue
            placed = card(top)
            if placed.kind != FISH or placed.colour is None:
                continue
            if seat != view.seat:
                evidence[seat][placed.colour] += OWN_FISH * placed.fish
            elif view.players == 2:
                evidence[1 - view.seat][placed.colour] += GIVEN_FISH * placed.fish
        if view.players == 2:
            for cell in view.schools[view.seat]:
                first = self.first[view.seat, cell.x, cell.y]
                if cell.top != BONES and card(cell.top).kind == SHARK and first != BONES:
                    prey = card(first)
                    if prey.kind == FISH and prey.colour is not None:
                        evidence[1 - view.seat][prey.colour] += SHARKED
        return [{c: math.exp(e[c]) for c in FISH_COLOURS} for e in evidence]


def _is_shark(label: str | None) -> bool:
    return label is not None and card(label).kind == SHARK
