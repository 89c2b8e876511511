"""Bot peers on this machine, each its own `p2pfish join --bot` process, seated in a lobby this machine
hosts: `p2pfish play`'s opponents, `host --bots N`, and the host's `bot` command in its lobby.

Each bot keeps its identity, store and log in one temporary folder, removed once the game is over (a rematch
starts the same bots again, with the same identities, in a new lobby). A bot leaves when its lobby closes, and
like any peer stops when the game does. A bot is tethered to the process that started it (`--tethered`): it
reads its standard input, a pipe whose other end only that process holds, and when it closes — that process
ended, however it ended, even killed — the bot leaves at once: from a lobby, or from a game unfinished, as a
player who means to come back (the others wait for it). `p2pfish resume` of that game starts its bots again
from their stores (resume_record). Each bot also runs in a session of its own: the kernel's hangup of a closed
terminal and the terminal's Ctrl-C are not its to take.
"""

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from p2pfish.forkedpeer import BotSpawner, SpawnedBot

STOP_WITHIN_S = 5.0
PREFIX = "p2pfish-bots-"
OLD_PREFIXES = (PREFIX, "p2pfish-play-")
"""Bot folders this program makes (the second, of earlier versions)."""
STALE_AFTER_S = 24 * 3600.0
"""A bot folder where nothing was written for this long is removed: a game left unfinished with bots can be
resumed within a day (README). A bot writes to its store at every message."""
TETHER_FLAG = "--tethered"

BotProcess = subprocess.Popen[bytes] | SpawnedBot


@dataclass(frozen=True)
class BotSeat:
    """A bot as a resumed game starts it again: its number (its identity's folder), kind, name and store."""

    index: int
    kind: str
    name: str
    store: Path


class BotPeers:
    def __init__(self, seed: int | None, workdir: Path | None = None, spawner: BotSpawner | None = None) -> None:
        """`spawner`: each bot a copy of the process it made (forkedpeer.py), else each a new program."""
        self.seed = seed or 0
        self.spawner = spawner
        self.processes: list[BotProcess] = []
        """The bots of the game under way, in the order they were started."""
        self.names: list[str] = []
        """Their names, in the same order."""
        self._known: dict[str, tuple[int, str]] = {}
        """Every bot started so far, by name: its number and kind (a rematch starts the same bots again)."""
        self._workdir = workdir
        self._lobby: tuple[str, str] | None = None
        self._games = 0

    @property
    def workdir(self) -> Path:
        if self._workdir is None:
            sweep_stale_folders(Path(tempfile.gettempdir()))
            self._workdir = Path(tempfile.mkdtemp(prefix=PREFIX))
        return self._workdir

    def open(self, address: str, code: str) -> None:
        """The lobby the bots join: its HOST:PORT and join code."""
        self._lobby = (address, code)

    def add(self, kind: str | None = None) -> str:
        """Start one more bot of `kind` (else greedy and random by turns) joining the lobby; its name."""
        index = len(self._known) + 1
        kind = kind or ("greedy" if index % 2 else "random")
        name = f"{kind} bot {index}"
        self._known[name] = (index, kind)
        self._join(name)
        return name

    def again(self, names: list[str]) -> None:
        """A rematch: the bots of these names (those that played) join the lobby again, with the same
        identities; the bots of the game before are ended first."""
        self.stop()
        self.processes, self.names = [], []
        self._games += 1
        for name in names:
            if name in self._known:
                self._join(name)

    def _join(self, name: str) -> None:
        if self._lobby is None:
            raise RuntimeError("bots join a lobby: open() comes first")
        address, code = self._lobby
        index, kind = self._known[name]
        seed = self.seed * 10 + index + 1000 * self._games
        command = ["join", address, "--code", code, "--bot", kind, "--seed", str(seed), "--name", name]
        self._start(name, command)

    def _start(self, name: str, command: list[str]) -> None:
        index, _ = self._known[name]
        words = [*command, "--identity-dir", str(self.workdir / f"bot{index}"), TETHER_FLAG]
        env = {**os.environ, "XDG_STATE_HOME": str(self.workdir / "state")}
        log_path = self.workdir / f"bot{index}.log"
        process: BotProcess | None = None
        if self.spawner is not None:
            try:
                process = self.spawner.spawn(words, env, log_path)
            except OSError:  # the spawner is gone: this bot and the next are programs
                self.spawner = None
        if process is None:
            with log_path.open("ab") as log:
                process = subprocess.Popen(
                    [sys.executable, "-m", "p2pfish", *words],
                    stdout=log, stderr=log, stdin=subprocess.PIPE, env=env, start_new_session=True,
                )  # fmt: skip
        self.processes.append(process)
        self.names.append(name)

    def seats(self, names: tuple[str, ...] | list[str]) -> list[dict[str, str | int]]:
        """What a game's store keeps of its bots, for resume: each seated bot's seat, number, kind and name."""
        return [
            {"seat": seat, "index": self._known[name][0], "kind": self._known[name][1], "name": name}
            for seat, name in enumerate(names)
            if name in self._known
        ]

    def resume(self, seats: list[BotSeat]) -> None:
        """A resumed game: its bots (which left with the process that started them) come back from their stores."""
        for seat in seats:
            self._known[seat.name] = (seat.index, seat.kind)
            self._start(seat.name, ["resume", str(seat.store), "--bot", seat.kind])

    def on_their_way(self, seated: list[str]) -> int:
        """Bots started and still running that are not yet among the `seated` names."""
        return sum(
            process.poll() is None and name not in seated
            for process, name in zip(self.processes, self.names, strict=True)
        )

    def running(self) -> int:
        return sum(process.poll() is None for process in self.processes)

    def release(self) -> None:
        """The game goes on without this process (its player left it, meaning to come back): each bot is told,
        by the close of its standard input, and leaves the game the same way, to come back with its player.
        Waits for them, a moment; one that does not go is ended."""
        for process in self.processes:
            _close(process.stdin)
        self._wait_or_end(self.processes)

    def stop(self) -> None:
        """End every bot still running (and wait for it, a moment)."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        self._wait_or_end(self.processes)
        for process in self.processes:
            _close(process.stdin)

    @staticmethod
    def _wait_or_end(processes: list[BotProcess]) -> None:
        for process in processes:
            try:
                process.wait(STOP_WITHIN_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def remove_files(self) -> None:
        """The game is over: the bots' folder (identities, stores, logs) goes."""
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)


def _close(pipe: IO[bytes] | None) -> None:
    if pipe is not None:
        with contextlib.suppress(OSError):
            pipe.close()


def sweep_stale_folders(parent: Path, now: float | None = None) -> list[Path]:
    """Remove this user's bot folders under `parent` in which nothing was written for STALE_AFTER_S (a game
    resumed by another process leaves its bots' folder behind); the folders removed."""
    now = time.time() if now is None else now
    removed = []
    for folder in parent.iterdir() if parent.is_dir() else ():
        if not folder.name.startswith(OLD_PREFIXES) or folder.is_symlink() or not folder.is_dir():
            continue
        try:
            if folder.stat().st_uid != os.getuid():
                continue
            newest = max((path.stat().st_mtime for path in folder.rglob("*")), default=folder.stat().st_mtime)
        except OSError:
            continue
        if now - newest > STALE_AFTER_S:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
