"""Each game's pieces of the terminal UI — its board, status, scores, words for moves and events,
typed commands and help — chosen by game id, so the app itself knows no game."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


FISHNSTONES = GameUi(
    title="Fish'n'Stones",
    board=fishnstones_screen.board,
    status=fishnstones_screen.status,
    scores=fishnstones_screen.scores,
    describe=fishnstones_commands.describe,
    parse=fishnstones_commands.parse,
    words=fishnstones_commands.words(),
    help=fishnstones_commands.HELP,
    narrate=fishnstones_words.narrate,
)

KUNAYALA = GameUi(
    title="Kuna Yala",
    board=kunayala_screen.board,
    status=kunayala_screen.status,
    scores=kunayala_screen.scores,
    describe=kunayala_commands.describe,
    parse=kunayala_commands.parse,
    words=kunayala_commands.words(),
    help=kunayala_commands.HELP,
    narrate=kunayala_words.narrate,
)

FISHFISH = GameUi(
    title="Fish Fish",
    board=fishfish_screen.board,
    status=fishfish_screen.status,
    scores=fishfish_screen.scores,
    describe=fishfish_commands.describe,
    parse=fishfish_commands.parse,
    words=fishfish_commands.words(),
    help=fishfish_commands.HELP,
    narrate=fishfish_words.narrate,
)

KINGFISH = GameUi(
    title="King Fish",
    board=kingfish_screen.board,
    status=kingfish_screen.status,
    scores=kingfish_screen.scores,
    describe=kingfish_commands.describe,
    parse=kingfish_commands.parse,
    words=kingfish_commands.words(),
    help=kingfish_commands.HELP,
    narrate=kingfish_words.narrate,
)

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
