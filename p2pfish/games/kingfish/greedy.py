"""A greedy King Fish bot: every line and bait is a pair planned against the pond, the rivals and the hand.

A (line, bait) pair from the hand is worth the fish it may expect to take from the pond:
- the fish its line and bait catch (`catches`), best first: the bot takes the most valuable one left;
- each kept with the chance that no rival reeling before the bot takes it. A rival reels first with a lower
  line (an equal line with a higher bait: even odds while the baits are down); a line not played yet is
  any rank, a bait not turned up is any suit, and a rival takes the most valuable fish it
  catches;
- less what the two cards would still be worth in the excursions left this round (`card_worth`: a court
  line catches a whole suit, court fish included; a high number line most number fish; a low one little),
  so a court card is not spent as a bait, nor a ten where a four does.

The chooser takes the pond whose best pair is worth most. A line is played as the line of the best pair
(the bait left open: the lines played before the bot are known, the others not yet); the bait is then the
best partner of the line on the table — but the bait is face down, a secret, so its suit is drawn from a
capped softmax over each suit's best value (bots/mixed.py: a spy who computes the same values guesses the suit
little better than blind), and the bait is that suit's best card. Reeling with a choice, the bot takes the
most valuable fish, on ties the one the rivals still to reel would most likely take, then the one its hand
could least catch later.
From the tackle box it keeps the card that most raises what its hand can catch in the ponds left (the best
pond if it chooses next, else the ponds on average).

The bot reads its own view only and keeps no memory; ties go to its rng.
"""

import functools
import random
from collections.abc import Callable, Sequence
from typing import Any, Final

from p2pfish.bots.base import pick_best
from p2pfish.bots.mixed import draw_secret
from p2pfish.core.actions import Action
from p2pfish.games.kingfish import rules
from p2pfish.games.kingfish.rules import (
    CAUGHT,
    COURT,
    DECK_LABELS,
    MIN_HAND,
    RANKS,
    SUITS,
    View,
    catches,
    fish_points,
    rank,
    suit,
)

COURT_WORTH: Final = 0.6
"""What a court card kept for a later excursion is worth as a line, in points ..."""
TEN_WORTH: Final = 0.3
"""... and a ten (lower numbers in proportion, an ace nothing: it catches nothing)."""
BAIT_TEMPERATURE: Final = 0.5
"""The softmax temperature of the bait's suit, in points."""
TACKLE_WORTH: Final = 0.2
"""How much a kept tackle card's own worth counts beside what it catches in the ponds now."""

RANK_VALUES: Final = tuple(range(1, len(RANKS) + 1))


def card_worth(label: str) -> float:
    """What a card is worth as a line in a later excursion."""
    value = rank(label)
    if value >= COURT:
        return COURT_WORTH
    return TEN_WORTH * (value - 1) / (COURT - 2)


_WORTH: Final = {label: card_worth(label) for label in DECK_LABELS}


def line_catches(line_rank: int, bait_suit: str, fish: str) -> bool:
    """`catches` for a line known by its rank and a bait by its suit."""
    return suit(fish) == bait_suit and (line_rank >= COURT or rank(fish) < line_rank)


def taken_by(line_rank: int, bait_suit: str, pond: Sequence[str]) -> dict[str, float]:
    """The chance of each fish being the one a reeler with this line and bait takes: the most valuable
    it catches, ties shared."""
    caught = [fish for fish in pond if line_catches(line_rank, bait_suit, fish)]
    if not caught:
        return {}
    best = max(fish_points(fish) for fish in caught)
    top = [fish for fish in caught if fish_points(fish) == best]
    return {fish: 1 / len(top) for fish in top}


class Rival:
    """A seat still to reel this excursion, as the bot sees it."""

    def __init__(self, line: str | None, bait: str | None, bait_above: float) -> None:
        self.line = line
        self.bait = bait
        self.bait_above = bait_above
        """For an equal line: the chance that its bait outranks the bot's (it then reels first)."""

    def threat(self, pond: Sequence[str], my_line: int | None) -> dict[str, float]:
        """The chance that this rival takes each fish before the bot (`my_line` None: at any time); the caller
        must not change the dict (it is cached)."""
        return _threat(self.line, self.bait, self.bait_above, tuple(pond), my_line)


@functools.lru_cache(maxsize=4096)
def _threat(
    line: str | None, bait: str | None, bait_above: float, pond: tuple[str, ...], my_line: int | None
) -> dict[str, float]:
    lines = RANK_VALUES if line is None else (rank(line),)
    suits = SUITS if bait is None else (suit(bait),)
    weight = 1 / (len(lines) * len(suits))  # a line not played yet or a bait face down: any of them
    chances: dict[str, float] = {}
    for line_rank in lines:
        if my_line is None or line_rank < my_line:
            first = 1.0
        elif line_rank == my_line:
            first = bait_above
        else:
            continue
        for bait_suit in suits:
            for fish, chance in taken_by(line_rank, bait_suit, pond).items():
                chances[fish] = chances.get(fish, 0.0) + weight * first * chance
    return chances


RivalState = tuple[tuple[str | None, str | None], ...]
"""Each rival still to reel: its line and its bait turned up (None: not played, or face down)."""


class Table:
    """One decision's reading of the view. Its values are cached across decisions (the search's playouts meet
    the same ponds, hands and rivals again and again)."""

    def __init__(self, view: View, *, costs: bool = True) -> None:
        self.view = view
        self.seat = view.seat
        self.hand = dict(view.hand)
        full = len(view.hand) + (view.lines[view.seat] is not None) + (view.my_bait is not None)
        self.later = costs and full - 1 >= MIN_HAND and view.deck_left >= view.players
        """Whether the cards a pair spends are missed in a later excursion of this round (`costs` False:
        pairs are worth what they catch)."""
        self.rival_state: RivalState = tuple(
            (view.lines[seat], view.baits[seat])
            for seat in range(view.players)
            if seat != self.seat and not view.reeled[seat]
        )

    def rivals(self, my_bait: str | None) -> list[Rival]:
        return [Rival(*rival) for rival in _rivals(self.rival_state, my_bait)]

    def cost(self, line: str, bait: str) -> float:
        return _cost(line, bait, self.later)

    def expected_catch(self, pond: tuple[str, ...], line: str, bait: str) -> float:
        """The points a line and a bait may expect from `pond`, the rivals reeling first taking their share."""
        return _expected(pond, line, bait, self.rival_state)

    def pair_value(self, pond: tuple[str, ...], line: str, bait: str) -> float:
        return _pair_value(pond, line, bait, self.later, self.rival_state)

    def best_pair(self, pond: tuple[str, ...], cards: Sequence[str]) -> float:
        """The best pair of `cards` for `pond`, 0 with fewer than two cards."""
        return _best_pair(pond, tuple(cards), self.later, self.rival_state)

    def line_value(self, pond: tuple[str, ...], line: str) -> float:
        """A line's worth: with its best bait among the other hand cards."""
        return _best_line(pond, line, tuple(self.hand.values()), self.later, self.rival_state)


def _cost(line: str, bait: str, later: bool) -> float:
    return _WORTH[line] + _WORTH[bait] if later else 0.0


def _rivals(rival_state: RivalState, my_bait: str | None) -> tuple[tuple[str | None, str | None, float], ...]:
    """Each rival's line, bait turned up, and the chance that its bait outranks `my_bait`."""
    return tuple((line, bait, _outranks(bait, my_bait)) for line, bait in rival_state)


def _expected(pond: tuple[str, ...], line: str, bait: str, rival_state: RivalState) -> float:
    caught = CAUGHT[line][bait[-1]]
    if not any(fish in caught for fish in pond):
        return 0.0
    return _expected_catch(pond, line, bait, _rivals(rival_state, bait))


def _pair_value(pond: tuple[str, ...], line: str, bait: str, later: bool, rival_state: RivalState) -> float:
    return _expected(pond, line, bait, rival_state) - _cost(line, bait, later)


@functools.lru_cache(maxsize=1 << 16)
def _expected_catch(
    pond: tuple[str, ...], line: str, bait: str, rivals: tuple[tuple[str | None, str | None, float], ...]
) -> float:
    caught = CAUGHT[line][bait[-1]]
    mine = [f for f in pond if f in caught]
    if len(mine) > 1:
        mine.sort(key=fish_points, reverse=True)
    survives = dict.fromkeys(mine, 1.0)
    my_line = rank(line)
    for rival_line, rival_bait, above in rivals:
        for fish, chance in _threat(rival_line, rival_bait, above, pond, my_line).items():
            if fish in survives:
                survives[fish] *= 1.0 - chance
    value, gone = 0.0, 1.0
    for fish in mine:
        value += gone * survives[fish] * fish_points(fish)
        gone *= 1.0 - survives[fish]
    return value


@functools.lru_cache(maxsize=1 << 15)
def _best_pair(pond: tuple[str, ...], cards: tuple[str, ...], later: bool, rival_state: RivalState) -> float:
    best: float | None = None
    for bait in cards:
        colour = bait[-1]
        same_suit = [fish for fish in pond if fish[-1] == colour]
        for line in cards:
            if line == bait:
                continue
            caught = CAUGHT[line][colour]
            if same_suit and any(fish in caught for fish in same_suit):
                value = _expected_catch(pond, line, bait, _rivals(rival_state, bait)) - _cost(line, bait, later)
            else:
                value = 0.0 - _cost(line, bait, later)
            if best is None or value > best:
                best = value
    return 0.0 if best is None else best


@functools.lru_cache(maxsize=1 << 15)
def _best_line(pond: tuple[str, ...], line: str, hand: tuple[str, ...], later: bool, rival_state: RivalState) -> float:
    return max((_pair_value(pond, line, b, later, rival_state) for b in hand if b != line), default=0.0)


class GreedyKingFish:
    at_once = True
    """One ply, no search: it decides at once (core/player.py decides_at_once)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        assert isinstance(view, View)
        first = legal[0]
        if len(legal) == 1:
            return first
        values = action_values(view, legal)
        if values is None:
            return legal[self._rng.randrange(len(legal))]
        if isinstance(first, rules.PlayBait):
            return self._bait(view, legal, values)
        return pick_best(self._rng, legal, values)

    def _bait(self, view: View, legal: Sequence[Action], values: Sequence[float]) -> Action:
        """The face-down bait: its suit, the secret, drawn from a capped softmax over each suit's best value (no
        suit likelier than 1 / suits held + SPY_MARGIN), then the best card of that suit."""
        hand = dict(view.hand)
        best: dict[str, tuple[float, Action]] = {}
        for action, value in zip(legal, values, strict=True):
            assert isinstance(action, rules.PlayBait)
            colour = suit(hand[action.position])
            if colour not in best or value > best[colour][0]:
                best[colour] = (value, action)
        colours = sorted(best)
        chosen = draw_secret(self._rng, colours, [best[c][0] for c in colours], BAIT_TEMPERATURE)
        return best[chosen][1]


def action_values(view: View, legal: Sequence[Action]) -> list[float] | None:
    """What the bot makes of each legal action (a bait: of each card, before its suit is drawn); None for a
    decision it does not know."""
    first = legal[0]
    table = Table(view, costs=not isinstance(first, rules.Keep))
    value: Callable[[Table, Action], float]
    if isinstance(first, rules.ChoosePond):
        value = _pond_value
    elif isinstance(first, rules.PlayLine):
        value = _line_value
    elif isinstance(first, rules.PlayBait):
        value = _bait_value
    elif isinstance(first, rules.Catch):
        value = _catch_value
    elif isinstance(first, rules.Keep):
        value = _keep_value
    else:
        return None
    return [value(table, action) for action in legal]


def _outranks(bait: str | None, mine: str | None) -> float:
    """The chance that a rival's bait outranks mine: even while either is unknown."""
    if bait is None or mine is None:
        return 0.5
    return 1.0 if rank(bait) > rank(mine) else 0.0


def _chosen_pond(view: View) -> tuple[str, ...]:
    assert view.pond is not None
    return view.ponds[view.pond]


def _pond_value(table: Table, action: Action) -> float:
    assert isinstance(action, rules.ChoosePond)
    return table.best_pair(table.view.ponds[action.pond], list(table.hand.values()))


def _line_value(table: Table, action: Action) -> float:
    assert isinstance(action, rules.PlayLine)
    return table.line_value(_chosen_pond(table.view), action.label)


def _bait_value(table: Table, action: Action) -> float:
    assert isinstance(action, rules.PlayBait)
    line = table.view.lines[table.seat]
    assert line is not None
    return table.pair_value(_chosen_pond(table.view), line, table.hand[action.position])


def _catch_value(table: Table, action: Action) -> float:
    """The fish's points; then how likely the rivals still to reel would take it; then how little the
    bot's hand could catch it in a later excursion."""
    assert isinstance(action, rules.Catch)
    pond = _chosen_pond(table.view)
    fish = action.fish
    threat = sum(rival.threat(pond, None).get(fish, 0.0) for rival in table.rivals(None))
    cards = list(table.hand.values())
    later = any(catches(a, b, fish) for a in cards for b in cards if a != b)
    return fish_points(fish) + 0.1 * min(threat, 1.0) - 0.01 * later


def _keep_value(table: Table, action: Action) -> float:
    """What the hand with the card catches in the ponds left, plus a little of the card's own worth."""
    assert isinstance(action, rules.Keep)
    view = table.view
    cards = [*table.hand.values(), action.card]
    ponds = [pond for pond in view.ponds if pond]
    if not ponds:
        return card_worth(action.card)
    values = [table.best_pair(pond, cards) for pond in ponds]
    next_chooser = (view.chooser + 1) % view.players
    prospect = max(values) if next_chooser == view.seat else sum(values) / len(values)
    return prospect + TACKLE_WORTH * card_worth(action.card)


GREEDY: Final = GreedyKingFish
"""This game's greedy bot, for its registry entry."""
