"""The proven mental-poker deck: honest passes verify and open to their cards; every way to change a pass
— a substituted, duplicated, moved or marked card, a wrong key, a proof from another context, any single
field of a proof changed — is refused, naming the seat, and never raises anything but the deck's errors."""

import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pfish.core.errors import MalformedInput, ProtocolViolation
from p2pfish.core.wire import Json
from p2pfish.crypto import secp256k1 as curve
from p2pfish.crypto.proven_deck import (
    CardTable,
    Deck,
    LockPass,
    RekeyPass,
    card_point,
    make_lock_pass,
    make_rekey_pass,
    new_card_keys,
    new_key,
    new_permutation,
    open_card,
    verify_card_key,
    verify_lock_pass,
    verify_rekey_pass,
)

LABELS = [f"{rank}{suit}" for suit in "CDHS" for rank in "23456789TJQKA"][:12]
TABLE = CardTable(LABELS)
SEAT = 3


def context(name: str) -> bytes:
    return name.encode()


def shuffled(seats: int) -> tuple[Deck, list[LockPass], list[RekeyPass], list[tuple[int, ...]]]:
    deck, locks, rekeys, card_keys = TABLE.points, [], [], []
    lock_keys = [new_key() for _ in range(seats)]
    for seat in range(seats):
        lock = make_lock_pass(context(f"lock{seat}"), deck, lock_keys[seat], new_permutation(len(deck)))
        verify_lock_pass(context(f"lock{seat}"), deck, lock, seat)
        locks.append(lock)
        deck = lock.cards
    for seat in range(seats):
        keys = new_card_keys(len(deck))
        rekey = make_rekey_pass(context(f"rekey{seat}"), deck, lock_keys[seat], keys)
        verify_rekey_pass(context(f"rekey{seat}"), deck, locks[seat].lock_point, rekey, seat)
        rekeys.append(rekey)
        card_keys.append(keys)
        deck = rekey.cards
    return deck, locks, rekeys, card_keys


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_honest_passes_verify_and_every_card_opens_to_its_label(seats: int) -> None:
    deck, _, _, card_keys = shuffled(seats)
    opened = [open_card(card, [keys[j] for keys in card_keys], TABLE) for j, card in enumerate(deck)]
    assert sorted(label for label in opened if label is not None) == sorted(LABELS)
    assert opened != LABELS, "the deck was shuffled"
    assert open_card(deck[0], [keys[0] for keys in card_keys[1:]], TABLE) is None, "one key short opens nothing"


def test_card_points_are_fixed_by_their_labels() -> None:
    point = card_point("KS")
    assert len(point) == 33 and point[0] == 2
    assert point == card_point("KS") != card_point("KH")
    with pytest.raises(MalformedInput):
        CardTable(["KS", "KS"])


def refuses_lock(inp: Deck, lock: LockPass, name: str = "lock0") -> None:
    with pytest.raises(ProtocolViolation) as caught:
        verify_lock_pass(context(name), inp, lock, SEAT)
    assert caught.value.seat == SEAT


def honest_lock() -> tuple[int, tuple[int, ...], LockPass]:
    key, permutation = new_key(), new_permutation(len(TABLE))
    return key, permutation, make_lock_pass(context("lock0"), TABLE.points, key, permutation)


def test_a_lock_pass_with_a_card_changed_after_proving_is_refused() -> None:
    _, _, lock = honest_lock()
    substituted = (card_point("not a card"), *lock.cards[1:])
    refuses_lock(TABLE.points, LockPass(substituted, lock.lock_point, lock.proof))
    swapped = (lock.cards[1], lock.cards[0], *lock.cards[2:])
    refuses_lock(TABLE.points, LockPass(swapped, lock.lock_point, lock.proof))
    duplicated = (lock.cards[1], *lock.cards[1:])
    refuses_lock(TABLE.points, LockPass(duplicated, lock.lock_point, lock.proof))


def test_the_marked_deck_of_the_first_locker_cannot_be_proven() -> None:
    """2C replaced by r·KS: the relation would survive every honest shuffle. Proven over the marked input
    (the best an attacker can do), the pass is refused against the real one."""
    key, permutation, _ = honest_lock()
    marked = list(TABLE.points)
    marked[0] = curve.point_bytes(curve.mul(12345, curve.point_from_bytes(marked[5])))
    lock = make_lock_pass(context("lock0"), tuple(marked), key, permutation)
    verify_lock_pass(context("lock0"), tuple(marked), lock, SEAT)
    refuses_lock(TABLE.points, lock)


def test_a_lock_pass_under_another_key_than_its_lock_point_is_refused() -> None:
    _, permutation, lock = honest_lock()
    other = make_lock_pass(context("lock0"), TABLE.points, new_key(), permutation)
    refuses_lock(TABLE.points, LockPass(lock.cards, other.lock_point, lock.proof))
    refuses_lock(TABLE.points, LockPass(other.cards, lock.lock_point, other.proof))


def test_a_proof_from_another_context_is_refused() -> None:
    _, _, lock = honest_lock()
    refuses_lock(TABLE.points, lock, "lock0 of another game")


def test_a_rekey_that_moves_a_card_or_uses_another_key_is_refused() -> None:
    key, _, lock = honest_lock()
    keys = new_card_keys(len(TABLE))
    inp = lock.cards
    rekey = make_rekey_pass(context("rekey0"), inp, key, keys)
    verify_rekey_pass(context("rekey0"), inp, lock.lock_point, rekey, SEAT)
    swapped_input = (inp[1], inp[0], *inp[2:])
    rigged = make_rekey_pass(context("rekey0"), swapped_input, key, keys)
    moved = RekeyPass((rekey.cards[1], rekey.cards[0], *rekey.cards[2:]), rekey.key_points, rekey.proof)
    other_key = make_rekey_pass(context("rekey0"), inp, key, (new_key(), *keys[1:]))
    mixed = RekeyPass(rekey.cards, other_key.key_points, rekey.proof)
    wrong_lock = make_rekey_pass(context("rekey0"), inp, new_key(), keys)
    for bad in (rigged, moved, mixed, wrong_lock):
        with pytest.raises(ProtocolViolation) as caught:
            verify_rekey_pass(context("rekey0"), inp, lock.lock_point, bad, SEAT)
        assert caught.value.seat == SEAT
    with pytest.raises(ProtocolViolation):
        verify_rekey_pass(context("rekey1"), inp, lock.lock_point, rekey, SEAT)


def test_a_published_key_is_checked_against_its_key_point_at_once() -> None:
    key = new_key()
    point = curve.point_bytes(curve.mul_gen(key))
    verify_card_key(point, 4, key, SEAT)
    for wrong in (key + 1, 0, curve.GROUP_ORDER):
        with pytest.raises(ProtocolViolation) as caught:
            verify_card_key(point, 4, wrong, SEAT)
        assert caught.value.seat == SEAT


def every_field_changed(wire: dict[str, Json]) -> list[dict[str, Json]]:
    """Copies of `wire` with one hex digit of one field (or of one list item) changed, for every field."""
    variants = []
    for name, value in wire.items():
        items = value if isinstance(value, list) else [value]
        for index in {0, len(items) - 1}:
            item = str(items[index])
            changed = item[:10] + ("0" if item[10] != "0" else "1") + item[11:]
            copy = list(items)
            copy[index] = changed
            variants.append({**wire, name: copy if isinstance(value, list) else changed})
    return variants


@pytest.mark.parametrize("kind", ["lock", "rekey"])
def test_every_single_changed_field_of_a_pass_is_refused(kind: str) -> None:
    key, _, lock = honest_lock()
    if kind == "lock":
        wire, inp = lock.to_wire(), TABLE.points

        def check(w: Json) -> None:
            verify_lock_pass(context("lock0"), inp, LockPass.from_wire(w, len(inp), SEAT), SEAT)
    else:
        inp = lock.cards
        wire = make_rekey_pass(context("rekey0"), inp, key, new_card_keys(len(inp))).to_wire()

        def check(w: Json) -> None:
            verify_rekey_pass(context("rekey0"), inp, lock.lock_point, RekeyPass.from_wire(w, len(inp), SEAT), SEAT)

    check(json.loads(json.dumps(wire)))
    variants = every_field_changed(wire)
    assert len(variants) > len(wire)
    for variant in variants:
        with pytest.raises((ProtocolViolation, MalformedInput)):
            check(variant)


json_values: st.SearchStrategy[Json] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=70) | st.just("02" + "ab" * 32),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(wire=json_values, kind=st.sampled_from([LockPass.from_wire, RekeyPass.from_wire]))
def test_a_garbage_pass_is_only_ever_malformed(wire: Json, kind: Callable[[Json, int, int], object]) -> None:
    with pytest.raises(MalformedInput):
        kind(wire, 4, SEAT)


def test_a_point_read_twice_is_the_same_point_after_every_operation_on_it() -> None:
    """Points are kept decompressed between reads (secp256k1._decompressed): no operation may change one in place."""
    encoded = curve.point_bytes(curve.mul_gen(7))
    first = curve.point_from_bytes(encoded)
    curve.mul(3, first)
    curve.add(first, curve.mul_gen(5))
    assert curve.point_bytes(curve.point_from_bytes(encoded)) == encoded
    with pytest.raises(MalformedInput):
        curve.point_from_bytes(b"\x02" + b"\xff" * 32, seat=1)
