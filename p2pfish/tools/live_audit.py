"""The audit of a match's game while it is played: a thread reads the host's game store as it grows and feeds an
Auditor, on the processor time the peers leave idle while they wait on each other (a King Fish deck pass is
proven by one seat while the others wait). At the end only what the store had not yet shown is left to check.

The store is only a head start: the verdict is the transcript's. `finish` uses what was fed only where the host's
transcript begins with exactly those messages, in that order; then feeding it the rest gives byte for byte the
calls `audit` makes on the transcript. Anything else (no store found, two candidate stores at any time, a store that
is not a regular file, a read that fails, a row no honest peer stores, a transcript that does not begin so) gives
None, and the caller audits the whole transcript as before.
"""

import contextlib
import json
import sqlite3
import stat
import threading
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

from p2pfish.core.errors import P2pfishError
from p2pfish.core.game import AnyRules
from p2pfish.session.audit import Auditor, AuditResult, transcript_setup
from p2pfish.session.envelope import MAX_MESSAGE_BYTES
from p2pfish.session.setup import GameSetup

HOST_STORES = "*-seat0.sqlite"
"""The host's game store in the match's state folder (p2pfish/netplay.py names stores SESSION-seatN.sqlite)."""
POLL_S = 0.02
BUSY_WAIT_S = 0.05
"""How long one read waits for the host's write lock before trying again at the next poll."""
STOP_WITHIN_S = 10.0
"""How long `stop` waits for the thread (a read, or a message being checked); past it the head start is dropped."""


class LiveAudit:
    """Follows the host's store under `store_folder` from `start` until `finish`."""

    def __init__(self, store_folder: Path, rules: AnyRules) -> None:
        self.store_folder = store_folder
        self.rules = rules
        self.fed: list[bytes] = []
        self.failed = False
        self._auditor: Auditor | None = None
        self._last_row = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="live-audit", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def following(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """Stop following (after a last read of the store); again does nothing."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(STOP_WITHIN_S)
            if self._thread.is_alive():
                self.failed = True  # its audit may still change: finish leaves it alone

    def finish(self, lines: Sequence[bytes]) -> AuditResult | None:
        """Stop following; the audit of the transcript `lines` (the host's) if what was fed begins it, else None
        (and None at any later call: the audit is finished once)."""
        self.stop()
        auditor, self._auditor = self._auditor, None
        if self.failed or auditor is None or not lines:
            return None
        try:
            if transcript_setup(lines) != auditor.setup:
                return None
        except P2pfishError:
            return None
        messages = [line for line in lines[1:] if line.strip()]
        if messages[: len(self.fed)] != self.fed:
            return None
        for raw in messages[len(self.fed) :]:
            auditor.feed(raw)
        return auditor.result()

    def _follow(self) -> None:
        try:
            database = self._open()
            if database is None:
                return
            with contextlib.closing(database):
                while not self.failed:
                    stopping = self._stop.is_set()
                    self._read(database)
                    if len(self._host_stores()) > 1:
                        self.failed = True  # another game's store beside it (the reused-game cheat): which is this?
                    elif stopping or self._stop.wait(POLL_S):
                        self._read(database)
                        return
        except Exception:  # a store this thread cannot read (whatever it holds) only costs the head start
            self.failed = True

    def _host_stores(self) -> list[Path]:
        return sorted(self.store_folder.glob(HOST_STORES))

    def _open(self) -> sqlite3.Connection | None:
        """The host's store, read-only, once exactly one has appeared (None if the match ended first, or if it is
        not a regular file: opening a pipe would never return)."""
        while True:
            stores = self._host_stores()
            if len(stores) > 1 or (stores and not stat.S_ISREG(stores[0].lstat().st_mode)):
                self.failed = True
                return None
            if stores:
                uri = f"file:{urllib.parse.quote(str(stores[0]))}?mode=ro"
                return sqlite3.connect(uri, uri=True, timeout=BUSY_WAIT_S, check_same_thread=False)
            if self._stop.wait(POLL_S):
                return None

    def _read(self, database: sqlite3.Connection) -> None:
        auditor = self._auditor
        try:
            if auditor is None:
                row = database.execute("SELECT setup FROM setup").fetchone()
                if row is None:
                    return
                auditor = self._auditor = Auditor(GameSetup.from_wire(json.loads(row[0])), self.rules)
            rows = database.execute("SELECT n, raw FROM messages WHERE n > ? ORDER BY n", (self._last_row,)).fetchall()
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "no such table" in str(error):
                return  # the host is writing, or has not made its tables yet: the next poll reads it
            raise
        for row_number, raw in rows:
            if not isinstance(raw, bytes) or len(raw) > MAX_MESSAGE_BYTES:
                self.failed = True  # no message an honest peer stores: the transcript will show what it holds
                return
            self._last_row = row_number
            self.fed.append(raw)
            auditor.feed(raw)
