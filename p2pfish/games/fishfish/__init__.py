"""Fish Fish (RULES.md §3), as one folder: its rules (rules.py), its greedy bot (greedy.py) and its
terminal kit (screen.py, commands.py, words.py, kit.py). GAME is its entry in p2pfish/games/registry.py."""

import random
from typing import TYPE_CHECKING

from p2pfish.games.fishfish.rules import RULES
from p2pfish.games.game import Game

if TYPE_CHECKING:
    from p2pfish.core.player import Player
    from p2pfish.ui.kit import GameUi


def _greedy(rng: random.Random) -> "Player":
    from p2pfish.games.fishfish.greedy import GreedyFishFish

    return GreedyFishFish(rng)


def _ui() -> "GameUi":
    from p2pfish.games.fishfish.kit import KIT

    return KIT


GAME = Game(
    rules=RULES,
    greedy=_greedy,
    ui=_ui,
    deals_cards=False,
    shortest_game={2: 30, 3: 70, 4: 50, 5: 80, 6: 100, 7: 140, 8: 175},
)
