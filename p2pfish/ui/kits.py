"""Each game's pieces of the terminal UI — its board, status, scores, words for moves and events,
typed commands and help — chosen by game id, so the app itself knows no game."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action
from p2pfish.core.errors import MalformedInput
from p2pfish.ui import (
    fishfish_commands,
    fishfish_screen,
    fishfish_words,
    fishnstones_commands,
    fishnstones_screen,
    fishnstones_words,
    kingfish_commands,
    kingfish_screen,
    kingfish_words,
    kunayala_commands,
    kunayala_screen,
    kunayala_words,
)


@dataclass(frozen=True)
class GameUi:
    title: str
    board: Callable[[Any, tuple[str, ...], Action | None, bool], StyleAndTextTuples]
    status: Callable[[Any, tuple[str, ...]], StyleAndTextTuples]
    scores: Callable[[Any, tuple[str, ...], tuple[int, ...]], StyleAndTextTuples]
    describe: Callable[[Action, Any, tuple[str, ...]], str]
    parse: Callable[[str, Any, Sequence[Action], tuple[str, ...]], Action | str]
    words: list[str]
    help: str
    narrate: Callable[[int | None, Action, tuple[str, ...]], str]


def _kit(title: str, screen: ModuleType, commands: ModuleType, words: ModuleType) -> GameUi:
    """A game's kit from its three modules: *_screen (board, status, scores), *_commands (describe,
    parse, words, HELP) and *_words (narrate)."""
    return GameUi(
        title=title,
        board=screen.board,
        status=screen.status,
        scores=screen.scores,
        describe=commands.describe,
        parse=commands.parse,
        words=commands.words(),
        help=commands.HELP,
        narrate=words.narrate,
    )


FISHNSTONES = _kit("Fish'n'Stones", fishnstones_screen, fishnstones_commands, fishnstones_words)
KUNAYALA = _kit("Kuna Yala", kunayala_screen, kunayala_commands, kunayala_words)
FISHFISH = _kit("Fish Fish", fishfish_screen, fishfish_commands, fishfish_words)
KINGFISH = _kit("King Fish", kingfish_screen, kingfish_commands, kingfish_words)

KITS: dict[str, GameUi] = {
    "fishnstones": FISHNSTONES,
    "kunayala": KUNAYALA,
    "fishfish": FISHFISH,
    "kingfish": KINGFISH,
}


def kit_for(game_id: str) -> GameUi:
    try:
        return KITS[game_id]
    except KeyError:
        raise MalformedInput(f"there is no terminal UI for {game_id} yet (play it headless with --bot)") from None
