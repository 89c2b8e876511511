"""Fish'n'Stones (RULES.md §1), as one folder: its rules (rules.py), its greedy bot (greedy.py) and its
terminal kit (screen.py, commands.py, words.py, kit.py). GAME is its entry in p2pfish/games/registry.py."""

from p2pfish.games.fishnstones.rules import RULES
from p2pfish.games.game import game_in_folder

GAME = game_in_folder(__name__, RULES, deals_cards=False, shortest_game={2: 46, 3: 69, 4: 92})
