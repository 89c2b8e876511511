"""Start-up figures: how long `p2pfish play` takes, from the command to the first board on the screen.

The command runs as a player runs it, under a pseudo-terminal (pty_screen), with its bot peers as processes
of their own, through the lobby, the CURVE mesh and the protocol; the clock stops when the screen the
program drew shows a board. Identities, stores and the bots' folders live in a scratch folder, and every
process started from it is killed at the end.
"""

import contextlib
import functools
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
MARK = "P2PFISH_BENCH_RUN"
"""An environment variable naming the run's scratch folder: every process of the run (the bots too) has it."""


def play_first_board_s() -> float:
    """The median of 3 runs: `p2pfish play fishnstones --bots 3 --seed 1` on a 120 x 40 terminal, from its
    start to its first board on the screen (fresh identities each run)."""
    return round(statistics.median(wall for wall, _ in play_runs()), 3)


def play_first_board_cpu_s() -> float:
    """The same runs: the processor time the player's process and its three bots had used by then (all four
    processes; less at the mercy of other load on the machine than the wall time, and on two idle cores the
    wall time cannot be much under half of it)."""
    return round(statistics.median(cpu for _, cpu in play_runs()), 3)


@functools.cache
def play_runs() -> tuple[tuple[float, float], ...]:
    return tuple(first_board() for _ in range(PLAY_RUNS))


def first_board() -> tuple[float, float]:
    """(seconds to the first board, processor seconds the run's processes used by then)."""
    with tempfile.TemporaryDirectory(prefix="p2pfish-bench-play-") as scratch:
        folder = Path(scratch)
        env = {
            **os.environ, "TMPDIR": scratch, "XDG_CONFIG_HOME": str(folder / "config"),
            "XDG_STATE_HOME": str(folder / "state"), "TERM": "xterm-256color", MARK: scratch,
        }  # fmt: skip
        env.pop("NO_COLOR", None)
        argv = [sys.executable, "-m", "p2pfish", "play", "fishnstones", "--bots", "3", "--seed", "1"]
        used: list[float] = []

        def shown(text: str) -> bool:
            if FIRST_BOARD not in text:
                return False
            used.append(processor_seconds(f"{MARK}={scratch}"))
            return True

        try:
            wall = time_until_shown(argv, shown, env=env, cwd=folder, timeout_s=PLAY_TIMEOUT_S)
        finally:
            kill_processes_of(f"{MARK}={scratch}")
        return wall, used[0]


def processes_of(environment_entry: str) -> list[Path]:
    """The /proc folders of this user's processes (but this one) with `environment_entry` (NAME=VALUE) in their
    environment: the player's process and its bots, which are copies of it or programs it started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if environment_entry.encode() in (entry / "environ").read_bytes().split(b"\0"):
                found.append(entry)
    return found


def processor_seconds(environment_entry: str) -> float:
    """User and system time of every process of this user with `environment_entry` (NAME=VALUE)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in processes_of(environment_entry):
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def kill_processes_of(environment_entry: str) -> None:
    """Kill every process of this user with `environment_entry`, in whatever session it lives."""
    for entry in processes_of(environment_entry):
        with contextlib.suppress(OSError):
            os.kill(int(entry.name), signal.SIGKILL)
