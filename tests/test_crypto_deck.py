"""The SRA deck: the cipher round-trips and commutes, a deal opens only with every key, and the audit
blames exactly the seat whose pass or key is wrong."""

from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pfish.core.errors import MalformedInput, ProtocolViolation
from p2pfish.crypto import p256
from p2pfish.crypto.deck import (
    CardTable,
    Deck,
    LockedDeck,
    RekeyedDeck,
    card_key_commitments,
    card_point,
    lock_pass,
    new_card_keys,
    new_key,
    new_permutation,
    open_card,
    rekey_pass,
    verify_card_key,
)
from p2pfish.crypto.deck_audit import audit_deck, verify_lock_pass, verify_rekey_pass

SESSION = b"deck-session"
LABELS = ("AS", "KS", "QS", "JS", "10S", "9S", "8S", "7S")
TABLE = CardTable(LABELS)
SEATS = 3
keys = st.integers(1, p256.GROUP_ORDER - 1)


@dataclass
class Shuffle:
    """An honest 3-seat shuffle, with everything the audit needs."""

    locks: list[LockedDeck]
    rekeys: list[RekeyedDeck]
    lock_keys: dict[int, int]
    card_keys: dict[int, tuple[int, ...]]
    permutations: dict[int, tuple[int, ...]]

    @property
    def final(self) -> Deck:
        return self.rekeys[-1].cards

    def expected_labels(self) -> tuple[str, ...]:
        order = list(range(len(LABELS)))
        for seat in range(SEATS):
            order = [order[source] for source in self.permutations[seat]]
        return tuple(LABELS[index] for index in order)

    def audit(self) -> tuple[str, ...]:
        return audit_deck(
            SESSION, TABLE, locks=self.locks, rekeys=self.rekeys, lock_keys=self.lock_keys, card_keys=self.card_keys
        )


def shuffle() -> Shuffle:
    done = Shuffle([], [], {}, {}, {})
    cards = TABLE.points
    for seat in range(SEATS):
        done.lock_keys[seat], done.permutations[seat] = new_key(), new_permutation(len(cards))
        cards = lock_pass(cards, done.lock_keys[seat], done.permutations[seat])
        done.locks.append(LockedDeck(seat, cards))
    for seat in range(SEATS):
        done.card_keys[seat] = new_card_keys(len(cards))
        cards = rekey_pass(cards, done.lock_keys[seat], done.card_keys[seat])
        done.rekeys.append(RekeyedDeck(seat, cards, card_key_commitments(SESSION, seat, done.card_keys[seat])))
    return done


def blamed(error: pytest.ExceptionInfo[ProtocolViolation]) -> int | None:
    return error.value.seat


@settings(max_examples=25, deadline=None)
@given(keys, st.sampled_from(LABELS))
def test_decryption_undoes_encryption(k: int, label: str) -> None:
    x = card_point(label)
    encrypted = p256.multiply(k, x)
    assert encrypted != x or k in (1, p256.GROUP_ORDER - 1)
    assert p256.multiply(p256.inverse(k), encrypted) == x


@settings(max_examples=25, deadline=None)
@given(keys, keys, st.sampled_from(LABELS))
def test_the_cipher_commutes(k1: int, k2: int, label: str) -> None:
    x = card_point(label)
    assert p256.multiply(k2, p256.multiply(k1, x)) == p256.multiply(k1, p256.multiply(k2, x))


def test_card_points_are_distinct_curve_coordinates() -> None:
    assert len(set(TABLE.points)) == len(LABELS)
    for x in TABLE.points:
        p256.check_coordinate(x)
    assert card_point("AS") == TABLE.points[0]
    assert TABLE.label_of(card_point("9S")) == "9S"


def test_labels_must_be_distinct() -> None:
    with pytest.raises(MalformedInput):
        CardTable(["AS", "AS"])


def test_malformed_wire_values_are_refused() -> None:
    with pytest.raises(MalformedInput):
        p256.check_coordinate(bytes(31))
    with pytest.raises(MalformedInput):
        p256.check_coordinate((p256.FIELD_PRIME).to_bytes(32, "big"))
    with pytest.raises(MalformedInput):
        p256.multiply(5, (1).to_bytes(32, "big"))  # x = 1 is not on P-256
    with pytest.raises(MalformedInput) as caught:
        p256.scalar_from_bytes(bytes(32), seat=4)
    assert caught.value.seat == 4
    assert p256.scalar_from_bytes(p256.scalar_to_bytes(12345)) == 12345
    with pytest.raises(MalformedInput):
        lock_pass(TABLE.points, 7, [0, 0, 1, 2, 3, 4, 5, 6])


def test_a_full_deal_opens_every_card_as_shuffled() -> None:
    done = shuffle()
    expected = done.expected_labels()
    for position, ciphertext in enumerate(done.final):
        seat_keys = [done.card_keys[seat][position] for seat in (2, 0, 1)]  # any order
        assert open_card(ciphertext, seat_keys, TABLE) == expected[position]
    assert done.audit() == expected


def test_a_private_card_needs_every_seat_key() -> None:
    done = shuffle()
    position, owner = 5, 2
    published = {seat: done.card_keys[seat][position] for seat in range(SEATS) if seat != owner}
    for seat, key in published.items():
        verify_card_key(done.rekeys[seat].key_commitments[position], SESSION, seat, position, key)
    with pytest.raises(ProtocolViolation):
        open_card(done.final[position], published.values(), TABLE)  # the others alone see no card
    with pytest.raises(ProtocolViolation):
        open_card(done.final[position], [done.card_keys[owner][position]], TABLE)  # nor the owner alone
    owner_keys = [*published.values(), done.card_keys[owner][position]]
    assert open_card(done.final[position], owner_keys, TABLE) == done.expected_labels()[position]


def test_a_wrong_card_key_is_blamed_at_once() -> None:
    done = shuffle()
    position, liar = 3, 1
    commitment = done.rekeys[liar].key_commitments[position]
    with pytest.raises(ProtocolViolation) as caught:
        verify_card_key(commitment, SESSION, liar, position, done.card_keys[liar][position] + 1)
    assert blamed(caught) == liar
    with pytest.raises(ProtocolViolation):  # a key is bound to its position
        verify_card_key(commitment, SESSION, liar, position + 1, done.card_keys[liar][position])
    with pytest.raises(ProtocolViolation) as caught:  # a seat cannot pass off another seat's key as its own
        verify_card_key(commitment, SESSION, 0, position, done.card_keys[liar][position])
    assert blamed(caught) == 0


def test_the_honest_passes_verify() -> None:
    done = shuffle()
    verify_lock_pass(TABLE.points, done.locks[0].cards, done.lock_keys[0], 0)
    verify_rekey_pass(done.locks[-1].cards, done.rekeys[0].cards, done.lock_keys[0], done.card_keys[0], 0)
    negated = p256.GROUP_ORDER - done.lock_keys[1]  # -k has the same x-coordinates: equivalent, not wrong
    verify_lock_pass(done.locks[0].cards, done.locks[1].cards, negated, 1)


def test_a_substituted_card_is_blamed_on_the_locking_seat() -> None:
    done = shuffle()
    cheater = 1
    cards = list(done.locks[cheater].cards)
    cards[0] = p256.multiply(done.lock_keys[cheater], card_point("AH"))  # a card not in the deck
    with pytest.raises(ProtocolViolation) as caught:
        verify_lock_pass(done.locks[0].cards, tuple(cards), done.lock_keys[cheater], cheater)
    assert blamed(caught) == cheater
    assert "changed" in caught.value.reason


def test_a_duplicated_card_is_blamed_on_the_locking_seat() -> None:
    done = shuffle()
    cheater = 2
    cards = list(done.locks[cheater].cards)
    cards[1] = cards[0]
    done.locks[cheater] = LockedDeck(cheater, tuple(cards))
    with pytest.raises(ProtocolViolation) as caught:
        done.audit()
    assert blamed(caught) == cheater
    assert "duplicated" in caught.value.reason


def test_a_wrong_lock_key_is_blamed_on_its_seat() -> None:
    done = shuffle()
    done.lock_keys[0] = new_key()
    with pytest.raises(ProtocolViolation) as caught:
        done.audit()
    assert blamed(caught) == 0


def test_a_rekey_with_other_keys_than_committed_is_blamed() -> None:
    done = shuffle()
    cheater = 1
    secret_keys = list(done.card_keys[cheater])
    secret_keys[4] = new_key()
    # The cheater re-keys position 4 with a key it never committed to, then publishes the committed one.
    honest_input = done.rekeys[cheater - 1].cards
    forged = rekey_pass(honest_input, done.lock_keys[cheater], secret_keys)
    done.rekeys[cheater] = replace(done.rekeys[cheater], cards=forged)
    with pytest.raises(ProtocolViolation) as caught:
        done.audit()
    assert blamed(caught) == cheater
    assert "position 4" in caught.value.reason
    # Publishing the key it really used fails its commitment instead: blamed all the same.
    done.card_keys[cheater] = tuple(secret_keys)
    with pytest.raises(ProtocolViolation) as caught:
        done.audit()
    assert blamed(caught) == cheater


def test_a_substituted_card_in_a_rekey_pass_is_blamed() -> None:
    done = shuffle()
    cheater = 2
    cards = list(done.rekeys[cheater].cards)
    cards[0], cards[1] = cards[1], cards[0]  # a shuffle is not allowed during re-keying
    done.rekeys[cheater] = replace(done.rekeys[cheater], cards=tuple(cards))
    with pytest.raises(ProtocolViolation) as caught:
        done.audit()
    assert blamed(caught) == cheater


def test_the_audit_needs_a_complete_transcript() -> None:
    done = shuffle()
    with pytest.raises(MalformedInput):
        incomplete = done.rekeys[:-1]
        audit_deck(
            SESSION, TABLE, locks=done.locks, rekeys=incomplete, lock_keys=done.lock_keys, card_keys=done.card_keys
        )
    del done.card_keys[1]
    with pytest.raises(MalformedInput) as caught:
        done.audit()
    assert caught.value.seat == 1
