"""What the tools read from the peers they start: the event lines a headless peer prints on stdout with
`--json` (p2pfish/netplay.py, README "Events"), never its human lines.

Each event line is one JSON object whose "event" names it:

- `lobby`: the lobby is open (a host) or about to be joined (a joiner): `address` HOST:PORT, `code`,
  `players` (the table's size; null for a joiner);
- `started`: the peer holds a seat and its store, and plays: `game`, `players`, `session` (hex), `seat`,
  `store` (also after `resume`);
- `result`: the last line, once the game finished or stopped (or the host's table was refused).
"""

import json
import threading
import time
from collections.abc import Callable
from typing import IO

from p2pfish.core.wire import Json
from p2pfish.netplay import EVENT


def parse_event(line: str) -> dict[str, Json] | None:
    """The event a line holds; None for any other line."""
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) and isinstance(value.get(EVENT), str) else None


def text_field(event: dict[str, Json], key: str) -> str:
    value = event.get(key)
    if not isinstance(value, str):
        raise ValueError(f"the {event.get(EVENT)} event has no text {key!r}: {event}")
    return value


def int_field(event: dict[str, Json], key: str) -> int:
    value = event.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"the {event.get(EVENT)} event has no number {key!r}: {event}")
    return value


class OutputReader:
    """A process's stdout, read line by line on a thread as it comes (so the pipe never fills up and a wait
    never blocks past its deadline); the lines, and the events among them, are kept."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._lines: list[str] = []
        self._changed = threading.Condition()
        self._ended = False
        self._thread = threading.Thread(target=self._read, name="output-reader", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for line in self._stream:
                with self._changed:
                    self._lines.append(line.rstrip("\n"))
                    self._changed.notify_all()
        except (OSError, ValueError):  # the stream was closed under the thread
            pass
        finally:
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    @property
    def lines(self) -> list[str]:
        with self._changed:
            return list(self._lines)

    @property
    def events(self) -> list[dict[str, Json]]:
        return [event for line in self.lines if (event := parse_event(line)) is not None]

    def wait_line(self, wanted: Callable[[str], bool], timeout_s: float) -> str | None:
        """The first line (read already or yet to come) that is `wanted`; None once the output ended without
        one or `timeout_s` passed."""
        deadline = time.monotonic() + timeout_s
        seen = 0
        with self._changed:
            while True:
                for line in self._lines[seen:]:
                    if wanted(line):
                        return line
                seen = len(self._lines)
                left = deadline - time.monotonic()
                if self._ended or left <= 0:
                    return None
                self._changed.wait(left)

    def wait_event(self, name: str, timeout_s: float) -> dict[str, Json] | None:
        """The first `name` event; None once the output ended without one or `timeout_s` passed."""
        line = self.wait_line(lambda text: (event := parse_event(text)) is not None and event[EVENT] == name, timeout_s)
        return None if line is None else parse_event(line)

    def last_event(self, name: str) -> dict[str, Json] | None:
        found = [event for event in self.events if event[EVENT] == name]
        return found[-1] if found else None

    def join(self, timeout_s: float) -> None:
        """Wait until the output ended (the process exited and closed it), at most `timeout_s`."""
        self._thread.join(timeout_s)
