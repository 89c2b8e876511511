"""A bot that is another program: an engine speaking the engine protocol (protocol/ENGINE.md) on its standard
input and output, run without a shell. It is one more Player, and a careful one: whatever the program does, the
seat plays a legal move.

- It crashes or exits (or cannot start): one line says so, naming the engine and why, and the fallback bot
  (the game's greedy bot) plays the seat for the rest of the game.
- It answers too late: the fallback bot plays that move; the late answer, when it comes, is read and dropped
  (every request is owed exactly one line, so it is never taken for the answer to the next one).
- It answers with something that names no legal move (not JSON, a line over 64 KiB, an index out of range, a
  move not in the list, another request's id): one line says what, and the fallback bot plays that move.

`choose` waits at most the move's time for the answer: a network peer asks its player on a worker thread
(net/node.py), so that heartbeats and resends go on while the engine thinks.
"""

import contextlib
import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from p2pfish.bots import DEFAULT_MOVE_S
from p2pfish.bots.engine_protocol import (
    MAX_LINE_BYTES,
    EngineFault,
    answer_id,
    asked,
    engine_wire,
    hello,
    line,
    move_request,
    quit_message,
    read_move,
    read_ready,
)
from p2pfish.core.actions import Action
from p2pfish.core.errors import UsageError
from p2pfish.core.game import Outcome
from p2pfish.core.player import Player
from p2pfish.core.text import printable
from p2pfish.core.wire import Json

HELLO_S: Final = 10.0
"""How long an engine may take to start and answer `hello`."""
QUIT_S: Final = 1.0
"""How long an engine may take to exit after `quit` before it is killed."""
READ_CHUNK: Final = 64 * 1024


@dataclass(frozen=True)
class LineTooLong:
    """The engine wrote a line over MAX_LINE_BYTES (read and dropped up to its end)."""


@dataclass(frozen=True)
class EndOfOutput:
    """The engine closed its standard output (it exited, most likely)."""


Output = bytes | LineTooLong | EndOfOutput


def engine_argv(command: str) -> list[str]:
    """The program and arguments of an engine's command line (split as a POSIX shell would, but run without
    one). UsageError when it is empty, badly quoted or names no program that can be run."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise UsageError(f"cannot read the engine command {command!r}: {error}") from None
    if not argv:
        raise UsageError("the engine command is empty")
    program = argv[0]
    found = shutil.which(program) if os.sep not in program else (program if os.access(program, os.X_OK) else None)
    if found is None:
        raise UsageError(f"the engine command {command!r} names no program that can be run: {program!r}")
    return argv


def seat_engine(text: str) -> tuple[int, str]:
    """A `--engine SEAT:CMD` flag (of `selfplay` and `match`) as (seat, command)."""
    seat, sep, command = text.partition(":")
    if not sep or not seat.strip().isdigit() or not command.strip():
        raise UsageError(f'--engine looks like SEAT:"COMMAND", e.g. 1:"python3 engine.py", not {text!r}')
    return int(seat), command


def check_seat_engines(players: int, engines: Mapping[int, str]) -> None:
    """Every seat named is one of the table's, and every command names a program that can be run."""
    for seat, command in engines.items():
        if not 0 <= seat < players:
            raise UsageError(f"--engine names seat {seat}, but the seats are 0 to {players - 1}")
        engine_argv(command)


class EngineProcess:
    """One running engine program: lines go to its stdin through a writer thread (a program that stops reading
    cannot block the caller), and its stdout is cut into lines by a reader thread (each at most MAX_LINE_BYTES)."""

    def __init__(self, argv: Sequence[str]) -> None:
        """Raises OSError when the program cannot be started."""
        self.process = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, bufsize=0, close_fds=True
        )
        self.output: queue.Queue[Output] = queue.Queue()
        self._input: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, name="engine-reader", daemon=True).start()
        threading.Thread(target=self._write, name="engine-writer", daemon=True).start()
        self._finalizer = weakref.finalize(self, _kill, self.process)

    def send(self, data: bytes) -> None:
        self._input.put(data)

    def next_output(self, deadline: float) -> Output | None:
        """The engine's next line (or the end of its output); None if nothing came by `deadline`."""
        try:
            return self.output.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None

    def how_it_ended(self, wait_s: float = 0.5) -> str:
        """Why its output ended, in words: its exit code or signal, once it exited."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(wait_s)
        code = self.process.returncode
        if code is None:
            return "closed its output"
        return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"

    def close(self, grace_s: float) -> None:
        """Close its input (after what was sent), give it `grace_s` to exit, then kill it."""
        self._input.put(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(grace_s)
        self._finalizer()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        pending = bytearray()
        skipping = False
        while chunk := _read_some(stdout):
            while chunk:
                end = chunk.find(b"\n")
                part, chunk = (chunk, b"") if end < 0 else (chunk[:end], chunk[end + 1 :])
                if not skipping:
                    pending += part
                    if len(pending) > MAX_LINE_BYTES:
                        skipping = True
                        pending.clear()
                        self.output.put(LineTooLong())
                if end >= 0:
                    if not skipping:
                        self.output.put(bytes(pending).rstrip(b"\r"))
                    pending.clear()
                    skipping = False
        self.output.put(EndOfOutput())

    def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            while (data := self._input.get()) is not None:
                view = memoryview(data)
                while view:
                    written = stdin.write(view)
                    view = view[written or 0 :]
        except OSError:  # it exited or closed its input: its reader sees the end of its output
            pass
        finally:
            with contextlib.suppress(OSError):
                stdin.close()


def _read_some(stdout: Any) -> bytes:
    try:
        chunk: bytes = stdout.read(READ_CHUNK) or b""
    except (OSError, ValueError):
        return b""
    return chunk


def _kill(process: "subprocess.Popen[bytes]") -> None:
    if process.poll() is None:
        with contextlib.suppress(OSError):
            process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            process.wait(5.0)


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class EnginePlayer:
    """Plays one seat of one game by asking an engine program (see the module's docstring)."""

    def __init__(
        self,
        command: str,
        *,
        game: str,
        title: str,
        players: int,
        seat: int,
        options: Mapping[str, str],
        fallback: Player,
        move_s: float = DEFAULT_MOVE_S,
        hello_s: float = HELLO_S,
        note: Callable[[str], None] = _to_stderr,
    ) -> None:
        self.label = f"engine {printable(command, 60)!r} (seat {seat})"
        self.game, self.seat, self.move_s = game, seat, move_s
        self.fallback = fallback
        self.note = note
        self.name: str | None = None
        """The name the engine gave in its `ready` line, if any."""
        self.failures = 0
        """Moves the fallback bot made for a bad or missing answer (the engine still playing)."""
        self.gone: str | None = None
        """Why the engine no longer plays (None while it does)."""
        self._closed = False
        self._ready = False
        self._owed = 0
        """Answers owed to requests given up on (too late): dropped when they come."""
        self.requests = 0
        """Move requests written to the engine."""
        self._hello_s = hello_s
        self._hello_deadline = time.monotonic() + hello_s
        self.process: EngineProcess | None = None
        try:
            self.process = EngineProcess(engine_argv(command))
        except UsageError as error:
            self._give_up(error.reason)
            return
        except OSError as error:
            self._give_up(f"cannot start: {error.strerror or error}")
            return
        time_ms = round(move_s * 1000)
        self.process.send(line(hello(game, title=title, players=players, seat=seat, options=options, time_ms=time_ms)))

    def choose(self, view: Any, legal: list[Action]) -> Action:
        if not asked(legal):
            return legal[0]
        process = self.process
        if process is None or self.gone is not None or self._closed or not self._await_ready(process):
            return self.fallback.choose(view, legal)
        self.requests += 1
        request_id = self.requests
        deadline = time.monotonic() + self.move_s
        try:
            request = move_request(
                request_id, game=self.game, seat=self.seat, time_ms=round(self.move_s * 1000), view=view, legal=legal
            )
        except TypeError as error:
            self._give_up(f"p2pfish cannot encode this view for it ({error})")
            return self.fallback.choose(view, legal)
        process.send(line(request))
        answer = self._answer(process, request_id, deadline)
        if answer is None:
            self._owed += 1
            return self._fallback(f"gave no answer to move request {request_id} within {self.move_s:g} s", view, legal)
        if isinstance(answer, EndOfOutput):
            self._give_up(process.how_it_ended())
            return self.fallback.choose(view, legal)
        if isinstance(answer, LineTooLong):
            return self._fallback(f"wrote a line over {MAX_LINE_BYTES // 1024} KiB", view, legal)
        try:
            return legal[read_move(answer, request_id, [engine_wire(action) for action in legal])]
        except EngineFault as fault:
            return self._fallback(str(fault), view, legal)

    def report(self) -> dict[str, Json]:
        """How the engine played, for a peer's `result` event."""
        return {
            "name": self.name,
            "requests": self.requests,
            "fallback_moves": self.failures,
            "gone": self.gone,
        }

    def close(self, outcome: Outcome | None = None) -> None:
        """The game is over (`outcome`) or stopped (None): tell the engine `quit`, and end it."""
        if self._closed:
            return
        self._closed = True
        if self.process is not None:
            if self.gone is None:
                self.process.send(line(quit_message("stopped" if outcome is None else "finished", outcome)))
            self.process.close(QUIT_S)

    def _await_ready(self, process: EngineProcess) -> bool:
        if self._ready:
            return True
        answer = process.next_output(self._hello_deadline)
        if answer is None:
            self._give_up(f"did not answer hello within {self._hello_s:g} s")
        elif isinstance(answer, EndOfOutput):
            self._give_up(process.how_it_ended())
        elif isinstance(answer, LineTooLong):
            self._give_up(f"answered hello with a line over {MAX_LINE_BYTES // 1024} KiB")
        else:
            try:
                name = read_ready(answer)
            except EngineFault as fault:
                self._give_up(str(fault))
            else:
                self._ready = True
                self.name = name
        return self._ready

    def _answer(self, process: EngineProcess, request_id: int, deadline: float) -> Output | None:
        """The answer to request `request_id`: the next line once those owed to earlier requests are dropped
        (a line carrying this request's id is its answer even so: the engine skipped the late ones)."""
        while (answer := process.next_output(deadline)) is not None:
            if self._owed and isinstance(answer, bytes) and answer_id(answer) == request_id:
                self._owed = 0
            elif self._owed and not isinstance(answer, EndOfOutput):
                self._owed -= 1
                continue
            return answer
        return None

    def _fallback(self, reason: str, view: Any, legal: list[Action]) -> Action:
        self.failures += 1
        self.note(f"{self.label}: {reason}; the fallback bot plays this move")
        return self.fallback.choose(view, legal)

    def _give_up(self, reason: str) -> None:
        if self.gone is None and not self._closed:
            self.gone = reason
            self.note(f"{self.label}: {reason}; the fallback bot plays the seat for the rest of the game")
        if self.process is not None:
            self.process.close(0.0)
