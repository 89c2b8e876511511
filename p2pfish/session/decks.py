"""The session's record of each mental-poker deck: its passes, the keys published so far, and the
checks made on them as they arrive (the full re-check of every pass waits for the end of the game)."""

from dataclasses import dataclass, field

from p2pfish.core.errors import MalformedInput, ProtocolViolation
from p2pfish.core.wire import Json, hex_bytes
from p2pfish.crypto import p256
from p2pfish.crypto.deck import CardTable, Deck, LockedDeck, RekeyedDeck, open_card, verify_card_key
from p2pfish.crypto.deck_audit import audit_deck


@dataclass
class DeckRecord:
    name: str
    table: CardTable
    locks: list[LockedDeck] = field(default_factory=list)
    rekeys: list[RekeyedDeck] = field(default_factory=list)
    published: dict[tuple[int, int], int] = field(default_factory=dict)
    """(seat, position) -> that seat's key for the card at that position."""

    @property
    def cards(self) -> Deck:
        if self.rekeys:
            return self.rekeys[-1].cards
        return self.locks[-1].cards if self.locks else self.table.points

    def accept_key(self, session_id: bytes, seat: int, position: int, key: int) -> None:
        """Check a published key against the seat's commitment at once; a wrong key is blamed on it."""
        if not 0 <= position < len(self.table):
            raise MalformedInput(f"{self.name} has no position {position}", seat)
        verify_card_key(self.rekeys[seat].key_commitments[position], session_id, seat, position, key)
        self.published[(seat, position)] = key

    def has_all_keys(self, position: int, seats: range) -> bool:
        return all((seat, position) in self.published for seat in seats)

    def open(self, position: int, seats: range) -> str:
        keys = [self.published[(seat, position)] for seat in seats]
        return open_card(self.cards[position], keys, self.table)

    def audit(self, session_id: bytes, lock_keys: dict[int, int], card_keys: dict[int, list[int]]) -> None:
        """The end-of-game re-check of every pass; raises ProtocolViolation naming the culprit."""
        audit_deck(
            session_id, self.table, locks=self.locks, rekeys=self.rekeys, lock_keys=lock_keys, card_keys=card_keys
        )


def read_deck(value: Json, size: int, seat: int) -> Deck:
    """A deck from a message: `size` distinct curve x-coordinates."""
    if not isinstance(value, list) or len(value) != size:
        raise MalformedInput(f"a deck pass must hold {size} cards", seat)
    cards = tuple(_hex32(item, "a card") for item in value)
    for card in cards:
        p256.check_coordinate(card, seat)
    if len(set(cards)) != size:
        raise ProtocolViolation("its deck pass holds the same card twice", seat)
    return cards


def read_hashes(value: Json, size: int, seat: int) -> tuple[bytes, ...]:
    if not isinstance(value, list) or len(value) != size:
        raise MalformedInput(f"a re-key pass must commit to {size} keys", seat)
    return tuple(_hex32(item, "a key commitment") for item in value)


def read_keys(value: Json, size: int, seat: int) -> list[int]:
    if not isinstance(value, list) or len(value) != size:
        raise MalformedInput(f"expected {size} card keys", seat)
    return [p256.scalar_from_bytes(_hex32(item, "a card key"), seat) for item in value]


def keys_to_wire(keys: list[int]) -> list[Json]:
    return [p256.scalar_to_bytes(key).hex() for key in keys]


def _hex32(value: Json, what: str) -> bytes:
    if not isinstance(value, str):
        raise MalformedInput(f"{what} must be a hex string")
    return hex_bytes(value, what, 32)
