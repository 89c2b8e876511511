"""The end-of-game crash window: a peer killed after sending its own `end` but before holding everyone's,
and restarted after the others' ordinary linger (but within the table's timeout), finishes the game with a
verified transcript, and nobody is blamed: a finished peer keeps serving a seat whose last have-vector
shows it lacks messages, up to the table's timeout (PROTOCOL §17.3, "Linger and goodbye")."""

import asyncio
from collections.abc import Sequence
from pathlib import Path
from random import Random

from p2pfish.bots.random_bot import RandomBot
from p2pfish.crypto.identity import Identity
from p2pfish.games.fishnstones.rules import RULES
from p2pfish.net.node import MESSAGE, NodeTimers, PeerNode
from p2pfish.net.transport import LoopbackEndpoint, LoopbackHub
from p2pfish.session.audit import audit
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore, SqliteStore

SIGNERS = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(3)]
TABLE_TIMEOUT_S = 4.0
LINGER_S = 0.3
RESTART_AFTER_S = 1.5
"""Past the others' ordinary linger, well within the table's timeout."""
END = b'"type":"end"'


class CrashAtTheEnd:
    """Seat 2's link: it hears no other seat's `end` (so it cannot finish), and the moment it has sent its own
    `end` the test kills it."""

    def __init__(self, endpoint: LoopbackEndpoint) -> None:
        self.endpoint = endpoint
        self.sent_end = asyncio.Event()

    @property
    def others(self) -> list[int]:
        return self.endpoint.others

    def send(self, seat: int, frames: Sequence[bytes]) -> bool:
        if frames[0] == MESSAGE and END in frames[1]:
            self.sent_end.set()
        return self.endpoint.send(seat, frames)

    def broadcast(self, frames: Sequence[bytes]) -> None:
        for seat in self.others:
            self.send(seat, frames)

    async def receive(self) -> tuple[int, list[bytes]]:
        while True:
            seat, frames = await self.endpoint.receive()
            if not (frames[0] == MESSAGE and END in frames[1]):
                return seat, frames

    def close(self) -> None:
        self.endpoint.close()


def test_a_peer_killed_in_the_end_exchange_and_restarted_after_the_linger_finishes_verified(tmp_path: Path) -> None:
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in SIGNERS), ("a", "b", "c"))
    timers = NodeTimers(heartbeat_s=0.02, resend_after_s=0.05, linger_s=LINGER_S, drop_after_s=TABLE_TIMEOUT_S)
    hub = LoopbackHub(3)
    store_path = tmp_path / "seat2.sqlite"

    def node(seat: int, session: Session, mesh: object) -> PeerNode:
        return PeerNode(session, mesh, RandomBot(Random(seat)), timers=timers)  # type: ignore[arg-type]

    sessions = [
        Session(setup, seat, SIGNERS[seat], MemoryStore(), rules=RULES, drop_after=TABLE_TIMEOUT_S) for seat in range(2)
    ]
    crashing = CrashAtTheEnd(hub.endpoints[2])
    victim = Session(setup, 2, SIGNERS[2], SqliteStore(store_path, new=True), rules=RULES, drop_after=TABLE_TIMEOUT_S)

    async def scenario() -> Session:
        others = [asyncio.ensure_future(node(seat, sessions[seat], hub.endpoints[seat]).run()) for seat in range(2)]
        first_life = asyncio.ensure_future(node(2, victim, crashing).run())
        await asyncio.wait_for(crashing.sent_end.wait(), 60)
        first_life.cancel()  # killed: its own end left, nobody else's arrived
        hub.endpoints[2].close()
        assert not victim.finished
        await asyncio.sleep(RESTART_AFTER_S)  # the restart comes this long after the crash, on purpose
        endpoint = hub.endpoints[2]
        endpoint.inbox, endpoint.closed = asyncio.Queue(), False
        restarted = Session.resume(SqliteStore(store_path), SIGNERS[2], rules=RULES, drop_after=TABLE_TIMEOUT_S)
        await asyncio.wait_for(node(2, restarted, endpoint).run(), 30)
        await asyncio.wait_for(asyncio.gather(*others), 30)
        return restarted

    restarted = asyncio.run(scenario())
    assert restarted.fault is None, restarted.fault
    assert restarted.finished and all(s.finished and s.fault is None for s in sessions)
    assert audit(restarted.transcript(), RULES).verified
    assert len({str(s.outcome()) for s in (*sessions, restarted)}) == 1
