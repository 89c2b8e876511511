"""The game identity every seat makes: each card brings a fresh contribution, the session id hashes them
all, a joiner refuses a start without its own card, and a new game never opens an existing store."""

import dataclasses
import os
from pathlib import Path

import pytest

from p2pfish.core.errors import MalformedInput
from p2pfish.crypto import ed25519_python
from p2pfish.crypto.identity import Identity
from p2pfish.net.lobby import LobbyRefused, PlayerCard, Table, check_start, setup_of
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import SqliteStore

IDENTITIES = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(3)]
LOBBY = bytes(range(32))


def cards() -> list[PlayerCard]:
    return [
        PlayerCard.make(identity, name, chr(ord("a") + seat) * 40, f"tcp://127.0.0.1:{5000 + seat}", LOBBY)
        for seat, (identity, name) in enumerate(zip(IDENTITIES, ("ann", "bob", "cy"), strict=True))
    ]


def test_the_same_players_and_game_never_share_a_session_id() -> None:
    first, second = cards(), cards()
    ids = {setup_of("kingfish", {}, table).session_id for table in (first, second)}
    assert len(ids) == 2
    assert all(a.contribution != b.contribution for a, b in zip(first, second, strict=True))


def test_a_setup_round_trips_and_refuses_missing_or_repeated_contributions() -> None:
    setup = setup_of("fishnstones", {"start": "0"}, cards())
    assert GameSetup.from_wire(setup.to_wire()) == setup
    with pytest.raises(MalformedInput):
        dataclasses.replace(setup, contributions=setup.contributions[:2])
    with pytest.raises(MalformedInput):
        dataclasses.replace(setup, contributions=(setup.contributions[0],) * 3)
    wire = setup.to_wire()
    wire["contributions"] = [bytes(16).hex()] * 3
    with pytest.raises(MalformedInput):
        GameSetup.from_wire(wire)


NEUTRAL_KEY = bytes([1]) + bytes(31)
"""The neutral point: [k]A = 0 for every k, so R = [S]B signs every message for it (OpenSSL takes that)."""


def test_a_weak_key_is_refused_in_a_card_and_in_a_roster() -> None:
    table = cards()
    wire = setup_of("fishnstones", {}, table).to_wire()
    assert isinstance(wire["roster"], list)
    wire["roster"][1] = NEUTRAL_KEY.hex()
    with pytest.raises(MalformedInput, match="seat 1's key 0100000000000000… is refused: it is a point of small order"):
        GameSetup.from_wire(wire)
    anybody = ed25519_python.encode(ed25519_python.BASE) + (1).to_bytes(32, "little")
    forged = dataclasses.replace(table[1], identity=NEUTRAL_KEY, signature=anybody)
    with pytest.raises(MalformedInput, match="the identity key of 'bob' is refused: it is a point of small order"):
        PlayerCard.from_wire(forged.to_wire())


def test_a_joiner_refuses_a_host_that_replays_an_earlier_table() -> None:
    earlier, now = cards(), cards()
    honest = Table(setup_of("kingfish", {}, now), tuple(now))
    check_start(now[1], honest)
    replayed = Table(setup_of("kingfish", {}, earlier), tuple(earlier))
    with pytest.raises(LobbyRefused, match="without this player's card"):
        check_start(now[1], replayed)
    mixed = Table(setup_of("kingfish", {}, earlier), tuple(now))
    with pytest.raises(LobbyRefused, match="not made of the cards"):
        check_start(now[1], mixed)


def test_a_card_signs_its_contribution() -> None:
    card = cards()[0]
    forged = dataclasses.replace(card, contribution=bytes(32))
    with pytest.raises(MalformedInput, match="not signed"):
        PlayerCard.from_wire(forged.to_wire())


def test_a_new_game_never_opens_an_existing_store_nor_follows_a_link(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    SqliteStore(path, new=True).close()
    assert os.stat(path).st_mode & 0o777 == 0o600
    with pytest.raises(MalformedInput, match="exists already"):
        SqliteStore(path, new=True)
    link = tmp_path / "link.sqlite"
    link.symlink_to(tmp_path / "elsewhere.sqlite")
    with pytest.raises(MalformedInput, match="symbolic link"):
        SqliteStore(link, new=True)
    with pytest.raises(MalformedInput, match="symbolic link"):
        SqliteStore(link)
    assert not (tmp_path / "elsewhere.sqlite").exists()
