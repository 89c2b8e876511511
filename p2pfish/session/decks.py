"""The session's record of each mental-poker deck: its proven passes and the card keys published so far.

Every pass is proven when it arrives (crypto/proven_deck.py) and every published key is checked against
its seat's key point at once, so a card can only open to the card the passes put there: nothing about a
deck is left to the end of the game."""

from dataclasses import dataclass, field

from p2pfish.core.errors import MalformedInput
from p2pfish.core.wire import Json, hex_bytes
from p2pfish.crypto import secp256k1
from p2pfish.crypto.encoding import encode_text, encode_u64, length_prefixed
from p2pfish.crypto.proven_deck import CardTable, Deck, LockPass, RekeyPass, open_card, verify_card_key


@dataclass
class DeckRecord:
    name: str
    table: CardTable
    locks: list[LockPass] = field(default_factory=list)
    rekeys: list[RekeyPass] = field(default_factory=list)
    published: dict[tuple[int, int], int] = field(default_factory=dict)
    """(seat, position) -> that seat's key for the card at that position."""

    @property
    def cards(self) -> Deck:
        if self.rekeys:
            return self.rekeys[-1].cards
        return self.locks[-1].cards if self.locks else self.table.points

    @property
    def shuffled(self) -> bool:
        return bool(self.locks) and len(self.rekeys) == len(self.locks)

    def accept_key(self, seat: int, position: int, key: int) -> None:
        """Check a published key against the seat's key point at once; a wrong key is blamed on it."""
        if not 0 <= position < len(self.table):
            raise MalformedInput(f"{self.name} has no position {position}", seat)
        verify_card_key(self.rekeys[seat].key_points[position], position, key, seat)
        self.published[(seat, position)] = key

    def has_all_keys(self, position: int, seats: range) -> bool:
        return all((seat, position) in self.published for seat in seats)

    def open(self, position: int, seats: range) -> str | None:
        keys = [self.published[(seat, position)] for seat in seats]
        return open_card(self.cards[position], keys, self.table)


def pass_context(session_id: bytes, seat: int, deck: str, kind: str) -> bytes:
    """What every proof of a pass is bound to: this game, the seat making it, the deck and the kind of pass."""
    return length_prefixed(session_id, encode_u64(seat), encode_text(deck), encode_text(kind))


def read_keys(value: Json, size: int, seat: int) -> list[int]:
    if not isinstance(value, list) or len(value) != size:
        raise MalformedInput(f"expected {size} card keys", seat)
    return [secp256k1.scalar_from_bytes(_hex32(item, "a card key", seat), seat) for item in value]


def keys_to_wire(keys: list[int]) -> list[Json]:
    return [secp256k1.scalar_to_bytes(key).hex() for key in keys]


def _hex32(value: Json, what: str, seat: int) -> bytes:
    if not isinstance(value, str):
        raise MalformedInput(f"{what} must be a hex string", seat)
    return hex_bytes(value, what, 32)
