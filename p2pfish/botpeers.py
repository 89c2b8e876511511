"""Bot peers on this machine, each its own `p2pfish join --bot` process, seated in a lobby this machine
hosts: `p2pfish play`'s opponents, `host --bots N`, and the host's `bot` command in its lobby.

Each bot keeps its identity, store and log in one temporary folder, removed once the game is over. A bot
leaves when its lobby closes, and like any peer stops when the game does; while its host is away (a
player who left meaning to resume) it waits for it as every peer does. Each bot runs in a session of its
own: when the host's process dies in a terminal (killed, or the terminal closed), the kernel's hangup goes
to the terminal's processes, and a bot that took it would be gone when its player comes back with
`p2pfish resume` (the game then never reached its bots again); it is not the terminal's Ctrl-C's either.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STOP_WITHIN_S = 5.0
PREFIX = "p2pfish-bots-"
OLD_PREFIXES = (PREFIX, "p2pfish-play-")
"""Bot folders this program makes (the second, of earlier versions)."""
STALE_AFTER_S = 3600.0
"""A bot folder where nothing was written for this long belongs to no running game: a game waits for a player
who left at most 600 s, and a bot writes to its store at every message."""


class BotPeers:
    def __init__(self, seed: int | None) -> None:
        self.seed = seed or 0
        self.processes: list[subprocess.Popen[bytes]] = []
        self.names: list[str] = []
        self._workdir: Path | None = None
        self._lobby: tuple[str, str] | None = None

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
        if self._lobby is None:
            raise RuntimeError("bots join a lobby: open() comes first")
        address, code = self._lobby
        index = len(self.processes) + 1
        kind = kind or ("greedy" if index % 2 else "random")
        name = f"{kind} bot {index}"
        argv = [
            sys.executable, "-m", "p2pfish", "join", address, "--code", code, "--bot", kind,
            "--seed", str(self.seed * 10 + index), "--name", name, "--identity-dir", str(self.workdir / f"bot{index}"),
        ]  # fmt: skip
        env = {**os.environ, "XDG_STATE_HOME": str(self.workdir / "state")}
        with (self.workdir / f"bot{index}.log").open("wb") as log:
            self.processes.append(subprocess.Popen(
                argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env, start_new_session=True
            ))  # fmt: skip
        self.names.append(name)
        return name

    def on_their_way(self, seated: list[str]) -> int:
        """Bots started and still running that are not yet among the `seated` names."""
        return sum(
            process.poll() is None and name not in seated
            for process, name in zip(self.processes, self.names, strict=True)
        )

    def running(self) -> int:
        return sum(process.poll() is None for process in self.processes)

    def stop(self) -> None:
        """End every bot still running (and wait for it, a moment)."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(STOP_WITHIN_S)
            except subprocess.TimeoutExpired:
                process.kill()

    def remove_files(self) -> None:
        """The game is over: the bots' folder (identities, stores, logs) goes."""
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)


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
