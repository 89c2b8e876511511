"""What the terminal app needs of a game: its board, status, scores, words for moves and events, typed
commands and help. Each game makes one (its folder's kit.py); the app itself knows no game."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action


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
    text_board: Callable[[Any, tuple[str, ...]], str] | None = None
    """The board as plain text, for `p2pfish watch` (a game without one is narrated in words alone)."""
