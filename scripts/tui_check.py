"""Drives the real `p2pfish play` in tmux — real terminal, real bot processes, real network — for every
game at 80x24 and 160x48, and checks what the screen shows at each step, always by polling the pane
(capture-pane) until what it waits for shows or a deadline passes, never by sleeping and hoping.

Checked for each game and size: the moves are counted and under them the key hints; the log has a
readable width; help opens on ? and closes on Esc; an unknown command says what is possible; Enter
plays the picked move until the end; the end screen states the tie-break; q leaves it, printing the
scores, the winner and the transcript's path, with exit status 0. Then one game under LC_ALL=C with
--ascii: nothing but ASCII on the screen, no "????"; and a rematch: `r` on the end screen starts a second
game with the same bots, played to its end too.

Run: .venv/bin/python scripts/tui_check.py [GAME ...] [--sizes 80x24,160x48]
Exits 0 when every check passed, 1 with the failing screen otherwise; skips (exit 0) without tmux."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

SESSION = "p2pfish-tui-check"
STEP_S = 60.0
"""The longest wait for one step to show (bots, shuffles and the audit included)."""
GAME_S = 600.0
"""The longest a whole game may take to reach its end screen."""
POLL_S = 0.2
GAMES = ("fishnstones", "kunayala", "fishfish", "kingfish")
TOLD = ("joint randomness", "is turned up", "is dealt", "casts a new line", "passes", "Ponds: ", "pond is filled")
"""Words of the log's first lines in some game (the log shows its newest lines)."""
BOTS = {"fishnstones": 3, "kunayala": 2, "fishfish": 2, "kingfish": 2}


class Failed(Exception):
    pass


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def keys(*typed: str) -> None:
    tmux("send-keys", "-t", SESSION, *typed)


def wait_for(check: Callable[[str], bool], what: str, seconds: float = STEP_S) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        shown = screen()
        if check(shown):
            print(f"ok   {what}")
            return shown
        time.sleep(POLL_S)
    raise Failed(f"FAIL {what}\n{screen()}")


def start(command: str, columns: int, rows: int, env: dict[str, str]) -> None:
    tmux("kill-session", "-t", SESSION)
    exports = " ".join(f"{key}={value}" for key, value in env.items())
    shell = f"env {exports} {command}; echo EXIT=$?; sleep 600"
    deadline = time.monotonic() + STEP_S
    # killing the last session stops the tmux server: a new session asked for meanwhile may not start
    while subprocess.run(["tmux", "has-session", "-t", SESSION], capture_output=True, check=False).returncode:
        if time.monotonic() > deadline:
            raise Failed("FAIL tmux starts a session")
        tmux("new-session", "-d", "-s", SESSION, "-x", str(columns), "-y", str(rows), shell)
        time.sleep(POLL_S)


def play_one(game: str, columns: int, rows: int, state: str) -> None:
    print(f"--- {game} at {columns}x{rows}")
    bots = BOTS[game]
    start(f"{sys.executable} -m p2pfish play {game} --seed 5 --bots {bots}", columns, rows, {"XDG_STATE_HOME": state})
    shown = wait_for(lambda s: "Your move: 1 of " in s, "the first move is offered, with the count of moves")
    lines = shown.rstrip("\n").split("\n")
    if "? help" not in lines[-1]:
        raise Failed(f"FAIL the key hints stand in the last row\n{shown}")
    print("ok   the key hints stand in the last row")
    if columns >= 110 and "What happened" not in shown:
        raise Failed(f"FAIL the log has its own column\n{shown}")
    if not any(told in shown for told in TOLD):
        raise Failed(f"FAIL the log tells the first events\n{shown}")
    print("ok   the log is on the screen")
    keys("?")
    wait_for(lambda s: "Help" in s and "Ctrl-C" in s, "help opens on ?")
    keys("Escape")
    wait_for(lambda s: "Keys (Esc closes" not in s, "Esc closes help")
    keys("fly away", "Enter")
    wait_for(lambda s: "unknown command 'fly'" in s, "an unknown command says what is possible")
    shown = play_to_the_end()
    if "tie" not in shown:
        raise Failed(f"FAIL the end screen states the tie-break\n{shown}")
    print("ok   the end screen states the tie-break")
    keys("q")
    wait_for(lambda s: "Winner: " in s and "Transcript: " in s and "EXIT=0" in s,
             "q leaves, printing the scores, the winner and the transcript; exit status 0")  # fmt: skip


def play_to_the_end() -> str:
    """Enter on each move offered until the end screen, which it returns."""
    deadline = time.monotonic() + GAME_S
    while time.monotonic() < deadline:
        shown = screen()
        if "The end" in shown:
            break
        if "Your move: " in shown:
            keys("Enter")
            wait_for(lambda s, before=shown: s != before, "the move is played", STEP_S)
        else:
            time.sleep(POLL_S)
    return wait_for(lambda s: "The end" in s and "verified" in s, "the end screen shows the audit")


def rematch_one(state: str) -> None:
    print("--- a rematch of fishfish at 80x24")
    start(f"{sys.executable} -m p2pfish play fishfish --seed 5 --bots 1", 80, 24, {"XDG_STATE_HOME": state})
    shown = play_to_the_end()
    if "r rematch with the same bots" not in shown:
        raise Failed(f"FAIL the end screen offers a rematch\n{shown}")
    print("ok   the end screen offers a rematch")
    keys("r")
    wait_for(lambda s: "The end" not in s and ("Your move: " in s or "Waiting" in s), "r starts a second game")
    play_to_the_end()
    keys("q")
    wait_for(lambda s: s.count("Winner: ") == 2 and "EXIT=0" in s, "q leaves after the rematch; exit status 0")


def ascii_one(state: str) -> None:
    print("--- fishnstones at 80x24 under LC_ALL=C with --ascii")
    env = {"XDG_STATE_HOME": state, "LC_ALL": "C", "LANG": "C"}
    start(f"{sys.executable} -m p2pfish play fishnstones --seed 5 --bots 1 --ascii", 80, 24, env)
    shown = wait_for(lambda s: "Your move: 1 of " in s, "the first move is offered")
    if not shown.isascii() or "??" in shown:
        raise Failed(f"FAIL nothing but ASCII on the screen\n{shown}")
    print("ok   nothing but ASCII on the screen")
    keys("C-c")
    wait_for(lambda s: "Leave the game?" in s, "Ctrl-C asks first")
    keys("y")
    wait_for(lambda s: "EXIT=" in s, "y leaves")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--sizes", default="80x24,160x48")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("skipped: tmux is not installed (apt-get install tmux)")
        return
    sizes = [tuple(int(n) for n in size.split("x")) for size in args.sizes.split(",")]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="p2pfish-tui-") as state:
        os.chmod(state, 0o700)
        try:
            for game in args.games:
                for columns, rows in sizes:
                    try:
                        play_one(game, columns, rows, state)
                    except Failed as failure:
                        failures += 1
                        print(failure)
            for check in (ascii_one, rematch_one):
                try:
                    check(state)
                except Failed as failure:
                    failures += 1
                    print(failure)
        finally:
            tmux("kill-session", "-t", SESSION)
    print("all checks passed" if not failures else f"{failures} runs failed")
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
