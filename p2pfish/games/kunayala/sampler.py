"""Kuna Yala determinizer for the search bot: a full state consistent with one seat's view.

The draws are public, so what the seat does not see is the other seats' colour tiles and the cards no view shows
any more (drawn by board.py).

Colours. The bot plays each turn as if its colour were one drawn for the turn (disguise.py): the colour a view
shows is the seat's own only at the disguise's chance, so a world gives the seat each colour as likely as it is
its own given the one shown (`own_weights`: 0.3 against 0.233 each), and the other seats' colours (distinct) by the
seat's reading of who placed which card (reading.py; even without one). The search's default is the greedy bot's
best by its values averaged the same way, not its best for the colour shown alone. Whatever it computes depends on
the colour shown and on public moves only, so the disguise's bound on what a turn shows holds as before.

A playout stops after a turn of every seat and is judged by the scores then, the majority bonus counted as a race
still run (`_race`), and the seat with strictly the most corals credited with its share of the octopuses still to
come, as the greedy bot counts it (`_octopuses_to_come`): without it a playout saw a coral as worth nothing unless
an octopus came up within the turn (and at 48 playouts a move the search won fewer games than at 24).

A turn that surely ends the game is not searched but played exactly for the seat's own colour (endgame.py).
"""

import itertools
import math
import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

from p2pfish.bots.search import Sampler, World
from p2pfish.core.actions import Action, card_name
from p2pfish.core.player import Player
from p2pfish.core.wire import Scalar
from p2pfish.games.kunayala.board import board
from p2pfish.games.kunayala.disguise import FULL_STACKS, colour_chances
from p2pfish.games.kunayala.endgame import last_turn
from p2pfish.games.kunayala.greedy import LEAD_WEIGHT, GreedyKunaYala
from p2pfish.games.kunayala.rules import (
    COLOUR_DECK,
    FISH_COLOURS,
    MAJORITY_BONUS,
    State,
    Tally,
    View,
    coral_leader,
    school_view,
    score,
    tally,
    unseen_octopuses,
)

HORIZON_ROUNDS: Final = 1
RACE_SPREAD_MIN: Final = 0.5
RACE_SPREAD: Final = 2.0
"""The spread (in fish of lead) of the majority race's tanh at a playout's horizon: RACE_SPREAD_MIN with the stacks
spent, RACE_SPREAD more with them full."""


def sample(view: Any, rng: random.Random, reading: list[dict[str, float]] | None = None) -> World:
    """A world for `view`; `reading`: each seat's colour weights (None: all alike)."""
    assert isinstance(view, View)
    state = board(view, rng)
    even = [dict.fromkeys(FISH_COLOURS, 1.0)] * view.players
    colours = _colours(view, rng, even if reading is None else reading)
    known: list[dict[str, Scalar]] = [{card_name(COLOUR_DECK, s): colours[s]} for s in range(view.players)]
    tiles = [*colours, *(c for c in FISH_COLOURS if c not in colours)]
    return World(state, known, {COLOUR_DECK: tiles})


def _colours(view: View, rng: random.Random, theirs: list[dict[str, float]]) -> list[str]:
    """A colour per seat: the revealed ones as they are; the seat's own and the other seats' unrevealed ones drawn
    together (distinct), each assignment weighted by `own_weights` for the seat's own and `theirs` for the
    others."""
    chosen: list[str | None] = list(view.colours)
    unknown = [s for s in range(view.players) if chosen[s] is None]
    if view.seat not in unknown:
        return [str(c) for c in chosen]
    mine = own_weights(view)
    left = [c for c in FISH_COLOURS if c not in chosen]
    options, weights = [], []
    for assignment in itertools.permutations(left, len(unknown)):
        weight = 1.0
        for s, colour in zip(unknown, assignment, strict=True):
            weight *= mine[colour] if s == view.seat else theirs[s][colour]
        if weight > 0.0:
            options.append(assignment)
            weights.append(weight)
    for s, colour in zip(unknown, rng.choices(options, weights)[0], strict=True):
        chosen[s] = colour
    return [str(c) for c in chosen]


def own_weights(view: View) -> dict[str, float]:
    """How likely each colour is to be the seat's own given the colour the view shows: the disguise's chance of
    playing a turn as that one."""
    assert view.my_colour is not None
    return {c: colour_chances(view, c)[view.my_colour] for c in FISH_COLOURS}


def prepare(view: Any, own: Player) -> Callable[[Any, random.Random], World]:
    """The determinizer for one decision: other seats' colours weighted by the seat's reading of who placed what
    (the memory of its playout policy, reading.py), if it keeps one."""
    assert isinstance(view, View)
    return partial(sample, reading=own.reading.weights(view)) if isinstance(own, GreedyKunaYala) else sample


def _horizon(root: Any, world: World) -> tuple[float, ...] | None:
    """A playout stops after HORIZON_ROUNDS more turns of every seat, judged by the scores then, each seat's
    majority bonus counted as a race (`_race`)."""
    state = world.state
    if state.turns < root.turns + HORIZON_ROUNDS * state.players:
        return None
    colours = [str(world.known[s][card_name(COLOUR_DECK, s)]) for s in range(state.players)]
    tallies = [tally(school_view(school)) for school in state.schools]
    left = min(1.0, sum(state.stacks) / FULL_STACKS)
    leader = coral_leader(state.schools)
    judged = []
    for seat, colour in enumerate(colours):
        points = score(tallies, seat, colour)
        lead = _octopuses_to_come(state, tallies) if seat == leader else 0.0
        judged.append(points.total - points.majority + _race(tallies[seat], colour, left) + lead)
    return tuple(judged)


def _octopuses_to_come(state: State, tallies: Sequence[Tally]) -> float:
    """What the greedy bot counts the seat with strictly the most corals as getting of the octopuses still to come
    (greedy.py's LEAD_WEIGHT x the unseen octopuses x the share of the cards left outside the fullest stack)."""
    left = sum(state.stacks)
    if not left:
        return 0.0
    unseen = unseen_octopuses(state.options, state.discards, state.octopus, sum(t.octopuses for t in tallies))
    return LEAD_WEIGHT * unseen * (left - max(state.stacks)) / left


def _race(own: Tally, colour: str, left: float) -> float:
    """The majority bonus as a race still run: the own colour's lead over the next colour in the own school, the
    bonus the likelier the larger the lead, and the less certain the more cards are still to come."""
    lead = own.fish[colour] - max(n for c, n in own.fish.items() if c != colour)
    spread = RACE_SPREAD_MIN + RACE_SPREAD * left
    return MAJORITY_BONUS * (0.5 + 0.5 * math.tanh((lead - 0.5) / spread))


def _prior(view: Any, legal: Sequence[Action]) -> list[float]:
    """The greedy bot's values averaged over the colours the seat's own may be (`own_weights`)."""
    assert isinstance(view, View)
    greedy = GreedyKunaYala(random.Random(0))
    total = [0.0] * len(legal)
    for colour, weight in own_weights(view).items():
        values = greedy.values(view._replace(my_colour=colour), legal)
        total = [t + weight * v for t, v in zip(total, values, strict=True)]
    return total


def _default(view: Any, legal: Sequence[Action]) -> int:
    """The action the prior values most (the greedy bot's own choice is its best for the colour shown alone)."""
    prior = _prior(view, legal)
    return max(range(len(legal)), key=lambda i: prior[i])


HORIZON_SCALE: Final = 5.0
"""The lead at the end of a playout (in points) worth about a 0.88 reward (a turn moves the scores by a few points)."""


SAMPLER = Sampler(
    sample,
    horizon=_horizon,
    horizon_scale=HORIZON_SCALE,
    prior=_prior,
    default=_default,
    prepare=prepare,
    last_turn=last_turn,
)
"""This game's determinizer, for its registry entry."""
