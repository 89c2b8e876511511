"""Bot strategies. A bot is a `Player` (p2pfish.core.player): it sees one seat's view and its legal actions,
nothing else. The generic ones live here; each game's greedy bot lives in its folder
(p2pfish/games/<game>/greedy.py)."""

BOT_KINDS = ("random", "greedy")

__all__ = ["BOT_KINDS"]
