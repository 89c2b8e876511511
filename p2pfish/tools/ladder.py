"""`p2pfish ladder`: bots play each other over many seeded games in memory (pure rules, no network), and the
ladder prints each bot kind's win rate with its 95 % Wilson interval, an Elo-like rating and its time per move.

Game i is seeded with seed + i, and its seats are the kinds given rotated by i, so every kind sits in every seat
equally often (run a multiple of the table size). A shared win counts as a share (1/winners) of one. The games
are spread over worker processes. The search bot searches with an iteration budget here (`--iterations`), so
the results do not depend on the machine's load; its time per move is measured all the same, and shown.
"""

import math
import multiprocessing
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from p2pfish.bots.search import Budget
from p2pfish.core.actions import Action
from p2pfish.core.errors import MalformedInput
from p2pfish.core.player import Player
from p2pfish.core.wire import Json
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import play_game

Z95 = 1.959964


@dataclass(frozen=True)
class LadderConfig:
    game: str
    players: int
    kinds: tuple[str, ...]
    """The table's bot kinds, seat 0 first (rotated by one seat each game)."""
    games: int
    seed: int
    iterations: int
    options: Mapping[str, str]


@dataclass(frozen=True)
class GameRecord:
    kinds: tuple[str, ...]
    """The kind at each seat of this game."""
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    move_s: tuple[tuple[str, float], ...]
    """(kind, seconds) of every decision with more than one legal action."""


class Timed:
    """A Player that times its inner player's choices. Every decision reaches the inner player, a single legal
    action too, as at a real table: a bot's memory of the game (a Kuna Yala search bot's reading) sees every view."""

    def __init__(self, kind: str, inner: Player, sink: list[tuple[str, float]]) -> None:
        self._kind, self._inner, self._sink = kind, inner, sink

    def choose(self, view: Any, legal: list[Action]) -> Action:
        started = time.perf_counter()
        action = self._inner.choose(view, legal)
        if len(legal) > 1:
            self._sink.append((self._kind, time.perf_counter() - started))
        return action


def seat_kinds(kinds: Sequence[str], players: int, index: int) -> tuple[str, ...]:
    table = [kinds[i % len(kinds)] for i in range(players)]
    shift = index % players
    return tuple(table[-shift:] + table[:-shift]) if shift else tuple(table)


def play_one(config: LadderConfig, index: int) -> GameRecord:
    rules = get_rules(config.game)
    kinds = seat_kinds(config.kinds, config.players, index)
    seed = config.seed + index
    moves: list[tuple[str, float]] = []
    bots: list[Player] = [
        Timed(
            kind, make_bot(kind, config.game, random.Random(f"{seed}/{seat}"), budget=Budget(config.iterations)), moves
        )
        for seat, kind in enumerate(kinds)
    ]
    outcome, _ = play_game(rules, config.players, config.options, bots, random.Random(seed))
    return GameRecord(kinds, outcome.scores, outcome.winners, tuple(moves))


def _play_star(job: tuple[LadderConfig, int]) -> GameRecord:
    return play_one(*job)


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo(records: Sequence[GameRecord], kinds: Sequence[str]) -> dict[str, float]:
    """Elo-like ratings (Bradley-Terry, fitted by minorization-maximization) from every pair of seats of different
    kinds in every game (the better result scores 1, equal results 0.5); the mean rating is 1500."""
    names = sorted(set(kinds))
    if len(names) < 2:
        return {name: 1500.0 for name in names}
    wins = {(a, b): 0.0 for a in names for b in names}
    for record in records:
        for i, a in enumerate(record.kinds):
            for j, b in enumerate(record.kinds):
                if a == b or i == j:
                    continue
                mine = (i in record.winners, record.scores[i])
                theirs = (j in record.winners, record.scores[j])
                wins[a, b] += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    strength = {name: 1.0 for name in names}
    for _ in range(200):
        for a in names:
            won = sum(wins[a, b] for b in names if b != a) + 0.5
            games = sum((wins[a, b] + wins[b, a] + 1.0) / (strength[a] + strength[b]) for b in names if b != a)
            strength[a] = won / games
        mean = sum(math.log(s) for s in strength.values()) / len(names)
        strength = {name: math.exp(math.log(s) - mean) for name, s in strength.items()}
    return {name: round(1500 + 400 * math.log10(s), 1) for name, s in strength.items()}


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_ladder(config: LadderConfig, workers: int = 2) -> dict[str, Json]:
    if config.games < 1:
        raise MalformedInput(f"the number of games must be at least 1, not {config.games}")
    get_rules(config.game).new_game(config.players, config.options)
    for kind in config.kinds:
        make_bot(kind, config.game, random.Random(0))
    started = time.perf_counter()
    jobs = [(config, i) for i in range(config.games)]
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            records = pool.map(_play_star, jobs, chunksize=1)
    else:
        records = [_play_star(job) for job in jobs]
    kinds = sorted(set(config.kinds))
    table: dict[str, Json] = {}
    for kind in kinds:
        seats = [(r, s) for r in records for s, k in enumerate(r.kinds) if k == kind]
        won = sum(1.0 / len(r.winners) for r, s in seats if s in r.winners)
        low, high = wilson(won, len(seats))
        times = [t for r in records for k, t in r.move_s if k == kind]
        table[kind] = {
            "seats": len(seats),
            "wins": round(won, 1),
            "win_rate": round(won / len(seats), 4),
            "ci95": [round(low, 4), round(high, 4)],
            "fair_share": round(sum(1.0 / config.players for _ in seats) / len(seats), 4),
            "mean_score": round(sum(r.scores[s] for r, s in seats) / len(seats), 3),
            "move_p50_s": round(percentile(times, 0.5), 4),
            "move_p95_s": round(percentile(times, 0.95), 4),
            "moves": len(times),
        }
    ratings = elo(records, config.kinds)
    for kind in kinds:
        entry = table[kind]
        assert isinstance(entry, dict)
        entry["elo"] = ratings[kind]
    return {
        "game": config.game,
        "players": config.players,
        "table": list(config.kinds),
        "games": config.games,
        "seed": config.seed,
        "iterations": config.iterations,
        "workers": workers,
        "wall_s": round(time.perf_counter() - started, 1),
        "kinds": table,
    }


def format_ladder(result: Mapping[str, Any]) -> str:
    lines = [
        f"{result['game']}, {result['players']} players, table {','.join(result['table'])}, {result['games']} games "
        f"from seed {result['seed']}, search {result['iterations']} iterations/move, {result['wall_s']} s",
        f"  {'bot':<8} {'seats':>6} {'wins':>7} {'win %':>7} {'95% CI':>15} {'share':>6} {'elo':>7} {'score':>7}"
        f" {'p50 s/move':>11} {'p95 s/move':>11}",
    ]
    for kind, row in result["kinds"].items():
        low, high = row["ci95"]
        lines.append(
            f"  {kind:<8} {row['seats']:>6} {row['wins']:>7} {100 * row['win_rate']:>6.1f}% "
            f"{f'{100 * low:.1f}-{100 * high:.1f}%':>15} {100 * row['fair_share']:>5.0f}% {row['elo']:>7} "
            f"{row['mean_score']:>7} {row['move_p50_s']:>11} {row['move_p95_s']:>11}"
        )
    return "\n".join(lines)
