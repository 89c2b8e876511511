"""Peer processes for the test matches, copied from programs that have loaded the peer already.

A peer started as a new program spends about 0.3 s of processor time loading Python and its modules; the test
suite starts some 160 of them, most in `match` tables. A pool is a few long-lived programs (`python -m
p2pfish.tools.peerpool serve DIR INDEX`), each with its own string-hash seed, that load every module a peer
uses, then copy themselves (fork, no exec) once per peer asked of them. The peer of seat i in a table comes
from program i, so the peers of one table still differ in their string hashing as programs of their own would:
an order of iteration that differed between peers still shows in the tests.

A copy is what the program would be but for its memory: the standard streams, environment and working
directory asked for, no other descriptor of its parents, its own random state (Python reseeds `random` in a
copy; coincurve's blinding is reseeded here). Its exit status reaches the process that asked for it over the
request's connection, and signals reach it through a pidfd, so a peer from the pool looks like a Popen.

The pool is used where P2PFISH_PEER_POOL names its folder (the tests' conftest sets it up) and the peer is
`python -m p2pfish ...` or the hostile peer; anywhere else, and whenever the pool cannot answer, the peer is
started as a program as before. A player's command never uses it.
"""

import contextlib
import gc
import importlib
import io
import json
import os
import random
import runpy
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from p2pfish.forkedpeer import flush_streams, name_process, reseed_inherited_generators

POOL_ENV = "P2PFISH_PEER_POOL"
SERVED_MODULES = ("p2pfish", "p2pfish.tools.peer", "p2pfish.tools.peerpool")
PROGRAMS = 8
"""Programs in a pool: one per seat of the largest table."""
MAX_REQUEST = 1 << 20
ANSWER_WITHIN_S = 10.0
PRELOAD = (
    "p2pfish.cli", "p2pfish.netplay", "p2pfish.tools.peer", "p2pfish.session.session", "p2pfish.net.mesh",
    "p2pfish.bots.engine", "queue", "zmq", "zmq.asyncio", "sqlite3", "asyncio", "json", "hashlib",
)  # fmt: skip


class PooledProcess:
    """A peer copied by a pool program, with the part of subprocess.Popen's interface the tools use."""

    def __init__(self, link: socket.socket, pid: int, pidfd: int, stdout: IO[str] | None) -> None:
        self.pid = pid
        self.stdout = stdout
        self.returncode: int | None = None
        self._link = link
        self._pidfd = pidfd

    def poll(self) -> int | None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.wait(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            deadline = None if timeout is None else time.monotonic() + timeout
            if not select.select([self._link], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"peer process {self.pid}", timeout or 0.0)
            message = self._link.recv(64)
            if message.startswith(b"exit "):
                self.returncode = os.waitstatus_to_exitcode(int(message[5:]))
            else:  # the pool program ended before its copy (the link reads empty from now on): follow the copy
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not select.select([self._pidfd], [], [], left)[0]:
                    raise subprocess.TimeoutExpired(f"peer process {self.pid}", timeout or 0.0)
                self.returncode = 1  # its status went to its parent, the pool program, which is gone
            self._link.close()
            os.close(self._pidfd)
        return self.returncode

    def communicate(self, timeout: float | None = None) -> tuple[None, None]:
        self.wait(timeout)
        return None, None

    def send_signal(self, number: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it ended since, as Popen.send_signal allows
                signal.pidfd_send_signal(self._pidfd, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def start_peer(
    command: Sequence[str], *, index: int, env: Mapping[str, str], stdout_pipe: bool, stderr: IO[Any]
) -> "subprocess.Popen[str] | PooledProcess":
    """Start `command` (stdin /dev/null, stdout a text pipe if `stdout_pipe`, stderr to `stderr`): copied by
    pool program `index` where the environment names a pool and the command is one it serves, else a program."""
    pooled = _from_pool(command, index, env, stdout_pipe, stderr) if env.get(POOL_ENV) else None
    if pooled is not None:
        return pooled
    return subprocess.Popen(
        command, stdout=subprocess.PIPE if stdout_pipe else None, stderr=stderr, stdin=subprocess.DEVNULL,
        text=True, env=dict(env),
    )  # fmt: skip


def _from_pool(
    command: Sequence[str], index: int, env: Mapping[str, str], stdout_pipe: bool, stderr: IO[Any]
) -> PooledProcess | None:
    if len(command) < 3 or command[0] != sys.executable or command[1] != "-m" or command[2] not in SERVED_MODULES:
        return None
    if "PYTHONHASHSEED" in env:  # a seed asked for: only a program of its own has it
        return None
    address = Path(env[POOL_ENV]) / f"{index % PROGRAMS}.sock"
    read_end, write_end = os.pipe() if stdout_pipe else (-1, -1)
    null = os.open(os.devnull, os.O_RDONLY)
    link = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        link.settimeout(ANSWER_WITHIN_S)
        link.connect(str(address))
        request = {"module": command[2], "argv": list(command[3:]), "env": dict(env), "cwd": os.getcwd()}
        streams = [null, write_end if stdout_pipe else sys.stdout.fileno(), stderr.fileno()]
        socket.send_fds(link, [json.dumps(request).encode()], streams)
        reply, fds, _, _ = socket.recv_fds(link, 64, 1)
        if not reply or len(fds) != 1:
            raise OSError("the pool program did not start the peer")
        os.set_inheritable(fds[0], False)
        link.settimeout(None)
    except (OSError, ValueError):
        link.close()
        if stdout_pipe:
            os.close(read_end)
        return None
    finally:
        os.close(null)
        if stdout_pipe:
            os.close(write_end)
    stdout = open(read_end, encoding="utf-8", errors="replace") if stdout_pipe else None  # noqa: SIM115
    return PooledProcess(link, int(reply), fds[0], stdout)


# --- the pool program ----------------------------------------------------------------------------------------


def serve(folder: Path, index: int) -> None:
    """Load the peer's modules, listen on FOLDER/INDEX.sock, and copy this program once per request, until
    standard input (the pool owner's tether) closes."""
    for name in PRELOAD:
        importlib.import_module(name)
    from p2pfish.bots import BOT_KINDS
    from p2pfish.games.registry import games, make_bot

    for game in games():
        for kind in BOT_KINDS:
            make_bot(kind, game.id, random.Random(0))
    address = folder / f"{index}.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with contextlib.suppress(FileNotFoundError):
        address.unlink()
    listener.bind(str(address) + ".new")
    listener.listen(64)
    os.rename(str(address) + ".new", address)  # seen only once it listens
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    gc.freeze()  # the copies then leave the loaded modules' pages shared
    children: dict[int, socket.socket] = {}
    while True:
        ready = select.select([sys.stdin.fileno(), listener, wake_read], [], [])[0]
        if sys.stdin.fileno() in ready and not os.read(sys.stdin.fileno(), 1):
            break
        if wake_read in ready:
            os.read(wake_read, 512)
            _report_ended(children)
        if listener in ready:
            with contextlib.suppress(OSError, ValueError, KeyError):
                _answer(listener, children)
    os._exit(0)


def _report_ended(children: dict[int, socket.socket]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        link = children.pop(pid, None)
        if link is not None:
            with contextlib.suppress(OSError):
                link.send(b"exit %d" % status)
            link.close()


def _answer(listener: socket.socket, children: dict[int, socket.socket]) -> None:
    link, _ = listener.accept()
    try:
        link.settimeout(ANSWER_WITHIN_S)
        request, fds, _, _ = socket.recv_fds(link, MAX_REQUEST, 3)
        try:
            if len(fds) != 3:
                raise OSError("a request carries three descriptors")
            fields = json.loads(request)
            pid = os.fork()
            if pid == 0:
                _run_copy(fields, fds)
            try:
                pidfd = os.pidfd_open(pid)  # it cannot be reaped before this: reaping is this loop's
            except OSError:  # unseen, it would run beside the program the requester starts instead
                os.kill(pid, signal.SIGKILL)
                raise
        finally:
            for fd in fds:
                os.close(fd)
        children[pid] = link
        try:
            socket.send_fds(link, [b"%d" % pid], [pidfd])
        except OSError:  # the requester gave up waiting and starts a program instead: this copy must not run too
            os.kill(pid, signal.SIGKILL)
            raise
        finally:
            os.close(pidfd)
    except BaseException:
        if link not in children.values():
            link.close()
        raise


def _run_copy(fields: dict[str, Any], fds: list[int]) -> None:
    """In the copy: the streams, environment and folder asked for, then the module as `python -m` runs it."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        os.environ.clear()
        os.environ.update(fields["env"])
        os.chdir(fields["cwd"])
        unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own streams, for its whole life
        sys.stdout = _text_stream(1, "strict", unbuffered)
        sys.stderr = _text_stream(2, "backslashreplace", True)
        name_process("p2pfish-peer")
        reseed_inherited_generators()
        sys.argv = [fields["module"], *fields["argv"]]
        runpy.run_module(fields["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as leaving:
        code = leaving.code if isinstance(leaving.code, int) else int(leaving.code is not None)
    except BaseException:  # the copy must never return into the pool program's loop
        import traceback

        traceback.print_exc()
    finally:
        flush_streams()
        os._exit(code)


def _text_stream(fd: int, errors: str, write_through: bool) -> io.TextIOWrapper:
    raw = io.FileIO(fd, "w", closefd=False)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", errors=errors, line_buffering=True,
                            write_through=write_through)  # fmt: skip


class Pool:
    """A pool's programs, started by its owner (the tests' conftest) and ended with it. They load in the
    background: until a program listens, the peers of its seat start as programs."""

    def __init__(self, folder: Path, programs: int = PROGRAMS) -> None:
        """`programs`: how many; seat i's peers come from program i (i < programs), the others' are programs."""
        self.folder = folder
        tether_read, self._tether = os.pipe()
        self._programs = [_start_program(folder, index, tether_read) for index in range(programs)]
        os.close(tether_read)

    def wait_ready(self, timeout_s: float) -> bool:
        """Whether every program listens within `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while len(list(self.folder.glob("*.sock"))) < len(self._programs):
            if time.monotonic() >= deadline or any(program.poll() is not None for program in self._programs):
                return False
            time.sleep(0.02)
        return True

    def close(self) -> bool:
        """End the programs (their copies go on): whether each ended by itself within 5 s of its tether's end."""
        os.close(self._tether)
        deadline = time.monotonic() + 5.0
        by_themselves = True
        for program in self._programs:
            try:
                program.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                program.kill()
                program.wait()
                by_themselves = False
        return by_themselves


def _start_program(folder: Path, index: int, tether: int) -> "subprocess.Popen[bytes]":
    return subprocess.Popen(
        [sys.executable, "-m", "p2pfish.tools.peerpool", "serve", str(folder), str(index)],
        stdin=tether, stdout=subprocess.DEVNULL, start_new_session=True,
        env={name: value for name, value in os.environ.items() if name != "PYTHONHASHSEED"},
    )  # fmt: skip


def probe(exit_code: int, *, wait: bool = False) -> int:
    """What a process is, on one JSON line (for the tests): its string hashing, folder, environment, open
    descriptors and streams; then it exits with `exit_code`, or with `wait` waits for a signal."""
    fds = sorted(int(name) for name in os.listdir("/proc/self/fd"))
    line = {"hash": hash("p2pfish"), "cwd": os.getcwd(), "env": dict(os.environ), "fds": fds, "pid": os.getpid()}
    print(json.dumps(line))
    print("to stderr", file=sys.stderr)
    sys.stdout.flush()
    while wait:
        signal.pause()
    return exit_code


def main(argv: Sequence[str]) -> int:
    if len(argv) == 3 and argv[0] == "serve" and argv[2].isdigit():
        serve(Path(argv[1]), int(argv[2]))
        return 0
    if len(argv) in (2, 3) and argv[0] == "probe" and argv[1].isdigit() and argv[2:] in ([], ["wait"]):
        return probe(int(argv[1]), wait=argv[2:] == ["wait"])
    print("usage: python -m p2pfish.tools.peerpool serve FOLDER INDEX | probe EXIT_CODE [wait]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
