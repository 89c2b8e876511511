"""Fish'n'Stones's terminal kit: what the app shows and reads for this game."""

from p2pfish.games.fishnstones import commands, screen, words
from p2pfish.games.fishnstones.rules import RULES
from p2pfish.games.fishnstones.text import render_pond
from p2pfish.games.terminal_kit import terminal_kit

KIT = terminal_kit(RULES.title, screen, commands, words, text_board=render_pond)
