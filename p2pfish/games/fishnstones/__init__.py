"""Fish'n'Stones (RULES.md §1), as one folder: its rules (rules.py), its greedy bot (greedy.py) and its
terminal kit (screen.py, commands.py, words.py, kit.py). GAME is its entry in p2pfish/games/registry.py."""

import random
from typing import TYPE_CHECKING

from p2pfish.games.fishnstones.rules import RULES
from p2pfish.games.game import Game

if TYPE_CHECKING:
    from p2pfish.core.player import Player
    from p2pfish.ui.kit import GameUi


def _greedy(rng: random.Random) -> "Player":
    from p2pfish.games.fishnstones.greedy import GreedyFishNStones

    return GreedyFishNStones(rng)


def _ui() -> "GameUi":
    from p2pfish.games.fishnstones.kit import KIT

    return KIT


GAME = Game(
    rules=RULES,
    greedy=_greedy,
    ui=_ui,
    deals_cards=False,
    shortest_game={2: 54, 3: 81, 4: 108},
)
