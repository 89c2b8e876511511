"""Kuna Yala determinizer for the search bot: a full state consistent with one seat's view.

The draws are public, so what the seat does not see is the other seats' colour tiles and the cards no view shows
any more: those under sharks (fish) and octopuses (a coral, then octopuses), and the fish turned to bones. Those
are drawn from the cards not in sight, of the right kind; the rest form the stacks' pool. Each other seat's
colour is drawn among the colours left, likelier the more fish of it lie in that seat's own school (a player
keeps its own colour: COLOUR_EVIDENCE per fish, in log-odds).
"""

import math
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from p2pfish.bots.search import Sampler, World
from p2pfish.core.actions import Action, card_name
from p2pfish.core.wire import Scalar
from p2pfish.games.kunayala.greedy import GreedyKunaYala
from p2pfish.games.kunayala.rules import (
    BONES,
    COLOUR_DECK,
    CORAL,
    FISH,
    FISH_COLOURS,
    OCTOPUS,
    OTHER,
    PLACE_OCTOPUS,
    SHARK,
    Cell,
    Options,
    State,
    View,
    card,
    deck_labels,
    scores,
)

COLOUR_EVIDENCE: Final = 0.4
HORIZON_ROUNDS: Final = 1


def sample(view: Any, rng: random.Random) -> World:
    assert isinstance(view, View)
    visible = Counter(label for label in view.face_up if label is not None)
    visible.update(view.discards)
    if view.octopus is not None:
        visible[view.octopus] += 1
    visible.update(cell.top for school in view.schools for cell in school if cell.top != BONES)
    hidden: dict[str, list[str]] = {}
    for label in deck_labels(Options()):
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
    state = State(
        players=view.players,
        options=Options(),
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
    colours = _colours(view, rng)
    known: list[dict[str, Scalar]] = [{card_name(COLOUR_DECK, s): colours[s]} for s in range(view.players)]
    tiles = [*colours, *(c for c in FISH_COLOURS if c not in colours)]
    return World(state, known, {COLOUR_DECK: tiles})


def _colours(view: View, rng: random.Random) -> list[str]:
    """A colour per seat: its own, the revealed ones, and for the others a weighted draw without replacement."""
    chosen: list[str | None] = list(view.colours)
    if view.my_colour is not None:
        chosen[view.seat] = view.my_colour
    others = [s for s in range(view.players) if chosen[s] is None]
    rng.shuffle(others)
    for s in others:
        left = [c for c in FISH_COLOURS if c not in chosen]
        counts = Counter(card(cell.top).colour for cell in view.schools[s] if cell.top != BONES and cell.height == 1)
        weights = [math.exp(COLOUR_EVIDENCE * counts[c]) for c in left]
        chosen[s] = rng.choices(left, weights)[0]
    return [str(c) for c in chosen]


def _horizon(root: Any, world: World) -> tuple[int, ...] | None:
    """A playout stops after HORIZON_ROUNDS more turns of every seat, judged by the scores then."""
    state = world.state
    if state.turns < root.turns + HORIZON_ROUNDS * state.players:
        return None
    colours = [str(world.known[s][card_name(COLOUR_DECK, s)]) for s in range(state.players)]
    return tuple(score.total for score in scores(state.schools, colours))


def _prior(view: Any, legal: Sequence[Action]) -> list[float]:
    return GreedyKunaYala(random.Random(0)).values(view, legal)


HORIZON_SCALE: Final = 5.0
"""The lead at the end of a playout (in points) worth about a 0.88 reward (a turn moves the scores by a few points)."""


SAMPLER = Sampler(sample, horizon=_horizon, horizon_scale=HORIZON_SCALE, prior=_prior)
"""This game's determinizer, for its registry entry."""
