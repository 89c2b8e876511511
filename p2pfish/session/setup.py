"""What every peer of one game agrees on before the first move: the game, its options, the roster and
one fresh random contribution from every seat.

The session id is a hash of all of it, so every signed message is bound to exactly this game. Because
every seat adds its own fresh contribution (and checks that it is in), no seat — the host included —
can make two games share an id: nothing signed, committed or stored in one game is valid in another.
"""

import secrets
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from p2pfish.core.errors import MalformedInput
from p2pfish.core.text import printable, shown_value
from p2pfish.core.wire import Json, as_object, field, hex_bytes, int_field, str_field
from p2pfish.crypto.ed25519_rule import key_weakness
from p2pfish.crypto.encoding import encode_text, encode_u32, tagged_hash

TAG_SESSION = b"p2pfish/session/v1"
PUBLIC_KEY_BYTES = 32
CONTRIBUTION_BYTES = 32
PROTOCOL_VERSION = 3
SHOWN_NAME_CHARS = 40
"""How much of a name a screen or a log line shows."""


@dataclass(frozen=True)
class GameSetup:
    game: str
    options: tuple[tuple[str, str], ...]
    """Sorted (key, value) pairs."""
    roster: tuple[bytes, ...]
    """Each seat's Ed25519 public key, in seat order."""
    names: tuple[str, ...]
    contributions: tuple[bytes, ...]
    """Each seat's fresh 32-byte random contribution to the session id (from its signed lobby card)."""

    @classmethod
    def create(
        cls, game: str, options: Mapping[str, str], roster: tuple[bytes, ...], names: tuple[str, ...]
    ) -> "GameSetup":
        """A setup whose every seat is played in this process: each contribution is drawn here."""
        contributions = tuple(new_contribution() for _ in roster)
        return cls(game, tuple(sorted(options.items())), roster, names, contributions)

    def __post_init__(self) -> None:
        if len(self.roster) != len(self.names):
            raise MalformedInput(f"{len(self.roster)} keys but {len(self.names)} names in the roster")
        if any(len(key) != PUBLIC_KEY_BYTES for key in self.roster):
            raise MalformedInput("every roster key must be a 32-byte Ed25519 public key")
        for seat, key in enumerate(self.roster):
            weakness = key_weakness(key)
            if weakness is not None:
                raise MalformedInput(f"seat {seat}'s key {key.hex()[:16]}… is refused: {weakness}")
        if len(set(self.roster)) != len(self.roster):
            raise MalformedInput("the same key holds two seats")
        if len(self.contributions) != len(self.roster):
            raise MalformedInput(f"{len(self.roster)} seats but {len(self.contributions)} contributions")
        if any(len(c) != CONTRIBUTION_BYTES for c in self.contributions):
            raise MalformedInput(f"every seat's contribution must be {CONTRIBUTION_BYTES} bytes")
        if len(set(self.contributions)) != len(self.contributions):
            raise MalformedInput("two seats brought the same contribution")

    @property
    def players(self) -> int:
        return len(self.roster)

    @property
    def shown_names(self) -> tuple[str, ...]:
        """Each seat's name as a screen, a log line or `verify` may show it: printable (core.text), at
        most SHOWN_NAME_CHARS, and "seat N" when nothing printable is left. Names that look the same once made
        printable (case, spaces and compatibility forms aside: "alice", "Alice " and "alice" followed by
        invisible characters) are each followed by "(seat N)", so that no seat's chat or moves can pass for
        another's; so is a name that looks like another seat's "seat N". (`names` stays as signed.)"""
        shown = [printable(name, SHOWN_NAME_CHARS).strip() or f"seat {seat}" for seat, name in enumerate(self.names)]
        looks = [" ".join(unicodedata.normalize("NFKC", name).casefold().split()) for name in shown]
        seat_like = {f"seat {seat}" for seat in range(len(shown))}
        return tuple(
            f"{name} (seat {seat})"
            if looks.count(looks[seat]) > 1 or (looks[seat] in seat_like and looks[seat] != f"seat {seat}")
            else name
            for seat, name in enumerate(shown)
        )

    @property
    def option_map(self) -> dict[str, str]:
        return dict(self.options)

    @property
    def session_id(self) -> bytes:
        fields: list[bytes] = [encode_u32(PROTOCOL_VERSION), encode_text(self.game), encode_u32(len(self.options))]
        for key, value in self.options:
            fields += [encode_text(key), encode_text(value)]
        fields.append(encode_u32(self.players))
        for public_key, name, contribution in zip(self.roster, self.names, self.contributions, strict=True):
            fields += [public_key, encode_text(name), contribution]
        return tagged_hash(TAG_SESSION, *fields)

    def to_wire(self) -> dict[str, Json]:
        return {
            "version": PROTOCOL_VERSION,
            "game": self.game,
            "options": {key: value for key, value in self.options},
            "roster": [key.hex() for key in self.roster],
            "names": list(self.names),
            "contributions": [c.hex() for c in self.contributions],
        }

    @classmethod
    def from_wire(cls, wire: Json) -> "GameSetup":
        obj = as_object(wire, "game setup")
        if int_field(obj, "version") != PROTOCOL_VERSION:
            raise MalformedInput(
                f"protocol version {shown_value(obj['version'], 40)} is not supported (this is {PROTOCOL_VERSION})"
            )
        options = as_object(field(obj, "options"), "options")
        roster, names, contributions = field(obj, "roster"), field(obj, "names"), field(obj, "contributions")
        if not isinstance(roster, list) or not isinstance(names, list) or not isinstance(contributions, list):
            raise MalformedInput("roster, names and contributions must be lists")
        if not all(isinstance(x, str) for x in [*roster, *names, *contributions, *options.values()]):
            raise MalformedInput("roster keys, names, contributions and option values must be strings")
        keys = tuple(hex_bytes(str(key), "a roster key", PUBLIC_KEY_BYTES) for key in roster)
        return cls(
            str_field(obj, "game"),
            tuple(sorted((key, str(value)) for key, value in options.items())),
            keys,
            tuple(str(name) for name in names),
            tuple(hex_bytes(str(c), "a contribution", CONTRIBUTION_BYTES) for c in contributions),
        )


def new_contribution() -> bytes:
    """A seat's fresh contribution to a new game's session id, from the operating system's CSPRNG."""
    return secrets.token_bytes(CONTRIBUTION_BYTES)
