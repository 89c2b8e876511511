"""Playing games in the terminal UI headless, game after game: the UiFrontends a run makes are recorded, and
a player presses Enter on each of its turns, then `r` (a rematch) or `q` on each end screen."""

from collections.abc import Callable, Sequence
from typing import Any

from prompt_toolkit.input import PipeInput
from ui_helpers import until

from p2pfish.uiplay import UiFrontend

GAME_S = 90.0
"""A whole game of Fish Fish for two, on a busy machine, bots started included."""


def record_fronts(patch: Any) -> list[UiFrontend]:
    """Every UiFrontend made from now on, in order (`patch(UiFrontend, "__init__", ...)`: monkeypatch.setattr,
    or a plain setattr in a process of its own)."""
    made: list[UiFrontend] = []
    original = UiFrontend.__init__

    def recording(self: UiFrontend, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        made.append(self)

    patch(UiFrontend, "__init__", recording)
    return made


async def play_games(fronts: Sequence[UiFrontend], pipe: PipeInput, ends: str) -> None:
    """Play len(`ends`) games, the n-th in the n-th front made, each to its end screen, where the player
    presses the n-th key of `ends` (`r` a rematch, `q` leave)."""
    for number, key in enumerate(ends):
        await play_game(fronts, number, pipe, key)


async def play_game(
    fronts: Sequence[UiFrontend], number: int, pipe: PipeInput, key: str,
    before: Callable[[UiFrontend], bool] | None = None,
) -> None:  # fmt: skip
    """Play the game of the `number`-th front made (once it is made) to its end screen, and press `key` there
    (once `before` holds, if given)."""
    await until(lambda: len(fronts) > number and fronts[number]._session is not None, "a game", GAME_S)
    front = fronts[number]
    await _play_to_the_end(front, pipe)
    if before is not None:
        await until(lambda: before(front), "the end screen to tell of the rematch", GAME_S)
    pipe.send_text(key)
    await until(lambda: not front.app.app.is_running, "the end screen to close")


async def _play_to_the_end(front: UiFrontend, pipe: PipeInput) -> None:
    """Enter on each turn of this seat (the first move of the list), one move at a time, until the end."""
    session, app = front._session, front.app
    assert session is not None

    def over() -> bool:
        return app.model.winners is not None or bool(app.model.stopped)

    while not over():
        await until(lambda: over() or session.decision() is not None, "this seat's turn or the end", GAME_S)
        if over():
            break
        app.model.message = ("", "")
        pipe.send_text("\r")
        await until(lambda: over() or app.model.message != ("", ""), "the key to be read", GAME_S)
    assert app.model.winners is not None, app.model.stopped
