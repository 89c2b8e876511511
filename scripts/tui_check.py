"""Drives the real `p2pfish play` in tmux — real terminal, real bot processes, real network — for every
game at 80x24 and 160x48, and checks what the screen shows at each step, always by polling the pane
(capture-pane) until what it waits for shows or a deadline passes, never by sleeping and hoping.

Checked for each game and size: the moves are counted and under them the key hints; Down reaches
every move of the first decision, the count following; the board, in the width of its panel, shows
every player's name whole (a 20-character one, and the bots' names alike but for their numbers); the
log has a readable width; help opens on ? and closes on Esc; an unknown command says what is possible;
Enter plays the picked move until the end; the end screen's recap lists every round and states the
tie-break; q leaves it, printing the scores, the winner and the transcript's path, with exit status 0.
Then one game under LC_ALL=C with --ascii: nothing but ASCII on the screen, no "????"; and a rematch:
`r` on the end screen starts a second game with the same bots, played to its end too.

Run: .venv/bin/python scripts/tui_check.py [GAME ...] [--sizes 80x24,160x48]
Exits 0 when every check passed, 1 with the failing screen otherwise; skips (exit 0) without tmux."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

SESSION = f"p2pfish-tui-check-{os.getpid()}"
"""One session per run: two runs at once (two worktrees) do not drive each other's screen."""
STEP_S = 60.0
"""The longest wait for one step to show (bots, shuffles and the audit included)."""
GAME_S = 600.0
"""The longest a whole game may take to reach its end screen."""
POLL_S = 0.2
GAMES = ("fishnstones", "kunayala", "fishfish", "kingfish")
TOLD = (
    "joint randomness",
    "is the first",
    "deals first",
    "is turned up",
    "is dealt",
    "casts a new line",
    "passes",
    "Ponds: ",
    "pond is filled",
)
"""Words of the log's first lines in some game (the log shows its newest lines)."""
BOTS = {"fishnstones": 3, "kunayala": 2, "fishfish": 2, "kingfish": 2}
PLAYER = "Bartholomew Fishingt"
"""The player's name (the login name, 20 characters at most): as long as a name gets."""
BOARD_ROWS = 12
"""The screen's rows under the title that hold the board at every size (and the names on it)."""


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


def panel(columns: int) -> int:
    """The width of the board's panel (p2pfish.ui.layout.panel_columns: this script imports nothing of p2pfish)."""
    return columns if columns < 110 else max(66, min(columns - 44, columns * 11 // 20))


def check_names(shown: str, columns: int, bots: int) -> None:
    """Every player's name whole on the board, in its panel's width."""
    board = "\n".join(row[: panel(columns)] for row in shown.split("\n")[1 : 1 + BOARD_ROWS])
    names = [PLAYER] + [f"{'greedy' if seat % 2 else 'random'} bot {seat}" for seat in range(1, bots + 1)]
    missing = [name for name in names if name not in board]
    if missing:
        raise Failed(f"FAIL every name whole on the board; missing {missing}\n{shown}")
    print("ok   every name whole on the board")


def check_every_move(shown: str) -> None:
    """Down walks through every move of the decision, the count following it; Up walks back."""
    found = re.search(r"Your move: 1 of (\d+) ", shown)
    if found is None:
        raise Failed(f"FAIL the moves are counted\n{shown}")
    count = int(found.group(1))
    for number in range(2, count + 1):
        keys("Down")
        wait_for(lambda s, n=number: f"Your move: {n} of {count} " in s, f"Down reaches move {number} of {count}")
    for number in range(count - 1, 0, -1):
        keys("Up")
        wait_for(lambda s, n=number: f"Your move: {n} of {count} " in s, f"Up goes back to move {number}")


def check_recap(shown: str, rounds: int) -> None:
    """The end screen lists every round (r1, r2... or round 1, round 2...)."""
    listed = {int(number) for number in re.findall(r"\b(?:r|round )(\d)\b", shown)}
    if rounds and not set(range(1, rounds + 1)) <= listed:
        raise Failed(f"FAIL the recap lists all {rounds} rounds (found {sorted(listed)})\n{shown}")
    print(f"ok   the recap lists all {rounds} rounds" if rounds else "ok   a game of one round: its recap")


def play_one(game: str, columns: int, rows: int, state: str) -> None:
    print(f"--- {game} at {columns}x{rows}")
    bots = BOTS[game]
    env = {"XDG_STATE_HOME": state, "LOGNAME": f"'{PLAYER}'"}
    start(f"{sys.executable} -m p2pfish play {game} --seed 5 --bots {bots}", columns, rows, env)
    shown = wait_for(lambda s: "Your move: 1 of " in s, "the first move is offered, with the count of moves")
    rounds = re.search(r"Round \d+ ?(?:/|of) ?(\d)", shown)
    check_names(shown, columns, bots)
    check_every_move(shown)
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
    check_recap(shown, int(rounds.group(1)) if rounds else 0)
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
