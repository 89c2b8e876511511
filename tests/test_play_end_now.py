"""A bot of `p2pfish play` dies mid-game: the screen offers to end the game now without it, one key (e) ends
it with the scores so far once the other bot agrees (PROTOCOL §10.8), and the summary printed on leaving says
so, with a transcript that verifies as that early end. Run in tmux: a real terminal, real bot processes."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_helpers import wait_for
from test_play_resume import alive, bots_under

from p2pfish.games.registry import get_rules
from p2pfish.session.audit import audit

WAIT_S = 60.0
OFFER = "e: end the game now without"
START = "choosing the start player"


def test_a_dead_bot_is_left_behind_in_one_key_press_with_the_scores_so_far(tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    tmux = ["tmux", "-L", f"p2pfish-endnow-{os.getpid()}"]
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "PYTHONUNBUFFERED": "1"}
    play = f"'{sys.executable}' -m p2pfish play fishnstones --bots 2 --seed 4; echo EXITED $?; sleep 60"
    subprocess.run([*tmux, "new-session", "-d", "-x", "120", "-y", "40", play], env=env, check=True, timeout=10)

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-J"], capture_output=True, text=True, check=False).stdout

    def keys(*typed: str) -> None:
        subprocess.run([*tmux, "send-keys", *typed], check=False, timeout=10)

    bots: list[int] = []
    try:
        # The bot dies once it has played (the start player is drawn from every seat's share): a seat that
        # never sent a message cannot be named gone, and no early end is offered without it.
        wait_for(lambda: "Round 1/4" in screen() and START not in screen(), WAIT_S, "the start player's draw")
        pane = subprocess.run([*tmux, "display", "-p", "#{pane_pid}"], capture_output=True, text=True, check=True)
        bots = bots_under(int(pane.stdout))
        assert len(bots) == 2, bots
        os.kill(bots[0], signal.SIGKILL)

        def offered() -> bool:
            shown = screen()
            if OFFER in shown:
                return True
            if "Your move" in shown:
                keys("Enter")
            return False

        wait_for(offered, WAIT_S, "the offer to end the game without the dead bot")
        keys("e")
        wait_for(lambda: "Game over" in screen(), WAIT_S, "the early end")
        keys("q")
        wait_for(lambda: "EXITED" in screen(), WAIT_S, "play to exit")
        printed = screen()
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, timeout=10)
        for pid in bots:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert "EXITED 0" in printed and "Ended early without" in printed, printed
    transcript = Path(printed.split("Transcript: ", 1)[1].split(" (check it", 1)[0])
    result = audit(transcript.read_bytes().splitlines(), get_rules("fishnstones"))
    assert result.settlement is not None and len(result.settlement.signers) == 2
