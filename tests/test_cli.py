"""The command line: results, JSON keys, determinism, and one-line errors with exit code 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from p2pfish.cli import build_parser
from p2pfish.core.errors import P2pfishError, UsageError
from p2pfish.launcher import main
from p2pfish.tools import bench
from p2pfish.tools.bench.net_figures import FanoutFailed
from p2pfish.tools.cli import add_tool_commands


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_selfplay_json_has_the_promised_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "selfplay", "fishnstones", "--players", "3", "--games", "20", "--seed", "5", "--json")
    assert code == 0
    result = json.loads(out)
    assert {"game", "players", "wins", "mean_score", "games_per_s", "games"} <= set(result)
    assert result["game"] == "fishnstones" and result["players"] == 3 and result["games"] == 20
    assert len(result["wins"]) == 3 and len(result["mean_score"]) == 3
    assert sum(result["wins"]) >= 20


def test_selfplay_same_seed_same_result(capsys: pytest.CaptureFixture[str]) -> None:
    def result(seed: str) -> dict[str, object]:
        argv = ("selfplay", "fishnstones", "--players", "4", "--games", "30", "--bots", "greedy,random", "--json")
        _, out, _ = run(capsys, *argv, "--seed", seed)
        played: dict[str, object] = json.loads(out)
        del played["games_per_s"]
        return played

    assert result("9") == result("9")
    assert result("9")["mean_score"] != result("10")["mean_score"]


def test_selfplay_prints_wins_and_mean_score(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "selfplay", "fishnstones", "--players", "2", "--games", "5", "--bots", "greedy,random")
    assert code == 0
    assert "seat 0 (greedy)" in out and "seat 1 (random)" in out and "mean score" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["selfplay", "chess"], "unknown game 'chess'"),
        (["selfplay", "fishnstones", "--players", "5"], "2-4 players, not 5"),
        (["selfplay", "fishnstones", "--players", "1"], "2-4 players, not 1"),
        (["selfplay", "fishnstones", "--option", "pond=fish:1"], "must sum to 36"),
        (["selfplay", "fishnstones", "--option", "pond"], "key=value"),
        (["selfplay", "fishnstones", "--option", "colour=red"], "unknown fishnstones option"),
        (["selfplay", "fishnstones", "--bots", "genius"], "no 'genius' bot"),
        (["selfplay", "fishnstones", "--games", "0"], "at least 1"),
        (["selfplay", "fishnstones", "--players", "four"], "invalid int value"),
        (["bench", "--only", "nothing_s"], "unknown figure"),
        (["watch", "--bots", "9"], "needs 1-3 bots"),
        (["play"], "play needs a terminal"),
        (["fly"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_bench_json_reports_the_rules_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--only", "rules_games_per_s", "--json")
    assert code == 0
    figures = json.loads(out)
    assert list(figures) == ["rules_games_per_s"]
    assert figures["rules_games_per_s"] > 0


def test_a_figure_that_cannot_be_measured_is_named_and_the_others_still_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    measure = bench.measure

    def failing(name: str) -> float:
        if name == "deck_op_ms":
            raise FanoutFailed("peer 3 exited with status 1: log line one\nlast log line")
        return measure(name)

    monkeypatch.setattr(bench, "measure", failing)
    code, out, err = run(capsys, "bench", "--only", "deck_op_ms,rules_apply_us", "--json")
    assert code == 1
    assert list(json.loads(out)) == ["rules_apply_us"]
    assert err.splitlines() == [
        "p2pfish bench: deck_op_ms could not be measured: FanoutFailed: peer 3 exited with status 1: log line one",
        "  last log line",
    ]


def test_watch_narrates_a_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "watch", "--seed", "4", "--bots", "2")
    assert code == 0
    assert out.count("The pond is filled") == 4 and out.count("   a        b        c") == 4, "the pond is drawn"
    assert "Final scores" in out and "Winner:" in out


@pytest.mark.parametrize("game", ["kunayala", "fishfish", "kingfish"])
def test_watch_narrates_every_game(capsys: pytest.CaptureFixture[str], game: str) -> None:
    code, out, _ = run(capsys, "watch", game, "--seed", "1", "--bots", "1")
    assert code == 0 and "Final scores" in out and "verified" in out


def test_python_dash_m_runs_and_help_lists_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "p2pfish", "--help"], check=False, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0
    for command in ("play", "watch", "host", "join", "lobbies", "resume", "match", "verify", "selfplay", "bench"):
        assert command in done.stdout


def test_identity_is_created_once_under_xdg_config_home(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code, first, _ = run(capsys, "identity")
    assert code == 0 and "fingerprint" in first
    key_file = tmp_path / "p2pfish" / "identity_ed25519.pem"
    assert key_file.exists() and key_file.stat().st_mode & 0o077 == 0
    _, again, _ = run(capsys, "identity")
    assert again == first


def test_an_identity_others_can_read_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    run(capsys, "identity")
    (tmp_path / "p2pfish" / "identity_ed25519.pem").chmod(0o644)
    code, _, err = run(capsys, "identity")
    assert code == 2 and "identity" in err and "Traceback" not in err


def test_a_file_that_is_not_a_store_and_a_bad_folder_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database")
    code, _, err = run(capsys, "resume", str(junk))
    assert code == 2 and "is not a p2pfish game store" in err and len(err.strip().splitlines()) == 1
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    code, _, err = run(capsys, "identity", "--dir", str(a_file / "sub"))
    assert code == 2 and "Not a directory" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["match", "kingfish", "--players", "3", "--bots", "nope"],
        ["match", "kingfish", "--players", "3", "--timeout", "0"],
        ["join", "127.0.0.1:1", "--code", "ABC234", "--wait", "-1", "--bot", "random"],
        ["host", "kingfish", "--port", "99999", "--bot", "random"],
        ["host", "fishnstones", "--bind", "1.2.3.4", "--bot", "random", "--no-discovery"],
    ],
)
def test_a_bad_network_command_line_is_refused_at_once_with_one_line(argv: list[str]) -> None:
    argv = [sys.executable, "-m", "p2pfish", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done


@pytest.mark.parametrize(
    "argv",
    [
        ["selfplay", "chess"],
        ["selfplay", "fishnstones", "--players", "5"],
        ["selfplay", "fishnstones", "--option", "pond=fish:1"],
        ["selfplay", "fishnstones", "--option", "pond"],
        ["selfplay", "fishnstones", "--bots", "genius"],
        ["selfplay", "fishnstones", "--bots", ","],
        ["selfplay", "fishnstones", "--games", "0"],
        ["watch", "chess"],
        ["watch", "--bots", "9"],
        ["bench", "--only", "nothing_s"],
        ["verify", "/nonexistent/transcript.jsonl"],
        ["host", "kingfish", "--port", "99999", "--bot", "random"],
        ["host", "kingfish", "--code", "!!", "--bot", "random"],
        ["host", "kingfish", "--option", "colour=red", "--bot", "random"],
        ["host", "kingfish", "--name", " ", "--bot", "random"],
        ["host", "kingfish", "--bot", "genius"],
        ["host", "kingfish", "--timeout", "0", "--bot", "random"],
        ["host", "fishnstones", "--bind", "1.2.3.4.5", "--bot", "random"],
        ["join", "127.0.0.1:1", "--code", "ABC234", "--wait", "-1", "--bot", "random"],
        ["join", "127.0.0.1:1", "--code", "A", "--bot", "random"],
        ["join", "127.0.0.1", "--code", "ABC234", "--bot", "random"],
        ["resume", "/nonexistent/store.sqlite", "--bot", "random"],
        ["match", "kingfish", "--players", "3", "--bots", "nope"],
        ["match", "kingfish", "--players", "9"],
        ["match", "kingfish", "--players", "3", "--timeout", "0"],
        ["match", "kingfish", "--players", "3", "--cheat", "7:replay"],
        ["match", "kingfish", "--players", "3", "--stranger", "lobby --frames 0"],
    ],
)
def test_a_bad_command_line_raises_a_usage_error_not_malformed_input(argv: list[str], tmp_path: Path) -> None:
    """A value the user typed is a UsageError; MalformedInput stays for what peers and files send."""
    args = build_parser((add_tool_commands,)).parse_args(argv)
    args.variant = None
    with pytest.raises(P2pfishError) as caught:
        args.run(args)
    assert type(caught.value) is UsageError, caught.value


def test_a_bad_join_code_is_its_one_clear_line_before_the_terminal_ui_loads() -> None:
    """The code is checked before the UI loads: prompt_toolkit's "Input is not a terminal" warning never
    comes first."""
    argv = [sys.executable, "-m", "p2pfish", "join", "--code", "BADCODE"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False, stdin=subprocess.DEVNULL)
    expected = (
        "p2pfish: error: a join code is 6 letters and digits like K7P2QX, not 'BADCODE' (codes never hold 0, 1, "
        "I, L or O, which look alike: check the code the host shows)\n"
    )
    assert (done.returncode, done.stderr, done.stdout) == (2, expected, "")
