"""`host --bots N` seats bot peers of this machine in the host's lobby; headless peers tell the true seat
count; `host` of an unknown game names the games there are."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pfish.botpeers import STALE_AFTER_S, sweep_stale_folders
from p2pfish.cli import main
from p2pfish.games.registry import games
from p2pfish.netplay import host_endpoint

CODE = "BTS234"


def test_host_with_bots_fills_the_table_and_a_headless_joiner_counts_the_seats_right(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "PYTHONUNBUFFERED": "1"}
    peer = [sys.executable, "-m", "p2pfish"]
    host = subprocess.Popen(
        [*peer, "host", "fishnstones", "--players", "3", "--bots", "1", "--bot", "greedy", "--code", CODE,
         "--no-discovery", "--bind", "127.0.0.1", "--name", "ann", "--identity-dir", str(tmp_path / "ann")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        assert host.stdout is not None
        first = host.stdout.readline()
        address = re.fullmatch(r"LOBBY (\S+) CODE \S+\n", first)
        assert address is not None, first
        joined = subprocess.run(
            [*peer, "join", address[1], "--code", CODE, "--bot", "random", "--name", "bob",
             "--identity-dir", str(tmp_path / "bob")],
            capture_output=True, text=True, timeout=120, env=env, check=False,
        )  # fmt: skip
        host.wait(60)
        hosted = host.stdout.read()
    finally:
        host.kill()
    assert joined.returncode == 0, joined.stdout + joined.stderr
    assert host.returncode == 0, hosted
    assert "to join: " in hosted and f"join {address[1]} --code {CODE}" in hosted
    assert re.search(r"greedy bot 1 joined \([23]/3\)", hosted), hosted
    assert "waiting for -1" not in joined.stdout and "/0)" not in joined.stdout
    assert re.search(r"lobby: ann, \w.* \([23]/3\)", joined.stdout), joined.stdout
    assert not list(Path(tmp_path / "state").glob("*.sqlite")), "a finished game's store is left behind"


def test_host_of_an_unknown_game_lists_the_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["host", "nosuchgame"]) == 2
    err = capsys.readouterr().err
    assert "unknown game 'nosuchgame'" in err and all(game.id in err for game in games()), err
    assert "terminal UI" not in err


def test_host_refuses_more_bots_than_free_seats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["host", "fishnstones", "--players", "2", "--bots", "2"]) == 2
    assert "--bots must be 0 to 1" in capsys.readouterr().err


def test_stale_bot_folders_are_swept_and_fresh_ones_kept(tmp_path: Path) -> None:
    now = time.time()
    stale, fresh, other = tmp_path / "p2pfish-bots-old", tmp_path / "p2pfish-bots-new", tmp_path / "something"
    for folder in (stale, fresh, other):
        (folder / "state").mkdir(parents=True)
        (folder / "state" / "bot1.log").write_text("x")
    for folder in (stale, other):
        for path in (folder / "state" / "bot1.log", folder / "state", folder):
            os.utime(path, (now - 2 * STALE_AFTER_S, now - 2 * STALE_AFTER_S))
    assert sweep_stale_folders(tmp_path, now) == [stale]
    assert not stale.exists() and fresh.exists() and other.exists()


def test_a_joiner_reaches_the_host_mesh_where_it_reached_its_lobby() -> None:
    card = "tcp://192.168.1.20:40001"
    assert host_endpoint(card, "10.42.0.1") == "tcp://10.42.0.1:40001"  # the cable beside the Wi-Fi
    assert host_endpoint(card, "127.0.0.1") == card
    assert host_endpoint(card, "lobby.example") == card
    assert host_endpoint(card, "") == card
