"""Two hosts on a LAN, made of two network namespaces joined by a veth link: a lobby advertised on
one is listed by `p2pfish lobbies` on the other, and `p2pfish join` with no address finds it and
plays the game through."""

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from conftest import ADDRESS_A

from p2pfish.tools.events import parse_event, text_field
from p2pfish.tools.match import PeerProcess


def in_namespace(ns: str, *argv: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "p2pfish", *argv]


@dataclass
class NamespacedPeer(PeerProcess):
    namespace: str = ""

    def command(self) -> list[str]:
        return in_namespace(self.namespace, *self.argv)


def test_a_lobby_is_found_and_joined_from_another_host(two_namespaces: tuple[str, str], tmp_path: Path) -> None:
    ns_a, ns_b = two_namespaces
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    host_argv = [
        "host", "fishnstones", "--players", "2", "--bind", ADDRESS_A, "--code", "KAN234", "--bot", "greedy",
        "--name", "alice", "--identity-dir", str(tmp_path / "a"), "--json",
    ]  # fmt: skip
    host = NamespacedPeer(0, host_argv, tmp_path / "host.log", env, namespace=ns_a)
    try:
        assert text_field(host.event("lobby", 20), "address").startswith(f"{ADDRESS_A}:")
        listed = subprocess.run(
            in_namespace(ns_b, "lobbies", "--timeout", "4"), capture_output=True, text=True, timeout=30, env=env,
            check=False,
        )  # fmt: skip
        assert listed.returncode == 0 and "alice" in listed.stdout and ADDRESS_A in listed.stdout, listed
        joined = subprocess.run(
            in_namespace(ns_b, "join", "--code", "KAN234", "--bot", "random", "--name", "bob",
                         "--identity-dir", str(tmp_path / "b"), "--json"),
            capture_output=True, text=True, timeout=60, env=env, check=False,
        )  # fmt: skip
        assert joined.returncode == 0, joined.stderr
        guest = parse_event(joined.stdout.strip().splitlines()[-1])
        hosted = host.result(30)
    finally:
        host.stop()
    assert guest is not None and guest["event"] == "result", joined.stdout
    assert hosted is not None and hosted["finished"] and guest["finished"]
    assert hosted["outcome"] == guest["outcome"]


def test_a_lan_without_a_default_route_is_found_shown_and_played_on(
    two_namespaces: tuple[str, str], tmp_path: Path
) -> None:
    """The two namespaces have no default route (a travel router, a cable between two laptops): a host
    bound to every interface shows and advertises its LAN address, not 127.0.0.1, and a game joined by that
    address plays to its end."""
    ns_a, ns_b = two_namespaces
    routes = subprocess.run(["ip", "-n", ns_a, "route", "show", "default"], capture_output=True, text=True, check=False)
    assert routes.stdout.strip() == "", "the fixture's namespaces were meant to have no default route"
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    host_argv = [
        "host", "fishnstones", "--players", "2", "--code", "NRT234", "--bot", "greedy", "--timeout", "8",
        "--name", "alice", "--identity-dir", str(tmp_path / "a"), "--json",
    ]  # fmt: skip
    host = NamespacedPeer(0, host_argv, tmp_path / "host.log", env, namespace=ns_a)
    try:
        lobby = host.event("lobby", 20)
        address = text_field(lobby, "address")
        assert address.startswith(f"{ADDRESS_A}:"), lobby
        listed = subprocess.run(
            in_namespace(ns_b, "lobbies", "--timeout", "4"), capture_output=True, text=True, timeout=30, env=env,
            check=False,
        )  # fmt: skip
        assert "alice" in listed.stdout and address in listed.stdout, listed
        joined = subprocess.run(
            in_namespace(ns_b, "join", address, "--code", "NRT234", "--bot", "random", "--name", "bob",
                         "--timeout", "8", "--identity-dir", str(tmp_path / "b"), "--json"),
            capture_output=True, text=True, timeout=90, env=env, check=False,
        )  # fmt: skip
        hosted = host.result(30)
    finally:
        host.stop()
    guest = parse_event(joined.stdout.strip().splitlines()[-1]) if joined.stdout.strip() else None
    assert guest is not None and guest["finished"], joined.stderr
    assert hosted is not None and hosted["finished"] and hosted["outcome"] == guest["outcome"]
