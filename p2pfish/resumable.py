"""The games this user can come back to: the game stores under the state folder.

A store stays there while its game is unfinished (a crash, a player who left); a finished or stopped game's
store is removed once its transcript is written beside it (netplay), so what is left is what `p2pfish
resume` can take up again. Stores are only read here (SQLite read-only), never changed.
"""

import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from p2pfish.core.errors import P2pfishError
from p2pfish.core.text import printable
from p2pfish.paths import state_dir
from p2pfish.session.setup import SHOWN_NAME_CHARS, GameSetup

STORE_SUFFIX = ".sqlite"
TRANSCRIPT_SUFFIX = ".transcript.jsonl"


@dataclass(frozen=True)
class StoredGame:
    path: Path
    game: str
    seat: int
    names: tuple[str, ...]
    modified: float
    """When the store was last written (seconds since the epoch)."""


def transcript_beside(store: Path) -> Path:
    """Where a finished game's transcript is kept when no --transcript was given: beside its store."""
    return store.with_name(store.name.removesuffix(STORE_SUFFIX) + TRANSCRIPT_SUFFIX)


def stored_games(folder: Path | None = None) -> list[StoredGame]:
    """The unfinished games whose stores are in `folder` (the state folder), newest first. A file that is
    not a readable store of a networked game is left out."""
    folder = state_dir() if folder is None else folder
    found = []
    with contextlib.suppress(OSError):
        for path in folder.glob(f"*{STORE_SUFFIX}"):
            game = _read(path)
            if game is not None and not transcript_beside(path).exists():
                found.append(game)
    return sorted(found, key=lambda game: game.modified, reverse=True)


def _read(path: Path) -> StoredGame | None:
    try:
        modified = path.stat().st_mtime
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2.0)) as db:
            row = db.execute("SELECT setup, seat FROM setup").fetchone()
            mesh = db.execute("SELECT COUNT(*) FROM secrets WHERE name = 'net/mesh'").fetchone()
        if row is None or type(row[1]) is not int or not mesh or not mesh[0]:
            return None
        setup = GameSetup.from_wire(json.loads(row[0]))
    except (OSError, sqlite3.Error, ValueError, RecursionError, P2pfishError):
        return None
    return StoredGame(path, setup.game, row[1], setup.shown_names, modified)


def format_stored(games: list[StoredGame]) -> str:
    if not games:
        return f"no unfinished game under {state_dir()}"
    lines = []
    for game in games:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.modified))
        names = ", ".join(printable(name, SHOWN_NAME_CHARS) for name in game.names)
        lines.append(f"{when}  {game.game}  seat {game.seat} of {len(game.names)} ({names})\n    {game.path}")
    return "\n".join(lines)
