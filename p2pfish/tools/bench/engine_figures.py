"""Engine figures: what a move costs when an engine program plays it (protocol/ENGINE.md), measured with the
example engine over King Fish, whose views are the largest, against writing the same requests alone."""

import functools
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from p2pfish.bots.engine import EnginePlayer
from p2pfish.bots.engine_protocol import asked, line, move_request
from p2pfish.core.actions import Action
from p2pfish.core.player import Player, PlaysBy
from p2pfish.games.registry import game_of
from p2pfish.selfplay import play_game

GAMES = 6
PLAYERS = 3
ENGINE = Path(__file__).parent.parent.parent.parent / "examples" / "engines" / "first_legal.py"


class Timed:
    """Times each move an engine is asked for, and, as the baseline, making that move's request line alone."""

    def __init__(self, engine: EnginePlayer) -> None:
        self.engine = engine
        self.moves_ms: list[float] = []
        self.encode_ms: list[float] = []

    def choose(self, view: Any, legal: list[Action]) -> Action:
        if not asked(legal):
            return legal[0]
        started = time.perf_counter()
        line(move_request(0, game="kingfish", seat=1, time_ms=0, view=view, legal=legal))
        self.encode_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        action = self.engine.choose(view, legal)
        self.moves_ms.append((time.perf_counter() - started) * 1000)
        return action


@functools.cache
def _measured() -> tuple[list[float], list[float]]:
    game = game_of("kingfish")
    moves: list[float] = []
    encodes: list[float] = []
    for number in range(GAMES):
        engine = EnginePlayer(
            f"{sys.executable} {ENGINE}", game=game.id, title=game.rules.title, players=PLAYERS, seat=1, options={},
            fallback=game.greedy(random.Random(number)),
        )  # fmt: skip
        engine.choose(*_warm_up(game.id))
        timed = Timed(engine)
        bots: list[Player] = [game.greedy(random.Random(seat)) for seat in range(PLAYERS)]
        bots[1] = timed
        try:
            play_game(game.rules, PLAYERS, {}, bots, random.Random(number))
        finally:
            engine.close()
        if engine.failures or engine.gone:
            raise RuntimeError(f"the example engine did not play: {engine.report()}")
        moves += timed.moves_ms
        encodes += timed.encode_ms
    return moves, encodes


def _warm_up(game_id: str) -> tuple[Any, list[Action]]:
    """A first decision of the game, asked once before timing: it waits for the engine's start and `ready`."""
    found: list[tuple[Any, list[Action]]] = []
    game = game_of(game_id)

    def keep(view: Any, legal: list[Action]) -> Action:
        if not found and asked(legal):
            found.append((view, legal))
        return legal[0]

    play_game(game.rules, PLAYERS, {}, [PlaysBy(keep)] * PLAYERS, random.Random(99))
    return found[0]


def engine_move_p50_ms() -> float:
    """Median milliseconds from a move request to the engine's answer (example engine, King Fish, 3 players)."""
    return round(statistics.median(_measured()[0]), 3)


def engine_move_p99_ms() -> float:
    moves = sorted(_measured()[0])
    return round(moves[min(len(moves) - 1, int(0.99 * len(moves)))], 3)


def engine_move_vs_encode_x() -> float:
    """The median round trip over the median time to make the same request line alone (the baseline)."""
    moves, encodes = _measured()
    return round(statistics.median(moves) / statistics.median(encodes), 1)
