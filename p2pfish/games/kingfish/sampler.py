"""King Fish determinizer for the search bot: a full state consistent with one seat's view.

The seat knows its own hand (by deck position) and bait, and sees the ponds, the lines, the baits turned up,
the tackle box, the cards others kept from it and this round's catches. Every other card of the round's deck —
the other hands' private cards, their face-down baits, the undealt deck and what the view no longer shows (the
discards) — is drawn as one random deal of the labels not in sight. Deck positions the seat never saw are given
out afresh (the rules treat a position only as a card's name); its own hand keeps its real positions, so its
legal actions are the same in every sample.
"""

import random
from collections.abc import Iterator, Sequence
from typing import Any, Final

from p2pfish.bots.search import Sampler, World, round_horizon
from p2pfish.core.actions import Action, card_name
from p2pfish.core.wire import Scalar
from p2pfish.games.kingfish.greedy import action_values
from p2pfish.games.kingfish.playout import fast_play_out
from p2pfish.games.kingfish.rules import DECK_LABELS, Options, PlayBait, State, View, round_deck, suit


def sample(view: Any, rng: random.Random) -> World:
    assert isinstance(view, View)
    players, seat = view.players, view.seat
    deck = round_deck(view.round)
    size = len(DECK_LABELS)
    next_position = size - view.deck_left
    my_positions = {position for position, _ in view.hand}
    free: Iterator[int] = iter([p for p in range(next_position) if p not in my_positions])
    seen = {label for _, label in view.hand}
    seen.update(label for pond in view.ponds for label in pond)
    seen.update(label for label in (*view.lines, *view.baits, view.my_bait) if label is not None)
    seen.update(view.tackle)
    seen.update(label for held in view.public_in_hand for label in held)
    seen.update(fish for caught in view.caught for fish in caught)
    unknown = [label for label in DECK_LABELS if label not in seen]
    rng.shuffle(unknown)
    shown: list[str | None] = [None] * size
    known: list[dict[str, Scalar]] = [{} for _ in range(players)]

    def public(label: str) -> int:
        position = next(free)
        shown[position] = label
        return position

    def private(owner: int, label: str) -> int:
        position = next(free)
        known[owner][card_name(deck, position)] = label
        return position

    hands: list[tuple[int, ...]] = []
    for s in range(players):
        if s == seat:
            for position, label in view.hand:
                if label in view.public_in_hand[s]:
                    shown[position] = label
                else:
                    known[s][card_name(deck, position)] = label
            hands.append(tuple(position for position, _ in view.hand))
            continue
        held = [public(label) for label in view.public_in_hand[s]]
        held += [private(s, unknown.pop()) for _ in range(view.hand_sizes[s] - len(view.public_in_hand[s]))]
        hands.append(tuple(held))
    ponds = tuple(tuple(public(label) for label in pond) for pond in view.ponds)
    lines = tuple(None if label is None else public(label) for label in view.lines)
    baits: list[int | None] = []
    for s in range(players):
        turned = view.baits[s]
        if turned is not None:
            baits.append(public(turned))
        elif view.baits_down[s]:
            owned = view.my_bait if s == seat else None
            baits.append(private(s, unknown.pop() if owned is None else owned))
        else:
            baits.append(None)
    tackle = tuple(public(label) for label in view.tackle)
    order = [unknown.pop() for _ in range(view.deck_left)]
    decks = {deck: [""] * next_position + order}
    state = State(
        players=players,
        options=Options(),
        phase=view.phase,
        first=(view.dealer - view.round + 1) % players,
        round=view.round,
        dealt=players,
        next_position=next_position,
        shown=tuple(shown),
        hands=tuple(hands),
        ponds=ponds,
        excursion=view.excursion,
        pond=view.pond,
        lines=lines,
        baits=tuple(baits),
        reeled=view.reeled,
        reel_log=view.reel_log,
        tackle=tackle,
        discarded=(),
        caught=view.caught,
        history=view.history,
    )
    return World(state, known, decks)


def _secret(view: Any, legal: Any) -> bool:
    """A bait goes face down: which card it is stays hidden until it is reeled."""
    assert isinstance(view, View)
    return view.phase == "bait"


def _hidden(view: Any, action: Any) -> object:
    """What a face-down bait hides that matters: its suit (the bait a reeler must match)."""
    assert isinstance(view, View) and isinstance(action, PlayBait)
    return suit(dict(view.hand)[action.position])


HORIZON_SCALE: Final = 3.0
"""The lead at the end of a playout (in points) worth about a 0.88 reward (a round brings a seat a few fish)."""


def _prior(view: Any, legal: Sequence[Action]) -> list[float]:
    """The greedy bot's value of each action, the CANDIDATES best searched. For a bait, the greedy's best card
    of each suit comes first: what a bait hides is its suit, and every suit held must be searched for the draw
    (with at most four suits, CANDIDATES covers them all)."""
    assert isinstance(view, View)
    values = action_values(view, legal)
    if values is None:
        return [0.0] * len(legal)
    if view.phase != "bait":
        return values
    hand = dict(view.hand)
    best: dict[str, int] = {}
    for index, action in enumerate(legal):
        assert isinstance(action, PlayBait)
        colour = suit(hand[action.position])
        if colour not in best or values[index] > values[best[colour]]:
            best[colour] = index
    firsts = set(best.values())
    return [value + (SUIT_FIRST if index in firsts else 0.0) for index, value in enumerate(values)]


SUIT_FIRST: Final = 1000.0
"""Added to the prior of a suit's best bait card (a pair is worth a few points at most)."""
CANDIDATES: Final = 4
"""How many actions a decision searches (the greedy bot's best by its own values, and its choice): a line
has up to six, and a handful of playouts each could not tell them apart; four covers every suit of a bait."""


SAMPLER = Sampler(
    sample,
    secret=_secret,
    hidden=_hidden,
    horizon=round_horizon,
    horizon_scale=HORIZON_SCALE,
    prior=_prior,
    candidates=CANDIDATES,
    play_out=fast_play_out,
)
"""This game's determinizer, for its registry entry."""
