"""Fish Fish determinizer for the search bot: a full state consistent with one seat's view.

Everything but the Pêche cards is public. The Fisherman knows his own: the ones he holds (my_peche), the one
under the current line (my_cast), and so the kinds under his closed lines (the deck less those and the revealed
ones). Any other seat draws the unrevealed cards — closed lines, the current line, the Fisherman's hand — as a
random split of the deck less the revealed cards.
"""

import random
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

from p2pfish.bots.search import Sampler, World, round_horizon
from p2pfish.core.player import Player
from p2pfish.core.wire import Scalar
from p2pfish.games.fishfish.greedy import GreedyFishFish
from p2pfish.games.fishfish.rules import (
    BREDOUILLE,
    PECHE_DECK,
    PECHE_KINDS,
    PRISE,
    Options,
    State,
    View,
    peche_purpose,
)


def prepare(view: Any, own: Player) -> Callable[[Any, random.Random], World]:
    """For a Fish facing a line whose card is down: the card drawn a Prise with the chance the seat's own greedy
    bot (which remembers how this Fisherman played) gives it, instead of the counts' chance alone."""
    assert isinstance(view, View)
    line = view.lines[-1] if view.lines else None
    if view.seat == view.fisherman or line is None or not line.committed or line.peche is not None:
        return sample
    if not isinstance(own, GreedyFishFish):
        return sample
    chance = own.prise_chance(view)
    return lambda seen, rng: sample(seen, rng, prise_chance=chance)


def sample(view: Any, rng: random.Random, *, prise_chance: float | None = None) -> World:
    """A world consistent with `view`; `prise_chance`: the chance that the current line's card is a Prise (when
    the deck left holds both kinds), else the counts'."""
    assert isinstance(view, View)
    fisherman = view.fisherman
    hidden = [i for i, line in enumerate(view.lines) if line.committed and line.peche is None]
    unrevealed = Counter(PECHE_DECK)
    for line in view.lines:
        if line.peche is not None:
            unrevealed[line.peche] -= 1
    pool = [kind for kind in PECHE_KINDS for _ in range(max(0, unrevealed[kind]))]
    last = len(view.lines) - 1
    if view.seat == fisherman and view.my_peche is not None:
        for kind in view.my_peche:
            pool.remove(kind)
        if view.my_cast is not None:
            pool.remove(view.my_cast)
            pool.append(view.my_cast)  # the current line's card, last as its line is
        ordered = [i for i in hidden if i != last] + [i for i in hidden if i == last]
    elif prise_chance is not None and last in hidden and PRISE in pool and BREDOUILLE in pool:
        current = PRISE if rng.random() < prise_chance else BREDOUILLE
        pool.remove(current)
        rng.shuffle(pool)
        pool.insert(0, current)
        ordered = [last] + [i for i in hidden if i != last]
    else:
        rng.shuffle(pool)
        ordered = hidden
    known: list[dict[str, Scalar]] = [{} for _ in range(view.players)]
    for i, line in enumerate(view.lines):
        if line.peche is not None:
            known[fisherman][peche_purpose(view.round, i + 1)] = line.peche
    for i, kind in zip(ordered, pool, strict=False):
        known[fisherman][peche_purpose(view.round, i + 1)] = kind
    turn = view.order.index(view.bettor) if view.bettor is not None else 0
    casts = tuple(
        (view.round, fisherman, peche_purpose(view.round, i + 1)) for i, line in enumerate(view.lines) if line.committed
    )
    state = State(
        players=view.players,
        options=Options(start=view.first),
        phase=view.phase,
        round=view.round,
        first=view.first,
        fisherman=fisherman,
        turn=turn,
        baits=view.baits,
        lines=view.lines,
        hands=view.hands,
        butins=view.butins,
        captured=view.captured,
        history=view.history,
        casts=casts,
    )
    return World(state, known)


HORIZON_SCALE: Final = 8.0
"""The lead at the end of a playout (in points) worth a reward of about 0.88 (a Fish scores up to 20 a round)."""


SAMPLER = Sampler(sample, horizon=round_horizon, horizon_scale=HORIZON_SCALE, prepare=prepare)
"""This game's determinizer, for its registry entry."""
