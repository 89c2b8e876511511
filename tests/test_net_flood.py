"""A roster seat streaming small valid frames at a peer over a real CURVE mesh on loopback: the peer keeps
sending its heartbeats (review 14: with frames queued, a receive completes without yielding, and the
heartbeat loop stopped for as long as the stream lasted)."""

import asyncio
import itertools
import json
import threading
import time

import zmq
import zmq.asyncio
from transport_helpers import heartbeat_times

from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.net.mesh import Mesh, MeshPeer, new_curve_keypair
from p2pfish.net.node import HEARTBEAT, NodeTimers, PeerNode
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

IDS = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
FLOOD_S = 1.5


def test_a_peer_keeps_beating_while_a_seat_streams_small_frames_at_it() -> None:
    setup = GameSetup.create("fishnstones", {}, tuple(i.public_bytes for i in IDS), ("victim", "mallory"))
    victim_public, victim_secret = new_curve_keypair()
    mallory_public, mallory_secret = new_curve_keypair()
    beat = json.dumps({"session": setup.session_id.hex(), "have": [0, 0]}).encode()
    window: list[float] = []
    sent = [0]

    def flood(endpoint: str) -> None:
        context = zmq.Context()
        dealer = context.socket(zmq.DEALER)
        dealer.curve_secretkey, dealer.curve_publickey = mallory_secret.encode(), mallory_public.encode()
        dealer.curve_serverkey = victim_public.encode()
        dealer.sndhwm, dealer.linger = 100_000, 0
        dealer.connect(endpoint)
        window.append(time.monotonic())
        while time.monotonic() < window[0] + FLOOD_S:
            try:
                dealer.send_multipart([HEARTBEAT, beat], flags=zmq.NOBLOCK)
                sent[0] += 1
            except zmq.Again:
                time.sleep(0.0005)
        dealer.close()
        context.term()

    async def play() -> list[float]:
        mesh_context = zmq.asyncio.Context()
        mesh = Mesh(victim_secret, "tcp://127.0.0.1:*", context=mesh_context)
        mesh.link(0, [MeshPeer(mesh.endpoint, victim_public), MeshPeer("tcp://127.0.0.1:9", mallory_public)])
        beats = heartbeat_times(mesh)
        session = Session(setup, 0, IDS[0], MemoryStore(), rules=get_rules(setup.game))
        node = PeerNode(session, mesh, None, timers=NodeTimers(drop_after_s=1e9, silent_after_s=1e9))
        thread = threading.Thread(target=flood, args=(mesh.endpoint,))
        run = asyncio.create_task(node.run())
        thread.start()
        try:
            await asyncio.to_thread(thread.join)
        finally:
            run.cancel()
            mesh.close()
            mesh_context.destroy(linger=0)
        return beats

    beats = asyncio.run(play())
    start = window[0]  # the first 0.3 s: the CURVE handshake
    during = [b for b in beats if start + 0.3 <= b < start + FLOOD_S]
    gaps = [later - earlier for earlier, later in itertools.pairwise(during)]
    assert sent[0] > 10_000, sent[0]
    assert len(during) >= 3 and max(gaps, default=0) < 1.0, (len(during), gaps, sent[0])
