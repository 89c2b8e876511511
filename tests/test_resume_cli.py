"""A way back a person can find: `p2pfish resume` with no store takes up this user's latest unfinished
game, `resume --list` lists them, and every command p2pfish prints to be typed works as printed."""

import os
import subprocess
import time
from pathlib import Path

import pytest

from p2pfish.cli import main
from p2pfish.crypto.identity import Identity
from p2pfish.invocation import COMMAND_VARIABLE, join_line, p2pfish_command, resume_line
from p2pfish.resumable import stored_games, transcript_beside
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import SqliteStore

SCRIPTS = Path(__file__).parent.parent / "scripts"


def a_store(folder: Path, name: str, names: tuple[str, ...], modified: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    signers = [Identity.from_seed(bytes([seat + 7]) * 32) for seat in range(len(names))]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), names)
    path = folder / name
    store = SqliteStore(path, new=True)
    store.save_setup(setup.to_wire(), 1)
    store.save_secret("net/mesh", {"cards": [], "curve_secret": "", "bot": "", "name": names[1], "seed": None})
    store.close()
    os.utime(path, (modified, modified))
    return path


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path / "p2pfish"


def test_resume_list_shows_the_unfinished_games_newest_first(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    now = time.time()
    old = a_store(state, "aaaa-seat1.sqlite", ("ann", "bob"), now - 3600)
    new = a_store(state, "bbbb-seat1.sqlite", ("cy", "dee", "eve"), now)
    over = a_store(state, "cccc-seat1.sqlite", ("fay", "gus"), now)
    transcript_beside(over).write_text("{}\n")  # a game over: its transcript kept, not to resume
    (state / "notastore.sqlite").write_text("hello")
    assert [game.path for game in stored_games()] == [new, old]
    assert main(["resume", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.index(str(new)) < out.index(str(old)) and str(over) not in out
    assert "fishnstones  seat 1 of 3 (cy, dee, eve)" in out


def test_resume_without_a_store_takes_up_the_latest(
    state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["resume"]) == 2
    assert "no unfinished game under" in capsys.readouterr().err
    a_store(state, "dddd-seat1.sqlite", ("ann", "bob"), time.time())
    assert main(["resume", "--identity-dir", str(tmp_path / "me")]) == 2
    assert "this game was played with another identity" in capsys.readouterr().err  # it took that store


def test_printed_commands_are_the_ones_that_started_p2pfish(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(COMMAND_VARIABLE, "/home/me/p2pfish/scripts/p2pfish")
    assert join_line("10.0.0.5:4000", "K7P2QX") == "/home/me/p2pfish/scripts/p2pfish join 10.0.0.5:4000 --code K7P2QX"
    assert resume_line(Path("/s/a b.sqlite")) == "/home/me/p2pfish/scripts/p2pfish resume '/s/a b.sqlite'"
    monkeypatch.delenv(COMMAND_VARIABLE)
    monkeypatch.setenv("PATH", "/nonexistent")
    command = p2pfish_command()
    assert command != "p2pfish"  # not on PATH: the full path of this installation's program
    done = subprocess.run([*command.split(), "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "resume" in done.stdout


def test_scripts_p2pfish_runs_any_command_and_the_scripts_name_it_as_the_command(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    env.pop(COMMAND_VARIABLE, None)
    done = subprocess.run(
        [str(SCRIPTS / "p2pfish"), "resume", "--list"], capture_output=True, text=True, timeout=120, env=env,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "no unfinished game under" in done.stdout
    for script in ("p2pfish", "play"):  # what they print to be typed again names scripts/p2pfish
        assert (
            f'export {COMMAND_VARIABLE}="${{{COMMAND_VARIABLE}:-$root/scripts/p2pfish}}"'
            in (SCRIPTS / script).read_text()
        )
