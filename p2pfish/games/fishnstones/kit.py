"""Fish'n'Stones's terminal kit: what the app shows and reads for this game."""

from p2pfish.games.fishnstones import commands, screen, words
from p2pfish.games.fishnstones.text import render_pond
from p2pfish.ui.kit import GameUi

KIT = GameUi(
    title="Fish'n'Stones",
    board=screen.board,
    status=screen.status,
    scores=screen.scores,
    describe=commands.describe,
    parse=commands.parse,
    words=commands.words(),
    verbs=commands.VERBS,
    help=commands.HELP,
    narrate=words.narrate,
    text_board=render_pond,
)
