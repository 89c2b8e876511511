"""Kuna Yala (RULES.md §2), as one folder: its rules (rules.py), its greedy bot (greedy.py), how its bots hide
their colour (disguise.py), its search bot's determinizer (sampler.py) and reading of the table (reading.py), and
its terminal kit (screen.py, commands.py, words.py, kit.py). GAME is its entry in p2pfish/games/registry.py."""

from p2pfish.games.game import game_in_folder
from p2pfish.games.kunayala.rules import RULES

GAME = game_in_folder(__name__, RULES, deals_cards=True, shortest_game={2: 250, 3: 370, 4: 460}, disguised=True)
