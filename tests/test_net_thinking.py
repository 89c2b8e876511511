"""A bot that thinks long does not hold back its peer's timers: it decides in a worker thread while the node
keeps sending heartbeats (and reading frames) on time."""

import asyncio
import contextlib
import itertools
import threading
import time
from random import Random
from typing import Any

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.actions import Action
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.net.node import HEARTBEAT, NodeTimers, PeerNode
from p2pfish.net.transport import LoopbackHub
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

SIGNERS = [Identity.from_seed(bytes([seat + 7]) * 32) for seat in range(2)]
THINK_S = 0.6
HEARTBEAT_S = 0.05


class SlowBot:
    """Spins the CPU in pure Python for THINK_S before each move (as a search bot does), then plays at random."""

    def __init__(self) -> None:
        self.decisions = 0
        self._random = RandomBot(Random(1))

    def choose(self, view: Any, legal: list[Action]) -> Action:
        end = time.perf_counter() + THINK_S
        while time.perf_counter() < end:
            pass
        self.decisions += 1
        return self._random.choose(view, legal)


def test_a_slow_bot_does_not_delay_its_peers_heartbeats() -> None:
    roster = tuple(s.public_bytes for s in SIGNERS)
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b"))
    hub = LoopbackHub(2)
    timers = NodeTimers(heartbeat_s=HEARTBEAT_S, resend_after_s=0.1, drop_after_s=1e9)
    slow = SlowBot()
    thinker = PeerNode(
        Session(setup, 0, SIGNERS[0], MemoryStore(), rules=get_rules(setup.game)), hub.endpoints[0], slow, timers=timers
    )
    listener = PeerNode(
        Session(setup, 1, SIGNERS[1], MemoryStore(), rules=get_rules(setup.game)),
        hub.endpoints[1],
        RandomBot(Random(2)),
        timers=timers,
    )
    beats: list[float] = []
    on_frames = listener.on_frames

    def record(seat: int, frames: list[bytes]) -> None:
        if seat == 0 and frames[0] == HEARTBEAT:
            beats.append(time.monotonic())
        on_frames(seat, frames)

    listener.on_frames = record  # type: ignore[method-assign]

    async def play() -> None:
        runs = asyncio.gather(thinker.run(), listener.run())
        deadline = time.monotonic() + 30
        while slow.decisions < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        runs.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runs

    asyncio.run(play())
    assert slow.decisions >= 3, "the slow bot was never asked to decide three times"
    gaps = [b - a for a, b in itertools.pairwise(beats)]
    # each decision spins 0.6 s: deciding on the loop would leave gaps of 0.6 s or more between heartbeats
    assert len(beats) > 3 * THINK_S / HEARTBEAT_S / 3
    assert max(gaps) < THINK_S / 2, sorted(gaps)[-5:]


class ThreadRecorder:
    """Plays at random and notes on which thread each decision is made."""

    def __init__(self, *, at_once: bool) -> None:
        self.at_once = at_once
        self.threads: set[str] = set()
        self._random = RandomBot(Random(3))

    def choose(self, view: Any, legal: list[Action]) -> Action:
        self.threads.add(threading.current_thread().name)
        return self._random.choose(view, legal)


def _play_to_the_end(players: list[ThreadRecorder]) -> None:
    roster = tuple(s.public_bytes for s in SIGNERS)
    setup = GameSetup.create("fishnstones", {}, roster, ("a", "b"))
    hub = LoopbackHub(2)
    timers = NodeTimers(heartbeat_s=HEARTBEAT_S, resend_after_s=0.1, drop_after_s=1e9, linger_s=0.2)
    nodes = [
        PeerNode(
            Session(setup, s, SIGNERS[s], MemoryStore(), rules=get_rules(setup.game)),
            hub.endpoints[s],
            p,
            timers=timers,
        )
        for s, p in enumerate(players)
    ]

    async def play() -> None:
        await asyncio.wait_for(asyncio.gather(*(node.run() for node in nodes)), 30)

    asyncio.run(play())
    assert all(node.session.finished for node in nodes)


def test_a_player_that_decides_at_once_decides_on_the_loop_and_others_in_a_worker_thread() -> None:
    quick, slow = ThreadRecorder(at_once=True), ThreadRecorder(at_once=False)
    _play_to_the_end([quick, slow])
    assert quick.threads == {threading.main_thread().name}
    assert slow.threads and threading.main_thread().name not in slow.threads
