"""`scripts/stranger`: a stranger on the LAN attacks a lobby or a mesh port from outside the roster.

For a bounded time and count, and to a loopback address only (127.0.0.0/8 or ::1: anything else is
refused before a byte is sent), it either opens N idle TCP connections and holds them
(`--connections N`, `--greeting`: stopping inside the ZMTP handshake), or sends N huge frames, each on
its own connection (`--frames N --size BYTES`): a ZeroMQ greeting naming the victim's own security
mechanism (read from the victim's greeting), a NULL READY where that is the mechanism, then a frame
header announcing BYTES (a command frame under CURVE, where the handshake is not done), then as much of
the body as the victim reads before the time is up (`--body`: at most that much). A socket without a
maximum message size allocates for it. `--raw` sends plain bytes with no ZMTP at all; `--lobby` speaks the
lobby's own framing instead (a 4-byte big-endian length announcing BYTES, capped at 2**32 - 1, then the
body; the lobby speaks no ZMTP, so `--greeting` and the ZMTP frames only show it closing). It prints one
JSON summary: connections opened and refused, how long the victim kept them before closing them, bytes
sent and received.

It is the attacker only: whether the victim survives is for the tests that point it at one
(`StrangerProcess` runs it beside a `p2pfish match`)."""

import argparse
import asyncio
import ipaddress
import json
import resource
import selectors
import shlex
import statistics
import struct
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from p2pfish.core.errors import UsageError
from p2pfish.core.wire import Json

MAX_CONNECTIONS = 5000
MAX_FRAMES = 1000
MAX_DURATION_S = 600.0
MAX_FRAME_SIZE = 2**63 - 1
CONNECT_CONCURRENCY = 32
CONNECT_TIMEOUT_S = 3.0
GREETING_TIMEOUT_S = 2.0
CHUNK = bytes(64 * 1024)
FD_HEADROOM = 64
READY_MARK = "stranger: tried all:"

ZMTP_SIGNATURE = b"\xff" + bytes(8) + b"\x7f"
ZMTP_GREETING_SIZE = 64
FLAG_LONG = 0x02
FLAG_COMMAND = 0x04
LOBBY_MAX_ANNOUNCED = 2**32 - 1


@dataclass(frozen=True)
class Attack:
    """What the stranger does: `connections` idle ones, or `frames` huge frames of `size` bytes."""

    host: str
    port: int
    connections: int = 0
    frames: int = 0
    size: int = 2**30
    duration_s: float = 5.0
    greeting: bool = False
    """Idle connections send a ZMTP greeting first (then nothing): they wait inside the handshake."""
    raw: bool = False
    """Frames are `size` plain bytes, with no ZMTP greeting or header."""
    lobby: bool = False
    """Frames have the lobby's 4-byte length header (no ZMTP): the size it announces is capped at 2**32 - 1."""
    body: int | None = None
    """How many bytes of each frame's body to send (None: all `size` of them, time allowing)."""

    @property
    def body_bytes(self) -> int:
        return self.size if self.body is None else min(self.body, self.size)

    @property
    def mode(self) -> str:
        return "connections" if self.connections else "frames"

    def check(self) -> None:
        check_loopback(self.host)
        if not 0 < self.port < 65536:
            raise UsageError(f"a port is 1-65535, not {self.port}")
        if (self.connections > 0) == (self.frames > 0):
            raise UsageError("give one of --connections N or --frames N (N > 0)")
        if self.connections > MAX_CONNECTIONS or self.frames > MAX_FRAMES:
            raise UsageError(f"at most {MAX_CONNECTIONS} connections or {MAX_FRAMES} frames")
        if not 0 < self.duration_s <= MAX_DURATION_S:
            raise UsageError(f"--duration is more than 0 and at most {MAX_DURATION_S:.0f} seconds")
        if not 0 < self.size <= MAX_FRAME_SIZE:
            raise UsageError(f"--size is 1 to {MAX_FRAME_SIZE} bytes")
        if self.body is not None and self.body < 0:
            raise UsageError("--body is a number of bytes, 0 or more")
        if self.raw and self.lobby:
            raise UsageError("give at most one of --raw and --lobby")

    def argv(self) -> list[str]:
        """The command line that runs this attack (`python -m p2pfish.tools.stranger ...`)."""
        count = ["--connections", str(self.connections)] if self.connections else ["--frames", str(self.frames)]
        flags = (["--greeting"] if self.greeting else []) + (["--raw"] if self.raw else [])
        flags += ["--lobby"] if self.lobby else []
        flags += [] if self.body is None else ["--body", str(self.body)]
        sizes = ["--size", str(self.size), "--duration", str(self.duration_s)]
        return [self.target, *count, *sizes, *flags]

    @property
    def target(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def check_loopback(host: str) -> None:
    """Only an address of this machine's loopback: a stranger never leaves the machine."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        raise UsageError(f"the target must be a loopback address (127.0.0.0/8 or ::1), not {host!r}") from None
    if not address.is_loopback:
        raise UsageError(f"refusing {host}: the stranger attacks loopback addresses only (127.0.0.0/8, ::1)")


@dataclass
class Link:
    """One connection of the stranger's and what became of it."""

    opened_at: float
    closed_after_s: float | None = None
    """Set when the victim closed (or reset) the connection: how long it had lived."""
    frame_sent: bool = False
    body_sent: int = 0


@dataclass
class Tally:
    attack: Attack
    started: float = field(default_factory=time.monotonic)
    links: list[Link] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    bytes_sent: int = 0
    bytes_received: int = 0
    mechanisms: Counter[str] = field(default_factory=Counter)
    attempts: int = 0

    def note_attempt(self) -> None:
        """Say on stderr when every connection has been tried (a harness waits for it)."""
        self.attempts += 1
        if self.attempts == (self.attack.connections or self.attack.frames):
            print(f"{READY_MARK} {len(self.links)} of {self.attempts} connections open", file=sys.stderr, flush=True)

    @property
    def deadline(self) -> float:
        return self.started + self.attack.duration_s

    def left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def summary(self) -> dict[str, Json]:
        """attempted = opened + refused (a connection not made, by reason in `failures`); opened =
        closed_by_peer + held_to_end; survived_s: how long the victim kept those it closed. Frames add
        frames_sent (headers), frames_completed (whole bodies) and the mechanisms the victims greeted with."""
        closed = sorted(link.closed_after_s for link in self.links if link.closed_after_s is not None)
        survived: Json = None
        if closed:
            survived = {"min": round(closed[0], 3), "median": round(statistics.median(closed), 3),
                        "max": round(closed[-1], 3)}  # fmt: skip
        attack = self.attack
        summary: dict[str, Json] = {
            "target": attack.target,
            "mode": attack.mode,
            "attempted": attack.connections or attack.frames,
            "opened": len(self.links),
            "refused": sum(self.failures.values()),
            "failures": dict(self.failures),
            "closed_by_peer": len(closed),
            "held_to_end": len(self.links) - len(closed),
            "survived_s": survived,
            "bytes_sent": self.bytes_sent,
            "bytes_received": self.bytes_received,
            "duration_s": attack.duration_s,
            "wall_s": round(time.monotonic() - self.started, 3),
        }
        if attack.frames:
            summary |= {
                "frame_size": attack.size,
                "raw": attack.raw,
                "lobby": attack.lobby,
                "frames_sent": sum(link.frame_sent for link in self.links),
                "body_bytes": attack.body_bytes,
                "frames_completed": sum(link.body_sent == attack.size for link in self.links),
                "peer_mechanisms": dict(self.mechanisms),
            }
        return summary


def greeting(mechanism: bytes) -> bytes:
    """A ZMTP 3.0 greeting of a client (as-server 0) for `mechanism`."""
    return ZMTP_SIGNATURE + b"\x03\x00" + mechanism.ljust(20, b"\x00") + b"\x00" + bytes(31)


def ready_command() -> bytes:
    """The NULL mechanism's READY: a DEALER asking to talk."""
    name, value = b"Socket-Type", b"DEALER"
    body = b"\x05READY" + bytes([len(name)]) + name + struct.pack(">I", len(value)) + value
    return bytes([FLAG_COMMAND, len(body)]) + body


def lobby_frame_header(size: int) -> bytes:
    """The lobby's frame header: the size as 4 big-endian bytes (at most 2**32 - 1)."""
    return struct.pack(">I", min(size, LOBBY_MAX_ANNOUNCED))


def huge_frame_header(size: int, *, command: bool) -> bytes:
    """A long frame's header: flags, then the size as 8 bytes; the body is what the victim must hold."""
    return bytes([FLAG_LONG | (FLAG_COMMAND if command else 0)]) + struct.pack(">Q", size)


async def connect(tally: Tally, gate: asyncio.Semaphore) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    async with gate:
        try:
            timeout = min(CONNECT_TIMEOUT_S, tally.left())
            return await asyncio.wait_for(asyncio.open_connection(tally.attack.host, tally.attack.port), timeout)
        except TimeoutError:
            tally.failures["connect timed out"] += 1
        except OSError as error:
            tally.failures[error.strerror or type(error).__name__] += 1
        return None


async def send(tally: Tally, writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(data)
    await writer.drain()
    tally.bytes_sent += len(data)


async def watch_until_closed(tally: Tally, link: Link, reader: asyncio.StreamReader) -> None:
    """Read (and drop) whatever the victim sends until it closes the connection or time is up."""
    while tally.left() > 0:
        try:
            data = await asyncio.wait_for(reader.read(len(CHUNK)), tally.left())
        except TimeoutError:
            return
        except OSError:
            data = b""
        if not data:
            link.closed_after_s = time.monotonic() - link.opened_at
            return
        tally.bytes_received += len(data)


async def read_mechanism(tally: Tally, reader: asyncio.StreamReader) -> bytes:
    """The victim's security mechanism, from its greeting (NULL when it sends none in time)."""
    try:
        data = await asyncio.wait_for(reader.readexactly(ZMTP_GREETING_SIZE), min(GREETING_TIMEOUT_S, tally.left()))
    except (TimeoutError, asyncio.IncompleteReadError, OSError):
        tally.mechanisms["none"] += 1
        return b"NULL"
    tally.bytes_received += len(data)
    mechanism = data[12:32].rstrip(b"\x00") if data.startswith(ZMTP_SIGNATURE[:1]) else b"NULL"
    tally.mechanisms[mechanism.decode("ascii", "replace")] += 1
    return mechanism


async def send_body(tally: Tally, link: Link, writer: asyncio.StreamWriter) -> None:
    while link.body_sent < tally.attack.body_bytes and tally.left() > 0:
        chunk = CHUNK[: min(len(CHUNK), tally.attack.body_bytes - link.body_sent)]
        await asyncio.wait_for(send(tally, writer, chunk), tally.left())
        link.body_sent += len(chunk)


async def greet(tally: Tally, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bytes:
    """Signature and version first, then the rest of a greeting naming the victim's own mechanism."""
    await send(tally, writer, greeting(b"")[:12])
    mechanism = await read_mechanism(tally, reader)
    await send(tally, writer, greeting(mechanism)[12:])
    return mechanism


async def send_frame(tally: Tally, link: Link, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Greeting, READY (for NULL), then the huge frame's header and as much of its body as time allows."""
    if tally.attack.lobby:
        await send(tally, writer, lobby_frame_header(tally.attack.size))
    elif not tally.attack.raw:
        mechanism = await greet(tally, reader, writer)
        if mechanism == b"NULL":
            await send(tally, writer, ready_command())
        await send(tally, writer, huge_frame_header(tally.attack.size, command=mechanism != b"NULL"))
    link.frame_sent = True
    await send_body(tally, link, writer)


async def one_connection(tally: Tally, gate: asyncio.Semaphore) -> None:
    streams = await connect(tally, gate)
    link = Link(time.monotonic())
    if streams is not None:
        tally.links.append(link)
    tally.note_attempt()
    if streams is None:
        return
    reader, writer = streams
    try:
        if tally.attack.frames:
            await send_frame(tally, link, reader, writer)
        elif tally.attack.greeting:
            await greet(tally, reader, writer)
        await watch_until_closed(tally, link, reader)
    except (OSError, TimeoutError):
        if link.closed_after_s is None and tally.left() > 0:
            link.closed_after_s = time.monotonic() - link.opened_at
    finally:
        writer.transport.abort()


def allow_open_files(count: int) -> None:
    """Raise this process's open-file limit to hold `count` connections, as far as the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + FD_HEADROOM
    if soft != resource.RLIM_INFINITY and soft < wanted:
        limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


async def attack(plan: Attack) -> dict[str, Json]:
    """Run `plan` (checked first: nothing is sent to a target that is not loopback) and sum it up."""
    plan.check()
    allow_open_files(plan.connections or plan.frames)
    tally = Tally(plan)
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    await asyncio.gather(*(one_connection(tally, gate) for _ in range(plan.connections or plan.frames)))
    return tally.summary()


class StrangerProcess:
    """The stranger as its own process beside a match or a test; its JSON summary at the end."""

    def __init__(self, plan: Attack) -> None:
        plan.check()
        self.plan = plan
        self.process = subprocess.Popen(
            [sys.executable, "-m", "p2pfish.tools.stranger", *plan.argv()],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )

    def wait_for_line(self, mark: str, timeout_s: float) -> str:
        """The stranger's next stderr line starting with `mark`; TimeoutError past the deadline."""
        assert self.process.stderr is not None
        deadline = time.monotonic() + timeout_s
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stderr, selectors.EVENT_READ)
            while (left := deadline - time.monotonic()) > 0 and selector.select(left):
                line = self.process.stderr.readline()
                if not line:
                    break
                if line.startswith(mark):
                    return line.rstrip("\n")
        raise TimeoutError(f"the stranger printed no {mark!r} line")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()

    def summary(self, grace_s: float = 30.0) -> dict[str, Json]:
        """Waits for the attack to end (its duration, plus `grace_s`) and returns its summary."""
        try:
            out, err = self.process.communicate(timeout=self.plan.duration_s + grace_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        if self.process.returncode != 0:
            raise RuntimeError(f"the stranger failed ({self.process.returncode}): {err.strip()}")
        value = json.loads(out)
        if not isinstance(value, dict):
            raise RuntimeError(f"the stranger printed no summary: {out!r}")
        return value


def parse_target(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise UsageError(f"a target looks like HOST:PORT, not {text!r}")
    return host.strip("[]"), int(port)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is a UsageError: one line, whoever parses."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see scripts/stranger --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="stranger", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("target", help="HOST:PORT of a lobby or a mesh port, on loopback")
    parser.add_argument("--connections", type=int, default=0, help="open N idle TCP connections and hold them")
    parser.add_argument("--frames", type=int, default=0, help="send N huge frames, one connection each")
    parser.add_argument("--size", type=int, default=2**30, help="bytes each frame announces and sends (default 1 GiB)")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds the attack lasts at most (default 5)")
    parser.add_argument("--greeting", action="store_true", help="idle connections send a ZMTP greeting first")
    parser.add_argument("--body", type=int, default=None, help="bytes of each body to send (default: all --size)")
    parser.add_argument("--raw", action="store_true", help="frames are plain bytes, without ZMTP")
    parser.add_argument("--lobby", action="store_true", help="frames have the lobby's 4-byte length, not ZMTP")
    return parser


def plan_from_argv(argv: Sequence[str]) -> Attack:
    """The attack a command line asks for, checked (a target off loopback is refused here)."""
    args = build_parser().parse_args(argv)
    host, port = parse_target(args.target)
    plan = Attack(
        host, port, connections=args.connections, frames=args.frames, size=args.size, duration_s=args.duration,
        greeting=args.greeting, raw=args.raw, lobby=args.lobby, body=args.body,
    )  # fmt: skip
    plan.check()
    return plan


def plan_for_match(text: str) -> tuple[str | int, Attack]:
    """`p2pfish match --stranger "TARGET FLAGS"`: TARGET is lobby, mesh or a seat number, FLAGS the
    stranger's own (its address is the target's, found once the match runs)."""
    words = shlex.split(text)
    if not words:
        raise UsageError("--stranger takes a target (lobby, mesh or a seat) and the stranger's flags")
    target: str | int = int(words[0]) if words[0].isdigit() else words[0]
    return target, plan_from_argv(["127.0.0.1:1", *words[1:]])


def main(argv: Sequence[str] | None = None) -> int:
    try:
        plan = plan_from_argv(sys.argv[1:] if argv is None else argv)
    except UsageError as error:
        print(f"stranger: error: {error.reason}", file=sys.stderr)
        return 2
    print(json.dumps(asyncio.run(attack(plan))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
