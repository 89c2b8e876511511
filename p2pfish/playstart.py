"""`p2pfish play`'s first step, taken before the heavy modules load: the lobby's port is reserved and its join
code drawn, and the bot peers start at once. Each bot loads and then tries the lobby until it opens (lobby.py
retries a lobby not yet listening), while this process loads the terminal UI and the protocol and opens it.
The standard library alone is imported here.
"""

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from p2pfish.net.joincode import new_join_code

LOOPBACK = "127.0.0.1"


def reserve_port(host: str = LOOPBACK) -> socket.socket:
    """A socket bound, not listening, to a free port of `host`, with SO_REUSEADDR: while it is open no other
    process can bind that port (nor is it handed to one), but a listening socket with SO_REUSEADDR (the
    lobby's, lobbylink.listening_socket) can. Close it once the lobby listens."""
    reservation = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        reservation.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        reservation.bind((host, 0))
    except BaseException:
        reservation.close()
        raise
    return reservation


class BotPlayers:
    """`count` bot peers joining the lobby at 127.0.0.1:`port` with `code`, each its own `p2pfish join --bot`
    process (greedy and random by turns), their identities, stores and logs in one temporary folder."""

    def __init__(self, count: int, seed: int) -> None:
        self.reservation = reserve_port()
        self.port: int = self.reservation.getsockname()[1]
        self.address = f"{LOOPBACK}:{self.port}"
        self.code = new_join_code()
        self.workdir = Path(tempfile.mkdtemp(prefix="p2pfish-play-"))
        self.processes: list[subprocess.Popen[bytes]] = []
        env = {**os.environ, "XDG_STATE_HOME": str(self.workdir / "state")}
        try:
            for index in range(1, count + 1):
                kind = "greedy" if index % 2 else "random"
                argv = [
                    sys.executable, "-m", "p2pfish", "join", self.address, "--code", self.code, "--bot", kind,
                    "--seed", str(seed * 10 + index), "--name", f"{kind} bot {index}",
                    "--identity-dir", str(self.workdir / f"bot{index}"),
                ]  # fmt: skip
                with (self.workdir / f"bot{index}.log").open("wb") as log:
                    self.processes.append(
                        subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env)
                    )
        except BaseException:
            self.stop()
            raise

    def lobby_open(self) -> None:
        """The lobby listens on the port: the reservation may go."""
        self.reservation.close()

    def stop(self) -> None:
        self.reservation.close()
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
