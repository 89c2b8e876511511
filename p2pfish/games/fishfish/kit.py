"""Fish Fish's terminal kit: what the app shows and reads for this game."""

from p2pfish.games.fishfish import commands, screen, words
from p2pfish.games.fishfish.rules import RULES
from p2pfish.games.terminal_kit import terminal_kit

KIT = terminal_kit(RULES.title, screen, commands, words)
