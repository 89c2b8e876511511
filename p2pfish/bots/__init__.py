"""Bot strategies. A bot is a `Player` (p2pfish.core.player): it sees one seat's view and its legal actions,
nothing else. The generic ones live here; each game's greedy bot lives in its folder
(p2pfish/games/<game>/greedy.py)."""

BOT_KINDS = ("random", "greedy", "search")
LEVELS = {"easy": "random", "normal": "greedy", "hard": "search"}
"""The difficulty a player picks, and the bot kind that plays it."""

DEFAULT_MOVE_S = 5.0
"""An engine's time for one move unless told otherwise (here, so that naming it does not load bots/engine.py)."""

__all__ = ["BOT_KINDS", "DEFAULT_MOVE_S", "LEVELS"]
