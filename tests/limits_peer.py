"""A mesh peer (seat 0 of two) run as its own process by test_net_limits.py, so that its memory and open
files are its own: `python limits_peer.py CURVE_SECRET SEAT1_CURVE_PUBLIC STORE_DIR [NOFILE]`.

It prints `endpoint E` and `hwm KB` once linked, then for every frame from seat 1 `got KIND SIZE HWM_KB`.
A frame of kind S makes it open a new game store in STORE_DIR and print `store ok` or `store failed`.
"""

import asyncio
import resource
import sys
from pathlib import Path

import zmq.asyncio

from p2pfish.core.errors import MalformedInput
from p2pfish.net.mesh import Mesh, MeshPeer
from p2pfish.session.store import SqliteStore


def peak_rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def open_store(directory: Path, number: int) -> str:
    try:
        SqliteStore(directory / f"game{number}.sqlite", new=True).close()
    except MalformedInput:
        return "store failed"
    return "store ok"


async def serve(secret: str, other_public: str, store_dir: Path) -> None:
    mesh = Mesh(secret, "tcp://127.0.0.1:*", context=zmq.asyncio.Context())
    mesh.link(0, [MeshPeer(mesh.endpoint, mesh.curve_public), MeshPeer("tcp://127.0.0.1:9", other_public)])
    print("endpoint", mesh.endpoint, flush=True)
    print("hwm", peak_rss_kb(), flush=True)
    stores = 0
    while True:
        _, frames = await mesh.receive()
        print("got", frames[0].decode("ascii", "replace"), sum(map(len, frames[1:])), peak_rss_kb(), flush=True)
        if frames[0] == b"S":
            stores += 1
            print(open_store(store_dir, stores), flush=True)


def main() -> None:
    secret, other_public, store_dir = sys.argv[1:4]
    if len(sys.argv) > 4:
        limit = int(sys.argv[4])
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    asyncio.run(serve(secret, other_public, Path(store_dir)))


if __name__ == "__main__":
    main()
