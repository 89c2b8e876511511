"""A peer's local store: its own secrets, written before any commitment to them is sent, and every
accepted message, so a crashed peer can resume. MemoryStore for tests, SqliteStore on disk (a file
only its owner may read: it holds the seat's secrets in the clear)."""

import json
import os
import sqlite3
import stat
from functools import partial
from pathlib import Path
from typing import Protocol

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json
from p2pfish.paths import LocalFileError, check_private_folder, create_private_file, local_file_error

COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")


class Store(Protocol):
    def save_setup(self, setup: Json, seat: int | None) -> None: ...
    def load_setup(self) -> tuple[Json, int | None] | None: ...
    def save_secret(self, name: str, record: Json) -> None: ...
    def load_secrets(self) -> dict[str, Json]: ...
    def save_message(self, raw: bytes) -> None: ...
    def save_received(self, raw: bytes) -> None: ...
    def load_messages(self) -> list[bytes]: ...


class MemoryStore:
    def __init__(self) -> None:
        self.setup: tuple[Json, int | None] | None = None
        self.secrets: dict[str, Json] = {}
        self.messages: list[bytes] = []

    def save_setup(self, setup: Json, seat: int | None) -> None:
        self.setup = (setup, seat)

    def load_setup(self) -> tuple[Json, int | None] | None:
        return self.setup

    def save_secret(self, name: str, record: Json) -> None:
        self.secrets[name] = record

    def load_secrets(self) -> dict[str, Json]:
        return dict(self.secrets)

    def save_message(self, raw: bytes) -> None:
        self.messages.append(raw)

    def save_received(self, raw: bytes) -> None:
        self.messages.append(raw)

    def load_messages(self) -> list[bytes]:
        return list(self.messages)


class SqliteStore:
    """One SQLite file per peer and game; every write is committed before the call returns.

    A seat's own secrets and own messages are durable (synced to disk) before the call returns, so
    before anything that depends on them leaves the peer. Another seat's message is written without its own
    sync: a process that dies loses nothing (the write is in the operating system's hands), and what a
    power cut might lose is fetched again from the other peers on resume; the next durable write syncs
    it too.
    `new=True` (a game starting) refuses a file that exists already: a new game never opens an old store,
    only `resume` does. Neither follows a symbolic link: not the store's name, nor its folder, nor the
    names SQLite gives its companions (-wal, -shm, -journal), which must be this user's (prepare_companions)."""

    def __init__(self, path: str | Path, *, new: bool = False) -> None:
        path = Path(path)
        check_private_folder(path.parent, "store")
        try:
            os.close(create_private_file(path, "store", new=new))
        except LocalFileError:
            if new and os.path.lexists(path) and not os.path.islink(path):
                raise LocalFileError(f"{path} exists already: a new game needs a new store") from None
            raise
        try:
            prepare_companions(path)
        except LocalFileError:
            if new:  # it was made just now, empty: leave no store behind that a new game could not use
                path.unlink(missing_ok=True)
            raise
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None)
        except sqlite3.Error as error:
            raise LocalFileError(f"cannot open the store {path}: {error}") from None
        try:
            self._prepare()
        except sqlite3.DatabaseError as error:
            self._db.close()
            if "not a database" in str(error):
                raise MalformedInput(f"{path} is not a p2pfish game store") from None
            raise LocalFileError(f"the store {path} cannot be used: {error}") from None

    def _prepare(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS setup (id INTEGER PRIMARY KEY CHECK (id = 0), setup TEXT, seat INTEGER);
            CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, record TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS messages (n INTEGER PRIMARY KEY AUTOINCREMENT, raw BLOB NOT NULL);
            """
        )

    def close(self) -> None:
        self._db.close()

    def save_setup(self, setup: Json, seat: int | None) -> None:
        self._db.execute("INSERT OR REPLACE INTO setup VALUES (0, ?, ?)", (json.dumps(setup), seat))

    def load_setup(self) -> tuple[Json, int | None] | None:
        row = self._db.execute("SELECT setup, seat FROM setup").fetchone()
        return None if row is None else (json.loads(row[0]), row[1])

    def save_secret(self, name: str, record: Json) -> None:
        self._db.execute("INSERT OR REPLACE INTO secrets VALUES (?, ?)", (name, json.dumps(record)))

    def load_secrets(self) -> dict[str, Json]:
        return {name: json.loads(record) for name, record in self._db.execute("SELECT name, record FROM secrets")}

    def save_message(self, raw: bytes) -> None:
        self._db.execute("INSERT INTO messages (raw) VALUES (?)", (raw,))

    def save_received(self, raw: bytes) -> None:
        self._db.execute("PRAGMA synchronous=NORMAL")
        try:
            self._db.execute("INSERT INTO messages (raw) VALUES (?)", (raw,))
        finally:
            self._db.execute("PRAGMA synchronous=FULL")

    def load_messages(self) -> list[bytes]:
        return [bytes(row[0]) for row in self._db.execute("SELECT raw FROM messages ORDER BY n")]


def prepare_companions(path: Path) -> None:
    """SQLite opens `path` + "-wal", "-shm" and "-journal" by name, following links, and uses a file it finds
    there whoever owns it. So, before SQLite opens the store: each companion that exists must be a regular file
    of this user's with no other name (not a symbolic link, not a hard link to another file, not another
    user's file pre-made where both can write, such as /tmp) — else the store is refused in one line; and
    "-wal" and "-shm", where the seat's secrets go, are made now, empty and owner-only, if missing (SQLite
    takes an empty one as new). Made by this user, no other user can replace them in a sticky folder, and
    SQLite writes into them rather than making its own. "-journal" is used only while a new store switches to
    write-ahead logging, before anything secret is written."""
    for suffix in COMPANION_SUFFIXES:
        companion = path.with_name(path.name + suffix)
        if os.path.islink(companion):
            raise LocalFileError(f"cannot open the store {path}: {companion} is a symbolic link")
        if suffix == "-journal":
            try:
                info = os.lstat(companion)
            except FileNotFoundError:
                continue
            except OSError as error:
                raise local_file_error("store's companion", companion, error) from None
            _check_companion(path, companion, info)
            continue
        fd = create_private_file(companion, "store's companion", check=partial(_check_companion, path, companion))
        os.close(fd)


def _check_companion(path: Path, companion: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise LocalFileError(f"cannot open the store {path}: {companion} is not a regular file")
    if info.st_uid != os.getuid():
        raise LocalFileError(f"cannot open the store {path}: {companion} belongs to another user")
    if info.st_nlink != 1:
        raise LocalFileError(f"cannot open the store {path}: {companion} has another name (a hard link)")
