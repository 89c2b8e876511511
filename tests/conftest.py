"""Fixtures shared by several test files: two network namespaces joined by a veth link."""

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

ADDRESS_A, ADDRESS_B = "10.77.0.1", "10.77.0.2"
VETH = "p2pf0"
STEP_TIMEOUT_S = 5.0


def run_ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)


@pytest.fixture
def two_namespaces() -> Iterator[tuple[str, str]]:
    """Namespaces A (10.77.0.1) and B (10.77.0.2) on one veth link with multicast routed onto it."""
    if shutil.which("ip") is None:
        pytest.skip("the iproute2 `ip` command is not installed")
    ns_a, ns_b = f"p2pfish-disc-{os.getpid()}-a", f"p2pfish-disc-{os.getpid()}-b"
    created: list[str] = []
    try:
        for ns in (ns_a, ns_b):
            added = run_ip("netns", "add", ns)
            if added.returncode != 0:
                pytest.skip(f"cannot create network namespaces (needs root or CAP_SYS_ADMIN): {added.stderr.strip()}")
            created.append(ns)
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
        for step in steps:
            done = run_ip(*step)
            if done.returncode != 0:
                pytest.skip(f"cannot set up the veth link (`ip {' '.join(step)}`): {done.stderr.strip()}")
        yield ns_a, ns_b
    finally:
        for ns in created:
            run_ip("netns", "delete", ns)
