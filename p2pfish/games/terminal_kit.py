"""A game's terminal kit (p2pfish/ui/kit.py's GameUi), made the same way for every game from the modules of its
folder: screen.py (board, status, scores, each drawn in the width it is given), commands.py (describe, parse,
words, VERBS, HELP) and words.py (narrate).
Each module is checked against what the app calls of it (the protocols below), by mypy, at its kit.py."""

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action
from p2pfish.ui.kit import GameUi


class Screen(Protocol):
    def board(
        self, view: Any, names: tuple[str, ...], selected: Action | None, ascii_only: bool, width: int, /
    ) -> StyleAndTextTuples: ...

    def status(self, view: Any, names: tuple[str, ...], width: int, /) -> StyleAndTextTuples: ...

    def scores(
        self, view: Any, names: tuple[str, ...], winners: tuple[int, ...], width: int, /
    ) -> StyleAndTextTuples: ...


class Commands(Protocol):
    @property
    def HELP(self) -> str: ...

    @property
    def VERBS(self) -> tuple[str, ...]: ...

    def describe(self, action: Action, view: Any, names: tuple[str, ...], /) -> str: ...

    def parse(self, text: str, view: Any, legal: Sequence[Action], names: tuple[str, ...], /) -> Action | str: ...

    def words(self) -> list[str]: ...


class Words(Protocol):
    def narrate(self, seat: int | None, action: Action, names: tuple[str, ...], before: Any, after: Any, /) -> str: ...


def terminal_kit(
    title: str,
    screen: Screen,
    commands: Commands,
    words: Words,
    text_board: Callable[[Any, tuple[str, ...]], str] | None = None,
) -> GameUi:
    """The kit of the game titled `title`; `text_board` draws its board as plain text for `p2pfish watch`."""
    return GameUi(
        title=title,
        board=screen.board,
        status=screen.status,
        scores=screen.scores,
        describe=commands.describe,
        parse=commands.parse,
        words=commands.words(),
        verbs=commands.VERBS,
        help=commands.HELP,
        narrate=words.narrate,
        text_board=text_board,
    )
