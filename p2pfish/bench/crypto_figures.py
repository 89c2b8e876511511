"""Crypto figures: how fast the mental-poker deck runs, in one process (one core).

deck_52x5_s covers everything a deal computes before its first card is dealt: hashing the 52 labels to
curve points (not precomputed), 5 lock-and-shuffle passes, then 5 re-key passes with their key commitments.
"""

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from p2pfish.crypto import deck, p256
from p2pfish.crypto.deck_audit import audit_deck

RUNS = 3
SEATS = 5
OPS_PER_RUN = 200
SESSION_ID = b"bench"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
LABELS = tuple(rank + suit for suit in "SHDC" for rank in RANKS)


@dataclass(frozen=True, slots=True)
class _Shuffled:
    table: deck.CardTable
    locks: list[deck.LockedDeck]
    rekeys: list[deck.RekeyedDeck]
    lock_keys: dict[int, int]
    card_keys: dict[int, tuple[int, ...]]


def deck_52x5_s() -> float:
    """Best of 3 wall times (s): 52 labels hashed to points, 5 seats lock+shuffle, 5 seats re-key."""
    return round(min(_timed(_shuffle_52x5) for _ in range(RUNS)), 4)


def deck_audit_52x5_s() -> float:
    """Best of 3 wall times (s) of the end-of-game audit of that deck, every card opened."""
    done = _shuffle_52x5()

    def audit() -> None:
        audit_deck(
            SESSION_ID,
            done.table,
            locks=done.locks,
            rekeys=done.rekeys,
            lock_keys=done.lock_keys,
            card_keys=done.card_keys,
        )

    return round(min(_timed(audit) for _ in range(RUNS)), 4)


def deck_op_ms() -> float:
    """Median of 3 runs of the mean time (ms) of one E_k, with a fresh key each time (the re-key case)."""
    point = deck.card_point("AS")
    keys = [p256.random_scalar() for _ in range(OPS_PER_RUN)]

    def run() -> None:
        for key in keys:
            p256.multiply(key, point)

    return round(statistics.median(_timed(run) for _ in range(RUNS)) / OPS_PER_RUN * 1000, 4)


def _shuffle_52x5() -> _Shuffled:
    done = _Shuffled(deck.CardTable(LABELS), [], [], {}, {})
    cards = done.table.points
    for seat in range(SEATS):
        done.lock_keys[seat] = deck.new_key()
        cards = deck.lock_pass(cards, done.lock_keys[seat], deck.new_permutation(len(cards)))
        done.locks.append(deck.LockedDeck(seat, cards))
    for seat in range(SEATS):
        done.card_keys[seat] = deck.new_card_keys(len(cards))
        cards = deck.rekey_pass(cards, done.lock_keys[seat], done.card_keys[seat])
        commitments = deck.card_key_commitments(SESSION_ID, seat, done.card_keys[seat])
        done.rekeys.append(deck.RekeyedDeck(seat, cards, commitments))
    return done


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start
