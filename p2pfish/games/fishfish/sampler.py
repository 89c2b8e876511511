"""Fish Fish determinizer for the search bot: a full state consistent with one seat's view.

Everything but the Pêche cards is public. The Fisherman knows his own: the ones he holds (my_peche), the one
under the current line (my_cast), and so the kinds under his closed lines (the deck less those and the revealed
ones). Any other seat draws the unrevealed cards — closed lines, the current line, the Fisherman's hand — as a
random split of the deck less the revealed cards.
"""

import random
from collections import Counter
from typing import Any, Final

from p2pfish.bots.search import Sampler, World, round_horizon
from p2pfish.core.wire import Scalar
from p2pfish.games.fishfish.rules import PECHE_DECK, PECHE_KINDS, Options, State, View, peche_purpose


def sample(view: Any, rng: random.Random) -> World:
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


SAMPLER = Sampler(sample, horizon=round_horizon, horizon_scale=HORIZON_SCALE)
"""This game's determinizer, for its registry entry."""
