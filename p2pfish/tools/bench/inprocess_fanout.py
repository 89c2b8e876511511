"""The fan-out's own work, in one process: the same relay game played by the same nodes and sessions (PeerNode,
Session, the players deciding at once), linked by an in-memory mesh (net/transport.py's LoopbackHub) instead of
ZeroMQ between processes. Its processor time per action is what the nodes and sessions spend themselves; set
beside the processes' (net_figures.fanout_cpu_ms_8, same actions), the rest is the cost of receiving, waking and
sending across processes.
"""

import asyncio
import secrets
import time

from p2pfish.core.actions import Action
from p2pfish.core.player import PlaysBy
from p2pfish.crypto.identity import Identity
from p2pfish.net.node import PeerNode
from p2pfish.net.transport import LoopbackHub
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore
from p2pfish.tools.bench.net_figures import FANOUT_ACTIONS, FanoutFailed
from p2pfish.tools.bench.relay_game import RULES as RELAY

RUN_TIMEOUT_S = 60.0


def first_legal(view: object, legal: list[Action]) -> Action:
    return legal[0]


async def play(peers: int, actions: int) -> list[Session]:
    """`peers` nodes play `actions` relay actions over one LoopbackHub; their sessions, once every node is done."""
    identities = [Identity.from_seed(secrets.token_bytes(32)) for _ in range(peers)]
    roster = tuple(identity.public_bytes for identity in identities)
    setup = GameSetup.create(RELAY.id, {"actions": str(actions)}, roster, tuple(f"peer-{s}" for s in range(peers)))
    hub = LoopbackHub(peers)
    sessions = [Session(setup, seat, identities[seat], MemoryStore(), rules=RELAY) for seat in range(peers)]
    nodes = [
        PeerNode(session, hub.endpoints[seat], PlaysBy(first_legal, at_once=True))
        for seat, session in enumerate(sessions)
    ]
    await asyncio.wait_for(asyncio.gather(*(node.run() for node in nodes)), RUN_TIMEOUT_S)
    return sessions


def run_inprocess_fanout(peers: int, actions: int) -> float:
    """Processor milliseconds per action of `peers` nodes playing `actions` relay actions in this process."""
    started = time.process_time()
    sessions = asyncio.run(play(peers, actions))
    spent = time.process_time() - started
    unfinished = [session.seat for session in sessions if not session.finished]
    if unfinished:
        raise FanoutFailed(f"in-process nodes {unfinished} did not finish the relay game")
    return round(spent * 1000 / actions, 3)


def fanout_inprocess_cpu_ms_8() -> float:
    """The 8-peer fan-out's processor time per action with the nodes and sessions in one process, no ZeroMQ."""
    return run_inprocess_fanout(8, FANOUT_ACTIONS[8])
