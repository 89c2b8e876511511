"""Search-bot figures: what one King Fish playout costs, the fast playout against the rules engine's play_out
from the same sampled worlds in the same run (the baseline)."""

import random
import time
from collections.abc import Callable
from typing import Any

from p2pfish.bots.search import World, play, play_out, round_horizon
from p2pfish.core.player import decision_for
from p2pfish.games.kingfish.greedy import GreedyKingFish
from p2pfish.games.kingfish.playout import fast_play_out
from p2pfish.games.kingfish.rules import RULES
from p2pfish.games.kingfish.sampler import sample
from p2pfish.selfplay import Step, play_game

GAMES = 6
"""Heads-up greedy games whose decisions the playouts start from."""


def _starts() -> list[tuple[World, Any, int, Any]]:
    """(sampled world, state searched, seat, first action) at every decision with a choice of GAMES games."""
    starts: list[tuple[World, Any, int, Any]] = []

    def grab(step: Step) -> None:
        seat = step.seat
        if seat is None:
            return
        view, legal = decision_for(RULES, step.before, seat, step.known[seat])
        if len(legal) > 1:
            rng = random.Random(len(starts))
            starts.append((sample(view, rng), step.before, seat, legal[rng.randrange(len(legal))]))

    for game in range(GAMES):
        bots = [GreedyKingFish(random.Random(game * 2 + seat)) for seat in range(2)]
        play_game(RULES, 2, {}, bots, random.Random(game), on_step=grab)
    return starts


def _playouts_s(run: Callable[..., object], starts: list[tuple[World, Any, int, Any]]) -> float:
    spent = 0.0
    for index, (world, state, seat, action) in enumerate(starts):
        copy = World(world.state, [dict(k) for k in world.known], {d: list(c) for d, c in world.decks.items()})
        play(RULES, copy, seat, action)
        seeds = random.Random(index)
        bots = [GreedyKingFish(random.Random(seeds.getrandbits(64))) for _ in range(2)]
        started = time.perf_counter()
        run(RULES, copy, bots, seeds, horizon=round_horizon, root=state)
        spent += time.perf_counter() - started
    return spent


def kingfish_playout_ms() -> float:
    """Mean milliseconds per King Fish search playout (heads-up, to the end of the round, greedy bots at every
    seat), the fast playout the search uses."""
    starts = _starts()
    _playouts_s(fast_play_out, starts)  # warm the greedy bot's caches as a search does
    return round(_playouts_s(fast_play_out, starts) / len(starts) * 1e3, 3)


def kingfish_playout_vs_engine_x() -> float:
    """The rules engine's play_out over the fast playout, same worlds and seeds, same run (caches warm for both)."""
    starts = _starts()
    _playouts_s(fast_play_out, starts)
    engine = _playouts_s(play_out, starts)
    fast = _playouts_s(fast_play_out, starts)
    return round(engine / fast, 2)
