"""Rules-only figures: how fast the pure game engines run."""

import random
import time

from p2pfish.bots.random_bot import RandomBot
from p2pfish.games.registry import get_rules
from p2pfish.selfplay import play_game

GAMES = 600


def rules_games_per_s() -> float:
    """4-player Fish'n'Stones, random bots, rules only, in this one process (one core)."""
    rules = get_rules("fishnstones")
    rng = random.Random(7)
    bots = [RandomBot(random.Random(seat)) for seat in range(4)]
    started = time.perf_counter()
    for _ in range(GAMES):
        play_game(rules, 4, {}, bots, rng)
    return round(GAMES / (time.perf_counter() - started), 1)


def rules_apply_us() -> float:
    """Mean microseconds per action applied, over the same games (driver and bots included)."""
    rules = get_rules("fishnstones")
    rng = random.Random(7)
    bots = [RandomBot(random.Random(seat)) for seat in range(4)]
    steps = 0

    def count(*_: object) -> None:
        nonlocal steps
        steps += 1

    started = time.perf_counter()
    for _ in range(GAMES // 3):
        play_game(rules, 4, {}, bots, rng, on_step=count)
    return round((time.perf_counter() - started) / steps * 1e6, 2)
