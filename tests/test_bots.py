"""The Fish'n'Stones bots: greedy beats random clearly over many seeded games; make_bot refuses an unknown
kind. (That every bot of every game picks only legal actions: tests/test_conformance.py.)"""

import random

import pytest

from p2pfish.core.errors import MalformedInput
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import selfplay

RULES = get_rules("fishnstones")


def test_greedy_beats_random_heads_up() -> None:
    result = selfplay(RULES, 2, 300, seed=1, kinds=["greedy", "random"], options={})
    assert result.wins[0] >= 0.8 * result.games
    assert result.mean_score[0] > result.mean_score[1] + 3


def test_greedy_beats_random_at_a_full_table() -> None:
    result = selfplay(RULES, 4, 300, seed=2, kinds=["random", "greedy"], options={})
    greedy_wins = result.wins[1] + result.wins[3]
    random_wins = result.wins[0] + result.wins[2]
    assert greedy_wins >= 3 * random_wins
    assert min(result.mean_score[1], result.mean_score[3]) > max(result.mean_score[0], result.mean_score[2]) + 1.5


def test_unknown_bot_kind_is_malformed_input() -> None:
    with pytest.raises(MalformedInput, match="no 'clever' bot"):
        make_bot("clever", RULES.id, random.Random(0))
