"""What every peer of one game agrees on before the first move: the game, its options and the roster.

The session id is a hash of all of it, so every signed message is bound to exactly this game.
"""

import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json, as_object, field, hex_bytes, int_field, str_field
from p2pfish.crypto.encoding import encode_text, encode_u32, tagged_hash

TAG_SESSION = b"p2pfish/session/v1"
PUBLIC_KEY_BYTES = 32
NONCE_BYTES = 16
PROTOCOL_VERSION = 1


@dataclass(frozen=True)
class GameSetup:
    game: str
    options: tuple[tuple[str, str], ...]
    """Sorted (key, value) pairs."""
    roster: tuple[bytes, ...]
    """Each seat's Ed25519 public key, in seat order."""
    names: tuple[str, ...]
    nonce: bytes
    """Chosen by the lobby so that two games with the same roster still differ."""

    @classmethod
    def create(
        cls, game: str, options: Mapping[str, str], roster: tuple[bytes, ...], names: tuple[str, ...]
    ) -> "GameSetup":
        return cls(game, tuple(sorted(options.items())), roster, names, secrets.token_bytes(NONCE_BYTES))

    def __post_init__(self) -> None:
        if len(self.roster) != len(self.names):
            raise MalformedInput(f"{len(self.roster)} keys but {len(self.names)} names in the roster")
        if any(len(key) != PUBLIC_KEY_BYTES for key in self.roster):
            raise MalformedInput("every roster key must be a 32-byte Ed25519 public key")
        if len(set(self.roster)) != len(self.roster):
            raise MalformedInput("the same key holds two seats")

    @property
    def players(self) -> int:
        return len(self.roster)

    @property
    def option_map(self) -> dict[str, str]:
        return dict(self.options)

    @property
    def session_id(self) -> bytes:
        fields: list[bytes] = [encode_u32(PROTOCOL_VERSION), encode_text(self.game), encode_u32(len(self.options))]
        for key, value in self.options:
            fields += [encode_text(key), encode_text(value)]
        fields.append(encode_u32(self.players))
        for public_key, name in zip(self.roster, self.names, strict=True):
            fields += [public_key, encode_text(name)]
        fields.append(self.nonce)
        return tagged_hash(TAG_SESSION, *fields)

    def to_wire(self) -> dict[str, Json]:
        return {
            "version": PROTOCOL_VERSION,
            "game": self.game,
            "options": {key: value for key, value in self.options},
            "roster": [key.hex() for key in self.roster],
            "names": list(self.names),
            "nonce": self.nonce.hex(),
        }

    @classmethod
    def from_wire(cls, wire: Json) -> "GameSetup":
        obj = as_object(wire, "game setup")
        if int_field(obj, "version") != PROTOCOL_VERSION:
            raise MalformedInput(f"protocol version {obj['version']} is not supported (this is {PROTOCOL_VERSION})")
        options = as_object(field(obj, "options"), "options")
        roster, names = field(obj, "roster"), field(obj, "names")
        if not isinstance(roster, list) or not isinstance(names, list):
            raise MalformedInput("roster and names must be lists")
        if not all(isinstance(x, str) for x in [*roster, *names, *options.values()]):
            raise MalformedInput("roster keys, names and option values must be strings")
        keys = tuple(hex_bytes(str(key), "a roster key", PUBLIC_KEY_BYTES) for key in roster)
        return cls(
            str_field(obj, "game"),
            tuple(sorted((key, str(value)) for key, value in options.items())),
            keys,
            tuple(str(name) for name in names),
            hex_bytes(str_field(obj, "nonce"), "the setup nonce", NONCE_BYTES),
        )
