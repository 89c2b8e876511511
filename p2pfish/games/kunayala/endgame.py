"""The last turn of a Kuna Yala game, played exactly for the seat's own colour.

A turn after which the game surely ends — whatever the refills turn up, the cards its two slots are refilled
from leave 3 stacks empty (rules.py: the end is checked once the turn's refills are done) — is the last move the
seat makes with its colour hidden: the colour tiles are revealed as soon as it is over, and no seat acts on what
the turn showed before then (an octopus placed during the refills scores the same on any coral). So the disguise
(disguise.py) has nothing left to protect, and a disguised search bot plays that turn for its true colour: every
pair of placements that ends the game is scored as the game would end, against every colour the other seats may
have (evenly), and the pair most likely to win is played. Where the seat can end the game on its turn it does, even
when behind: the choice to end is made from the public stacks alone, since a choice made on the colour would show
it to the seats that play on.

An octopus turned up by the last refills goes to the seat with strictly the most corals (a point each): the score
counts it at its chance, the stacks taken as one well-mixed pile. The colour a seat reads of the others from their
moves (reading.py) is left out: the disguise leaves too little in them (the likeliest colour is right 36 % of the
time, against 33 % blind).
"""

import itertools
import random
from collections.abc import Sequence
from typing import Any, Final

from p2pfish.core.actions import Action
from p2pfish.core.game import replace_at
from p2pfish.games.kunayala.board import board
from p2pfish.games.kunayala.rules import (
    FISH_COLOURS,
    OTHER,
    OWN,
    RULES,
    STACKS,
    PlaceOther,
    PlaceOwn,
    State,
    Tally,
    View,
    coral_leader,
    school_view,
    score,
    source_stack,
    tally,
    unseen_octopuses,
    winners,
)

MARGIN_WEIGHT: Final = 0.01
"""Between two placements equally likely to win, the one with the better mean margin (points) is played."""


def ends_with(view: View, slots: Sequence[int]) -> bool:
    """Whether the turn surely ends the game once `slots` (the own card's, then the opponent's) have been taken:
    each is refilled by one card at least (an octopus or a fourth shark turned up draws another), so if one card
    each leaves 3 stacks empty, or fewer than 2 cards face up, so does anything the refills turn up."""
    stacks = list(view.stacks)
    face_up = sum(1 for label in view.face_up if label is not None) - (2 if view.phase == OWN else 1)
    for slot in slots:
        stack = source_stack(stacks, slot)
        if stack is not None:
            stacks[stack] -= 1
            face_up += 1
    return sum(1 for size in stacks if size == 0) >= STACKS - 1 or face_up < 2


def can_end(view: View) -> bool:
    """Whether some pair of slots the turn may take ends the game (from the public stacks alone)."""
    taken = [slot for slot, label in enumerate(view.face_up) if label is None] if view.phase == OTHER else []
    face_up = [slot for slot, label in enumerate(view.face_up) if label is not None]
    firsts = taken or face_up
    return any(ends_with(view, (first, second)) for first in firsts for second in face_up if second != first)


def last_turn(view: Any, legal: Sequence[Action]) -> Action | None:
    """The seat's best action for its own colour if its turn can end the game (taking only actions that do), else
    None."""
    if not isinstance(view, View) or view.my_colour is None or view.phase not in (OWN, OTHER) or len(legal) < 2:
        return None
    if not can_end(view):
        return None
    state = board(view, random.Random(0))  # what the view hides (cards under sharks) scores nothing
    tallies = tuple(tally(school_view(school)) for school in state.schools)
    seat, judge = view.seat, _Judge(view, octopus_chances(view, tallies))
    if view.phase == OTHER:
        assert state.own_slot is not None
        found = _best_other(view, judge, state, state.own_slot, tallies)
        return None if found is None else found[1]
    if not all(isinstance(action, PlaceOwn) for action in legal):
        return None  # nothing can be placed: the turn is a discard
    best: tuple[float, Action] | None = None
    for slot in sorted({action.slot for action in legal if isinstance(action, PlaceOwn)}):
        owns = [action for action in legal if isinstance(action, PlaceOwn) and action.slot == slot]
        placed = [(action, RULES.apply(state, seat, action)) for action in owns]
        for action, after, counted in _distinct(placed, seat):
            found = _best_other(view, judge, after, slot, replace_at(tallies, seat, counted))
            if found is not None and (best is None or found[0] > best[0]):
                best = (found[0], action)
    return None if best is None else best[1]


def _best_other(
    view: View, judge: "_Judge", placed: State, own_slot: int, tallies: tuple[Tally, ...]
) -> tuple[float, Action] | None:
    """The best placement for an opponent that ends the game, the own card being placed (tallies: as it leaves the
    schools), and its value."""
    seat = view.seat
    best: tuple[float, Action] | None = None
    for action in RULES.legal_actions(placed, seat, {}):
        assert isinstance(action, PlaceOther)
        if not ends_with(view, (own_slot, action.slot)):
            continue
        after = RULES.apply(placed, seat, action)
        final = replace_at(tallies, action.seat, tally(school_view(after.schools[action.seat])))
        value = judge(final, coral_leader(after.schools))
        if best is None or value > best[0]:
            best = (value, action)
    return best


def _distinct(placed: Sequence[tuple[Action, State]], seat: int) -> list[tuple[Action, State, Tally]]:
    """The placements of one card that leave the seat's school scoring differently (the first of each), with the
    school's tally after each."""
    seen: set[tuple[tuple[int, ...], int, int]] = set()
    kept = []
    for action, after in placed:
        counted = tally(school_view(after.schools[seat]))
        key = (tuple(counted.fish.values()), counted.octopuses, counted.sharks)
        if key not in seen:
            seen.add(key)
            kept.append((action, after, counted))
    return kept


def octopus_chances(view: View, tallies: Sequence[Tally]) -> list[tuple[int, float]]:
    """The chance of each number of octopuses the last refills turn up: each of the turn's two slots is refilled
    until a card that is not an octopus shows (or the stacks run out), the stacks' cards in random order."""
    cards = sum(view.stacks)
    in_schools = sum(t.octopuses for t in tallies)
    octopuses = min(cards, unseen_octopuses(view.options, view.discards, view.octopus, in_schools))
    chances: dict[int, float] = {}

    def draw(cards: int, octopuses: int, slots: int, drawn: int, chance: float) -> None:
        if slots == 0 or cards == 0:
            chances[drawn] = chances.get(drawn, 0.0) + chance
            return
        if octopuses:
            draw(cards - 1, octopuses - 1, slots, drawn + 1, chance * octopuses / cards)
        if cards > octopuses:
            draw(cards - 1, octopuses, slots - 1, drawn, chance * (cards - octopuses) / cards)

    draw(cards, octopuses, 2, 0, 1.0)
    return sorted(chances.items())


class _Judge:
    """The seat's chance of winning a finished board, over the colours the other seats may have (evenly) and the
    octopuses the last refills may give the coral leader, plus MARGIN_WEIGHT times its mean margin."""

    def __init__(self, view: View, octopuses: list[tuple[int, float]]) -> None:
        assert view.my_colour is not None
        self.seat, self.colour, self.octopuses = view.seat, view.my_colour, octopuses
        others = [s for s in range(view.players) if s != view.seat]
        left = [c for c in FISH_COLOURS if c != view.my_colour]
        chosen = itertools.permutations(left, len(others))
        self.assignments = [dict(zip(others, colours, strict=True)) for colours in chosen]

    def __call__(self, tallies: Sequence[Tally], leader: int | None) -> float:
        own_fish = [sum(t.fish.values()) for t in tallies]
        value = 0.0
        for colours in self.assignments:
            points = [
                score(tallies, seat, self.colour if seat == self.seat else colours[seat]).total
                for seat in range(len(tallies))
            ]
            for drawn, chance in self.octopuses if leader is not None else [(0, 1.0)]:
                totals = list(points)
                if leader is not None:
                    totals[leader] += drawn
                won = winners(totals, own_fish)
                best_other = max(total for seat, total in enumerate(totals) if seat != self.seat)
                mine = (1.0 / len(won) if self.seat in won else 0.0) + MARGIN_WEIGHT * (totals[self.seat] - best_other)
                value += chance * mine
        return value / len(self.assignments)
