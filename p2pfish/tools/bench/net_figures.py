"""Network figures: a whole networked match, and the fan-out latency of one action across the mesh.

Fan-out: with N peer processes on 127.0.0.1 (p2pfish.tools.bench.fanout_peer), the time from one peer
sending an action to every peer having applied it (`session`: the full stack, a signed relay-game
action over the CURVE mesh run by PeerNode) or received it (`raw`: the baseline, bare pyzmq
DEALER->ROUTER without CURVE). Seats act round robin, each as soon as it has the previous action,
and every process stamps its times with CLOCK_MONOTONIC, which all processes of one Linux machine
share. Each run is measured once per process and cached, so the p50 and p99 figures of one table
size come from the same run, and the raw baseline runs in the same `p2pfish bench` invocation.
"""

import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.net.mesh import new_curve_keypair
from p2pfish.session.setup import GameSetup
from p2pfish.tools.bench.deal_game import RULES as DEAL_GAME
from p2pfish.tools.bench.fanout_peer import read_json, write_json
from p2pfish.tools.bench.relay_game import RULES as RELAY
from p2pfish.tools.match import run_match

MATCH_REPEATS = 3
MATCH_TIMEOUT_S = 30.0
"""How long one match peer may take (a match takes about 1.3 s)."""
FANOUT_ACTIONS = {4: 400, 8: 400}
"""Actions per fan-out run, by the number of peers: 400 puts the p99 among the slowest 4-5 actions
rather than the slowest 1-2 (much steadier from run to run) and takes under 5 s on 2 cores."""
WORKER_DEADLINE_S = 90.0
"""A worker ends itself this long after it started, whatever happens."""
STEP_TIMEOUT_S = 60.0
"""How long the parent waits for every worker to reach the next step of the handshake."""
START_AHEAD_NS = 150_000_000
"""The common start instant is this far after the last peer reported ready."""
POLL_S = 0.005
LOG_TAIL_CHARS = 2000


@dataclass(frozen=True)
class Fanout:
    """The per-action latencies of one run, in ms, and their p50 and p99."""

    latencies_ms: tuple[float, ...]
    frames_per_message: float = 0.0
    """Message (`M`) frames every peer queued for another, per message signed (the full stack only)."""
    cpu_ms_per_action: float = 0.0
    """The processor time of every peer process (all its threads), from the common start to the end of its run,
    per action played."""

    @property
    def p50_ms(self) -> float:
        return round(statistics.median(self.latencies_ms), 3)

    @property
    def p99_ms(self) -> float:
        if len(self.latencies_ms) < 2:
            return round(self.latencies_ms[0], 3)
        return round(statistics.quantiles(self.latencies_ms, n=100, method="inclusive")[98], 3)


class FanoutFailed(RuntimeError):
    """A worker failed, timed out, or reported an incomplete run (the message carries its log)."""


class _Workers:
    """The peer processes of one run and their work directory; `run` always kills what is left of
    them and removes the directory, whatever happens."""

    def __init__(self, mode: str, configs: list[dict[str, Json]]) -> None:
        self.mode = mode
        self.configs = configs
        self.peers = len(configs)
        self.workdir = Path()
        self.processes: list[subprocess.Popen[bytes]] = []

    def run(self) -> list[dict[str, Any]]:
        self.workdir = Path(tempfile.mkdtemp(prefix=f"p2pfish-fanout-{self.mode}-"))
        try:
            for seat, config in enumerate(self.configs):
                self._start(seat, config)
            endpoints = [read_json(path) for path in self._wait_for("endpoint-{}.json")]
            write_json(self.workdir / "roster.json", endpoints)
            self._wait_for("ready-{}")
            write_json(self.workdir / "go.json", time.monotonic_ns() + START_AHEAD_NS)
            records = [read_json(path) for path in self._wait_for("records-{}.json")]
            write_json(self.workdir / "done.json", True)
            self._wait_for("records-{}.json", exited=True)
            return records
        finally:
            for process in self.processes:
                if process.poll() is None:
                    process.kill()
                process.wait()
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _start(self, seat: int, config: dict[str, Json]) -> None:
        config_path = self.workdir / f"config-{seat}.json"
        common: dict[str, Json] = {
            "seat": seat,
            "peers": self.peers,
            "workdir": str(self.workdir),
            "deadline_s": WORKER_DEADLINE_S,
            "parent": os.getpid(),
        }
        write_json(config_path, {**config, **common})
        argv = [sys.executable, "-m", "p2pfish.tools.bench.fanout_peer", self.mode, str(config_path)]
        with (self.workdir / f"seat{seat}.log").open("wb") as log:
            self.processes.append(
                subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
            )

    def _wait_for(self, pattern: str, *, exited: bool = False) -> list[Path]:
        """Every worker's file named `pattern` (and, with `exited`, every worker gone with status 0)."""
        paths = [self.workdir / pattern.format(seat) for seat in range(self.peers)]
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while True:
            for seat, process in enumerate(self.processes):
                status = process.poll()
                if status is not None and (status != 0 or not paths[seat].exists()):
                    raise FanoutFailed(f"{self.mode} peer {seat} exited with status {status}: {self._log(seat)}")
            done = all(path.exists() for path in paths)
            if done and (not exited or all(process.poll() == 0 for process in self.processes)):
                return paths
            if time.monotonic() > deadline:
                late = [seat for seat, path in enumerate(paths) if not path.exists()] or [0]
                raise FanoutFailed(f"{self.mode} peers {late} wrote no {pattern} in time: {self._log(late[0])}")
            time.sleep(POLL_S)

    def _log(self, seat: int) -> str:
        path = self.workdir / f"seat{seat}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return text[-LOG_TAIL_CHARS:].strip() or "(no output)"


def _check_table(peers: int, actions: int) -> None:
    if not RELAY.min_players <= peers <= RELAY.max_players:
        raise MalformedInput(f"the fan-out runs with {RELAY.min_players}-{RELAY.max_players} peers, not {peers}")
    if actions < 1:
        raise MalformedInput(f"the fan-out needs at least one action, not {actions}")


def _latencies(records: list[dict[str, Any]], peers: int, actions: int, *, author_applies: bool) -> Fanout:
    """Per action: the latest apply (or receipt) by any peer minus the author's send time."""
    sent: dict[int, int] = {}
    latest: dict[int, int] = {}
    seen: dict[int, int] = {}
    for record in records:
        if record.get("finished") is not True:
            raise FanoutFailed(f"peer {record.get('seat')} did not finish: {record.get('fault')}")
        for turn, stamp in record["sent"]:
            sent[int(turn)] = int(stamp)
        for turn, seat, stamp in record["got"]:
            if seat != turn % peers:
                raise FanoutFailed(f"action {turn} came from seat {seat}, not seat {turn % peers}")
            latest[turn] = max(latest.get(turn, stamp), stamp)
            seen[turn] = seen.get(turn, 0) + 1
    expected = peers if author_applies else peers - 1
    missing = [turn for turn in range(actions) if turn not in sent or seen.get(turn) != expected]
    if missing:
        raise FanoutFailed(f"{len(missing)} of {actions} actions were not sent or not applied by every peer")
    return Fanout(tuple((latest[turn] - sent[turn]) / 1e6 for turn in range(actions)))


def _session_configs(game: str, options: dict[str, str], peers: int) -> list[dict[str, Json]]:
    """Fresh identities and CURVE keys for `peers` session workers of one game."""
    seeds = [secrets.token_bytes(32) for _ in range(peers)]
    roster = tuple(Identity.from_seed(seed).public_bytes for seed in seeds)
    setup = GameSetup.create(game, options, roster, tuple(f"peer-{s}" for s in range(peers)))
    curve = [new_curve_keypair() for _ in range(peers)]
    return [
        {
            "identity_seed": seeds[seat].hex(),
            "curve_secret": curve[seat][1],
            "curve_publics": [public for public, _ in curve],
            "setup": setup.to_wire(),
        }
        for seat in range(peers)
    ]


def run_session_fanout(peers: int, actions: int) -> Fanout:
    """The full stack: `peers` processes play `actions` relay actions over the CURVE mesh."""
    _check_table(peers, actions)
    records = _Workers("session", _session_configs(RELAY.id, {"actions": str(actions)}, peers)).run()
    fanout = _latencies(records, peers, actions, author_applies=True)
    frames = sum(int(record["frames_out"].get("M", 0)) for record in records)
    signed = sum(int(record["own_messages"]) for record in records)
    return Fanout(fanout.latencies_ms, round(frames / max(signed, 1), 2), _cpu_ms_per_action(records, actions))


def run_deal(peers: int) -> float:
    """Seconds from the common start until every one of `peers` processes has applied the first King
    Fish round's last deal (shuffle passes, private hands, the ponds), over the CURVE mesh."""
    records = _Workers("session", _session_configs(DEAL_GAME.id, {}, peers)).run()
    for record in records:
        if record.get("finished") is not True or not record["got"]:
            raise FanoutFailed(f"peer {record.get('seat')} did not finish the deal: {record.get('fault')}")
    dealt_ns = max(stamp for record in records for _, _, stamp in record["got"])
    seconds: float = (dealt_ns - int(records[0]["go_ns"])) / 1e9
    return seconds


def run_raw_fanout(peers: int, actions: int) -> Fanout:
    """The baseline: the same turn pattern over bare pyzmq, no CURVE, no signatures, no session."""
    _check_table(peers, actions)
    # One more round after the measured actions, so that no peer is already wrapping up (writing its
    # records) while the last measured action is still on its way to the others.
    records = _Workers("raw", [{"actions": actions + peers} for _ in range(peers)]).run()
    latencies = _latencies(records, peers, actions, author_applies=False).latencies_ms
    return Fanout(latencies, cpu_ms_per_action=_cpu_ms_per_action(records, actions + peers))


def _cpu_ms_per_action(records: list[dict[str, Any]], actions: int) -> float:
    return round(sum(float(record["cpu_s"]) for record in records) * 1000 / actions, 3)


_RUNS: dict[tuple[str, int, int], Fanout] = {}


def _cached(mode: str, peers: int, actions: int) -> Fanout:
    key = (mode, peers, actions)
    if key not in _RUNS:
        run: Callable[[int, int], Fanout] = run_session_fanout if mode == "session" else run_raw_fanout
        _RUNS[key] = run(peers, actions)
    return _RUNS[key]


def measure_fanout(peers: int, actions: int) -> tuple[float, float]:
    """(p50, p99) in ms of the full-stack fan-out with `peers` processes over `actions` actions."""
    fanout = _cached("session", peers, actions)
    return fanout.p50_ms, fanout.p99_ms


def measure_raw_fanout(peers: int, actions: int) -> tuple[float, float]:
    """(p50, p99) in ms of the bare-pyzmq fan-out with `peers` processes over `actions` actions."""
    fanout = _cached("raw", peers, actions)
    return fanout.p50_ms, fanout.p99_ms


def measure_fanout_cpu(mode: str, peers: int, actions: int) -> float:
    """Processor ms per action of the `session` or `raw` fan-out run with `peers` processes over `actions` actions."""
    return _cached(mode, peers, actions).cpu_ms_per_action


def match_fnst_4_s() -> float:
    """Wall seconds of one whole 4-player Fish'n'Stones bot match through `run_match` (processes
    started, lobby, CURVE mesh, full protocol, transcripts verified): the median of 3."""
    return _match_s("fishnstones", 4, MATCH_TIMEOUT_S)


def match_kingfish_5_s() -> float:
    """Wall seconds of one whole 5-player King Fish bot match through `run_match` (processes started,
    lobby, CURVE mesh, every deck pass proven and checked by every peer, the end-of-game audit, transcripts
    verified): the median of 3."""
    return _match_s("kingfish", 5, MATCH_TIMEOUT_S * 4)


def _match_s(game: str, players: int, timeout_s: float) -> float:
    times = []
    for seed in range(1, MATCH_REPEATS + 1):
        with tempfile.TemporaryDirectory(prefix="p2pfish-bench-match-") as scratch:
            # run_match keeps its work directory (the transcripts are its result): make it in `scratch`.
            saved, tempfile.tempdir = tempfile.tempdir, scratch
            try:
                started = time.perf_counter()
                result = run_match(game, players, ["greedy", "random"], seed, timeout_s=timeout_s)
                times.append(time.perf_counter() - started)
            finally:
                tempfile.tempdir = saved
        if not result.ok:
            raise FanoutFailed(f"the {game} match with seed {seed} did not finish cleanly: {result.to_wire()}")
    return round(statistics.median(times), 3)


def fanout_p50_ms_4() -> float:
    return measure_fanout(4, FANOUT_ACTIONS[4])[0]


def fanout_p99_ms_4() -> float:
    return measure_fanout(4, FANOUT_ACTIONS[4])[1]


def fanout_p50_ms_8() -> float:
    return measure_fanout(8, FANOUT_ACTIONS[8])[0]


def fanout_p99_ms_8() -> float:
    return measure_fanout(8, FANOUT_ACTIONS[8])[1]


def raw_fanout_p50_ms_8() -> float:
    return measure_raw_fanout(8, FANOUT_ACTIONS[8])[0]


def raw_fanout_p99_ms_8() -> float:
    return measure_raw_fanout(8, FANOUT_ACTIONS[8])[1]


def frames_per_message_8() -> float:
    """Message frames on the wire per signed message in the 8-peer fan-out (its author's to the 7 others,
    plus every resend): 7 at best; relaying every message to every peer made it 49."""
    return _cached("session", 8, FANOUT_ACTIONS[8]).frames_per_message


def fanout_vs_raw_p99_8() -> float:
    """How many times the full stack's p99 is the raw pyzmq p99, both with 8 peers."""
    return round(fanout_p99_ms_8() / raw_fanout_p99_ms_8(), 2)


def fanout_cpu_ms_8() -> float:
    """The 8-peer fan-out's processor time per action, every peer process and thread together."""
    return measure_fanout_cpu("session", 8, FANOUT_ACTIONS[8])


def raw_fanout_cpu_ms_8() -> float:
    """The same for raw pyzmq's 8 processes (the baseline, same run)."""
    return measure_fanout_cpu("raw", 8, FANOUT_ACTIONS[8])


DEAL_REPEATS = 3


def kingfish_deal_5_s() -> float:
    """A 5-peer networked shuffle and deal of one King Fish round (processes on loopback): the median
    of 3 runs."""
    return round(statistics.median(run_deal(5) for _ in range(DEAL_REPEATS)), 3)


RSS_MATCH = ("kingfish", 5)
"""The heaviest table: five peers, a 52-card deck each round, every pass kept until the final audit."""


def peer_rss_mb() -> float:
    """The peak resident memory (MiB) of the largest peer process of a whole 5-player King Fish match."""
    with tempfile.TemporaryDirectory(prefix="p2pfish-bench-rss-") as scratch:
        saved, tempfile.tempdir = tempfile.tempdir, scratch
        try:
            result = run_match(*RSS_MATCH, ["greedy", "random"], 1, timeout_s=MATCH_TIMEOUT_S * 4)
        finally:
            tempfile.tempdir = saved
    if not result.ok or result.peak_rss_mb <= 0:
        raise FanoutFailed(f"the memory match did not finish cleanly: {result.to_wire()}")
    return result.peak_rss_mb
