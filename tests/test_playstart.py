"""`p2pfish play` starts its bots before its lobby listens: the port they are given is reserved so that no
other process can take it, while the lobby itself can listen on it."""

import errno
import socket

import pytest

from p2pfish.net.lobbylink import listening_socket
from p2pfish.playstart import LOOPBACK, reserve_port


def test_a_reserved_port_is_refused_to_others_and_open_to_the_lobby() -> None:
    with reserve_port() as reservation:
        port = reservation.getsockname()[1]
        with socket.socket() as other, pytest.raises(OSError) as refused:
            other.bind((LOOPBACK, port))
        assert refused.value.errno == errno.EADDRINUSE
        lobby = listening_socket(LOOPBACK, port)
        try:
            with socket.create_connection((LOOPBACK, port), timeout=5):
                pass
        finally:
            lobby.close()
