"""Crash soak: bot matches in which one peer is killed with SIGKILL at a random point and resumed.

A crash match runs what players run (`p2pfish host` and `join` processes on 127.0.0.1, as
`p2pfish match` does), waits until the victim's store holds a random number of messages, kills the
victim (the host or a joiner) with SIGKILL, takes from its store what a power cut at that moment could
take at most (every other seat's message stored after the victim's own last one: those were committed
without a sync, PROTOCOL §14), starts it again with `p2pfish resume STORE` and the same flags, and waits
for every peer's result. It then checks that every peer finished, that all
outcomes are equal, that every transcript verifies on its own, and that nothing was lost: the
resumed peer ends with the same signed log as every other peer, holding every message it had
stored before it was killed, those the cut took included (fetched again from the others).
`scripts/crash-soak` runs many of them; `python -m p2pfish.tools.soak` too.
"""

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2pfish.core.errors import MalformedInput
from p2pfish.core.text import printable
from p2pfish.core.wire import Json
from p2pfish.games.registry import GAME_IDS, game_of, get_rules
from p2pfish.session.audit import audit
from p2pfish.tools.events import int_field, text_field
from p2pfish.tools.match import MatchTable, PeerProcess

GAMES = GAME_IDS
KINDS = ("greedy", "random")

KILL_POLL_S = 0.002
STOP_BEFORE_KILL = 3
"""How many messages before its kill point the victim is stopped at each read of its store."""


@dataclass
class CrashRun:
    """What one crash match leaves to be checked. Peers are numbered as processes: 0 is the host."""

    game: str
    players: int
    seed: int
    victim: int
    kill_at: int
    """The victim is killed once its store holds at least this many messages."""
    workdir: Path
    victim_seat: int | None = None
    killed_at: int | None = None
    """How many messages the victim's store held when it was dead."""
    kept: list[bytes] = field(default_factory=list)
    """The messages in the victim's store when it was dead."""
    cut: int = 0
    """How many of them the power cut took (received after its own last message)."""
    results: list[dict[str, Json] | None] = field(default_factory=list)
    transcripts: list[Path] = field(default_factory=list)
    steps: list[tuple[str, float]] = field(default_factory=list)
    """When each step of the run was done, in seconds from its start (a failing match names them)."""

    def step(self, name: str, since: float) -> None:
        self.steps.append((name, round(time.monotonic() - since, 2)))


@dataclass(frozen=True)
class Verdict:
    finished: bool
    agree: bool
    verified: bool
    intact: bool
    """The resumed peer's log equals the others' and holds everything it had stored before the kill."""
    outcome: dict[str, Json] | None
    reasons: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.finished and self.agree and self.verified and self.intact and not self.reasons


@dataclass(frozen=True)
class CrashResult:
    game: str
    players: int
    seed: int
    victim: int
    """The killed peer's process: 0 the host, 1.. the joiners in the order they were started."""
    victim_seat: int | None
    kill_at: int
    killed_at: int | None
    cut: int
    """Messages taken from the dead victim's store (the unsynced received tail), to be fetched again."""
    finished: bool
    agree: bool
    verified: bool
    intact: bool
    ok: bool
    outcome: dict[str, Json] | None
    wall_s: float
    reason: str | None
    workdir: str | None
    """Kept for a failed match: the peers' logs, stores and transcripts."""

    def to_wire(self) -> dict[str, Json]:
        return {
            "game": self.game, "players": self.players, "seed": self.seed, "victim": self.victim,
            "victim_seat": self.victim_seat, "kill_at": self.kill_at, "killed_at": self.killed_at, "cut": self.cut,
            "finished": self.finished, "agree": self.agree, "verified": self.verified, "intact": self.intact,
            "ok": self.ok, "outcome": self.outcome, "wall_s": self.wall_s, "reason": self.reason,
            "workdir": self.workdir,
        }  # fmt: skip

    def line(self) -> str:
        role = "host" if self.victim == 0 else f"joiner {self.victim}"
        seat = "?" if self.victim_seat is None else str(self.victim_seat)
        head = (
            f"{self.game} {self.players}p seed {self.seed}: killed {role} (seat {seat}) "
            f"at {self.killed_at if self.killed_at is not None else '-'} messages (target {self.kill_at}, "
            f"{self.cut} cut), "
            f"{self.wall_s:.1f} s"
        )
        if self.ok and self.outcome is not None:
            return f"{head}: ok, scores {self.outcome.get('scores')} winners {self.outcome.get('winners')}"
        return f"{head}: FAILED: {self.reason} (files: {self.workdir})"


Check = Callable[[CrashRun], Verdict]


def shortest_game(game: str, players: int) -> int:
    """Fewer messages than any bot game of this game and table size holds (the registry's figure): the kill
    point is drawn below it, so the game is still under way when the victim is killed."""
    by_players = game_of(game).shortest_game
    if players not in by_players:
        raise MalformedInput(f"no crash soak for {game} with {players} players")
    return by_players[players]


def _read_only(store: Path, busy_timeout_s: float = 5.0) -> sqlite3.Connection:
    return sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True, timeout=busy_timeout_s)


def stored_messages(store: Path) -> list[bytes]:
    """The messages a peer's store holds (read by another process while the peer writes it)."""
    db = _read_only(store)
    try:
        return [bytes(row[0]) for row in db.execute("SELECT raw FROM messages ORDER BY n")]
    finally:
        db.close()


def stored_count(store: Path) -> int:
    try:
        db = _read_only(store)
    except sqlite3.Error:
        return 0
    try:
        return int(db.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def cut_unsynced_tail(store: Path, seat: int, players: int) -> int:
    """Delete what a power cut could take from a dead peer's store: the other seats' messages stored after
    the seat's own last one (each batch with an own message was synced; later batches of received messages
    only were not), unless the store holds every seat's `end` (a peer syncs its store when its game
    finishes). Returns how many it deleted."""
    db = sqlite3.connect(store, isolation_level=None, timeout=5.0)
    try:
        rows = db.execute("SELECT n, raw FROM messages ORDER BY n").fetchall()
        envelopes = [(n, json.loads(bytes(raw))) for n, raw in rows]
        if sum(envelope.get("body", {}).get("type") == "end" for _, envelope in envelopes) >= players:
            return 0
        last_own = max((n for n, envelope in envelopes if envelope.get("seat") == seat), default=0)
        db.execute("DELETE FROM messages WHERE n > ?", (last_own,))
    finally:
        db.close()
    return sum(n > last_own for n, _ in rows)


def play_crash(run: CrashRun, *, peer_timeout_s: float, timeout_s: float, resume_extra: Sequence[str] = ()) -> None:
    """Play one crash match, filling in `run`. Raises TimeoutError or RuntimeError when it cannot."""
    deadline = time.monotonic() + timeout_s
    table = MatchTable(run.game, run.players, KINDS, run.seed, run.workdir)
    run.transcripts = list(table.transcripts)
    extra = ["--timeout", str(peer_timeout_s)]
    begun = time.monotonic()
    try:
        table.start(extra=extra)
        victim = table.peers[run.victim]
        log = run.workdir / f"seat{run.victim}.log"
        started = victim.event("started", max(0.0, deadline - time.monotonic()))
        run.step("started", begun)
        store = Path(text_field(started, "store"))
        run.victim_seat = int_field(started, "seat")
        strike_at_kill_point(victim, store, run.kill_at, deadline, log)
        run.step("killed", begun)
        victim.process.wait()
        run.step("reaped", begun)
        run.kept = stored_messages(store)
        run.killed_at = len(run.kept)
        run.cut = cut_unsynced_tail(store, run.victim_seat, run.players)
        run.step("cut", begun)
        argv = ["resume", str(store), *table.peer_flags(run.victim), *extra, *resume_extra]
        table.peers[run.victim] = PeerProcess(
            run.victim, argv, run.workdir / f"seat{run.victim}-resumed.log", table.env
        )
        run.step("resumed", begun)
        run.results = [peer.result(max(1.0, deadline - time.monotonic())) for peer in table.peers]
    finally:
        table.stop_all()


def strike_at_kill_point(victim: PeerProcess, store: Path, kill_at: int, deadline: float, log: Path) -> None:
    """Kill the victim (SIGKILL) once its store holds `kill_at` messages. A peer leaves within milliseconds of
    its game's end, so the store is read every KILL_POLL_S through one open connection, and from STOP_BEFORE_KILL
    messages before the kill point on, the victim is stopped (SIGSTOP) while it is read: it cannot go on, nor exit,
    between the count and the kill. Before that it runs unstopped (a reader never holds up SQLite's writer): stopped
    at every read, it ran a third of the time at most, and on a loaded machine too little to link up with the others
    before they gave up on it. The read never waits for a lock: a victim stopped inside SQLite's critical section
    holds it until it runs again, and a read that waited 5 s for it left the victim frozen long enough for the others
    to drop it as silent (soak failures seen under load 8-13)."""
    db = _read_only(store, busy_timeout_s=0.0)
    count = 0
    try:
        while True:
            if victim.process.poll() is not None:
                raise RuntimeError(
                    f"the victim's game ended before the kill point {kill_at}: {_last_line(log)} (log: {log})"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"the victim's store never reached {kill_at} messages (log: {log})")
            stopping = count >= kill_at - STOP_BEFORE_KILL
            if stopping:
                os.kill(victim.process.pid, signal.SIGSTOP)
            with contextlib.suppress(sqlite3.Error):  # locked or not yet made: read again next time
                count = max(count, int(db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]))
            if stopping and count >= kill_at:
                os.kill(victim.process.pid, signal.SIGKILL)
                return
            if stopping:
                os.kill(victim.process.pid, signal.SIGCONT)
            time.sleep(KILL_POLL_S)
    finally:
        db.close()


def _last_line(log: Path) -> str:
    lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    return lines[-1] if lines else "it printed nothing"


def _transcript_lines(path: Path) -> list[bytes] | None:
    if not path.exists():
        return None
    return [line for line in path.read_bytes().splitlines() if line.strip()]


def check_crash(run: CrashRun) -> Verdict:
    """Every peer finished, all outcomes are equal, every transcript verifies, nothing was lost."""
    reasons: list[str] = []
    finished = len(run.results) == run.players
    for peer, result in enumerate(run.results):
        if result is None:
            finished = False
            reasons.append(f"peer {peer} printed no result")
        elif result.get("finished") is not True:
            finished = False
            reasons.append(f"peer {peer} did not finish: {json.dumps(result.get('fault'))}")
    outcomes = {json.dumps(r.get("outcome"), sort_keys=True) for r in run.results if r is not None}
    agree = finished and len(outcomes) == 1
    if finished and not agree:
        reasons.append(f"the peers' outcomes differ: {sorted(outcomes)}")
    first = run.results[0] if run.results else None
    outcome = first.get("outcome") if first is not None and agree else None

    logs = [_transcript_lines(path) for path in run.transcripts]
    verified = len(logs) == run.players
    for peer, lines in enumerate(logs):
        if lines is None:
            verified = False
            reasons.append(f"peer {peer} wrote no transcript")
            continue
        try:
            report = audit(lines, get_rules(run.game))
        except MalformedInput as error:
            verified = False
            reasons.append(f"the transcript of peer {peer} is unreadable: {error}")
            continue
        if not report.verified:
            verified = False
            fault = report.fault
            why = "it stops before the end" if fault is None else f"seat {fault.seat} {fault.kind}: {fault.reason}"
            reasons.append(f"the transcript of peer {peer} does not verify: {why}")

    intact = True
    resumed = logs[run.victim] if run.victim < len(logs) else None
    if resumed is None:
        intact = False
    else:
        mine = set(resumed)
        lost = [raw for raw in run.kept if raw not in mine]
        if lost:
            intact = False
            reasons.append(f"the resumed peer lost {len(lost)} of the {len(run.kept)} messages it had stored")
        for peer, lines in enumerate(logs):
            if peer == run.victim or lines is None:
                continue
            theirs = set(lines)
            if theirs != mine:
                intact = False
                reasons.append(
                    f"the resumed peer's log differs from peer {peer}'s: {len(theirs - mine)} missing, "
                    f"{len(mine - theirs)} extra"
                )
    return Verdict(finished, agree, verified, intact, outcome if isinstance(outcome, dict) else None, tuple(reasons))


def crash_match(
    game: str,
    players: int,
    seed: int,
    *,
    peer_timeout_s: float = 20.0,
    timeout_s: float = 300.0,
    workdir: Path | None = None,
    check: Check = check_crash,
    resume_extra: Sequence[str] = (),
) -> CrashResult:
    """One bot match in which a random peer is killed at a random point and resumed, checked.

    The victim and the kill point are drawn from `seed`. The files are deleted after a passing match
    unless `workdir` is given; a failing match keeps them and names the folder."""
    rules = get_rules(game)
    rules.new_game(players, {})
    rng = random.Random(seed)
    victim = rng.randrange(players)
    kill_at = rng.randrange(shortest_game(game, players))
    started = time.monotonic()
    work = workdir if workdir is not None else Path(tempfile.mkdtemp(prefix=f"p2pfish-crash-{game}-"))
    run = CrashRun(game, players, seed, victim, kill_at, work)
    try:
        play_crash(run, peer_timeout_s=peer_timeout_s, timeout_s=timeout_s, resume_extra=resume_extra)
    except (TimeoutError, RuntimeError, OSError, sqlite3.Error, MalformedInput) as error:
        verdict = Verdict(False, False, False, False, None, (f"{type(error).__name__}: {error}",))
    else:
        verdict = check(run)
    wall = round(time.monotonic() - started, 3)
    ok = verdict.ok
    reasons = list(verdict.reasons)
    if not ok and run.steps:
        reasons.append("steps at " + ", ".join(f"{name} {at} s" for name, at in run.steps))
    if ok and workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return CrashResult(
        game, players, seed, victim, run.victim_seat, kill_at, run.killed_at, run.cut, verdict.finished, verdict.agree,
        verdict.verified, verdict.intact, ok, verdict.outcome, wall, "; ".join(reasons) or None,
        None if ok else str(work),
    )  # fmt: skip


def soak_plan(count: int, seed: int) -> list[tuple[str, int, int]]:
    """(game, players, seed) of `count` crash matches: the games in turn, each through its table sizes."""
    plan: list[tuple[str, int, int]] = []
    for index in range(count):
        game = GAMES[index % len(GAMES)]
        sizes = sorted(game_of(game).shortest_game)
        plan.append((game, sizes[(index // len(GAMES)) % len(sizes)], seed * 1000 + index))
    return plan


def run_soak(count: int, seed: int, *, report: Callable[[int, CrashResult], None] | None = None) -> list[CrashResult]:
    results: list[CrashResult] = []
    for index, (game, players, match_seed) in enumerate(soak_plan(count, seed)):
        result = crash_match(game, players, match_seed)
        results.append(result)
        if report is not None:
            report(index, result)
    return results


def summary(results: Sequence[CrashResult], wall_s: float) -> str:
    failed = [r for r in results if not r.ok]
    lines = [
        f"matches {len(results)}, finished {sum(r.finished for r in results)}, "
        f"identical outcomes {sum(r.agree for r in results)}, verified {sum(r.verified for r in results)}, "
        f"nothing lost {sum(r.intact for r in results)} ({sum(r.cut for r in results)} messages cut from the "
        f"victims' stores, all fetched again), failures {len(failed)}; {wall_s:.0f} s in all"
    ]
    lines += [f"  failed: {r.game} {r.players}p seed {r.seed}: {r.reason} (files: {r.workdir})" for r in failed]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="crash-soak", description="bot matches in which a random peer is killed (SIGKILL) and resumed"
    )
    parser.add_argument("--matches", type=int, default=50, help="how many crash matches (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the victims, kill points and bots")
    parser.add_argument("--json", action="store_true", help="one JSON object per match instead of a line")
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    started = time.monotonic()

    def report(index: int, result: CrashResult) -> None:
        text = json.dumps(result.to_wire()) if args.json else f"{index + 1:>3}/{args.matches} {result.line()}"
        print(printable(text), flush=True)

    results = run_soak(args.matches, args.seed, report=report)
    print(summary(results, time.monotonic() - started), file=sys.stderr if args.json else sys.stdout, flush=True)
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
