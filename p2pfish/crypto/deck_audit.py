"""The end-of-game checks of the deck: once every key is public, every pass is recomputed.

Each check raises ProtocolViolation naming the seat whose pass or key is wrong. Passes are checked in the
order they were made, so the first seat whose output does not follow from its input is the one blamed.
"""

from collections.abc import Mapping, Sequence

from p2pfish.core.errors import MalformedInput, ProtocolViolation
from p2pfish.crypto import p256
from p2pfish.crypto.deck import CardTable, Deck, LockedDeck, RekeyedDeck, open_card, rekey_scalars, verify_card_key


def verify_lock_pass(inp: Deck, out: Deck, key: int, seat: int) -> None:
    """`out` must hold exactly the cards E_key(inp), in any order, each once."""
    if not p256.is_scalar(key):
        raise ProtocolViolation("the lock key is not in [1, n-1]", seat)
    if len(out) != len(inp):
        raise ProtocolViolation(f"the lock pass turned {len(inp)} cards into {len(out)}", seat)
    if len(set(out)) != len(out):
        raise ProtocolViolation("the lock pass holds a duplicated card", seat)
    if sorted(p256.multiply_all(key, inp)) != sorted(out):
        raise ProtocolViolation("the lock pass is not the previous deck shuffled under its key (a card changed)", seat)


def verify_rekey_pass(inp: Deck, out: Deck, lock_key: int, card_keys: Sequence[int], seat: int) -> None:
    """Every out[j] must be E_{card_keys[j]}(D_{lock_key}(inp[j]))."""
    if not p256.is_scalar(lock_key) or not all(p256.is_scalar(key) for key in card_keys):
        raise ProtocolViolation("a re-key pass key is not in [1, n-1]", seat)
    if not len(out) == len(inp) == len(card_keys):
        raise ProtocolViolation(
            f"the re-key pass has {len(inp)} cards in, {len(out)} out and {len(card_keys)} keys", seat
        )
    expected = p256.multiply_each(rekey_scalars(lock_key, card_keys), inp)
    for position, (want, got) in enumerate(zip(expected, out, strict=True)):
        if want != got:
            raise ProtocolViolation(f"the re-key pass changed the card at deck position {position}", seat)


def audit_deck(
    session_id: bytes,
    table: CardTable,
    *,
    locks: Sequence[LockedDeck],
    rekeys: Sequence[RekeyedDeck],
    lock_keys: Mapping[int, int],
    card_keys: Mapping[int, Sequence[int]],
) -> tuple[str, ...]:
    """Check the whole deck transcript against every seat's keys; return the label at each final position.

    `locks` and `rekeys` are the published passes in the order they were made; every seat that locked
    must re-key exactly once. Raises ProtocolViolation naming the first seat found cheating.
    """
    lock_seats = [lock.seat for lock in locks]
    if len(set(lock_seats)) != len(lock_seats) or sorted(lock_seats) != sorted(rekey.seat for rekey in rekeys):
        raise MalformedInput("every seat must lock the deck once and re-key it once")
    for seat in lock_seats:
        if seat not in lock_keys or seat not in card_keys:
            raise MalformedInput("the audit needs every seat's lock key and card keys", seat)
    deck = table.points
    for lock in locks:
        verify_lock_pass(deck, lock.cards, lock_keys[lock.seat], lock.seat)
        deck = lock.cards
    for rekey in rekeys:
        keys = card_keys[rekey.seat]
        if not len(rekey.key_commitments) == len(keys) == len(deck):
            raise ProtocolViolation("the re-key pass does not commit to one key per card", rekey.seat)
        for position, (commitment, key) in enumerate(zip(rekey.key_commitments, keys, strict=True)):
            verify_card_key(commitment, session_id, rekey.seat, position, key)
        verify_rekey_pass(deck, rekey.cards, lock_keys[rekey.seat], keys, rekey.seat)
        deck = rekey.cards
    return tuple(
        open_card(card, (card_keys[seat][position] for seat in lock_seats), table) for position, card in enumerate(deck)
    )
