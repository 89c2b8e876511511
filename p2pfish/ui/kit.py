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
    board: Callable[[Any, tuple[str, ...], Action | None, bool, int], StyleAndTextTuples]
    """The board of a view: the names, the move picked, ASCII only, and the width it is drawn in."""
    status: Callable[[Any, tuple[str, ...], int], StyleAndTextTuples]
    scores: Callable[[Any, tuple[str, ...], tuple[int, ...], int], StyleAndTextTuples]
    """The final scores: the names, the winners, the width; the recap that stays on the end screen."""
    describe: Callable[[Action, Any, tuple[str, ...]], str]
    parse: Callable[[str, Any, Sequence[Action], tuple[str, ...]], Action | str]
    words: list[str]
    help: str
    narrate: Callable[[int | None, Action, tuple[str, ...], Any, Any], str]
    """One log line: who acted (None: chance), the action, the names, and the reader's view just before and
    just after it (what the action changed, as that seat may see it)."""
    text_board: Callable[[Any, tuple[str, ...]], str] | None = None
    """The board as plain text, for `p2pfish watch` (a game without one is narrated in words alone)."""
    verbs: tuple[str, ...] = ()
    """The command words of the game: what completion offers first, the other `words` after them."""
