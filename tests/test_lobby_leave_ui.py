"""The terminal UI's lobby: Ctrl-C then y (or `quit` then y) ends the process at once and tells the lobby.
A host that leaves closes it for its joiners and bots; a joiner that leaves frees its seat; the leave box
speaks of the lobby, not of `resume` (no game exists yet)."""

import asyncio
import os
from pathlib import Path

import pytest
from conformance_helpers import wait_for
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from ui_helpers import until

from p2pfish.botpeers import BotPeers
from p2pfish.net.node import NodeTimers
from p2pfish.netplay import PeerOptions, host_game, join_game, zmq_context
from p2pfish.tools.events import text_field
from p2pfish.tools.match import PeerProcess
from p2pfish.uiplay import UiFrontend

CODE = "KAN234"
WAIT_S = 20.0


def shown(front: UiFrontend) -> str:
    return "".join(part[1] for part in front.app._confirm_text())


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


def headless(tmp_path: Path, env: dict[str, str], name: str, *argv: str) -> PeerProcess:
    common = ["--bot", "random", "--name", name, "--identity-dir", str(tmp_path / name), "--json"]
    return PeerProcess(0, [*argv, *common], tmp_path / f"{name}.log", env)


def test_a_host_who_leaves_its_lobby_ends_at_once_and_its_joiners_and_bots_go_too(
    tmp_path: Path, env: dict[str, str]
) -> None:
    options = PeerOptions("ann", "", 1, str(tmp_path / "ann"), None, None, False, NodeTimers())
    bots = BotPeers(1)

    async def scenario(front: UiFrontend, pipe: PipeInput) -> int:
        with zmq_context() as context:
            hosting = asyncio.ensure_future(host_game(
                "fishnstones", 4, game_options={}, bind_host="127.0.0.1", port=0, code=CODE, advertise=False,
                options=options, front=front, context=context, bots=bots, fill=0,
            ))  # fmt: skip
            await until(lambda: front._lobby is not None, "the lobby to open", WAIT_S)
            assert front._lobby is not None
            joiner = headless(tmp_path, env, "bob", "join", front._lobby.address, "--code", CODE)
            try:
                await until(lambda: front._lobby is not None and len(front._lobby.players) == 2, "bob's seat", WAIT_S)
                pipe.send_text("+")  # the host's key that seats a bot
                await until(lambda: front._lobby is not None and len(front._lobby.players) == 3, "a bot's seat", WAIT_S)
                assert front._lobby.players[2] == "greedy bot 1"
                assert front._lobby.join_line.endswith(f"join {front._lobby.address} --code {CODE}")
                pipe.send_text("quit\r")
                await until(lambda: front.app.model.confirm_leave, "the leave box", WAIT_S)
                assert "lobby" in shown(front) and "resume" not in shown(front)
                pipe.send_text("y")
                status = await asyncio.wait_for(hosting, 10)
                joiner.process.wait(10)
            finally:
                joiner.stop()
        assert "the host closed the lobby: the host left" in joiner.log.read_text()
        assert joiner.process.returncode != 0
        return status

    with create_pipe_input() as pipe:
        front = UiFrontend(options, ascii_only=True, input=pipe, output=DummyOutput(), bots=bots)
        assert asyncio.run(scenario(front, pipe)) == 0
    wait_for(lambda: bots.running() == 0, 10, "the bots to exit")


def test_a_joiner_who_leaves_its_lobby_ends_at_once_and_its_seat_is_free_again(
    tmp_path: Path, env: dict[str, str]
) -> None:
    host = headless(tmp_path, env, "ann", "host", "fishnstones", "--players", "3", "--code", CODE, "--no-discovery")
    options = PeerOptions("bob", "", 1, str(tmp_path / "bob"), None, None, False, NodeTimers())
    try:
        address = text_field(host.event("lobby", WAIT_S), "address")

        async def scenario(front: UiFrontend, pipe: PipeInput) -> int:
            with zmq_context() as context:
                joining = asyncio.ensure_future(join_game(address, CODE, options, 600, front, context=context))
                await until(lambda: front._lobby is not None and len(front._lobby.players) == 2, "bob's seat", WAIT_S)
                assert front._lobby is not None
                assert (front._lobby.wanted, front._lobby.title) == (3, "Fish'n'Stones")
                pipe.send_text("\x03")
                await until(lambda: front.app.model.confirm_leave, "the leave box", WAIT_S)
                assert "resume" not in shown(front)
                pipe.send_text("y")
                return await asyncio.wait_for(joining, 10)

        with create_pipe_input() as pipe:
            front = UiFrontend(options, ascii_only=True, input=pipe, output=DummyOutput())
            assert asyncio.run(scenario(front, pipe)) == 0
        wait_for(lambda: "bob left (1/3)" in host.log.read_text(), WAIT_S, "the host to see bob leave")
    finally:
        host.stop()
