"""A bot peer started as a copy of this process (fork, no exec): `p2pfish play`'s first bots.

A bot started as a new program spends about 0.3 s of processor time loading Python and the peer's modules
before it says a word; three of them, on a two-core machine, delay the first board by as much. `play` has
loaded those modules already, so it copies itself instead, once per bot, and each copy runs `p2pfish join
... --bot` from the modules it inherited. A copy is only safe while this process runs no other thread and
holds no ZeroMQ context or event loop (fork copies only the calling thread): `play` forks before it starts
any of them, and every later bot (the host's `bot` command, a rematch, a resumed game) is a new program.

The copy is what a new program would be, but for its memory: it runs in a session of its own, its standard
input is its tether and its output goes to its log, and it holds no other descriptor of this process (the
port reservation, the other bots' tethers). Its command line stays `play`'s (`ps -o comm` names it p2pfish-bot).
It shares this process's string-hash seed: an order of iteration that differed between peers would go unseen
among play's bots, but not among the players of a LAN game, nor in the test matches, whose peers are programs
of their own.
"""

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

WAIT_STEP_S = 0.01


def can_fork() -> bool:
    """Whether this process may copy itself for a bot: Linux (macOS's system libraries are not safe to use
    in a copy made without exec, which is why Python itself starts processes there anew), and no thread but
    this one."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


class ForkedPeer:
    """A started copy, with the part of subprocess.Popen's interface BotPeers uses."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], log: Path) -> None:
        tether_read, tether_write = os.pipe()
        log_fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:  # the copy: it never returns into the caller's frames
            _run_copy(list(argv), dict(env), tether_read, log_fd)
        os.close(tether_read)
        os.close(log_fd)
        self.pid = pid
        self.stdin: IO[bytes] | None = os.fdopen(tether_write, "wb", buffering=0)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"bot process {self.pid}", timeout or 0.0)
            time.sleep(WAIT_STEP_S)
        assert self.returncode is not None
        return self.returncode

    def terminate(self) -> None:
        self._signal(15)

    def kill(self) -> None:
        self._signal(9)

    def _signal(self, number: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, number)


def _run_copy(argv: list[str], env: dict[str, str], tether: int, log_fd: int) -> None:
    """In the copy: become a process of its own (session, descriptors, environment), run the command, exit."""
    code = 1
    try:
        os.setsid()
        os.dup2(tether, 0)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own streams, for its whole life
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, errors="backslashreplace", closefd=False)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(env)
        with contextlib.suppress(OSError):  # the name top and ps -o comm show: its command line is play's
            Path("/proc/self/comm").write_text("p2pfish-bot")
        from p2pfish.launcher import main

        code = main(argv)
    except SystemExit as leaving:  # argparse's --help and usage errors
        code = leaving.code if isinstance(leaving.code, int) else int(leaving.code is not None)
    except BaseException:  # whatever happens, the copy must not return into `play`'s frames
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
