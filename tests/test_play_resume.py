"""A host with bot peers (`host --bots`, as `p2pfish play` starts them) killed in a terminal: its bots leave
the game at once (they are tethered to it: nobody is left running for minutes), and `p2pfish resume` of the
host's game starts them again from their stores, with the same identities, and finishes the game; then the
bots exit and their folder goes. Run in tmux, the host the pane's own process."""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_helpers import wait_for

from p2pfish.core.wire import Json
from p2pfish.net.joincode import new_join_code
from p2pfish.tools.events import parse_event

CODE = new_join_code()
"""Each run its own: the test finds its bots by their code among every process of the machine."""
WAIT_S = 30.0
LEAVE_S = 10.0
"""A bot leaves within this of its host's death (a moment, on a busy machine)."""


def events(path: Path) -> list[dict[str, Json]]:
    found = []
    for line in path.read_text().splitlines() if path.exists() else []:
        event = parse_event(line)
        if event is not None:
            found.append(event)
    return found


def bot_folder(pid: int) -> Path | None:
    """The temporary folder of a bot process (where its log, its standard output, is)."""
    with contextlib.suppress(OSError):
        return Path(os.readlink(f"/proc/{pid}/fd/1")).parent
    return None


def parent_of(pid: int) -> int:
    with contextlib.suppress(OSError, IndexError, ValueError):
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return -1


def bots_under(ancestor: int) -> list[int]:
    """The bot peers a process started (forkedpeer.py names each p2pfish-bot; their parent is its spawner)."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "p2pfish-bot":
                pid = line = int(entry.name)
                while line > 1 and line != ancestor:
                    line = parent_of(line)
                if line == ancestor:
                    found.append(pid)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_host_killed_in_a_terminal_takes_its_bots_along_and_its_resume_brings_them_back(tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    socket = f"p2pfish-resume-{os.getpid()}"
    out = tmp_path / "host.out"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "PYTHONUNBUFFERED": "1"}
    host = [
        sys.executable, "-m", "p2pfish", "host", "fishnstones", "--players", "3", "--bots", "2", "--bot", "greedy",
        "--code", CODE, "--bind", "127.0.0.1", "--no-discovery", "--identity-dir", str(tmp_path / "host"), "--json",
    ]  # fmt: skip
    command = "exec " + " ".join(f"'{word}'" for word in host) + f" > '{out}' 2> '{tmp_path / 'host.err'}'"
    tmux = ["tmux", "-L", socket]
    subprocess.run([*tmux, "new-session", "-d", "-x", "80", "-y", "24", command], env=env, check=True, timeout=10)
    bots: list[int] = []
    folders: list[Path | None] = []
    try:
        wait_for(lambda: any(e["event"] == "started" for e in events(out)), WAIT_S, "the game to start")
        started = next(e for e in events(out) if e["event"] == "started")
        pane = subprocess.run([*tmux, "display", "-p", "#{pane_pid}"], capture_output=True, text=True, check=True)
        host_pid = int(pane.stdout)
        bots = bots_under(host_pid)
        assert len(bots) == 2, bots
        folders += [bot_folder(pid) for pid in bots]
        os.kill(host_pid, signal.SIGKILL)
        wait_for(lambda: not alive(host_pid), 10, "the host to die")
        subprocess.run([*tmux, "kill-server"], check=False, timeout=10)  # the terminal goes too
        wait_for(lambda: not any(alive(pid) for pid in bots), LEAVE_S, "the bots to leave with their host")
        logs = [(folder / f"bot{index}.log").read_text() for folder in {*folders} if folder for index in (1, 2)]
        assert all("the process that started this bot is gone" in log for log in logs), "\n=====\n".join(logs)
        resumed = subprocess.run(
            [sys.executable, "-m", "p2pfish", "resume", str(started["store"]), "--identity-dir",
             str(tmp_path / "host"), "--json"],
            capture_output=True, text=True, timeout=120, env=env, check=False,
        )  # fmt: skip
        result = parse_event(resumed.stdout.strip().splitlines()[-1]) if resumed.stdout.strip() else None
        assert result is not None and result["finished"], resumed.stderr
        assert all(folder is not None and not folder.exists() for folder in folders), "the bots' folder stayed"
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, timeout=10)
        for pid in bots:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        for folder in {folder for folder in folders if folder is not None}:  # the resumed host cannot know it
            shutil.rmtree(folder, ignore_errors=True)
