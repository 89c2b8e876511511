"""Fixtures shared by several test files: network namespaces as hosts, either two on one veth link (a LAN
with multicast) or several behind a router namespace, each host on its own veth link to the router; and the
pool of pre-loaded programs that the test matches' peers are copied from (p2pfish/tools/peerpool.py), one for
the whole run, started by the process that runs the workers and named to them (and to every `p2pfish match`
they start) in the environment; and one scratch folder for the whole run, where every temporary file of the run goes
(match transcripts, watched games, stranger logs: a run left 33 of them in the system's temporary folder),
removed at the end. pytest's own tmp_path folders stay where pytest keeps them, its last three runs' included."""

import gc
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from p2pfish.forkedpeer import can_fork
from p2pfish.tools.peerpool import POOL_ENV, Pool

PEER_POOL = pytest.StashKey[Pool]()
SCRATCH = pytest.StashKey[tuple[Path, dict[str, str | None], str | None]]()
"""The run's scratch folder, the environment variables set for it (with their values before), and
tempfile.tempdir before."""
SCRATCH_ENV = ("TMPDIR", "PYTEST_DEBUG_TEMPROOT")
FULL_COLLECTION_AFTER = 100
"""Middle-generation collections between two full ones (Python's default: 10). A test process holds a few hundred
thousand objects in its caches (recorded games, the bots' memos), and every full collection walks them all. In a
whole run the four workers spent 25 s collecting garbage, 18 s of it in 62 full collections; with 100, 12 s and 4 s
in 9."""


def pytest_configure(config: pytest.Config) -> None:
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_AFTER)
    if config.option.collectonly or "PYTEST_XDIST_WORKER" in os.environ or POOL_ENV in os.environ:
        return  # a collect-only pass plays nothing; a worker uses its controller's pool and scratch folder
    use_scratch(config)
    if not can_fork(allow_threads=True):
        return
    pool = Pool(Path(tempfile.mkdtemp(prefix="p2pfish-pool-")))
    config.stash[PEER_POOL] = pool
    os.environ[POOL_ENV] = str(pool.folder)


def use_scratch(config: pytest.Config) -> None:
    """Send the run's temporary files (this process's, the workers' and every process they start) to a folder of
    its own; pytest's tmp_path folders stay under the system's temporary folder (PYTEST_DEBUG_TEMPROOT)."""
    system = tempfile.gettempdir()
    scratch = Path(tempfile.mkdtemp(prefix="p2pfish-tests-"))
    before = {name: os.environ.get(name) for name in SCRATCH_ENV}
    config.stash[SCRATCH] = (scratch, before, tempfile.tempdir)
    os.environ["PYTEST_DEBUG_TEMPROOT"] = before["PYTEST_DEBUG_TEMPROOT"] or system
    os.environ["TMPDIR"] = str(scratch)
    tempfile.tempdir = str(scratch)


def pytest_unconfigure(config: pytest.Config) -> None:
    pool = config.stash.get(PEER_POOL, None)
    if pool is not None:
        del os.environ[POOL_ENV]
        pool.close()
        shutil.rmtree(pool.folder, ignore_errors=True)
    scratch = config.stash.get(SCRATCH, None)
    if scratch is not None:
        folder, before, tempdir = scratch
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        tempfile.tempdir = tempdir
        shutil.rmtree(folder, ignore_errors=True)


ADDRESS_A, ADDRESS_B = "10.77.0.1", "10.77.0.2"
VETH = "p2pf0"
STEP_TIMEOUT_S = 5.0


def run_ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)


@contextmanager
def namespaces(*names: str) -> Iterator[None]:
    """Create the network namespaces (skipping the test, with the reason, where that is not allowed) and
    delete them afterwards."""
    if shutil.which("ip") is None:
        pytest.skip("the iproute2 `ip` command is not installed")
    created: list[str] = []
    try:
        for ns in names:
            added = run_ip("netns", "add", ns)
            if added.returncode != 0:
                pytest.skip(f"cannot create network namespaces (needs root or CAP_SYS_ADMIN): {added.stderr.strip()}")
            created.append(ns)
        yield
    finally:
        for ns in created:
            run_ip("netns", "delete", ns)


def run_ip_steps(steps: Sequence[tuple[str, ...]], what: str) -> None:
    for step in steps:
        done = run_ip(*step)
        if done.returncode != 0:
            pytest.skip(f"cannot set up {what} (`ip {' '.join(step)}`): {done.stderr.strip()}")


@pytest.fixture
def two_namespaces() -> Iterator[tuple[str, str]]:
    """Namespaces A (10.77.0.1) and B (10.77.0.2) on one veth link with multicast routed onto it."""
    ns_a, ns_b = f"p2pfish-disc-{os.getpid()}-a", f"p2pfish-disc-{os.getpid()}-b"
    with namespaces(ns_a, ns_b):
        steps = [
            ("-n", ns_a, "link", "add", VETH, "type", "veth", "peer", "name", VETH, "netns", ns_b),
            ("-n", ns_a, "addr", "add", f"{ADDRESS_A}/24", "dev", VETH),
            ("-n", ns_b, "addr", "add", f"{ADDRESS_B}/24", "dev", VETH),
        ]
        for ns in (ns_a, ns_b):
            steps += [
                ("-n", ns, "link", "set", "dev", "lo", "up"),
                ("-n", ns, "link", "set", "dev", VETH, "multicast", "on"),
                ("-n", ns, "link", "set", "dev", VETH, "up"),
                ("-n", ns, "route", "add", "224.0.0.0/4", "dev", VETH),
            ]
        run_ip_steps(steps, "the veth link")
        yield ns_a, ns_b


@dataclass(frozen=True)
class RoutedHosts:
    """Hosts behind one router. Host i is namespace `hosts[i]` with address `addresses[i]` (10.78.<i+1>.1/24)
    on its link `VETH`, whose other end is `router_links[i]` (10.78.<i+1>.254) in namespace `router`, which
    forwards between the hosts (every host's default route)."""

    router: str
    hosts: tuple[str, ...]
    addresses: tuple[str, ...]
    router_links: tuple[str, ...]


ROUTED_HOSTS = 3


@pytest.fixture
def routed_hosts() -> Iterator[RoutedHosts]:
    """Three hosts, each on its own veth link to a router namespace that forwards IPv4 between them."""
    prefix = f"p2pfish-net-{os.getpid()}"
    router = f"{prefix}-r"
    hosts = tuple(f"{prefix}-{chr(ord('a') + i)}" for i in range(ROUTED_HOSTS))
    net = RoutedHosts(
        router, hosts, tuple(f"10.78.{i + 1}.1" for i in range(ROUTED_HOSTS)),
        tuple(f"p2pfr{i}" for i in range(ROUTED_HOSTS)),
    )  # fmt: skip
    with namespaces(router, *hosts):
        steps: list[tuple[str, ...]] = [("-n", router, "link", "set", "dev", "lo", "up")]
        for i, (host, link) in enumerate(zip(hosts, net.router_links, strict=True)):
            gateway = f"10.78.{i + 1}.254"
            steps += [
                ("-n", router, "link", "add", link, "type", "veth", "peer", "name", VETH, "netns", host),
                ("-n", router, "addr", "add", f"{gateway}/24", "dev", link),
                ("-n", router, "link", "set", "dev", link, "up"),
                ("-n", host, "addr", "add", f"{net.addresses[i]}/24", "dev", VETH),
                ("-n", host, "link", "set", "dev", "lo", "up"),
                ("-n", host, "link", "set", "dev", VETH, "up"),
                ("-n", host, "route", "add", "default", "via", gateway),
            ]
        run_ip_steps(steps, "the routed hosts")
        forward = subprocess.run(
            ["ip", "netns", "exec", router, sys.executable, "-c",
             "open('/proc/sys/net/ipv4/ip_forward', 'w').write('1')"],
            capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False,
        )  # fmt: skip
        if forward.returncode != 0:
            pytest.skip(f"cannot turn on IPv4 forwarding in the router namespace: {forward.stderr.strip()}")
        yield net
