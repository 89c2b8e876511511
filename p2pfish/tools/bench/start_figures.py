"""Start-up figures: how long `p2pfish play` takes, from the command to the first board on the screen.

The command runs as a player runs it, under a pseudo-terminal (pty_screen), with its bot peers as processes
of their own, through the lobby, the CURVE mesh and the protocol; the clock stops when the screen the
program drew shows a board. Identities, stores and the bots' folders live in a scratch folder, and every
process started from it is killed at the end.
"""

import os
import signal
import statistics
import sys
import tempfile
from pathlib import Path

from p2pfish.tools.bench.pty_screen import time_until_shown

PLAY_RUNS = 3
PLAY_TIMEOUT_S = 60.0
FIRST_BOARD = "Round 1/4"
"""What Fish'n'Stones's board shows from its first moment, and no lobby screen does."""


def play_first_board_s() -> float:
    """The median of 3 runs: `p2pfish play fishnstones --bots 3 --seed 1` on a 120 x 40 terminal, from its
    start to its first board on the screen (fresh identities each run)."""
    return round(statistics.median(first_board_s() for _ in range(PLAY_RUNS)), 3)


def first_board_s() -> float:
    with tempfile.TemporaryDirectory(prefix="p2pfish-bench-play-") as scratch:
        folder = Path(scratch)
        env = {
            **os.environ, "TMPDIR": scratch, "XDG_CONFIG_HOME": str(folder / "config"),
            "XDG_STATE_HOME": str(folder / "state"), "TERM": "xterm-256color",
        }  # fmt: skip
        env.pop("NO_COLOR", None)
        argv = [sys.executable, "-m", "p2pfish", "play", "fishnstones", "--bots", "3", "--seed", "1"]
        try:
            return time_until_shown(
                argv, lambda text: FIRST_BOARD in text, env=env, cwd=folder, timeout_s=PLAY_TIMEOUT_S
            )
        finally:
            kill_processes_mentioning(scratch)


def kill_processes_mentioning(text: str) -> None:
    """Kill every process of this user whose command line holds `text` (the bots of a play run, which may
    live in sessions of their own)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if text.encode() in (entry / "cmdline").read_bytes():
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue
