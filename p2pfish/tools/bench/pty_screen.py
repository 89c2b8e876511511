"""A program run under a pseudo-terminal, and the screen it draws: a small VT100 model, enough for what
prompt_toolkit writes (text, cursor moves and positions, erasing, styles and modes ignored). It answers the
program's cursor-position requests, as a terminal does, so that the program does not wait for them."""

import codecs
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable, Sequence
from fcntl import ioctl
from pathlib import Path

CSI = re.compile(rb"\x1b\[([?>=]?)([0-9;]*)([ -/]*)([@-~])")
OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
CURSOR_REQUEST = b"\x1b[6n"
READ_BYTES = 65536


class Screen:
    """The cells of a `rows` x `columns` terminal, written by `feed`."""

    def __init__(self, rows: int, columns: int) -> None:
        self.rows, self.columns = rows, columns
        self.cells = [[" "] * columns for _ in range(rows)]
        self.row = self.column = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = b""

    def text(self) -> str:
        return "\n".join("".join(line).rstrip() for line in self.cells)

    def feed(self, data: bytes) -> None:
        data, self._pending = self._pending + data, b""
        at = 0
        while at < len(data):
            escape = data.find(b"\x1b", at)
            end = len(data) if escape < 0 else escape
            self._write(self._decoder.decode(data[at:end]))
            if escape < 0:
                return
            consumed = self._escape(data, escape)
            if consumed == 0:  # an escape cut off by the read: wait for its end
                self._pending = data[escape:]
                return
            at = escape + consumed

    def _escape(self, data: bytes, at: int) -> int:
        """Apply the escape sequence at `at`; how many bytes it took (0: incomplete)."""
        if at + 1 >= len(data):
            return 0
        kind = data[at + 1 : at + 2]
        if kind == b"[":
            found = CSI.match(data, at)
            if found is None:
                return 0 if len(data) - at < 32 else 2
            self._control(found.group(1), found.group(2), found.group(4))
            return found.end() - at
        if kind == b"]":
            found = OSC.match(data, at)
            return 0 if found is None else found.end() - at
        if kind in (b"(", b")"):
            return 3 if at + 2 < len(data) else 0
        return 2

    def _control(self, private: bytes, params: bytes, final: bytes) -> None:
        if private:
            return  # modes (cursor shown, alternate screen, mouse): nothing drawn
        numbers = [int(n) if n else 0 for n in params.split(b";")] if params else []
        first = numbers[0] if numbers else 0
        count = max(first, 1)
        if final == b"A":
            self.row = max(0, self.row - count)
        elif final == b"B":
            self.row = min(self.rows - 1, self.row + count)
        elif final == b"C":
            self.column = min(self.columns - 1, self.column + count)
        elif final == b"D":
            self.column = max(0, self.column - count)
        elif final == b"G":
            self.column = min(self.columns - 1, count - 1)
        elif final in (b"H", b"f"):
            row, column = [*numbers, 1, 1][:2]
            self.row, self.column = min(self.rows, max(row, 1)) - 1, min(self.columns, max(column, 1)) - 1
        elif final == b"J":
            self._erase_display(first)
        elif final == b"K":
            self._erase_line(first)
        elif final == b"X":
            line = self.cells[self.row]
            line[self.column : self.column + count] = [" "] * len(line[self.column : self.column + count])

    def _erase_display(self, how: int) -> None:
        if how == 0:
            self._erase_line(0)
            rows = range(self.row + 1, self.rows)
        elif how == 1:
            self._erase_line(1)
            rows = range(self.row)
        else:
            rows = range(self.rows)
        for row in rows:
            self.cells[row] = [" "] * self.columns

    def _erase_line(self, how: int) -> None:
        line = self.cells[self.row]
        start, stop = {0: (self.column, self.columns), 1: (0, self.column + 1)}.get(how, (0, self.columns))
        line[start:stop] = [" "] * (stop - start)

    def _write(self, text: str) -> None:
        for char in text:
            if char == "\r":
                self.column = 0
            elif char == "\n":
                self._line_feed()
            elif char == "\b":
                self.column = max(0, self.column - 1)
            elif char >= " ":
                if self.column >= self.columns:
                    self.column = 0
                    self._line_feed()
                self.cells[self.row][self.column] = char
                self.column += 1

    def _line_feed(self) -> None:
        if self.row == self.rows - 1:
            del self.cells[0]
            self.cells.append([" "] * self.columns)
        else:
            self.row += 1


def time_until_shown(
    argv: Sequence[str], shown: Callable[[str], bool], *, env: dict[str, str], cwd: Path, timeout_s: float,
    rows: int = 40, columns: int = 120,
) -> float:  # fmt: skip
    """Seconds from starting `argv` in a new session under a pseudo-terminal of `rows` x `columns` until its
    screen satisfies `shown`; the program is then killed (its whole process group). Raises TimeoutError."""
    leader, follower = pty.openpty()
    ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    screen = Screen(rows, columns)
    started = time.monotonic()
    process = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd, start_new_session=True
    )
    os.close(follower)
    try:
        deadline = started + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            if not select.select([leader], [], [], left)[0]:
                continue
            try:
                data = os.read(leader, READ_BYTES)
            except OSError:  # the program ended and the terminal closed
                break
            if CURSOR_REQUEST in data:
                os.write(leader, f"\x1b[{screen.row + 1};{screen.column + 1}R".encode())
            screen.feed(data)
            if shown(screen.text()):
                return time.monotonic() - started
        raise TimeoutError(f"not shown within {timeout_s:.0f} s; the screen:\n{screen.text()}")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        os.close(leader)
