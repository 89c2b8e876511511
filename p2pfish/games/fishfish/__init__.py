"""Fish Fish (RULES.md §3), as one folder: its rules (rules.py), its greedy bot (greedy.py) and its
terminal kit (screen.py, commands.py, words.py, kit.py). GAME is its entry in p2pfish/games/registry.py."""

from p2pfish.games.fishfish.rules import RULES
from p2pfish.games.game import game_in_folder

GAME = game_in_folder(
    __name__, RULES, deals_cards=False, shortest_game={2: 30, 3: 70, 4: 50, 5: 80, 6: 100, 7: 140, 8: 175}
)
