"""The mental-poker deck: SRA on P-256 x-coordinates, shuffled and locked by every seat in turn.

1. The initial deck is the card point of each label, in the given order (CardTable).
2. Each seat in turn runs a lock pass: one secret key k and a secret permutation, out[i] = E_k(in[perm[i]]).
3. Each seat in turn runs a re-key pass: a fresh key k_j per position replaces its lock key,
   out[j] = E_{k_j}(D_k(in[j])) = E_{k_j·k^-1 mod n}(in[j]), and publishes a commitment to every k_j.
4. The card at position j opens with every seat's k_j (in any order: the cipher commutes).
Published keys are checked against their commitments at once; the passes themselves are checked at the end
of the game (deck_audit.py), when every key is published.
"""

import functools
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from hashlib import sha256

from p2pfish.core.errors import MalformedInput, ProtocolViolation
from p2pfish.crypto import p256
from p2pfish.crypto.encoding import encode_text, encode_u32, encode_u64, length_prefixed, tagged_hash

TAG_CARD_POINT = b"p2pfish/card-point/v1"
TAG_CARD_KEY = b"p2pfish/card-key/v1"
CARD_POINT_CACHE = 4096
"""Card points are a pure function of the label; every deck of a game re-uses the same labels."""

Deck = tuple[bytes, ...]
"""A deck on the wire: one 32-byte big-endian x-coordinate per position."""


@dataclass(frozen=True, slots=True)
class LockedDeck:
    """What a seat publishes after its lock pass; its key stays secret until the end of the game."""

    seat: int
    cards: Deck


@dataclass(frozen=True, slots=True)
class RekeyedDeck:
    """What a seat publishes after its re-key pass: the deck and a commitment to each position's key."""

    seat: int
    cards: Deck
    key_commitments: tuple[bytes, ...]


@functools.lru_cache(maxsize=CARD_POINT_CACHE)
def card_point(label: str) -> bytes:
    """Hash a card label to a curve x-coordinate by try-and-increment.

    x = SHA-256(lp(TAG_CARD_POINT, utf8(label), u32(counter))) for counter = 0, 1, ...: the first x that
    is a valid x-coordinate. Nobody knows the discrete log of such a point, unlike a multiple of G.
    """
    prefix = length_prefixed(TAG_CARD_POINT, encode_text(label))
    counter = 0
    while True:
        candidate = sha256(prefix + length_prefixed(encode_u32(counter))).digest()
        if p256.is_x_coordinate(int.from_bytes(candidate, "big")):
            return candidate
        counter += 1


class CardTable:
    """The labels of a deck, their points in deck order, and the way back from a point to its label."""

    def __init__(self, labels: Sequence[str]) -> None:
        if len(set(labels)) != len(labels):
            raise MalformedInput("card labels must be distinct (number the copies of a card)")
        self.labels: tuple[str, ...] = tuple(labels)
        self.points: Deck = tuple(card_point(label) for label in labels)
        self._label_of = dict(zip(self.points, self.labels, strict=True))

    def __len__(self) -> int:
        return len(self.labels)

    def label_of(self, point: bytes) -> str | None:
        return self._label_of.get(point)


def new_key() -> int:
    return p256.random_scalar()


def new_card_keys(count: int) -> tuple[int, ...]:
    return tuple(p256.random_scalar() for _ in range(count))


def new_permutation(size: int) -> tuple[int, ...]:
    """A uniform secret permutation of range(size)."""
    order = list(range(size))
    secrets.SystemRandom().shuffle(order)
    return tuple(order)


def lock_pass(deck: Deck, key: int, permutation: Sequence[int]) -> Deck:
    """out[i] = E_key(deck[permutation[i]])."""
    if sorted(permutation) != list(range(len(deck))):
        raise MalformedInput(f"the lock pass needs a permutation of range({len(deck)})")
    return tuple(p256.multiply_all(key, (deck[source] for source in permutation)))


def rekey_pass(deck: Deck, lock_key: int, card_keys: Sequence[int]) -> Deck:
    """out[j] = E_{card_keys[j]}(D_{lock_key}(deck[j])), one scalar multiplication per card."""
    if len(card_keys) != len(deck):
        raise MalformedInput(f"the re-key pass needs {len(deck)} card keys, not {len(card_keys)}")
    return tuple(p256.multiply_each(rekey_scalars(lock_key, card_keys), deck))


def rekey_scalars(lock_key: int, card_keys: Sequence[int]) -> list[int]:
    """card_key · lock_key^-1 mod n for every position."""
    unlock = p256.inverse(lock_key)
    return [card_key * unlock % p256.GROUP_ORDER for card_key in card_keys]


def card_key_commitment(session_id: bytes, seat: int, position: int, key: int) -> bytes:
    """SHA-256(lp(TAG_CARD_KEY, session_id, u64(seat), u64(position), key as 32 bytes))."""
    return tagged_hash(TAG_CARD_KEY, session_id, encode_u64(seat), encode_u64(position), p256.scalar_to_bytes(key))


def card_key_commitments(session_id: bytes, seat: int, card_keys: Sequence[int]) -> tuple[bytes, ...]:
    return tuple(card_key_commitment(session_id, seat, position, key) for position, key in enumerate(card_keys))


def verify_card_key(commitment: bytes, session_id: bytes, seat: int, position: int, key: int) -> None:
    """Raise ProtocolViolation blaming `seat` unless `key` is the one it committed to for `position`."""
    if not p256.is_scalar(key) or card_key_commitment(session_id, seat, position, key) != commitment:
        raise ProtocolViolation(f"the key published for deck position {position} is not the committed one", seat)


def open_card(ciphertext: bytes, keys: Iterable[int], table: CardTable) -> str:
    """The label under `ciphertext`, given every seat's key for its position.

    A result outside the table means some pass or key was dishonest; which seat, only the full audit
    (deck_audit.audit_deck) can tell, so this raises ProtocolViolation without a seat.
    """
    combined = 1
    for key in keys:
        combined = combined * key % p256.GROUP_ORDER
    point = p256.multiply(p256.inverse(combined), ciphertext)
    label = table.label_of(point)
    if label is None:
        raise ProtocolViolation("a deck position opened to no card: run the deck audit to find the culprit")
    return label
