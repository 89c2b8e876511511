"""`p2pfish match --cheat SEAT:KIND` over the network: real peer processes on loopback, one of them
hostile; the command exits 0 only when every honest peer named the cheat with the evidence. The whole
matrix (every kind in every game) runs in scripts/cheat-matrix; here a few kinds that only a network
shows: a forged signature (blamed on the link it came by), a withheld reveal (a live peer that stays
quiet), a marked deck (blamed at the first locker's pass, before any deal), and a host that starts an
earlier game's table again (refused by every joiner)."""

import json
import subprocess
import sys

import pytest

CASES = [
    ("fishnstones", 3, "2:forged-signature"),
    ("kunayala", 3, "1:withhold-reveal"),
    ("kingfish", 3, "0:marked-deck"),
    ("fishnstones", 2, "0:reused-game"),
]


@pytest.mark.parametrize(("game", "players", "cheat"), CASES)
def test_a_cheating_peer_is_named_by_every_honest_peer(game: str, players: int, cheat: str) -> None:
    argv = [sys.executable, "-m", "p2pfish", "match", game, "--players", str(players), "--cheat", cheat, "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=150, check=False)
    assert done.returncode == 0, done
    result = json.loads(done.stdout)
    seat, kind = cheat.split(":")
    assert result["detected"] is True and result["blamed"] == int(seat) and result["kind"] == kind, result
    assert result["finished"] is False and result["problems"] == []
    honest = [fault for fault in result["faults"] if fault["seat"] == int(seat)]
    assert len(honest) >= players - 1
    if kind == "marked-deck":
        assert result["before_first_deal"] is True, result
    honest_peers = [peer for peer in result["peers"] if peer["honest"]]
    assert len(honest_peers) == players - 1 and int(seat) not in [peer["seat"] for peer in honest_peers], result
    assert all(peer["blamed"] == int(seat) and 0 < peer["peak_rss_mb"] < 150 for peer in honest_peers), result


def test_a_bad_cheat_is_refused_with_one_line() -> None:
    for cheat in ("5:replay", "1:lie", "1:wrong-card-key"):
        argv = [sys.executable, "-m", "p2pfish", "match", "fishnstones", "--players", "3", "--cheat", cheat]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done


@pytest.mark.parametrize(("game", "cheat"), [("fishnstones", "1:big-frame"), ("kingfish", "2:escape-name")])
def test_an_attack_on_the_peers_processes_costs_them_nothing(game: str, cheat: str) -> None:
    """Eight 64 MiB frames, or a name of terminal escapes: every honest peer finishes the game (or names the
    cheat), blames no honest seat, stays under 150 MB and prints no control character."""
    argv = [sys.executable, "-m", "p2pfish", "match", game, "--players", "3", "--cheat", cheat, "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=150, check=False)
    assert done.returncode == 0, done
    result = json.loads(done.stdout)
    assert result["detected"] is True and result["problems"] == [], result
    seat = int(cheat.split(":", maxsplit=1)[0])
    honest_peers = [peer for peer in result["peers"] if peer["honest"]]
    assert len(honest_peers) == 2 and all(peer["blamed"] in (None, seat) for peer in honest_peers), result
    assert all(0 < peer["peak_rss_mb"] < 150 for peer in honest_peers), result
