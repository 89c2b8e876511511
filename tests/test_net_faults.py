"""Network faults between real (virtual) hosts: three network namespaces, each on its own veth link to a
router namespace, a peer process on each. Faults come from iptables inside the namespaces (this kernel has
no netem): 5% random packet loss on every host's link, one host cut off for 10 s in mid-game, and every TCP
connection sent through a relay in the router that holds each chunk 50 ms. Under each, the game finishes,
every peer agrees on the outcome and every transcript verifies. (Discovery across hosts: test_net_lan.py.)

Each test skips, saying why, where namespaces cannot be made or no iptables works in them (the Debian
package `iptables`, which .ci/run installs). Run as a script, `python test_net_faults.py relay PORT DELAY`
is the delaying relay (started inside the router namespace by the delay test).
"""

import asyncio
import contextlib
import functools
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conformance_helpers import wait_for
from conftest import STEP_TIMEOUT_S, VETH, RoutedHosts

from p2pfish.net.joincode import new_join_code
from p2pfish.tools.events import text_field
from p2pfish.tools.match import MatchResult, PeerProcess, summarize

GAME = "fishnstones"
PEER_TIMEOUT_S = 30.0
"""--timeout of every peer: a silent peer is dropped after this long, three times the cut."""
LOSS = 0.05
CUT_S = 10.0
CUT_AFTER_MESSAGES = 20
RECOVERED_WITHIN_S = 10.0
"""The mesh redials a dead link (ZeroMQ heartbeats), so the game goes on within seconds of the link's
return, not at TCP's next retransmission (13 s after the cut, then 27 s, then 53 s)."""
"""The cut starts once the cut-off host's store holds this many messages (a 3-player game has about 80)."""
DELAY_S = 0.05
RELAY_PORT = 7070
SO_ORIGINAL_DST = 80
"""Linux's getsockopt (SOL_IP) for the destination a connection had before a REDIRECT (netfilter_ipv4.h)."""
IPTABLES_NAMES = ("iptables", "iptables-nft", "iptables-legacy")
SBIN = ("/usr/sbin", "/sbin")


@dataclass
class NamespacedPeer(PeerProcess):
    """A PeerProcess started inside a network namespace; `program` replaces `-m p2pfish` to run another."""

    namespace: str = ""
    program: tuple[str, ...] = ("-m", "p2pfish")

    def command(self) -> list[str]:
        return ["ip", "netns", "exec", self.namespace, sys.executable, *self.program, *self.argv]


@dataclass(frozen=True)
class Iptables:
    """One iptables binary that works inside the namespaces (legacy or nft backend)."""

    path: str

    def run(self, namespace: str, *args: str) -> subprocess.CompletedProcess[str]:
        argv = ["ip", "netns", "exec", namespace, self.path, "-w", "5", *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)

    def must(self, namespace: str, *args: str) -> None:
        done = self.run(namespace, *args)
        assert done.returncode == 0, f"{self.path} {' '.join(args)} in {namespace}: {done.stderr.strip()}"

    def matched(self, namespace: str, chain: str) -> int:
        """Packets the first rule of `chain` (filter table) has matched."""
        done = self.run(namespace, "-nvxL", chain, "1")
        assert done.returncode == 0, done.stderr
        return int(done.stdout.split()[0])


def find_iptables(namespace: str, table: str, chain: str, *rule: str) -> Iptables:
    """The first iptables that can add `rule` to `chain` in `namespace` (it is deleted again); else skip,
    saying what each one answered."""
    search = os.pathsep.join([os.environ.get("PATH", ""), *SBIN])
    reasons: list[str] = []
    for name in IPTABLES_NAMES:
        path = shutil.which(name, path=search)
        if path is None:
            reasons.append(f"{name}: not installed")
            continue
        iptables = Iptables(path)
        added = iptables.run(namespace, "-t", table, "-A", chain, *rule)
        if added.returncode == 0:
            iptables.must(namespace, "-t", table, "-D", chain, *rule)
            return iptables
        reasons.append(f"{name}: {added.stderr.strip() or added.returncode}")
    pytest.skip(
        f"no iptables can add `-t {table} -A {chain} {' '.join(rule)}` in a network namespace (the Debian "
        f"package iptables; .ci/run installs it): {'; '.join(reasons)}"
    )


def stored_messages(store: Path) -> int:
    """How many messages a peer's store holds (0 before its game has started)."""
    if not store.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1)) as db:
            return int(db.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
    except sqlite3.Error:
        return 0


def received_packets(namespace: str) -> int:
    done = subprocess.run(
        ["ip", "netns", "exec", namespace, "cat", f"/sys/class/net/{VETH}/statistics/rx_packets"],
        capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=True,
    )  # fmt: skip
    return int(done.stdout)


class HostTable:
    """One game with a peer on each host: the first host's peer opens the lobby, the others join it."""

    def __init__(self, net: RoutedHosts, workdir: Path) -> None:
        self.net, self.workdir, self.players = net, workdir, len(net.hosts)
        self.code = new_join_code()
        self.env = {**os.environ, "XDG_STATE_HOME": str(workdir / "state"), "PYTHONUNBUFFERED": "1"}
        self.stores = [workdir / f"host{i}.sqlite" for i in range(self.players)]
        self.transcripts = [workdir / f"host{i}.jsonl" for i in range(self.players)]
        self.peers: list[NamespacedPeer] = []
        self.started = 0.0

    def start(self) -> None:
        self.started = time.monotonic()
        lobby = ["host", GAME, "--players", str(self.players), "--bind", self.net.addresses[0], "--no-discovery"]
        address = text_field(self._peer(0, [*lobby, "--code", self.code]).event("lobby", 30), "address")
        for i in range(1, self.players):
            self._peer(i, ["join", address, "--code", self.code])

    def _peer(self, i: int, argv: list[str]) -> NamespacedPeer:
        flags = [
            "--bot", "greedy" if i % 2 == 0 else "random", "--seed", str(i), "--name", f"host-{i}",
            "--identity-dir", str(self.workdir / f"id{i}"), "--store", str(self.stores[i]),
            "--transcript", str(self.transcripts[i]), "--timeout", str(PEER_TIMEOUT_S), "--json",
        ]  # fmt: skip
        log = self.workdir / f"host{i}.log"
        peer = NamespacedPeer(i, [*argv, *flags], log, self.env, namespace=self.net.hosts[i])
        self.peers.append(peer)
        return peer

    def finish(self, timeout_s: float) -> MatchResult:
        """Wait for every peer's result (killing those still running at the deadline) and audit the game."""
        deadline = time.monotonic() + timeout_s
        results = [peer.result(max(1.0, deadline - time.monotonic())) for peer in self.peers]
        wall = time.monotonic() - self.started
        return summarize(GAME, self.players, results, [str(t) for t in self.transcripts], wall)

    def stop_all(self) -> None:
        for peer in self.peers:
            peer.stop()

    def logs(self) -> str:
        return "\n".join(f"--- host {i}:\n{self.log(i)[-3000:]}" for i in range(len(self.peers)))

    def log(self, i: int) -> str:
        return (self.workdir / f"host{i}.log").read_text(errors="replace")


def test_a_game_finishes_under_5_percent_random_packet_loss(routed_hosts: RoutedHosts, tmp_path: Path) -> None:
    net = routed_hosts
    loss = ("-i", VETH, "-m", "statistic", "--mode", "random", "--probability", str(LOSS), "-j", "DROP")
    iptables = find_iptables(net.hosts[0], "filter", "INPUT", *loss)
    for host in net.hosts:
        iptables.must(host, "-I", "INPUT", "1", *loss)
    table = HostTable(net, tmp_path)
    try:
        table.start()
        result = table.finish(60)
    finally:
        table.stop_all()
    dropped = [iptables.matched(host, "INPUT") for host in net.hosts]
    received = [received_packets(host) for host in net.hosts]
    print(f"\nloss {LOSS:.0%}: {result.wall_s} s, {result.messages} messages; packets dropped/received per host: "
          + ", ".join(f"{d}/{r}" for d, r in zip(dropped, received, strict=True)))  # fmt: skip
    assert result.ok, f"{result}\n{table.logs()}"
    # One full run saw a host's rule match no packet (its link had carried 169 frames of every kind; 10 and 8 dropped
    # at the others): that the rule acts is shown by all hosts' drops together.
    assert sum(dropped) > 0, f"the loss rule dropped nothing: {dropped} of {received} packets"


def test_a_game_resumes_after_a_host_is_cut_off_for_10_s(routed_hosts: RoutedHosts, tmp_path: Path) -> None:
    net = routed_hosts
    cut_host = len(net.hosts) - 1
    link = net.router_links[cut_host]
    cut = [("-i", link, "-j", "DROP"), ("-o", link, "-j", "DROP")]
    iptables = find_iptables(net.router, "filter", "FORWARD", *cut[0])
    table = HostTable(net, tmp_path)
    try:
        table.start()
        store = table.stores[cut_host]
        wait_for(lambda: stored_messages(store) >= CUT_AFTER_MESSAGES, 30, f"{CUT_AFTER_MESSAGES} messages in {store}")
        for rule in cut:
            iptables.must(net.router, "-I", "FORWARD", "1", *rule)
        cut_at, held_at_cut = time.monotonic(), stored_messages(store)
        time.sleep(CUT_S)  # the fault itself: the link stays cut this long
        held_at_restore = stored_messages(store)
        running = [peer.process.poll() is None for peer in table.peers]
        for rule in cut:
            iptables.must(net.router, "-D", "FORWARD", *rule)
        restored_at = time.monotonic()
        result = table.finish(PEER_TIMEOUT_S + 30)
        ended_after = time.monotonic() - restored_at
    finally:
        table.stop_all()
    transcript = table.transcripts[cut_host]
    total = len(transcript.read_bytes().splitlines()) - 1 if transcript.exists() else -1
    print(
        f"\ncut host {cut_host} at {held_at_cut}/{total} messages, {cut_at - table.started:.1f} s in; "
        f"{held_at_restore} when restored after {restored_at - cut_at:.1f} s; every peer done {ended_after:.1f} s "
        f"later; {result.wall_s} s in all, {result.messages} messages"
    )
    assert result.ok, f"{result}\n{table.logs()}"
    assert all(running), f"a peer stopped during the cut: {running}\n{table.logs()}"
    assert ended_after < RECOVERED_WITHIN_S, f"the game took {ended_after:.1f} s to finish after the link came back"
    assert held_at_restore < total, "the game ended before the link came back"
    for i in range(len(table.peers)):
        assert "waiting for" in table.log(i), f"host {i} never saw the cut-off side go silent\n{table.logs()}"


def test_a_game_finishes_through_a_relay_that_delays_every_chunk_50_ms(
    routed_hosts: RoutedHosts, tmp_path: Path
) -> None:
    net = routed_hosts
    redirect = ("-p", "tcp", "-j", "REDIRECT", "--to-ports", str(RELAY_PORT))
    iptables = find_iptables(net.router, "nat", "PREROUTING", *redirect)
    relay = NamespacedPeer(
        -1, ["relay", str(RELAY_PORT), str(DELAY_S)], tmp_path / "relay.log", {**os.environ, "PYTHONUNBUFFERED": "1"},
        namespace=net.router, program=(__file__,),
    )  # fmt: skip
    table = HostTable(net, tmp_path)
    try:
        relay.read_line("RELAY ", 20)
        iptables.must(net.router, "-t", "nat", "-I", "PREROUTING", "1", *redirect)
        table.start()
        result = table.finish(90)
    finally:
        table.stop_all()
        relay.stop(grace_s=5)
    connects = [line for line in relay.lines if line.startswith("CONNECT ")]
    relayed = [line for line in relay.lines if line.startswith("RELAYED ")]
    print(f"\ndelay {DELAY_S * 1000:.0f} ms each way: {result.wall_s} s, {result.messages} messages; "
          + (relayed[0] if relayed else "the relay printed no summary"))  # fmt: skip
    assert result.ok, f"{result}\n{table.logs()}\nrelay:\n" + "\n".join(relay.lines)
    links = len(net.hosts) - 1 + len(net.hosts) * (len(net.hosts) - 1)
    assert len(connects) >= links, f"expected the lobby joins and every mesh link through the relay: {relay.lines}"
    assert relayed, relay.lines
    chunks = int(relayed[0].split(" connections, ")[1].split()[0])
    held_ms = float(relayed[0].split("held at least ")[1].split()[0])
    assert chunks > 0 and held_ms >= DELAY_S * 1000 - 1, relayed


@dataclass
class RelayStats:
    connections: int = 0
    chunks: int = 0
    held_min_s: float = float("inf")


async def delayed_copy(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay_s: float, stats: RelayStats
) -> None:
    """Copy one direction of a connection, writing each chunk `delay_s` after it was read, in order."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def deliver() -> None:
        while True:
            arrived, chunk = await queue.get()
            if not chunk:
                return
            await asyncio.sleep(arrived + delay_s - loop.time())
            writer.write(chunk)
            stats.chunks += 1
            stats.held_min_s = min(stats.held_min_s, loop.time() - arrived)
            await writer.drain()

    delivering = asyncio.create_task(deliver())
    try:
        while chunk := await reader.read(1 << 16):
            queue.put_nowait((loop.time(), chunk))
        queue.put_nowait((loop.time(), b""))
        await delivering
    except OSError:
        pass
    finally:
        delivering.cancel()


async def relay_connection(
    delay_s: float, stats: RelayStats, client: asyncio.StreamReader, to_client: asyncio.StreamWriter
) -> None:
    """Forward a redirected connection to where it was going, both ways, each chunk held `delay_s`."""
    original = to_client.get_extra_info("socket").getsockopt(socket.SOL_IP, SO_ORIGINAL_DST, 16)
    host, port = socket.inet_ntoa(original[4:8]), int.from_bytes(original[2:4], "big")
    print(f"CONNECT {to_client.get_extra_info('peername')[0]} -> {host}:{port}", flush=True)
    try:
        server, to_server = await asyncio.open_connection(host, port)
    except OSError as error:
        print(f"REFUSED {host}:{port}: {error}", flush=True)
        to_client.close()
        return
    stats.connections += 1
    copies = [
        asyncio.create_task(delayed_copy(client, to_server, delay_s, stats)),
        asyncio.create_task(delayed_copy(server, to_client, delay_s, stats)),
    ]
    await asyncio.wait(copies, return_when=asyncio.FIRST_COMPLETED)
    for copy in copies:
        copy.cancel()
    to_server.close()
    to_client.close()


async def relay(port: int, delay_s: float) -> None:
    """A transparent TCP relay: connections REDIRECTed to `port` go on to their original destination.
    On SIGTERM it prints what it relayed and exits."""
    stats, stop = RelayStats(), asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    server = await asyncio.start_server(functools.partial(relay_connection, delay_s, stats), "0.0.0.0", port)
    print(f"RELAY on port {port}, holding each chunk {delay_s} s", flush=True)
    await stop.wait()
    server.close()
    print(f"RELAYED {stats.connections} connections, {stats.chunks} chunks, each held at least "
          f"{stats.held_min_s * 1000:.1f} ms", flush=True)  # fmt: skip


if __name__ == "__main__" and sys.argv[1:2] == ["relay"]:
    asyncio.run(relay(int(sys.argv[2]), float(sys.argv[3])))
