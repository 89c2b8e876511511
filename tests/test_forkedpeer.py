"""Bot peers started as copies of this process (forkedpeer.py): the spawner starts each with its own environment,
session and log, holding none of its parents' descriptors; the requesting process follows, signals and waits for
each though it is not its parent; a spawner that is gone or silent is ended and never asked again, and bots then
start as programs. (That a bot leaves when its tether closes is played out with real lobbies: test_play_resume.py,
test_play_bots_leave.py.)"""

import os
import select
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conformance_helpers import wait_for

from p2pfish import forkedpeer
from p2pfish.botpeers import BotPeers
from p2pfish.forkedpeer import ENDED, BotSpawner, can_fork

WAIT_S = 20.0

pytestmark = pytest.mark.skipif(
    not can_fork(allow_threads=True), reason="this process cannot copy itself here (not Linux, or no pidfds)"
)


def start_spawner() -> BotSpawner:
    """A spawner copied from this pytest worker, whose other thread holds nothing the copy uses."""
    spawner = BotSpawner.start(allow_threads=True)
    assert spawner is not None
    return spawner


@pytest.fixture
def spawner() -> Iterator[BotSpawner]:
    started = start_spawner()
    yield started
    started.close(at_once=True)


def lingering_join(port: int, folder: Path) -> list[str]:
    """A bot that keeps trying a lobby that never opens (a port bound, never listening)."""
    return ["join", f"127.0.0.1:{port}", "--code", "ABCDEF", "--bot", "greedy", "--wait", "60", "--identity-dir",
            str(folder)]  # fmt: skip


def open_files(pid: int) -> set[str]:
    """What each descriptor of a process points to (socket:[inode], pipe:[inode], a path)."""
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            found.add(os.readlink(fd))
        except OSError:
            continue
    return found


def test_a_bot_runs_its_command_with_the_environment_and_log_it_was_given(spawner: BotSpawner, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    bot = spawner.spawn(["identity"], env, tmp_path / "bot.log")
    assert bot.wait(WAIT_S) == ENDED
    printed = (tmp_path / "bot.log").read_text()
    assert f"key file    {tmp_path / 'config' / 'p2pfish' / 'identity_ed25519.pem'}" in printed, printed
    assert os.environ.get("XDG_CONFIG_HOME") != env["XDG_CONFIG_HOME"]


def test_a_usage_error_in_a_bot_is_in_its_log(spawner: BotSpawner, tmp_path: Path) -> None:
    bot = spawner.spawn(["join", "127.0.0.1:9"], dict(os.environ), tmp_path / "bot.log")
    assert bot.wait(WAIT_S) == ENDED
    assert "the following arguments are required: --code" in (tmp_path / "bot.log").read_text()


def test_a_bot_holds_no_descriptor_of_its_parents_and_ends_when_terminated(tmp_path: Path) -> None:
    reserved = socket.socket()
    reserved.bind(("127.0.0.1", 0))
    readable, writable = os.pipe()  # made before the spawner: both it and the bot are copies of this process
    inherited = {f"socket:[{os.fstat(reserved.fileno()).st_ino}]", f"pipe:[{os.fstat(writable).st_ino}]"}
    spawner = start_spawner()
    try:
        bot = spawner.spawn(lingering_join(reserved.getsockname()[1], tmp_path / "id"), dict(os.environ),
                            tmp_path / "bot.log")  # fmt: skip
        os.close(writable)
        writable = -1
        ready, _, _ = select.select([readable], [], [], WAIT_S)
        assert ready and os.read(readable, 1) == b"", "the spawner or the bot holds its parent's pipe"
        comm = Path(f"/proc/{bot.pid}/comm")
        wait_for(lambda: comm.read_text().strip() == "p2pfish-bot", WAIT_S, "the bot to take its name")
        assert bot.poll() is None, (tmp_path / "bot.log").read_text()
        assert not inherited & (open_files(bot.pid) | open_files(spawner.pid))
        assert os.getsid(bot.pid) == bot.pid and os.getsid(spawner.pid) == spawner.pid
        assert Path(f"/proc/{spawner.pid}/comm").read_text().strip() == "p2pfish-spawner"
        bot.terminate()
        assert bot.wait(WAIT_S) == ENDED
        bot.kill()  # once it has ended: nothing to signal, and no error
    finally:
        os.close(readable)
        if writable >= 0:
            os.close(writable)
        reserved.close()
        spawner.close(at_once=True)


def test_waiting_on_a_bot_that_does_not_end_times_out_and_kill_ends_it(spawner: BotSpawner, tmp_path: Path) -> None:
    bot = spawner.spawn(lingering_join(9, tmp_path / "id"), dict(os.environ), tmp_path / "bot.log")
    with pytest.raises(subprocess.TimeoutExpired):
        bot.wait(0.05)
    bot.kill()
    assert bot.wait(WAIT_S) == ENDED


def test_the_spawner_ends_by_itself_when_its_requester_lets_go_and_its_bots_stay(tmp_path: Path) -> None:
    spawner = start_spawner()
    bot = spawner.spawn(lingering_join(9, tmp_path / "id"), dict(os.environ), tmp_path / "bot.log")
    assert spawner.close(), "the spawner had to be killed"
    assert bot.poll() is None
    bot.kill()
    assert bot.wait(WAIT_S) == ENDED


def test_a_spawner_that_does_not_answer_is_ended_and_never_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forkedpeer, "ANSWER_WITHIN_S", 0.3)
    spawner = start_spawner()
    os.kill(spawner.pid, signal.SIGSTOP)
    with pytest.raises(OSError):
        spawner.spawn(lingering_join(9, tmp_path / "id"), dict(os.environ), tmp_path / "bot.log")
    assert not Path(f"/proc/{spawner.pid}").exists(), "the silent spawner lives on (it could start the bot late)"
    with pytest.raises(OSError):
        spawner.spawn(["identity"], dict(os.environ), tmp_path / "again.log")
    assert not (tmp_path / "again.log").exists()


def test_bots_start_as_programs_once_their_spawner_is_gone(tmp_path: Path) -> None:
    spawner = start_spawner()
    os.kill(spawner.pid, signal.SIGKILL)
    os.waitpid(spawner.pid, 0)
    bots = BotPeers(1, workdir=tmp_path, spawner=spawner)
    bots.open("127.0.0.1:9", "ABCDEF")
    try:
        bots.add("greedy")
        assert bots.spawner is None
        assert isinstance(bots.processes[0], subprocess.Popen)
    finally:
        bots.stop()
