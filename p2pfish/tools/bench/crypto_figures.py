"""Crypto figures: how fast the proven mental-poker deck runs, in one process (one core).

deck_52x5_s covers everything a 5-seat table computes for one 52-card deck before its first card is
dealt: hashing the labels to curve points, 5 lock-and-shuffle passes and 5 re-key passes, each made with
its proof by one seat and checked by the 4 others. deck_unproven_52x5_s, its baseline in the same run,
makes the same passes without any proof or check (what the deck cost before every pass was proven).
"""

import json
import statistics
import time
from collections.abc import Callable

from p2pfish.crypto import proven_deck, secp256k1
from p2pfish.crypto.proven_deck import Deck, LockPass, RekeyPass

RUNS = 3
SEATS = 5
OPS_PER_RUN = 200
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
LABELS = tuple(rank + suit for suit in "SHDC" for rank in RANKS)


def deck_52x5_s() -> float:
    """Best of 3 wall times (s): 52 labels hashed, 5 proven lock passes and 5 proven re-key passes, every
    proof checked by the 4 other seats."""
    return round(min(_timed(lambda: _shuffle(proven=True)) for _ in range(RUNS)), 4)


def deck_unproven_52x5_s() -> float:
    """The same passes with no proof made or checked: the baseline of deck_52x5_s."""
    return round(min(_timed(lambda: _shuffle(proven=False)) for _ in range(RUNS)), 4)


def deck_proof_overhead_x() -> float:
    """deck_52x5_s / deck_unproven_52x5_s, measured back to back."""
    return round(deck_52x5_s() / deck_unproven_52x5_s(), 2)


def lock_pass_kb_52() -> float:
    """The size (KiB) of one 52-card lock pass with its proof, as JSON in a deck-lock message."""
    lock, _ = _one_pass_each()
    return round(len(json.dumps(lock.to_wire())) / 1024, 1)


def rekey_pass_kb_52() -> float:
    """The size (KiB) of one 52-card re-key pass with its key points and proof, as JSON."""
    _, rekey = _one_pass_each()
    return round(len(json.dumps(rekey.to_wire())) / 1024, 1)


def deck_op_ms() -> float:
    """Median of 3 runs of the mean time (ms) of one point multiplication with a fresh key."""
    point = secp256k1.point_from_bytes(proven_deck.card_point("AS"))
    keys = [secp256k1.random_scalar() for _ in range(OPS_PER_RUN)]

    def run() -> None:
        for key in keys:
            secp256k1.mul(key, point)

    return round(statistics.median(_timed(run) for _ in range(RUNS)) / OPS_PER_RUN * 1000, 4)


def _one_pass_each() -> tuple[LockPass, RekeyPass]:
    table = proven_deck.CardTable(LABELS)
    key = proven_deck.new_key()
    lock = proven_deck.make_lock_pass(b"bench", table.points, key, proven_deck.new_permutation(len(table)))
    rekey = proven_deck.make_rekey_pass(b"bench", lock.cards, key, proven_deck.new_card_keys(len(table)))
    return lock, rekey


def _shuffle(*, proven: bool) -> Deck:
    proven_deck.card_point.cache_clear()
    cards = proven_deck.CardTable(LABELS).points
    lock_keys = [proven_deck.new_key() for _ in range(SEATS)]
    lock_points: list[bytes] = []
    for seat in range(SEATS):
        permutation = proven_deck.new_permutation(len(cards))
        if not proven:
            cards = _raw_pass(cards, [lock_keys[seat]] * len(cards), permutation)
            continue
        context = b"lock %d" % seat
        lock = proven_deck.make_lock_pass(context, cards, lock_keys[seat], permutation)
        for _ in range(SEATS - 1):
            proven_deck.verify_lock_pass(context, cards, lock, seat)
        lock_points.append(lock.lock_point)
        cards = lock.cards
    for seat in range(SEATS):
        card_keys = proven_deck.new_card_keys(len(cards))
        if not proven:
            unlock = secp256k1.inverse(lock_keys[seat])
            cards = _raw_pass(cards, [k * unlock for k in card_keys], range(len(cards)))
            continue
        context = b"rekey %d" % seat
        rekey = proven_deck.make_rekey_pass(context, cards, lock_keys[seat], card_keys)
        for _ in range(SEATS - 1):
            proven_deck.verify_rekey_pass(context, cards, lock_points[seat], rekey, seat)
        cards = rekey.cards
    return cards


def _raw_pass(cards: Deck, keys: list[int], order: range | tuple[int, ...]) -> Deck:
    points = [secp256k1.point_from_bytes(card) for card in cards]
    return tuple(secp256k1.point_bytes(secp256k1.mul(key, points[i])) for key, i in zip(keys, order, strict=True))


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start
