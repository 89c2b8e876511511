"""`p2pfish match`: a whole networked game of bot peers, each its own OS process, on 127.0.0.1.

It runs exactly what players run — `p2pfish host` and `p2pfish join` with the join code, CURVE
links and the full protocol — then checks that every peer finished, that all agree on the outcome,
and that every transcript verifies on its own.
"""

import contextlib
import hashlib
import json
import math
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from p2pfish.bots.engine import check_seat_engines
from p2pfish.core.errors import UsageError, usage_errors
from p2pfish.core.game import AnyRules
from p2pfish.core.wire import Json
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.net.joincode import new_join_code
from p2pfish.playstart import reserve_port
from p2pfish.selfplay import bot_kinds_for
from p2pfish.session.audit import audit, transcript_setup
from p2pfish.tools.cheats import Cheat
from p2pfish.tools.events import OutputReader, text_field
from p2pfish.tools.live_audit import LiveAudit
from p2pfish.tools.peerpool import PooledProcess, start_peer
from p2pfish.tools.stranger import READY_MARK, Attack, StrangerProcess

LOOPBACK = "127.0.0.1"
HOSTILE_PEER = "p2pfish.tools.peer"
"""A peer given --cheat runs through the tools: the player's commands have no such flag."""
POLL_S = 0.05
OUTPUT_DRAIN_S = 5.0
"""How long the rest of an exited peer's output may take to be read."""
PASS_KINDS = ("substitute-card", "marked-deck", "rigged-rekey")
"""Cheats on a deck's lock or re-key pass, made at the first deck: caught before any deal, or too late."""
COSTLY_KINDS = ("big-frame", "chat-flood", "oversize-evidence", "escape-name")
"""Attacks on the honest peers' resources and screens: each honest peer must stay under HONEST_RSS_MB."""
HARMLESS_KINDS = ("big-frame", "escape-name")
"""Attacks that may leave the game to finish: an honest peer either finishes it or names the cheat (a cheat
slowed down by its own 512 MiB of frames may be timed out instead)."""
HONEST_RSS_MB = 150.0
TCP_LISTEN = "0A"
"""A listening socket's state in /proc/net/tcp."""
CHEAT_PEER_TIMEOUT_S = 8.0
"""With a cheat at the table a peer that goes quiet is named after this long (a withheld reveal)."""


@dataclass
class PeerProcess:
    """One `p2pfish` peer process, its stdout read as it comes (its event lines, with --json), its stderr in a
    log file. `seat` is the order it was started in: the game seat of a joiner is the order the host admitted
    it (its `started` event tells)."""

    seat: int
    argv: list[str]
    log: Path
    env: dict[str, str]
    process: "subprocess.Popen[str] | PooledProcess" = field(init=False)
    output: OutputReader = field(init=False)

    def __post_init__(self) -> None:
        self.start()

    def command(self) -> list[str]:
        """What runs the peer: `python -m p2pfish` and its argv (a hostile peer's through the tools)."""
        return [sys.executable, "-m", HOSTILE_PEER if "--cheat" in self.argv else "p2pfish", *self.argv]

    def start(self) -> None:
        with self.log.open("a") as log:
            self.process = start_peer(self.command(), index=self.seat, env=self.env, stdout_pipe=True, stderr=log)
        assert self.process.stdout is not None
        self.output = OutputReader(self.process.stdout)

    @property
    def lines(self) -> list[str]:
        """What it printed on stdout so far."""
        return self.output.lines

    def event(self, name: str, timeout_s: float) -> dict[str, Json]:
        """Its first `name` event; raises TimeoutError when it printed none within `timeout_s` (or exited)."""
        event = self.output.wait_event(name, timeout_s)
        if event is None:
            ended = "exited" if self.process.poll() is not None else f"went on for {timeout_s:.0f} s"
            raise TimeoutError(f"seat {self.seat} {ended} without a {name!r} event (log: {self.log})")
        return event

    def read_line(self, prefix: str, timeout_s: float) -> str:
        """The first stdout line starting with `prefix` (for programs that print no events); raises
        TimeoutError when none came within `timeout_s`."""
        line = self.output.wait_line(lambda text: text.startswith(prefix), timeout_s)
        if line is None:
            raise TimeoutError(f"seat {self.seat} printed no {prefix!r} line (log: {self.log})")
        return line

    def result(self, timeout_s: float) -> dict[str, Json] | None:
        """The `result` event this peer prints when its game ends or stops, once it exited (killed if it has
        not within `timeout_s`); None if it printed none."""
        try:
            self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.output.join(OUTPUT_DRAIN_S)
        return self.output.last_event("result")

    def stop(self, grace_s: float = 0.0) -> None:
        """Stop it if it still runs (SIGTERM, then SIGKILL after `grace_s`; at once without) and read the rest
        of its output."""
        if self.process.poll() is None:
            if grace_s > 0:
                self.process.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(grace_s)
            if self.process.poll() is None:
                self.process.kill()
        self.process.wait()
        self.output.join(OUTPUT_DRAIN_S)


@dataclass(frozen=True)
class MatchResult:
    game: str
    players: int
    agree: bool
    verified: bool
    finished: bool
    outcome: dict[str, Json] | None
    transcripts: list[str]
    messages: int
    wall_s: float
    faults: list[Json]
    peak_rss_mb: float = 0.0
    """The largest peak resident memory of any peer process."""
    session: str | None = None
    """The session id (hex) the first peer to report played under."""
    peers: tuple["PeerReport", ...] = ()
    cheat: "CheatVerdict | None" = None

    @property
    def ok(self) -> bool:
        if self.cheat is not None:
            return self.cheat.caught
        return self.finished and self.agree and self.verified

    def to_wire(self) -> dict[str, Json]:
        return {
            "game": self.game,
            "players": self.players,
            "agree": self.agree,
            "verified": self.verified,
            "finished": self.finished,
            "outcome": self.outcome,
            "transcripts": list(self.transcripts),
            "messages": self.messages,
            "wall_s": self.wall_s,
            "faults": self.faults,
            "peak_rss_mb": self.peak_rss_mb,
            "session": self.session,
            "peers": [peer.to_wire() for peer in self.peers],
            **({} if self.cheat is None else self.cheat.to_wire()),
        }


@dataclass(frozen=True)
class PeerReport:
    """What one peer process said of its game: its seat, whom it blamed (None: nobody) and its peak memory
    (None when it gave no result). `honest` is False for the seat that played the cheat."""

    seat: int | None
    honest: bool
    blamed: int | None
    peak_rss_mb: float | None

    def to_wire(self) -> dict[str, Json]:
        return {"seat": self.seat, "honest": self.honest, "blamed": self.blamed, "peak_rss_mb": self.peak_rss_mb}


def peer_reports(results: Sequence[dict[str, Json] | None], cheat: int | None) -> tuple[PeerReport, ...]:
    """One report per process; a process that gave no result is given the one seat nobody reported, if only
    one is missing."""
    reported = {result.get("seat") for result in results if result is not None}
    missing = [seat for seat in range(len(results)) if seat not in reported]
    unknown = missing[0] if len(missing) == 1 else None
    reports = []
    for result in results:
        if result is None:
            reports.append(PeerReport(unknown, unknown is None or unknown != cheat, None, None))
            continue
        seat, fault, rss = result.get("seat"), result.get("fault"), result.get("peak_rss_mb")
        blamed = fault.get("seat") if isinstance(fault, dict) else None
        reports.append(
            PeerReport(
                seat if isinstance(seat, int) else None,
                seat != cheat,
                blamed if isinstance(blamed, int) else None,
                float(rss) if isinstance(rss, (int, float)) else None,
            )
        )
    return tuple(reports)


@dataclass(frozen=True)
class CheatVerdict:
    """Whether every honest peer stopped the game naming the cheat, with evidence, its own log intact."""

    kind: str
    blamed: int | None
    problems: tuple[str, ...]
    before_first_deal: bool | None = None
    """For a cheat on a deck's passes: whether every honest peer blamed it before any card was dealt."""

    @property
    def caught(self) -> bool:
        return not self.problems

    def to_wire(self) -> dict[str, Json]:
        wire: dict[str, Json] = {"kind": self.kind, "detected": self.caught, "blamed": self.blamed}
        wire["problems"] = list(self.problems)
        if self.before_first_deal is not None:
            wire["before_first_deal"] = self.before_first_deal
        return wire


def judge(
    cheat: Cheat, players: int, results: Sequence[dict[str, Json] | None], honest_output: str = ""
) -> CheatVerdict:
    """`honest_output`: everything the honest peers printed or logged, and `verify` said of their transcripts."""
    honest = [r for r in results if r is not None and r.get("seat") != cheat.seat]
    problems = [] if len(honest) == players - 1 else ["an honest peer gave no result"]
    if cheat.kind == "escape-name" and (controls := sorted(control_characters(honest_output))):
        problems.append(f"an honest peer printed control characters: {', '.join(map(repr, controls))}")
    blamed: set[Json] = set()
    for result in honest:
        seat, fault, rss = result.get("seat"), result.get("fault"), result.get("peak_rss_mb")
        if cheat.kind in COSTLY_KINDS and not (isinstance(rss, (int, float)) and rss < HONEST_RSS_MB):
            problems.append(f"seat {seat} peaked at {rss} MB (limit {HONEST_RSS_MB:.0f} MB)")
        if fault is None and cheat.kind in HARMLESS_KINDS and result.get("finished") is True:
            continue
        if not isinstance(fault, dict):
            problems.append(f"seat {seat} did not stop the game")
            continue
        blamed.add(fault.get("seat"))
        if fault.get("seat") != cheat.seat:
            problems.append(f"seat {seat} blamed {fault.get('seat')}: {fault.get('reason')}")
        elif fault.get("kind") == "timeout" and cheat.kind not in ("withhold-reveal", *HARMLESS_KINDS):
            problems.append(f"seat {seat} only saw the cheat go quiet: {fault.get('reason')}")
        elif fault.get("kind") != "timeout" and not fault.get("evidence"):
            problems.append(f"seat {seat} named the cheat without evidence")
        transcript = result.get("transcript")
        if isinstance(transcript, str) and Path(transcript).exists():
            lines = Path(transcript).read_bytes().splitlines()
            replayed = audit(lines, get_rules(transcript_setup(lines).game))
            if replayed.fault is not None and replayed.fault.seat not in (None, cheat.seat):
                problems.append(f"seat {seat}'s log blames seat {replayed.fault.seat}: {replayed.fault.reason}")
    (only,) = blamed if len(blamed) == 1 else (None,)
    early = all(r.get("dealt") == 0 for r in honest) if cheat.kind in PASS_KINDS else None
    return CheatVerdict(cheat.kind, only if isinstance(only, int) else None, tuple(problems), early)


def control_characters(text: str) -> set[str]:
    """The characters of `text` that a terminal acts on (escapes, bells, carriage returns), but line breaks
    and tabs."""
    return {c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0}


def verify_output(transcript: Path) -> str:
    """What `p2pfish verify` prints about one transcript."""
    argv = [sys.executable, "-m", "p2pfish", "verify", str(transcript)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    return done.stdout + done.stderr


class MatchTable:
    """The processes of one match, for `run_match` and for tests that kill and resume peers."""

    def __init__(
        self, game: str, players: int, kinds: Sequence[str], seed: int, workdir: Path, *, evil_name: int | None = None,
        engines: Mapping[int, str] | None = None,
    ) -> None:  # fmt: skip
        """`evil_name`: the process that joins with the name of the `escape-name` attack (told so alone);
        `engines`: the engine command line that plays each of these processes (its bot kind is the fallback)."""
        self.game, self.players, self.workdir = game, players, workdir
        self.engines = dict(engines or {})
        self.evil_name = evil_name
        self.code = new_join_code()
        self.env = {**os.environ, "XDG_STATE_HOME": str(workdir / "state"), "PYTHONUNBUFFERED": "1"}
        self.transcripts = [workdir / f"seat{seat}.jsonl" for seat in range(players)]
        self.kinds = list(bot_kinds_for(players, kinds))
        self.seed = seed
        self.peers: list[PeerProcess] = []
        self.address = ""

    def peer_flags(self, seat: int) -> list[str]:
        evil = ["--cheat", f"{seat}:escape-name"] if seat == self.evil_name else []
        engine = ["--engine", self.engines[seat]] if seat in self.engines else []
        return [
            *evil, *engine, "--bot", self.kinds[seat], "--seed", str(self.seed * 100 + seat),
            "--name", f"{self.kinds[seat]}-{seat}",
            "--identity-dir", str(self.workdir / f"id{seat}"), "--transcript", str(self.transcripts[seat]), "--json",
        ]  # fmt: skip

    def start(self, timeout_s: float = 20.0, extra: Sequence[str] = ()) -> None:
        """Start the host and every joiner at once: the joiners are given the lobby's address before it opens
        (a port this process holds for it until then) and try it until it answers."""
        with reserve_port() as reservation:
            port = reservation.getsockname()[1]
            self.address = f"{LOOPBACK}:{port}"
            host = self._start_host_process(["--port", str(port), *extra])
            self.start_joiners(extra)
            host.event("lobby", timeout_s)

    def start_host(self, timeout_s: float = 20.0, extra: Sequence[str] = ()) -> None:
        """Start the host alone, on a port of its choosing, and wait for its lobby to open (then start_joiners)."""
        host = self._start_host_process(extra)
        self.address = text_field(host.event("lobby", timeout_s), "address")

    def _start_host_process(self, extra: Sequence[str]) -> "PeerProcess":
        host_argv = ["host", self.game, "--players", str(self.players), "--bind", LOOPBACK, "--code", self.code]
        host = PeerProcess(0, [*host_argv, *self.peer_flags(0), *extra], self.workdir / "seat0.log", self.env)
        self.peers.append(host)
        return host

    def start_joiners(self, extra: Sequence[str] = ()) -> None:
        """Peer i joins as process i; its seat is the order in which the host admitted it."""
        for seat in range(1, self.players):
            argv = ["join", self.address, "--code", self.code, *self.peer_flags(seat), *extra]
            self.peers.append(PeerProcess(seat, argv, self.workdir / f"seat{seat}.log", self.env))

    def results(self, timeout_s: float) -> list[dict[str, Json] | None]:
        return [peer.result(timeout_s) for peer in self.peers]

    def honest_results(self, timeout_s: float, cheat: int) -> list[dict[str, Json] | None]:
        """Every result once each peer but the cheat has reported (the cheat's process may never end:
        it is killed then, and its result, if it gave none, is None)."""
        deadline = time.monotonic() + timeout_s
        done: dict[int, dict[str, Json] | None] = {}
        while time.monotonic() < deadline:
            for index, peer in enumerate(self.peers):
                if index not in done and peer.process.poll() is not None:
                    done[index] = peer.result(1.0)
            honest = [r for r in done.values() if r is not None and r.get("seat") != cheat]
            if len(done) == len(self.peers) or len(honest) == len(self.peers) - 1:
                break
            time.sleep(POLL_S)
        return [done[index] if index in done else peer.result(0.5) for index, peer in enumerate(self.peers)]

    def honest_output(self, cheat: int) -> str:
        """What every process but the cheat's printed and logged, and what `verify` says of its transcript."""
        texts = []
        for index, peer in enumerate(self.peers):
            if index == cheat:
                continue
            texts += [*peer.lines, peer.log.read_text(errors="replace") if peer.log.exists() else ""]
            if self.transcripts[index].exists():
                texts.append(verify_output(self.transcripts[index]))
        return "\n".join(texts)

    def stop_all(self) -> None:
        for peer in self.peers:
            peer.stop()


def run_match(
    game: str, players: int, kinds: Sequence[str], seed: int, timeout_s: float = 120.0, *, cheat: Cheat | None = None,
    engines: Mapping[int, str] | None = None,
) -> MatchResult:  # fmt: skip
    """`engines`: process (0 the host, then the joiners in the order started) -> the engine command that plays it."""
    check_match(game, players, kinds, timeout_s)
    check_seat_engines(players, engines or {})
    extra = [] if cheat is None else ["--cheat", cheat.to_flag(), "--timeout", str(CHEAT_PEER_TIMEOUT_S)]
    if cheat is not None and cheat.kind == "escape-name":
        extra = extra[2:]
    if cheat is not None:
        cheat.check(game, players)
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="p2pfish-match-"))
    if cheat is not None and cheat.kind == "reused-game":
        play_earlier_game(MatchTable(game, players, kinds, seed, workdir), timeout_s)
    evil_name = cheat.seat if cheat is not None and cheat.kind == "escape-name" else None
    table = MatchTable(game, players, kinds, seed, workdir, evil_name=evil_name, engines=engines)
    live = LiveAudit(workdir / "state" / "p2pfish", get_rules(game))
    try:
        live.start()
        table.start(extra=extra)
        if cheat is not None and cheat.kind == "escape-name":  # no seat is to be named: every peer ends
            results = table.results(timeout_s)
        else:
            results = table.results(timeout_s) if cheat is None else table.honest_results(timeout_s, cheat.seat)
    finally:
        try:
            table.stop_all()
        finally:
            live.stop()
    result = summarize(game, players, results, [str(p) for p in table.transcripts], 0.0, live=live)
    if cheat is not None and evil_name is not None:
        cheat = replace(cheat, seat=seat_of_process(results, evil_name, cheat.seat))
    result = replace(result, peers=peer_reports(results, None if cheat is None else cheat.seat))
    if cheat is not None:
        output = table.honest_output(evil_name) if evil_name is not None else ""
        result = replace(result, cheat=judge(cheat, players, results, output))
    return replace(result, wall_s=round(time.monotonic() - started, 3))


def seat_of_process(results: Sequence[dict[str, Json] | None], process: int, otherwise: int) -> int:
    """The game seat the process started `process`-th was admitted to (the host admits joiners in the order
    they arrive, which may differ from the order they were started in)."""
    result = results[process] if process < len(results) else None
    seat = result.get("seat") if result is not None else None
    return seat if isinstance(seat, int) else otherwise


def check_match(game: str, players: int, kinds: Sequence[str], timeout_s: float) -> None:
    """A match that could be played: a known game for that many players, known bots, a positive timeout."""
    with usage_errors():
        rules = get_rules(game)
        rules.new_game(players, {})
        for kind in bot_kinds_for(players, kinds):
            make_bot(kind, game, random.Random())
    if not 0 < timeout_s < math.inf:
        raise UsageError("the match timeout must be a positive number of seconds")


def play_earlier_game(table: "MatchTable", timeout_s: float) -> None:
    """An honest game of the same players (same identities and state folders), for the host to replay."""
    earlier = table
    try:
        earlier.start()
        earlier.results(timeout_s)
    finally:
        earlier.stop_all()


def summarize(
    game: str, players: int, results: Sequence[dict[str, Json] | None], transcripts: list[str], wall_s: float,
    *, live: LiveAudit | None = None,
) -> MatchResult:  # fmt: skip
    finished = all(r is not None and r.get("finished") is True for r in results)
    outcomes = [json.dumps(r.get("outcome"), sort_keys=True) if r else None for r in results]
    agree = finished and len(set(outcomes)) == 1
    verified = all_verified(transcripts, get_rules(game), live)
    messages = sum(n for r in results if r and isinstance(n := r.get("messages"), int))
    first = results[0]
    outcome = first.get("outcome") if first is not None and agree else None
    faults = [r.get("fault") for r in results if r and r.get("fault") is not None]
    sizes = [r.get("peak_rss_mb") for r in results if r]
    peak = max((float(rss) for rss in sizes if isinstance(rss, (int, float))), default=0.0)
    sessions = [r.get("session") for r in results if r and isinstance(r.get("session"), str)]
    session = str(sessions[0]) if sessions else None
    return MatchResult(
        game, players, agree, verified, finished, outcome if isinstance(outcome, dict) else None,
        transcripts, messages, round(wall_s, 3), faults, peak, session,
    )  # fmt: skip


def all_verified(transcripts: Sequence[str], rules: AnyRules, live: LiveAudit | None = None) -> bool:
    """Whether every transcript exists and verifies. Each peer writes the messages it accepted in the order it
    accepted them, and that interleaving of authors carries no meaning (PROTOCOL §15): transcripts of one setup
    holding the same messages are one transcript to the audit, which runs once for them. `live`: the audit of the
    host's store made during the game, which the host's transcript (the first) finishes where it begins with it."""
    verdicts: dict[bytes, bool] = {}
    for index, transcript in enumerate(transcripts):
        if not Path(transcript).exists():
            return False
        lines = Path(transcript).read_bytes().splitlines()
        same = hashlib.sha256(b"\n".join([*lines[:1], *sorted(lines[1:])])).digest()
        if same not in verdicts:
            finished = live.finish(lines) if live is not None and index == 0 else None
            verdicts[same] = (finished or audit(lines, rules)).verified
        if not verdicts[same]:
            return False
    return True


@dataclass(frozen=True)
class StrangerMatch:
    """A match played while a stranger attacked it, and the stranger's own summary."""

    match: MatchResult
    stranger: dict[str, Json]

    def to_wire(self) -> dict[str, Json]:
        return {**self.match.to_wire(), "stranger": self.stranger}


def run_match_with_stranger(
    game: str, players: int, plan: Attack, target: str | int, *, kinds: Sequence[str] = ("greedy", "random"),
    seed: int = 0, timeout_s: float = 120.0,
) -> StrangerMatch:  # fmt: skip
    """A match of bot peers while a stranger (its own process) runs `plan`; its host and port are
    replaced by the target's. `target` "lobby" or "mesh" (the host's lobby or mesh port): the attack
    starts before anybody joins, and the joiners come once all its connections were tried, so it
    overlaps the lobby and the game. A seat number: that seat's mesh port, read from the lobby cards in
    the host's store once the game started (a short game may be over before the stranger arrives)."""
    check_match(game, players, kinds, timeout_s)
    if isinstance(target, str):
        check_host_target(target)
    workdir = Path(tempfile.mkdtemp(prefix="p2pfish-stranger-"))
    table = MatchTable(game, players, kinds, seed, workdir)
    started = time.monotonic()
    stranger: StrangerProcess | None = None
    try:
        table.start_host()
        if isinstance(target, str):
            stranger = StrangerProcess(replace(plan, host=LOOPBACK, port=host_port(table, target)))
            stranger.wait_for_line(READY_MARK, timeout_s)
            table.start_joiners()
        else:
            table.start_joiners()
            host, port = mesh_address(table, target, time.monotonic() + timeout_s)
            stranger = StrangerProcess(replace(plan, host=host, port=port))
        results = table.results(timeout_s)
        summary = stranger.summary()
    finally:
        table.stop_all()
        if stranger is not None:
            stranger.stop()
    result = summarize(game, players, results, [str(p) for p in table.transcripts], 0.0)
    result = replace(result, peers=peer_reports(results, None), wall_s=round(time.monotonic() - started, 3))
    return StrangerMatch(result, summary)


def check_host_target(which: str) -> None:
    if which not in ("lobby", "mesh"):
        raise UsageError(f"a stranger's target is lobby, mesh or a seat number, not {which!r}")


def host_port(table: MatchTable, which: str) -> int:
    """The port of the host's "lobby" or "mesh" (the other port its process listens on)."""
    lobby = int(table.address.rsplit(":", 1)[1])
    if which == "lobby":
        return lobby
    others = listening_ports(table.peers[0].process.pid) - {lobby}
    if len(others) != 1:
        raise RuntimeError(f"the host listens on {sorted(others)} besides its lobby: which is the mesh?")
    return others.pop()


def listening_ports(pid: int) -> set[int]:
    """The TCP ports process `pid` listens on (Linux: its socket descriptors matched in /proc/net/tcp)."""
    fds = Path(f"/proc/{pid}/fd")
    sockets = {target[8:-1] for fd in fds.iterdir() if (target := os.readlink(fd)).startswith("socket:[")}
    ports: set[int] = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == TCP_LISTEN and fields[9] in sockets:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def mesh_address(table: MatchTable, seat: int, deadline: float) -> tuple[str, int]:
    """The HOST and PORT of game seat `seat`'s mesh, from the lobby cards the host's store keeps."""
    started = table.peers[0].event("started", max(0.0, deadline - time.monotonic()))
    store = Path(text_field(started, "store"))
    db = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    try:
        row = db.execute("SELECT record FROM secrets WHERE name = 'net/mesh'").fetchone()
    finally:
        db.close()
    endpoint = str(json.loads(row[0])["cards"][seat]["endpoint"])
    address, _, port = endpoint.removeprefix("tcp://").rpartition(":")
    return address, int(port)
