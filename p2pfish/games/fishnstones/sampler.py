"""Fish'n'Stones determinizer for the search bot: a full state consistent with one seat's view.

What the seat does not see is drawn at random: the cards under each stack's top, the other buckets (of their
known sizes), the pile's mix (of its known size) — all from the cards not in sight (the table's mix less the
tops and the seat's own bucket) — and each other seat's committed but unrevealed cat, among the columns that
hold every bait that seat made this round.
"""

import random
from typing import Any

from p2pfish.bots.search import PLACEHOLDER_DIGEST, Sampler, World
from p2pfish.core.wire import Scalar
from p2pfish.games.fishnstones.rules import (
    BAIT,
    CAST,
    FISHING,
    ITEMS,
    State,
    View,
    cat_purpose,
    column_spots,
)


def sample(view: Any, rng: random.Random) -> World:
    assert isinstance(view, View)
    unseen = dict(zip(ITEMS, view.options.mix, strict=True))
    for top in view.tops:
        if top is not None:
            unseen[top] = max(0, unseen[top] - 1)
    for item, count in zip(ITEMS, view.my_bucket, strict=True):
        unseen[item] = max(0, unseen[item] - count)
    pool = [item for item in ITEMS for _ in range(unseen[item])]
    rng.shuffle(pool)
    covered = sum(max(0, h - 1) for h in view.heights)
    others = [s for s in range(view.players) if s != view.seat]
    wanted = covered + sum(view.bucket_sizes[s] for s in others) + view.pile_left
    while len(pool) < wanted:  # unreachable while a mix is the whole deck: no view may stop the search
        pool.append(rng.choices(ITEMS, weights=view.options.mix)[0])
    cards = iter(pool)
    pond = tuple(
        () if top is None else (*(next(cards) for _ in range(height - 1)), top)
        for top, height in zip(view.tops, view.heights, strict=True)
    )
    buckets = list((0, 0, 0) for _ in range(view.players))
    buckets[view.seat] = view.my_bucket
    for s in others:
        drawn = [next(cards) for _ in range(view.bucket_sizes[s])]
        buckets[s] = (drawn.count(ITEMS[0]), drawn.count(ITEMS[1]), drawn.count(ITEMS[2]))
    pile_cards = [next(cards) for _ in range(view.pile_left)]
    pile = (pile_cards.count(ITEMS[0]), pile_cards.count(ITEMS[1]), pile_cards.count(ITEMS[2]))
    known: list[dict[str, Scalar]] = [{} for _ in range(view.players)]
    purpose = cat_purpose(view.round)
    if view.my_cat is not None:
        known[view.seat][purpose] = view.my_cat
    for s in others:
        if view.committed[s] and view.cats[s] is None:
            known[s][purpose] = _cat(view, s, rng)
    turn = (view.to_act[0] - view.start) % view.players if view.phase in (BAIT, FISHING) and view.to_act else 0
    state = State(
        players=view.players,
        options=view.options,
        phase=view.phase,
        round=view.round,
        start=view.start,
        pile=pile,
        pond=pond,
        buckets=tuple(buckets),
        turn=turn if view.phase != CAST else 0,
        commitments=tuple(PLACEHOLDER_DIGEST if c else None for c in view.committed),
        cats=view.cats,
        baits=view.baits,
    )
    return World(state, known)


def _cat(view: View, seat: int, rng: random.Random) -> int:
    """A column for `seat`'s unrevealed cat that holds every bait it made this round."""
    targets = {target for baiter, target, _ in view.baits if baiter == seat}
    columns = [c for c in (1, 2, 3) if targets <= set(column_spots(view.players, seat, c))]
    return rng.choice(columns or [1, 2, 3])


SAMPLER = Sampler(sample)
"""This game's determinizer, for its registry entry."""
