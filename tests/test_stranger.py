"""scripts/stranger, the attacker from outside the roster: it refuses any target off loopback without
sending a byte, and against a real lobby its summary adds up. Whether the victim survives it is tested
where the victim is hardened; these tests check the attacker only."""

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2pfish.core.errors import UsageError
from p2pfish.core.wire import Json
from p2pfish.launcher import main
from p2pfish.tools.match import MatchTable, host_port, run_match_with_stranger
from p2pfish.tools.stranger import Attack, StrangerProcess, attack

DURATION_S = 3.0
SLACK_S = 5.0


@pytest.fixture
def host_table(tmp_path: Path) -> Iterator[MatchTable]:
    """A `p2pfish host` process whose lobby waits for a second player who never comes."""
    table = MatchTable("fishnstones", 2, ["random"], 0, tmp_path)
    try:
        table.start_host()
        yield table
    finally:
        table.stop_all()


@pytest.fixture
def lobby_port(host_table: MatchTable) -> int:
    """The port of the host's lobby: plain TCP with its own framing."""
    return host_port(host_table, "lobby")


@pytest.fixture
def mesh_port(host_table: MatchTable) -> int:
    """The port of the host's mesh: ZeroMQ, CURVE."""
    return host_port(host_table, "mesh")


def stranger(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "p2pfish.tools.stranger", *argv], capture_output=True, text=True, timeout=60, check=False
    )


def assert_adds_up(summary: dict[str, Json], attempted: int) -> None:
    opened, refused = summary["opened"], summary["refused"]
    assert isinstance(opened, int) and isinstance(refused, int)
    assert summary["attempted"] == attempted and opened + refused == attempted and opened > 0
    assert summary["closed_by_peer"] + summary["held_to_end"] == opened  # type: ignore[operator]
    wall = summary["wall_s"]
    assert isinstance(wall, float) and 0 < wall <= DURATION_S + SLACK_S
    survived = summary["survived_s"]
    if survived is not None:
        assert isinstance(survived, dict)
        assert 0 <= survived["min"] <= survived["median"] <= survived["max"] <= wall  # type: ignore[operator]


@pytest.mark.parametrize("target", ["192.0.2.1:9", "10.0.0.1:80", "localhost:9", "[::ffff:10.0.0.1]:9", "0.0.0.0:9"])
def test_a_target_off_loopback_is_refused_with_one_line(target: str) -> None:
    done = stranger(target, "--connections", "3", "--duration", "1")
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done
    assert "loopback" in done.stderr and "Traceback" not in done.stderr


def test_nothing_is_sent_to_a_target_off_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[object] = []

    async def record(*args: object, **kwargs: object) -> None:
        tried.append(args)

    monkeypatch.setattr(asyncio, "open_connection", record)
    for plan in (Attack("192.0.2.1", 9, connections=5), Attack("203.0.113.7", 9, frames=1)):
        with pytest.raises(UsageError, match="loopback"):
            asyncio.run(attack(plan))
        with pytest.raises(UsageError, match="loopback"):
            StrangerProcess(plan)
    assert tried == []


@pytest.mark.parametrize(
    "argv", [["--duration", "1"], ["--connections", "2", "--frames", "2"], ["--connections", "9999999"],
             ["--frames", "1", "--size", "0"], ["--connections", "1", "--duration", "0"]]
)  # fmt: skip
def test_an_unbounded_or_unclear_attack_is_refused(argv: list[str]) -> None:
    done = stranger("127.0.0.1:9", *argv)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done


def test_three_hundred_idle_connections_to_a_lobby(lobby_port: int) -> None:
    summary = StrangerProcess(Attack("127.0.0.1", lobby_port, connections=300, duration_s=DURATION_S)).summary()
    assert summary["mode"] == "connections" and summary["bytes_sent"] == 0
    assert_adds_up(summary, 300)


def test_idle_connections_that_stop_inside_the_handshake(mesh_port: int) -> None:
    plan = Attack("127.0.0.1", mesh_port, connections=20, duration_s=DURATION_S, greeting=True)
    summary = StrangerProcess(plan).summary()
    assert_adds_up(summary, 20)
    assert 0 < summary["bytes_sent"] <= 64 * summary["opened"]  # type: ignore[operator]


def test_huge_zmtp_frames_to_a_mesh(mesh_port: int) -> None:
    size, body = 2**40, 2**20
    plan = Attack("127.0.0.1", mesh_port, frames=4, size=size, body=body, duration_s=DURATION_S)
    summary = StrangerProcess(plan).summary()
    assert_adds_up(summary, 4)
    assert summary["frame_size"] == size and 0 < summary["frames_sent"] <= summary["opened"]  # type: ignore[operator]
    assert summary["frames_completed"] == 0
    assert summary["peer_mechanisms"] == {"CURVE": summary["opened"]}
    handshakes = 64 + 9  # greeting, command frame header
    assert 0 < summary["bytes_sent"] <= summary["opened"] * (handshakes + body)  # type: ignore[operator]


def test_huge_lobby_frames_to_a_lobby(lobby_port: int) -> None:
    size, body = 2**40, 2**20
    plan = Attack("127.0.0.1", lobby_port, frames=4, size=size, body=body, duration_s=DURATION_S, lobby=True)
    summary = StrangerProcess(plan).summary()
    assert_adds_up(summary, 4)
    assert summary["lobby"] is True and summary["frames_completed"] == 0 and summary["peer_mechanisms"] == {}
    assert summary["closed_by_peer"] == summary["opened"], "the lobby kept a connection announcing 4 GiB"
    assert 0 < summary["bytes_sent"] <= summary["opened"] * (4 + body)  # type: ignore[operator]


def test_the_command_prints_one_json_summary(lobby_port: int) -> None:
    done = stranger(f"127.0.0.1:{lobby_port}", "--frames", "2", "--size", "100000", "--duration", "2", "--raw")
    assert done.returncode == 0, done
    summary = json.loads(done.stdout)
    assert summary["raw"] is True and summary["target"] == f"127.0.0.1:{lobby_port}"
    assert_adds_up(summary, 2)


def test_a_match_harness_points_the_stranger_at_the_host_mesh_during_the_game() -> None:
    plan = Attack("127.0.0.1", 1, frames=2, size=2**30, body=2**16, duration_s=DURATION_S)
    played = run_match_with_stranger("fishnstones", 3, plan, "mesh", timeout_s=60)
    assert "CURVE" in played.stranger["peer_mechanisms"], played.stranger  # type: ignore[operator]
    assert_adds_up(played.stranger, 2)
    assert played.match.players == 3 and played.to_wire()["stranger"] == played.stranger


def test_a_match_harness_points_the_stranger_at_the_lobby() -> None:
    plan = Attack("127.0.0.1", 1, connections=50, duration_s=DURATION_S)
    played = run_match_with_stranger("fishnstones", 3, plan, "lobby", timeout_s=60)
    assert played.stranger["target"] != "127.0.0.1:1"
    assert_adds_up(played.stranger, 50)


@pytest.mark.parametrize(
    "stranger_flag",
    [
        "nowhere --connections 3",
        "mesh --connections 3 --bogus",
        "mesh --frames 0",
        "",
        "lobby --connections 1 --raw x",
        "lobby --frames 1 --raw --lobby",
    ],
)
def test_match_refuses_a_bad_stranger_at_once_with_one_line(
    capsys: pytest.CaptureFixture[str], stranger_flag: str
) -> None:
    code = main(["match", "fishnstones", "--players", "3", "--stranger", stranger_flag])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err


def test_a_stranger_holding_1500_connections_to_the_host_mesh_costs_the_game_nothing() -> None:
    """More idle connections than a desktop's default open-file limit: each is closed within the handshake
    time, and the game finishes, verified, every peer under 150 MB."""
    plan = Attack("127.0.0.1", 1, connections=1500, duration_s=8.0)
    played = run_match_with_stranger("fishnstones", 3, plan, "mesh", timeout_s=60)
    summary = played.stranger
    assert summary["closed_by_peer"] == summary["opened"] == 1500, summary
    survived = summary["survived_s"]
    assert isinstance(survived, dict) and isinstance(survived["max"], float) and survived["max"] < 5.0, summary
    match = played.match
    assert match.finished and match.agree and match.verified, match
    assert [peer.blamed for peer in match.peers] == [None] * 3
    assert all(peer.peak_rss_mb is not None and peer.peak_rss_mb < 150 for peer in match.peers), match.peers
