"""Terminal UI figures: how fast the app answers a key while peers keep sending, and how fast
`p2pfish --help` answers (the UI and crypto are imported only when needed)."""

import asyncio
import random
import statistics
import subprocess
import sys
import time

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules, kit_for, make_bot
from p2pfish.session.envelope import open_envelope
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.setup import GameSetup
from p2pfish.ui.app import GameApp
from p2pfish.uiplay import TableController

KEYS = 60
CHATTER_EVERY_S = 0.002
HELP_RUNS = 5


def help_s() -> float:
    """Median wall time of `python -m p2pfish --help` in a fresh process."""
    times = []
    for _ in range(HELP_RUNS):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "p2pfish", "--help"], capture_output=True, check=True, timeout=30)
        times.append(time.perf_counter() - started)
    return round(statistics.median(times), 3)


def keypress_ms() -> float:
    """95th percentile, over 60 arrow keys, of the time from a key to the redrawn screen that shows
    its effect, while two peers send a chat message every 2 ms through the session."""
    return asyncio.run(_keypresses())


async def _keypresses() -> float:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(3)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("you", "b1", "b2"))
    bots = [make_bot("greedy", "fishnstones", random.Random(seat)) for seat in (1, 2)]
    table = MemoryTable(setup, signers, [None, *bots], rules=get_rules("fishnstones"))
    with create_pipe_input() as pipe:
        app = GameApp(input=pipe, output=DummyOutput())
        controller = TableController(table, 0, app)
        app.start(controller, kit_for("fishnstones"))
        table.start()
        controller.settle()
        rendered = asyncio.Event()
        app.app.after_render += lambda _: rendered.set()
        running = asyncio.ensure_future(app.run())
        chatter = asyncio.ensure_future(_chatter(table, controller))
        while not app.app.is_running:
            await asyncio.sleep(0.01)
        times = []
        for index in range(KEYS):
            before = app.model.selected
            rendered.clear()
            started = time.perf_counter()
            pipe.send_text("\x1b[B" if index % 2 == 0 else "\x1b[A")
            while True:
                await asyncio.wait_for(rendered.wait(), 5)
                rendered.clear()
                if app.model.selected != before:
                    break
            times.append(time.perf_counter() - started)
        chatter.cancel()
        app.app.exit()
        await running
    return round(statistics.quantiles(times, n=20)[-1] * 1000, 2)


async def _chatter(table: MemoryTable, controller: TableController) -> None:
    """Two peers talking all the time: each message is signed, received and shown by this seat. Once their
    chat budget (PROTOCOL §6.8) is spent, each tick has this seat read and verify a signed chat of theirs
    and show it, which is what a chat costs the receiver."""
    count = 0
    while True:
        for seat in (1, 2):
            table.sessions[seat].chat(f"message {count}")
            table.collect(table.sessions[seat])
        while table.deliver_next():
            pass
        events = controller.session.take_events()
        for event in events:
            controller.app.log(str(event)[:60], "chat")
        if not events:
            _receive_again(controller)
        count += 1
        await asyncio.sleep(CHATTER_EVERY_S)


def _receive_again(controller: TableController) -> None:
    """Read, verify and show once more the last chat this seat accepted."""
    session = controller.session
    chats = [raw for raw in session.accepted if open_envelope(raw).kind == "chat"]
    if not chats:
        return
    envelope = open_envelope(chats[-1])
    if envelope.signature_valid(session.setup.roster[envelope.seat]):
        controller.app.log(f"chat from seat {envelope.seat}"[:60], "chat")
