"""The games. Each is one folder — its rules, its bots, its terminal screens and commands — and one typed
entry (p2pfish/games/game.py) in the registry written out by hand (p2pfish/games/registry.py)."""

DEFAULT_GAME = "fishnstones"
"""The game `play` and `watch` start when none is named."""
