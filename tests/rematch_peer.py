"""A player at the terminal UI, headless, in a process of its own, for test_rematch.py: it hosts (or joins) a
Fish Fish table on 127.0.0.1, presses Enter on each of its turns and, on each end screen, the next of KEYS
(`r` a rematch, `q` leave).

    python rematch_peer.py host NAME KEYS CODE PLAYERS START_WITH   # START_WITH: a rematch starts with so many
    python rematch_peer.py join NAME KEYS CODE ADDRESS

It prints JSON lines: `{"lobby": HOST:PORT}` once its lobby is open (a host), then `{"status": N}` at the end.
Its store and identity live under $XDG_STATE_HOME and $XDG_CONFIG_HOME."""

import asyncio
import json
import sys

from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rematch_helpers import GAME_S, play_game, record_fronts
from ui_helpers import until

from p2pfish.net.node import NodeTimers
from p2pfish.netplay import PeerOptions, host_game, join_game, zmq_context
from p2pfish.uiplay import UiFrontend


async def host(front: UiFrontend, fronts: list[UiFrontend], pipe: PipeInput, argv: list[str]) -> int:
    keys, code, players, start_with = argv[2:]
    with zmq_context() as context:
        hosting = asyncio.ensure_future(host_game(
            "fishfish", int(players), game_options={}, bind_host="127.0.0.1", port=0, code=code, advertise=False,
            options=front.options, front=front, context=context,
        ))  # fmt: skip
        await until(lambda: front._lobby is not None, "the lobby to open", GAME_S)
        assert front._lobby is not None
        print(json.dumps({"lobby": front._lobby.address}), flush=True)
        for number, key in enumerate(keys):
            await play_game(fronts, number, pipe, key)
            if key == "r":
                await start_when(fronts, number + 1, int(start_with), pipe)
        return await asyncio.wait_for(hosting, GAME_S)


async def start_when(fronts: list[UiFrontend], number: int, players: int, pipe: PipeInput) -> None:
    """In the rematch's lobby, Enter once `players` are in (a full table starts by itself)."""

    def seated() -> bool:
        lobby = fronts[number]._lobby if len(fronts) > number else None
        return lobby is not None and (len(lobby.players) >= players or fronts[number]._session is not None)

    await until(seated, "the rematch's players", GAME_S)
    if fronts[number]._session is None:
        pipe.send_text("\r")


async def join(front: UiFrontend, fronts: list[UiFrontend], pipe: PipeInput, argv: list[str]) -> int:
    keys, code, address = argv[2:]
    with zmq_context() as context:
        joining = asyncio.ensure_future(join_game(address, code, front.options, 600, front, context=context))
        for number, key in enumerate(keys):
            await play_game(fronts, number, pipe, key, before=offered if key == "r" else None)
        return await asyncio.wait_for(joining, GAME_S)


def offered(front: UiFrontend) -> bool:
    """The end screen told that the host opened its lobby again."""
    return any("opened its lobby again" in text for _, text in front.app.model.log)


def main(argv: list[str]) -> None:
    fronts = record_fronts(setattr)
    options = PeerOptions(argv[1], "", 1, None, None, None, False, NodeTimers())
    with create_pipe_input() as pipe:
        front = UiFrontend(options, ascii_only=True, input=pipe, output=DummyOutput())
        role = host if argv[0] == "host" else join
        status = asyncio.run(role(front, fronts, pipe, argv))
    print(json.dumps({"status": status}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
