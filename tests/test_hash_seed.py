"""Every peer applies the rules to the same log, but each peer is its own Python process with its own string-hash
seed, which orders sets of strings differently (and `play`'s bots share their player's: forkedpeer.py). So the
rules, the samplers and every bot must choose the same under any seed: the same games, move for move, in two
processes with different seeds, each bot kind at each of four tables, the search bot on an iteration budget."""

import json
import os
import subprocess
import sys

GAMES = ("fishnstones", "kunayala", "fishfish", "kingfish")
PLAYS = """
import json, random, sys
from p2pfish.bots.search import Budget
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import play_game


class Recorded:
    def __init__(self, inner, moves):
        self.inner, self.moves = inner, moves

    def choose(self, view, legal):
        action = self.inner.choose(view, legal)
        self.moves.append(repr(action))
        return action


games = {}
for game in sys.argv[1:]:
    moves = []
    kinds = ("search", "greedy", "random")
    bots = [Recorded(make_bot(kind, game, random.Random(f"7/{seat}"), budget=Budget(6)), moves)
            for seat, kind in enumerate(kinds)]
    outcome, _ = play_game(get_rules(game), len(kinds), {}, bots, random.Random(7))
    games[game] = {"moves": moves, "scores": list(outcome.scores)}
print(json.dumps(games))
"""


def test_the_rules_and_every_bot_play_the_same_games_under_two_string_hash_seeds() -> None:
    played = []
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", PLAYS, *GAMES], env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True, text=True, timeout=240, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        played.append(json.loads(done.stdout))
    for game in GAMES:
        first, second = played[0][game], played[1][game]
        assert len(first["moves"]) > 20, game
        assert first == second, f"{game}: the games part at move {_first_difference(first['moves'], second['moves'])}"


def _first_difference(first: list[str], second: list[str]) -> int:
    return next(
        (i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), min(len(first), len(second))
    )
