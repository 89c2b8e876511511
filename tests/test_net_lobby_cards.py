"""Player cards, the lobby's unit of trust: signed by the player's identity, and holding only what the
mesh can use (a CURVE key and a tcp:// endpoint), so that no card admitted to a table can crash a peer."""

import pytest

from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.identity import Identity
from p2pfish.net.lobby import PlayerCard

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
