"""`p2pfish play` left mid-game (Ctrl-C, y): its bots leave the game with it at once — no bot process waits
minutes for a player who may never come back — and resuming its game starts them again from their stores,
so the game finishes, after which their folder goes."""

import asyncio
import time
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rematch_helpers import GAME_S, record_fronts
from ui_helpers import until

from p2pfish.botpeers import STOP_WITHIN_S, BotPeers
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.net.joincode import new_join_code
from p2pfish.net.node import NodeTimers
from p2pfish.netplay import BotFrontend, PeerOptions, bots_to_resume, resume_game, zmq_context
from p2pfish.playstart import LOOPBACK, reserve_port
from p2pfish.resumable import stored_games
from p2pfish.session.setup import GameSetup
from p2pfish.uiplay import play_local


def test_play_left_mid_game_takes_its_bots_along_and_resume_brings_them_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    fronts = record_fronts(monkeypatch.setattr)
    bots = BotPeers(5)
    with reserve_port() as reservation, create_pipe_input() as pipe:
        port, code = reservation.getsockname()[1], new_join_code()
        bots.open(f"{LOOPBACK}:{port}", code)
        bots.add("greedy")
        bots.add("random")

        async def scenario() -> tuple[int, float]:
            playing = asyncio.ensure_future(play_local(
                "fishfish", bots, port, code, ascii_only=True, name="ann", input=pipe, output=DummyOutput()
            ))  # fmt: skip
            await until(lambda: bool(fronts) and fronts[0]._session is not None, "the game to start", GAME_S)
            pipe.send_text("\x03")
            await until(lambda: fronts[0].app.model.confirm_leave, "the leave box")
            left_at = time.monotonic()
            pipe.send_text("y")
            status = await asyncio.wait_for(playing, GAME_S)
            return status, time.monotonic() - left_at

        try:
            status, took_s = asyncio.run(scenario())
        finally:
            bots.stop()
    assert status == 1 and bots.running() == 0
    assert took_s < STOP_WITHIN_S, f"the bots took {took_s:.1f} s to leave"
    logs = [(bots.workdir / f"bot{index}.log").read_text() for index in (1, 2)]
    assert all("the process that started this bot is gone" in log for log in logs), logs
    (game,) = stored_games()
    options = PeerOptions("ann", "greedy", 1, None, None, None, False, NodeTimers())

    async def resumed() -> int:
        with zmq_context() as context:
            return await resume_game(str(game.path), options, BotFrontend, context=context)

    assert asyncio.run(resumed()) == 0
    assert not bots.workdir.exists() and stored_games() == []


def test_bots_whose_folder_is_gone_are_not_started_again(tmp_path: Path) -> None:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishfish", {}, tuple(s.public_bytes for s in signers), ("ann", "greedy bot 1"))
    seated: list[Json] = [{"seat": 1, "index": 1, "kind": "greedy", "name": "greedy bot 1"}]
    assert bots_to_resume({"folder": str(tmp_path / "gone"), "seed": 1, "bots": seated}, setup) is None
    assert bots_to_resume(None, setup) is None
