"""One peer process of the fan-out benchmark: `python -m p2pfish.tools.bench.fanout_peer session|raw CONFIG`.

The parent (net_figures.py) writes CONFIG, a JSON file with this peer's seat, the number of peers,
the work directory, and a hard deadline; in `session` mode also the Ed25519 identity seed, the
CURVE secret, every seat's CURVE public key and the GameSetup wire of a relay game; in `raw` mode
the number of actions. The handshake with the parent goes through files in the work directory:

1. this peer binds tcp://127.0.0.1:* and writes its endpoint to `endpoint-SEAT.json`;
2. the parent writes `roster.json` (every endpoint) once all peers have bound; this peer links;
3. every peer sends a hello frame to every other and waits for theirs, so each link is up before
   the clock starts, then writes `ready-SEAT`;
4. the parent writes `go.json`, a CLOCK_MONOTONIC instant shortly ahead, shared by all processes
   on Linux; every peer starts then;
5. at the end this peer writes `records-SEAT.json`: when it sent its own actions ("sent": [turn,
   ns]) and when it applied (session) or received (raw) each action ("got": [turn, seat, ns]), and the
   processor time the whole process (every thread) spent from the start to the end of its run ("cpu_s"); a
   session peer also how many frames it queued for the others, by kind ("frames_out"), and how many
   messages it signed ("own_messages");
   a raw peer then waits for `done.json` (all records are in) before it closes its sockets.

`session` runs the real stack: a Session of the relay game over a CURVE Mesh with PeerNode.
`raw` is the baseline: plain DEALER->ROUTER pyzmq without CURVE, signatures or sessions, seats
taking turns round robin, each waiting for the previous seat's message before sending its own.
A watchdog thread ends the process if the parent goes away or the deadline passes.
"""

import asyncio
import json
import os
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

from p2pfish.core.actions import Action
from p2pfish.core.player import PlaysBy
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.net.mesh import Mesh, MeshPeer
from p2pfish.net.node import NodeEvent, PeerNode
from p2pfish.session.session import Applied, Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore
from p2pfish.tools.bench import deal_game, relay_game

LOOPBACK_BIND = "tcp://127.0.0.1:*"
POLL_S = 0.002
HELLO = b"R"
RAW_ACTION = b"A"
RAW_ACTION_FORMAT = "!IIq"
"""turn, seat, send time (ns) of a raw action."""
EXIT_WATCHDOG = 3
RAW_LINGER_MS = 2000


def write_json(path: Path, value: Json) -> None:
    """Write `value` so that a reader never sees half of it (write aside, then rename)."""
    aside = path.with_name(path.name + ".part")
    aside.write_text(json.dumps(value))
    os.replace(aside, path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


class Config:
    def __init__(self, path: Path) -> None:
        raw = read_json(path)
        self.fields: dict[str, Any] = raw
        self.seat: int = int(raw["seat"])
        self.peers: int = int(raw["peers"])
        self.workdir = Path(str(raw["workdir"]))
        self.deadline = time.monotonic() + float(raw["deadline_s"])
        self.parent: int = int(raw["parent"])

    def path(self, name: str) -> Path:
        return self.workdir / name

    def left(self) -> float:
        return self.deadline - time.monotonic()


def start_watchdog(config: Config) -> None:
    """End this process at once if the parent is gone or the deadline has passed."""

    def watch() -> None:
        while True:
            if os.getppid() != config.parent or config.left() <= 0:
                os._exit(EXIT_WATCHDOG)
            time.sleep(0.2)

    threading.Thread(target=watch, name="watchdog", daemon=True).start()


async def wait_for_file(config: Config, name: str) -> Path:
    path = config.path(name)
    while not path.exists():
        if config.left() <= 0:
            raise TimeoutError(f"seat {config.seat}: no {name} from the parent")
        await asyncio.sleep(POLL_S)
    return path


async def sleep_until_ns(instant_ns: int) -> None:
    """Sleep most of the way, then spin the last 2 ms, so that every peer starts within ~0.1 ms."""
    left_s = (instant_ns - time.monotonic_ns()) / 1e9
    if left_s > 0.002:
        await asyncio.sleep(left_s - 0.002)
    while time.monotonic_ns() < instant_ns:
        pass


# --- session mode --------------------------------------------------------------------------------


async def run_session(config: Config, context: zmq.asyncio.Context) -> dict[str, Json]:
    setup = GameSetup.from_wire(config.fields["setup"])
    rules = {game.RULES.id: game.RULES for game in (relay_game, deal_game)}[setup.game]
    identity = Identity.from_seed(bytes.fromhex(str(config.fields["identity_seed"])))
    curve_publics = [str(key) for key in config.fields["curve_publics"]]
    mesh = Mesh(str(config.fields["curve_secret"]), LOOPBACK_BIND, context=context)
    try:
        write_json(config.path(f"endpoint-{config.seat}.json"), mesh.endpoint)
        endpoints = read_json(await wait_for_file(config, "roster.json"))
        mesh.link(config.seat, [MeshPeer(str(e), k) for e, k in zip(endpoints, curve_publics, strict=True)])
        mesh.broadcast([HELLO, b""])
        heard: set[int] = set()
        while len(heard) < config.peers - 1:
            seat, frames = await asyncio.wait_for(mesh.receive(), config.left())
            if frames[0] == HELLO:
                heard.add(seat)
        (config.path(f"ready-{config.seat}")).touch()
        go_ns = int(read_json(await wait_for_file(config, "go.json")))

        session = Session(setup, config.seat, identity, MemoryStore(), rules=rules)
        sent: list[Json] = []
        got: list[Json] = []

        def choose(view: Any, legal: list[Action]) -> Action:
            sent.append([session.turn, time.monotonic_ns()])
            return legal[0]

        def on_event(event: NodeEvent) -> None:
            if isinstance(event, Applied):
                got.append([event.turn, event.seat, time.monotonic_ns()])

        node = PeerNode(session, mesh, PlaysBy(choose, at_once=True), on_event=on_event)
        await sleep_until_ns(go_ns)
        cpu_at_go = time.process_time()
        await asyncio.wait_for(node.run(), config.left())
        cpu_s = time.process_time() - cpu_at_go
        fault = session.fault
        return {
            "seat": config.seat,
            "go_ns": go_ns,
            "cpu_s": cpu_s,
            "finished": session.finished,
            "fault": None if fault is None else fault.describe(setup.names),
            "sent": sent,
            "got": got,
            "messages_sent": node.sent,
            "messages_received": node.received,
            "frames_out": {kind.decode(): count for kind, count in node.frames_out.items()},
            "own_messages": session.have()[config.seat],
        }
    finally:
        mesh.close()


# --- raw mode ------------------------------------------------------------------------------------


def run_raw(config: Config, process_context: zmq.asyncio.Context) -> None:
    """Play the raw turns and write the records; keep the sockets (and so the CPU load) until every
    peer has its records, so that no peer's exit slows down the last actions of the others. Plain (not
    asyncio) sockets, in the process's context."""
    actions = int(config.fields["actions"])
    me, peers = config.seat, config.peers
    context: zmq.Context[zmq.Socket[bytes]] = zmq.Context.shadow(process_context.underlying)
    router = context.socket(zmq.ROUTER)
    router.linger = 0
    dealers: list[zmq.Socket[bytes]] = []
    try:
        router.bind(LOOPBACK_BIND)
        write_json(config.path(f"endpoint-{me}.json"), router.getsockopt_string(zmq.LAST_ENDPOINT))
        endpoints = read_json(asyncio.run(wait_for_file(config, "roster.json")))
        for seat, endpoint in enumerate(endpoints):
            if seat != me:
                dealer = context.socket(zmq.DEALER)
                dealer.linger = RAW_LINGER_MS
                dealer.connect(str(endpoint))
                dealers.append(dealer)
        poller = zmq.Poller()
        poller.register(router, zmq.POLLIN)

        def receive() -> list[bytes]:
            while not poller.poll(max(1, int(config.left() * 1000))):
                if config.left() <= 0:
                    raise TimeoutError(f"raw seat {me}: nothing received before the deadline")
            return router.recv_multipart()

        for dealer in dealers:
            dealer.send_multipart([HELLO, struct.pack("!I", me)])
        heard: set[int] = set()
        while len(heard) < peers - 1:
            frames = receive()
            if frames[1] == HELLO:
                heard.add(struct.unpack("!I", frames[2])[0])
        (config.path(f"ready-{me}")).touch()
        go_ns = int(read_json(asyncio.run(wait_for_file(config, "go.json"))))
        asyncio.run(sleep_until_ns(go_ns))
        cpu_at_go = time.process_time()

        sent: list[Json] = []
        got: list[Json] = []
        received: set[int] = set()
        mine = list(range(me, actions, peers))
        expected = actions - len(mine)
        while mine or len(received) < expected:
            if mine and (mine[0] == 0 or mine[0] - 1 in received):
                turn = mine.pop(0)
                now = time.monotonic_ns()
                payload = struct.pack(RAW_ACTION_FORMAT, turn, me, now)
                for dealer in dealers:
                    dealer.send_multipart([RAW_ACTION, payload])
                sent.append([turn, now])
                continue
            frames = receive()
            now = time.monotonic_ns()
            if frames[1] == RAW_ACTION:
                turn, seat, _ = struct.unpack(RAW_ACTION_FORMAT, frames[2])
                received.add(turn)
                got.append([turn, seat, now])
        cpu_s = time.process_time() - cpu_at_go
        records: dict[str, Json] = {
            "seat": me, "finished": True, "fault": None, "sent": sent, "got": got, "cpu_s": cpu_s,
        }  # fmt: skip
        write_json(config.path(f"records-{me}.json"), records)
        asyncio.run(wait_for_file(config, "done.json"))
    finally:
        for socket in [router, *dealers]:
            socket.close()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("session", "raw"):
        print("usage: python -m p2pfish.tools.bench.fanout_peer session|raw CONFIG", file=sys.stderr)
        return 2
    config = Config(Path(argv[1]))
    start_watchdog(config)
    context = zmq.asyncio.Context()
    try:
        if argv[0] == "session":
            write_json(config.path(f"records-{config.seat}.json"), asyncio.run(run_session(config, context)))
        else:
            run_raw(config, context)
    finally:
        context.term()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
