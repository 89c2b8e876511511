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
CACHE_KIB = 256
"""SQLite's page cache per store (its default is 2000 KiB): a peer appends to its store and reads it back only when
it resumes, so a small cache costs no speed and keeps the peak memory down."""


class Store(Protocol):
    """Writes go into the current batch, which `commit` ends. A batch holding any durable write (the setup, a
    secret saved durable, the seat's own message) is synced to disk by `commit`; one of received messages
    only is committed without a sync. The session commits before it hands out anything to send."""

    def save_setup(self, setup: Json, seat: int | None) -> None: ...
    def load_setup(self) -> tuple[Json, int | None] | None: ...
    def save_secret(self, name: str, record: Json, *, durable: bool = True) -> None: ...
    def load_secrets(self) -> dict[str, Json]: ...
    def save_message(self, raw: bytes) -> None: ...
    def save_received(self, raw: bytes) -> None: ...
    def load_messages(self) -> list[bytes]: ...
    def commit(self) -> None: ...
    def sync(self) -> None: ...


class MemoryStore:
    def __init__(self) -> None:
        self.setup: tuple[Json, int | None] | None = None
        self.secrets: dict[str, Json] = {}
        self.messages: list[bytes] = []

    def save_setup(self, setup: Json, seat: int | None) -> None:
        self.setup = (setup, seat)

    def load_setup(self) -> tuple[Json, int | None] | None:
        return self.setup

    def save_secret(self, name: str, record: Json, *, durable: bool = True) -> None:
        self.secrets[name] = record

    def load_secrets(self) -> dict[str, Json]:
        return dict(self.secrets)

    def save_message(self, raw: bytes) -> None:
        self.messages.append(raw)

    def save_received(self, raw: bytes) -> None:
        self.messages.append(raw)

    def load_messages(self) -> list[bytes]:
        return list(self.messages)

    def commit(self) -> None:
        pass

    def sync(self) -> None:
        pass


class SqliteStore:
    """One SQLite file per peer and game, in write-ahead-log mode; writes are batched into one transaction
    until `commit`.

    A batch with a durable write (the setup, a seat's own secret, its own message) is committed with a sync
    (synchronous=FULL), so it is on disk before anything that depends on it leaves the peer: the session
    commits before it hands out its outbox, and a secret and the message that commits to it share one sync.
    A batch of other seats' messages only is committed without a sync (synchronous=NORMAL): a process that
    dies loses nothing committed (it is in the operating system's hands), a process that dies mid-batch
    loses the batch, and what a power cut loses (a tail of such batches after the last sync) is fetched
    again from the other peers on resume, which see its lower counts in its heartbeats (PROTOCOL §14); the
    next synced batch syncs the earlier ones too.
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
        self._closed = False
        self._synced: bool | None = None
        """Whether the open batch (or, between batches, the next one) commits with a sync; None: not yet set."""
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
        self._db.execute("PRAGMA synchronous=NORMAL")  # the tables need no sync of their own: the setup's has it
        self._db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self._synced = False
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS setup (id INTEGER PRIMARY KEY CHECK (id = 0), setup TEXT, seat INTEGER);
            CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, record TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS messages (n INTEGER PRIMARY KEY AUTOINCREMENT, raw BLOB NOT NULL);
            """
        )

    def close(self) -> None:
        """Commit the open batch (a clean close loses nothing) and close the file; closing again does nothing."""
        if self._closed:
            return
        self.commit()
        self._db.close()
        self._closed = True

    def save_setup(self, setup: Json, seat: int | None) -> None:
        self._write("INSERT OR REPLACE INTO setup VALUES (0, ?, ?)", (json.dumps(setup), seat), durable=True)

    def load_setup(self) -> tuple[Json, int | None] | None:
        row = self._db.execute("SELECT setup, seat FROM setup").fetchone()
        return None if row is None else (json.loads(row[0]), row[1])

    def save_secret(self, name: str, record: Json, *, durable: bool = True) -> None:
        """`durable` False: a value the session derives again on resume (a card dealt to this seat)."""
        self._write("INSERT OR REPLACE INTO secrets VALUES (?, ?)", (name, json.dumps(record)), durable=durable)

    def load_secrets(self) -> dict[str, Json]:
        return {name: json.loads(record) for name, record in self._db.execute("SELECT name, record FROM secrets")}

    def save_message(self, raw: bytes) -> None:
        self._write("INSERT INTO messages (raw) VALUES (?)", (raw,), durable=True)

    def save_received(self, raw: bytes) -> None:
        self._write("INSERT INTO messages (raw) VALUES (?)", (raw,), durable=False)

    def load_messages(self) -> list[bytes]:
        return [bytes(row[0]) for row in self._db.execute("SELECT raw FROM messages ORDER BY n")]

    def commit(self) -> None:
        """End the batch: synced if it holds a durable write. Nothing to do without one open."""
        if self._db.in_transaction:
            self._db.execute("COMMIT")

    def sync(self) -> None:
        """Commit the batch and put everything committed on disk (at the game's end, when the others may leave
        and nobody is left to send a lost message again)."""
        self.commit()
        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")  # it syncs the log before copying it

    def _write(self, sql: str, values: tuple[object, ...], *, durable: bool) -> None:
        """SQLite fixes a transaction's sync when it begins: a durable write into a batch begun without one
        commits that batch first (without a sync) and begins a synced one."""
        if self._db.in_transaction and durable and not self._synced:
            self._db.execute("COMMIT")
        if not self._db.in_transaction:
            if self._synced is not durable:
                self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
                self._synced = durable
            self._db.execute("BEGIN")
        self._db.execute(sql, values)


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
