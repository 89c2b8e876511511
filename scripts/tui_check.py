"""Drives the real `p2pfish play` in tmux — real terminal, real bot processes, real network — and
checks what the screen shows at each step. Run: .venv/bin/python scripts/tui_check.py
Exits 0 when every check passed, 1 with the failing screen otherwise; skips (exit 0) without tmux."""

import shutil
import subprocess
import sys
import time
from collections.abc import Callable

SESSION = "p2pfish-tui-check"
TIMEOUT_S = 30.0


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def wait_for(check: Callable[[str], bool], what: str) -> str:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        shown = screen()
        if check(shown):
            print(f"ok   {what}")
            return shown
        time.sleep(0.2)
    print(f"FAIL {what}\n{screen()}")
    raise SystemExit(1)


def main() -> None:
    if shutil.which("tmux") is None:
        print("skipped: tmux is not installed (apt-get install tmux)")
        return
    tmux("kill-session", "-t", SESSION)
    command = f"{sys.executable} -m p2pfish play --seed 5 --bots 3; sleep 5"
    tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40", command)
    try:
        wait_for(lambda s: "Your move" in s and "cast the cat in column 1 (a1 a2 a3)" in s, "the first move is offered")
        shown = screen()
        for expected in ("Round 1/4", "What happened", "The pond is filled", "greedy bot 1", "random bot 2"):
            assert expected in shown, f"{expected!r} missing:\n{shown}"
        print("ok   the board, the shores and the log are drawn")
        tmux("send-keys", "-t", SESSION, "?")
        wait_for(lambda s: "Keys" in s and "Ctrl-C" in s, "help opens on ?")
        tmux("send-keys", "-t", SESSION, "Escape")
        wait_for(lambda s: "Keys" not in s, "Esc closes help")
        tmux("send-keys", "-t", SESSION, "cast 2", "Enter")
        wait_for(lambda s: "Your cat (only you see it): column 2" in s, "a typed cast shows your secret column")
        tmux("send-keys", "-t", SESSION, "fly away", "Enter")
        wait_for(lambda s: "unknown command 'fly'" in s, "an unknown command says what is possible")
        for _ in range(200):  # Enter only when a move is asked for: on the end screen it would quit
            shown = screen()
            if "Final scores" in shown:
                break
            if "Your move" in shown:
                tmux("send-keys", "-t", SESSION, "Enter")
            time.sleep(0.3)
        wait_for(lambda s: "Final scores" in s and "verified" in s, "the end screen shows scores and the audit")
        tmux("send-keys", "-t", SESSION, "q")
        wait_for(lambda s: "Final scores" not in s, "q leaves the end screen")
    finally:
        tmux("kill-session", "-t", SESSION)
    print("all checks passed")


if __name__ == "__main__":
    main()
