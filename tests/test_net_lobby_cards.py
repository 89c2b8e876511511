"""Player cards, the lobby's unit of trust: signed by the player's identity, and holding only what the
mesh can use (a CURVE key and a tcp:// endpoint), so that no card admitted to a table can crash a peer."""

import asyncio

import pytest
import zmq
import zmq.asyncio

from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.identity import Identity
from p2pfish.net.lobby import PlayerCard
from p2pfish.net.mesh import Mesh, MeshPeer, is_tcp_endpoint, new_curve_keypair

LOBBY = bytes(32)


def test_a_player_card_with_a_key_or_endpoint_the_mesh_cannot_use_is_refused() -> None:
    identity = Identity.from_seed(bytes(32))
    good = PlayerCard.make(identity, "ann", "x" * 40, "tcp://127.0.0.1:5555", LOBBY)  # "x" is a Z85 digit
    assert PlayerCard.from_wire(good.to_wire()) == good
    for curve, endpoint in [
        ("é" * 40, "tcp://127.0.0.1:5555"),
        ("x" * 39, "tcp://127.0.0.1:5555"),
        ("x" * 40, "ipc://x"),
    ]:
        card = PlayerCard.make(identity, "ann", curve, endpoint, LOBBY)
        with pytest.raises(MalformedInput):
            PlayerCard.from_wire(card.to_wire())


BAD_ENDPOINTS = [
    "tcp://*:5555",
    "tcp://-:1",
    "tcp://%:1",
    "tcp://;:1",
    "tcp://a b:1",
    "tcp://lo;127.0.0.1:5555",
    "tcp://127.0.0.1;127.0.0.1:5555",
    "tcp://[:5555",
    "tcp://[]:5555",
    "tcp://a:b:5555",
    "tcp://[fe80::1%eth0]:5555",
    "tcp://999.1.1.1:5555",
    "tcp://127.0.0.1:05555",
    "tcp://127.0.0.1:0",
    "tcp://127.0.0.1:65536",
    "tcp://-a.lan:1",
    "tcp://a..lan:1",
    "tcp://" + "a" * 64 + ":1",
    "tcp://" + ".".join(["a" * 60] * 5) + ":1",
    "tcp://\u0663:5555",
]
GOOD_ENDPOINTS = ["tcp://127.0.0.1:5555", "tcp://0.0.0.0:1", "tcp://[::1]:65535", "tcp://my-host.lan:80", "tcp://x:9"]


@pytest.mark.parametrize("endpoint", BAD_ENDPOINTS)
def test_a_card_endpoint_outside_the_strict_grammar_is_refused(endpoint: str) -> None:
    """libzmq refuses some of these at connect (a traceback at game start on every peer) and reads others as
    more than an address (`SOURCE;HOST`)."""
    identity = Identity.from_seed(bytes(32))
    assert not is_tcp_endpoint(endpoint)
    card = PlayerCard.make(identity, "ann", "x" * 40, endpoint, LOBBY)
    with pytest.raises(MalformedInput, match="holds no tcp://HOST:PORT endpoint"):
        PlayerCard.from_wire(card.to_wire())


def test_every_endpoint_the_grammar_admits_is_one_libzmq_connects_to() -> None:
    context = zmq.Context()
    try:
        for endpoint in GOOD_ENDPOINTS:
            assert is_tcp_endpoint(endpoint), endpoint
            dealer = context.socket(zmq.DEALER)
            dealer.linger = 0
            dealer.connect(endpoint)
            dealer.close()
    finally:
        context.term()


def test_a_mesh_that_cannot_connect_an_endpoint_says_so_in_one_line() -> None:
    """Had a bad endpoint got past the card check, linking would raise a MalformedInput, not a ZMQError."""
    public, secret = new_curve_keypair()
    other, _ = new_curve_keypair()

    async def link() -> None:  # the mesh's authenticator runs on an event loop
        context = zmq.asyncio.Context()
        mesh = Mesh(secret, "tcp://127.0.0.1:*", context=context)
        try:
            peers = [MeshPeer(mesh.endpoint, public), MeshPeer("tcp://127.0.0.1:9", other)]
            object.__setattr__(peers[1], "endpoint", "tcp://*:5555")  # as if the check had let it through
            with pytest.raises(MalformedInput, match=r"^cannot connect to seat 1's endpoint 'tcp://\*:5555': "):
                mesh.link(0, peers)
        finally:
            mesh.close()
            context.destroy(linger=0)

    asyncio.run(link())
