"""Bot strategies. A bot is a front end: it sees one seat's view and its legal actions, nothing else. The
generic ones live here; each game's greedy bot lives in its folder (p2pfish/games/<game>/greedy.py)."""

from p2pfish.bots.base import Bot

BOT_KINDS = ("random", "greedy")

__all__ = ["BOT_KINDS", "Bot"]
