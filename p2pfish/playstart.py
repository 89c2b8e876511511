"""`p2pfish play`'s first step, taken before the heavy modules load: the lobby's port is reserved (here) and its
join code drawn (joincode.py). Then the peer's modules load, the bot peers start as copies of this process
(botpeers.py, forkedpeer.py), and each tries the lobby until it opens (lobby.py retries a lobby not yet
listening), while this process loads the terminal UI and opens it. The standard library alone is imported here."""

import socket

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
