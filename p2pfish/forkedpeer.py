"""Bot peers started as copies of this process (fork, no exec): the bots of `p2pfish play`, `host` and `resume`.

A bot started as a new program spends about 0.3 s of processor time loading Python and the peer's modules
before it says a word; three of them, on a two-core machine, delay the first board by as much, and a rematch's
bots again. The process that runs them has loaded those modules already, so it makes one copy of itself, the
spawner, as soon as they are loaded and before it starts any thread, ZeroMQ context or event loop (fork copies
only the calling thread). The spawner does nothing but wait for requests and copy itself once per bot, at any
time in the game: the first bots, the host's `bot` command, a rematch's, a resumed game's.

A bot is what a new program would be but for its memory: it runs in a session of its own, its standard input is
its tether (a pipe whose other end only the requesting process holds), its output goes to its log, and it holds
no other descriptor of either process. Its command line stays its parent's (`ps -o comm` names it p2pfish-bot).
It shares this process's string-hash seed: an order of iteration that differed between peers would go unseen
among these bots, but not among the players of a LAN game, nor in the test matches, whose peers are programs of
their own. The requesting process follows each bot through a pidfd (Linux 5.3): it is not the bot's parent.
"""

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

WAIT_STEP_S = 0.01
MAX_REQUEST = 1 << 20
ANSWER_WITHIN_S = 10.0
"""A spawner that does not answer a request within this is taken for gone: the bot starts as a program."""
ENDED = 0
"""What poll() says of a bot that has ended: its exit status is its parent's, the spawner's, to collect."""


def can_fork(*, allow_threads: bool = False) -> bool:
    """Whether this process may copy itself: Linux (macOS's system libraries are not safe to use in a copy
    made without exec, which is why Python itself starts processes there anew), a kernel that gives pidfds (5.3
    and later, where no sandbox refuses them), and no thread but this one, counted by the kernel (a thread
    started in C is not in `threading`'s count)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        return False
    return allow_threads or threads == 1


class SpawnedBot:
    """A bot the spawner started, with the part of subprocess.Popen's interface BotPeers uses."""

    def __init__(self, pid: int, pidfd: int, tether: int) -> None:
        self.pid = pid
        self._pidfd = pidfd
        self.stdin: IO[bytes] | None = os.fdopen(tether, "wb", buffering=0)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._pidfd], [], [], 0)[0]:
            self.returncode = ENDED
            os.close(self._pidfd)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            ready = select.select([self._pidfd], [], [], timeout)[0]
            if not ready:
                raise subprocess.TimeoutExpired(f"bot process {self.pid}", timeout or 0.0)
        result = self.poll()
        assert result is not None
        return result

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, number: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it ended since, as Popen.send_signal allows
                signal.pidfd_send_signal(self._pidfd, number)


class BotSpawner:
    """The requesting side: start() makes the spawner, spawn() has it start a bot."""

    def __init__(self, pid: int, link: socket.socket) -> None:
        self.pid = pid
        self._link = link

    @classmethod
    def start(cls, *, allow_threads: bool = False) -> "BotSpawner | None":
        """The spawner, a copy of this process as it is now; None where it may not be copied (can_fork).
        `allow_threads`: copy it even with other threads running (the tests do, from a pytest worker, whose
        other thread holds nothing the copy uses: the copy makes its own standard streams)."""
        if not can_fork(allow_threads=allow_threads):
            return None
        mine, its = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        flush_streams()
        pid = os.fork()
        if pid == 0:  # the spawner: it never returns into the caller's frames
            _serve(its)
        its.close()
        mine.settimeout(ANSWER_WITHIN_S)
        return cls(pid, mine)

    def spawn(self, argv: Sequence[str], env: Mapping[str, str], log: Path) -> SpawnedBot:
        """Start `p2pfish ARGV` as a bot: this environment, output appended to `log`. OSError if the spawner is
        gone or did not answer in time; it is then ended, so that it starts no bot late, and never asked again."""
        if self._link.fileno() < 0:
            raise OSError("the bot spawner has ended")
        tether_read, tether_write = os.pipe()
        fds: list[int] = []
        try:
            request = json.dumps({"argv": list(argv), "env": dict(env), "log": str(log)}).encode()
            socket.send_fds(self._link, [request], [tether_read])
            reply, fds, _, _ = socket.recv_fds(self._link, 64, 1)
            for fd in fds:
                os.set_inheritable(fd, False)
            if not reply or len(fds) != 1:
                raise OSError("the bot spawner did not start the bot")
            return SpawnedBot(int(reply), fds[0], tether_write)
        except BaseException as failure:
            for fd in (tether_write, *fds):
                os.close(fd)
            self.close(at_once=True)
            if isinstance(failure, Exception) and not isinstance(failure, OSError):
                raise OSError(f"the bot spawner failed: {failure}") from failure
            raise
        finally:
            os.close(tether_read)

    def close(self, *, at_once: bool = False) -> bool:
        """The spawner ends (its bots go on): its link closes, and it leaves within 5 s or is killed (at once
        if `at_once`). Whether it ended by itself."""
        self._link.close()
        deadline = time.monotonic() + (0.0 if at_once else 5.0)
        while True:
            try:
                if os.waitpid(self.pid, os.WNOHANG) != (0, 0):
                    return True
            except ChildProcessError:  # reaped already
                return True
            if time.monotonic() >= deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                return False
            time.sleep(WAIT_STEP_S)


def _serve(link: socket.socket) -> None:
    """In the spawner: a process of its own, without the terminal, until the requesting process closes the link."""
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, link.fileno())
        os.closerange(link.fileno() + 1, os.sysconf("SC_OPEN_MAX"))
        name_process("p2pfish-spawner")
        signal.signal(signal.SIGCHLD, lambda *_: _reap())
        while True:
            request, fds, _, _ = socket.recv_fds(link, MAX_REQUEST, 1)
            if not request or len(fds) != 1:
                break
            fields = json.loads(request)
            pidfd = _copy(fields["argv"], fields["env"], fields["log"], fds[0], link)
            os.close(fds[0])
            socket.send_fds(link, [b"%d" % pidfd[0]], [pidfd[1]])
            os.close(pidfd[1])
    finally:
        os._exit(0)


def _copy(argv: list[str], env: dict[str, str], log: str, tether: int, link: socket.socket) -> tuple[int, int]:
    """Fork one bot; (its pid, a pidfd of it). SIGCHLD waits meanwhile, so the bot cannot be reaped (and its
    pid given to another process) before its pidfd is open."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    try:
        log_fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        pid = os.fork()
        if pid == 0:
            link.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            _run_bot(argv, env, tether, log_fd)
        os.close(log_fd)
        try:
            return pid, os.pidfd_open(pid)
        except OSError:  # no pidfd after all: the bot must not live on unseen
            os.kill(pid, signal.SIGKILL)
            raise
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _run_bot(argv: list[str], env: dict[str, str], tether: int, log_fd: int) -> None:
    """In the bot: become a process of its own (session, descriptors, environment), run the command, exit."""
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
        name_process("p2pfish-bot")
        reseed_inherited_generators()
        from p2pfish.cli import main  # the player's commands (the launcher above it also routes the tools')

        code = main(argv)
    except SystemExit as leaving:  # argparse's --help and usage errors
        code = leaving.code if isinstance(leaving.code, int) else int(leaving.code is not None)
    except BaseException:  # whatever happens, the bot must not return into its parents' frames
        import traceback

        traceback.print_exc()
    finally:
        flush_streams()
        os._exit(code)


def reseed_inherited_generators() -> None:
    """Python reseeds `random` in a copy; libsecp256k1's blinding (coincurve) is reseeded here, so that no two
    bots share it. Every key and nonce comes from the system (os.urandom, libsodium, OpenSSL), never copied."""
    context = sys.modules.get("coincurve.context")
    if context is not None:
        context.GLOBAL_CONTEXT.reseed()


def name_process(name: str) -> None:
    """The name top and `ps -o comm` show: a copy's command line stays its parent's."""
    with contextlib.suppress(OSError):
        Path("/proc/self/comm").write_text(name)


def flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
