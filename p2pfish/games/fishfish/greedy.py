"""A greedy Fish Fish bot: as a Fish it reads the Fisherman's bluffs, as the Fisherman it bluffs.

Both roles look ahead to the end of the round with a small expected-value search on public counts.

As the Fisherman: a model of the Fish, from the bets seen in this game (the share of his tiles each Fish bets
by bait value and by line, and how often he bets at all), predicts the tiles a line will draw; the look-ahead
values every (bait, Pêche card) for the line with the rest of the round played at its best: a Prise where
many tiles come, a Bredouille where few come or the bait is low, the flush a second revealed Prise sets off.
The bot draws its bait, then its card, from a softmax of those values (cast_policy) with its rng: mostly the
best, but a Prise under a tempting bait or a Bredouille under a dull one is never certain either way; the card,
the secret, is capped (bots/mixed.py): neither kind likelier than 1/2 + SPY_MARGIN when both are held. (The
model of the Fish is their habits only: it does not foresee a Fish who reads the Fisherman in turn.)

As a Fish: the chance of a Prise under the line blends two guesses.
- The counts: the Prise among the cards not revealed this round (2 Prise and 3 Bredouille minus the revealed
  ones; a closed line's card is as likely as any unrevealed one to be a Prise), its odds tilted by how this
  Fisherman played so far under high and under low baits: how many Prise he showed against what the counts
  gave (shrunk to "no tilt" while the evidence is thin). Only lines revealed before any Prise of their round
  are counted: the round goes on after those whatever the card, so seeing them again is no hint of it (the
  line of the second Prise ends the round and is never seen again, which would bias the count).
- A calculating Fisherman: the bait he laid, if he plays cast_policy on what he saw of the Fish, over every
  split of the unrevealed cards between his hand and the closed lines (read_cast): how a Prise under such a
  bait fits his plan. Bluffs that follow the values are read; a random Fisherman is not, so
- the blend trusts that model per Fisherman by how well it guessed his revealed lines against the counts.
Then every bet 0..hand is valued: the tiles now (the bait per tile on a Bredouille; on a Prise the tiles are
lost and the Fisherman scores CATCH_POINTS each, which counts against the bot too) plus the tiles it keeps,
valued line by line to the end of the round: later baits any of those the Fisherman still holds, the fifth
line taking every tile left, the other Fish revealing lines the bot stays out of at their observed rate (a
revealed Prise tells something, and the second one flushes every tile still held onto the highest bait
left, which is why keeping tiles for high baits pays).

The bot remembers what it saw over its turns of one game and starts afresh when a new game begins; it reads
only its own view and, as a Fish, never looks at my_peche / my_cast (None for it anyway).
"""

import dataclasses
import functools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple, TypeVar

from p2pfish.bots.base import pick_best
from p2pfish.bots.mixed import SPY_MARGIN, cap_probabilities
from p2pfish.core.actions import Action
from p2pfish.games.fishfish.rules import (
    BREDOUILLE,
    BUTIN_SLOTS,
    CAST,
    CATCH_POINTS,
    LINES,
    PECHE_DECK,
    PRISE,
    TILES_PER_FISH,
    Bait,
    Bet,
    Cast,
    View,
)

HIGH_BAIT: Final = 4
"""Baits from this value up are "high": a Fisherman's habits are read apart for high and for low baits."""
CAST_PRIOR: Final = 2.0
"""Pseudo-observations that pull the read of a Fisherman's habits towards "the counts alone"."""
MODEL_TRUST: Final = -1.0
"""The prior log-odds of trusting the model of a calculating Fisherman over the counts (-1: about 27%)."""
GUESS_FLOOR: Final = 0.05
"""Guesses are kept this far from 0 and 1 when they are scored, so one surprise cannot settle the trust."""
BET_SHARE_PRIOR: Final = 0.5
BET_SHARE_WEIGHT: Final = 4.0
"""A Fish is first taken to bet half his hand, worth this many tiles of evidence."""
BET_RATE_PRIOR: Final = 0.6
BET_RATE_WEIGHT: Final = 2.0
"""A Fish is first taken to bet something on a line 60% of the time, worth this many lines of evidence."""
RATE_CAP: Final = 0.98
RIVAL_WEIGHT_HEADS_UP: Final = 1.0
RIVAL_WEIGHT: Final = 0.5
"""How much one opponent's point counts against one's own: fully heads up, less when the gain is shared out
among several opponents (the Fisherman's catch for a Fish, the Fish's butin points for the Fisherman)."""
TEMPERATURE: Final = 0.6
"""The Fisherman's softmax temperature, in points: lower plays the best more often, higher bluffs more."""
ROUNDING: Final = 20
"""Model numbers are rounded to 1/ROUNDING so that the look-ahead caches are shared between decisions."""

PRISES: Final = PECHE_DECK[PRISE]
CARDS: Final = sum(PECHE_DECK.values())
KINDS: Final = (PRISE, BREDOUILLE)

K = TypeVar("K")


def _rounded(x: float) -> float:
    return round(x * ROUNDING) / ROUNDING


def tilted(base: float, odds: float) -> float:
    """`base` with its odds multiplied by `odds`."""
    if base <= 0.0 or base >= 1.0:
        return base
    return odds * base / (1.0 - base + odds * base)


def _without(baits: tuple[int, ...], bait: int) -> tuple[int, ...]:
    i = baits.index(bait)
    return baits[:i] + baits[i + 1 :]


def _any_of(chances: Iterable[float]) -> float:
    """The chance that at least one of independent events with these chances happens."""
    none = 1.0
    for chance in chances:
        none *= 1.0 - chance
    return 1.0 - none


def _softmax(values: dict[K, float]) -> dict[K, float]:
    top = max(values.values())
    weights = {key: math.exp((v - top) / TEMPERATURE) for key, v in values.items()}
    total = sum(weights.values())
    return {key: w / total for key, w in weights.items()}


# --- the Fish's look-ahead ---------------------------------------------------------------------------


class Pool(NamedTuple):
    """What is left of the round, as a Fish sees it."""

    baits: tuple[int, ...]
    """The bait cards of the lines still to come."""
    prises: int
    """Prise cards not revealed yet ..."""
    unrevealed: int
    """... among this many cards (the closed lines', the current line's and the Fisherman's)."""


class FishModel(NamedTuple):
    """What a Fish assumes about the rest of the round (rounded: it is a cache key)."""

    odds_low: float
    """The Fisherman's tilt towards a Prise under a low bait (an odds multiplier), and under a high one."""
    odds_high: float
    reveal: float
    """The chance that the other Fish reveal a later line the bot stays out of."""
    rival: float
    """How much the Fisherman's CATCH_POINTS for a caught tile count against the bot (besides the lost tile)."""


def prise_chance(bait: int, pool: Pool, model: FishModel) -> float:
    if pool.prises <= 0:
        return 0.0
    base = min(1.0, pool.prises / pool.unrevealed)
    return tilted(base, model.odds_high if bait >= HIGH_BAIT else model.odds_low)


def line_value(
    bait: int, pool: Pool, hand: int, bet: int, *, reveal: float, model: FishModel, chance: float | None = None
) -> float:
    """Expected points of betting `bet` of `hand` tiles on a line with `bait` (`pool` left after it), the line
    revealed by the others with chance `reveal` if the bot bets nothing; `chance` of a Prise if given."""
    p = prise_chance(bait, pool, model) if chance is None else chance
    kept = hand - bet
    revealed = 1.0 if bet else reveal
    value = 0.0
    if revealed > 0.0:
        if p > 0.0:
            if pool.prises == 1:  # the second Prise: every tile still held goes to the highest bait left
                after = kept * max(pool.baits) if pool.baits else 0.0
            else:
                after = hold_value(pool._replace(prises=pool.prises - 1, unrevealed=pool.unrevealed - 1), kept, model)
            value += revealed * p * (after - bet * CATCH_POINTS * model.rival)
        if p < 1.0:
            after = hold_value(pool._replace(unrevealed=pool.unrevealed - 1), kept, model)
            value += revealed * (1.0 - p) * (bet * bait + after)
    if revealed < 1.0:
        value += (1.0 - revealed) * hold_value(pool, kept, model)
    return value


@functools.lru_cache(maxsize=1 << 16)
def hold_value(pool: Pool, hand: int, model: FishModel) -> float:
    """Expected points of `hand` tiles held before the next line (its bait any of `pool.baits`), the bot
    betting at its best on each later line."""
    if hand == 0 or not pool.baits:
        return 0.0
    total = 0.0
    for bait in pool.baits:
        after = pool._replace(baits=_without(pool.baits, bait))
        if not after.baits:  # the last line takes every tile left
            total += line_value(bait, after, hand, hand, reveal=1.0, model=model)
        else:
            total += max(
                line_value(bait, after, hand, bet, reveal=model.reveal, model=model) for bet in range(hand + 1)
            )
    return total / len(pool.baits)


# --- the Fisherman's look-ahead ------------------------------------------------------------------


class Hold(NamedTuple):
    """What the Fisherman holds before a line."""

    baits: tuple[int, ...]
    prises: int
    bredouilles: int
    needed: int
    """Prise reveals that end the round."""

    def holds(self, kind: str) -> bool:
        return (self.prises if kind == PRISE else self.bredouilles) > 0


class FisherModel(NamedTuple):
    """What the Fisherman assumes about the Fish (rounded: it is a cache key)."""

    shares: tuple[tuple[float, ...], ...]
    """The part of their tiles the Fish bet when somebody bets, by line (index line - 1) and bait value."""
    reveals: tuple[tuple[float, ...], ...]
    """The chance that somebody bets at all, by line and bait value."""
    rival: float
    """How much a Fish's butin point costs the Fisherman."""


@functools.lru_cache(maxsize=1 << 16)
def fisher_value(hold: Hold, model: FisherModel) -> float:
    """The Fisherman's expected points from here with the best plan under `model`, per tile in the Fish's hands
    (what the model makes of a line is a part of the tiles held: all the points are in proportion to them)."""
    if not hold.baits:
        return 0.0
    return max(cast_value(bait, kind, hold, model) for bait in set(hold.baits) for kind in KINDS if hold.holds(kind))


def cast_value(bait: int, kind: str, hold: Hold, model: FisherModel) -> float:
    """The Fisherman's expected points per Fish tile of a line with `bait` over a `kind` card, and of the rest
    of the round."""
    baits, prises, bredouilles, needed = hold
    rest = _without(baits, bait)
    if kind == PRISE:
        prises -= 1
    else:
        bredouilles -= 1
    if not rest:
        reveal, drawn = 1.0, 1.0
    else:
        line = LINES - len(baits)
        reveal, drawn = model.reveals[line][bait], model.shares[line][bait]
    closed = fisher_value(Hold(rest, prises, bredouilles, needed), model) if reveal < 1.0 else 0.0
    if reveal <= 0.0:
        return closed
    left = 1.0 - drawn
    if kind == BREDOUILLE:
        now = -model.rival * drawn * bait
        then = left * fisher_value(Hold(rest, prises, bredouilles, needed), model)
    elif needed == 1:  # the second Prise: the Fish's tiles go to the highest bait left
        now, then = drawn * CATCH_POINTS, -model.rival * left * max(rest, default=0)
    else:
        now, then = drawn * CATCH_POINTS, left * fisher_value(Hold(rest, prises, bredouilles, needed - 1), model)
    return reveal * (now + then) + (1.0 - reveal) * closed


def cast_policy(hold: Hold, tiles: float, model: FisherModel) -> dict[tuple[int, str], float]:
    """The greedy Fisherman's chance of each (bait, card) for the next line, the Fish holding `tiles`: a softmax
    over the baits of the best value each allows, then a softmax over the cards for the bait drawn."""
    values = {
        (bait, kind): tiles * cast_value(bait, kind, hold, model)
        for bait in sorted(set(hold.baits))
        for kind in KINDS
        if hold.holds(kind)
    }
    best = {bait: max(v for (b, _), v in values.items() if b == bait) for bait, _ in values}
    policy = {}
    for bait, chance in _softmax(best).items():
        for kind, kind_chance in _softmax({k: v for (b, k), v in values.items() if b == bait}).items():
            policy[(bait, kind)] = chance * kind_chance
    return policy


# --- what the bot remembers of a game ------------------------------------------------------------


@dataclass
class Bets:
    """A Fish's bets on the lines where he held tiles (the forced fifth line left out)."""

    bet: int = 0
    held: int = 0
    betting: int = 0
    """Lines he bet something on ..."""
    lines: int = 0
    """... of this many."""

    def add(self, bet: int, held: int) -> None:
        self.bet += bet
        self.held += held
        self.betting += bet > 0
        self.lines += 1

    def share(self) -> float:
        """The part of his tiles he bets (drawn towards BET_SHARE_PRIOR while the evidence is thin)."""
        return (self.bet + BET_SHARE_WEIGHT * BET_SHARE_PRIOR) / (self.held + BET_SHARE_WEIGHT)

    def rate(self) -> float:
        """The chance that he bets something (drawn towards BET_RATE_PRIOR while the evidence is thin)."""
        return (self.betting + BET_RATE_WEIGHT * BET_RATE_PRIOR) / (self.lines + BET_RATE_WEIGHT)


@dataclass
class Casts:
    """A Fisherman's cards on lines revealed before any Prise of their round."""

    prises: float = 0.0
    expected: float = 0.0
    """What the counts alone made of them."""
    lines: int = 0


@dataclass
class Memory:
    """What the bot saw of one game."""

    when: tuple[int, int] = (0, 0)
    """(round, finished rounds) of the last view: a smaller pair means a new game."""
    counted: set[tuple[int, int]] = field(default_factory=set)
    """(round, line) of the lines already counted."""
    bets: dict[tuple[int, str, int], Bets] = field(default_factory=dict)
    """By (seat, "bait" or "line", bait value or line number), and (seat, "all", 0)."""
    casts: dict[tuple[int, bool], Casts] = field(default_factory=dict)
    """By (Fisherman, high bait)."""
    guesses: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict)
    """(round, line) -> the bot's guesses at a Prise under it when it bet on it as a Fish: the counts' and
    the calculating Fisherman model's."""
    trust: dict[int, float] = field(default_factory=dict)
    """By Fisherman: how much better (log-likelihood) the model guessed his cards than the counts."""
    habit_cache: dict[tuple[int, int], dict[tuple[int, int], tuple[float, float]]] = field(default_factory=dict)
    """habits by (seat, lines counted for him): they change only when the bot counts a line he could bet on."""

    def copy(self) -> "Memory":
        """A copy that later observations of either leave the other untouched (the habits, never changed once
        computed, are shared)."""
        return Memory(
            self.when,
            set(self.counted),
            {key: dataclasses.replace(bets) for key, bets in self.bets.items()},
            {key: dataclasses.replace(casts) for key, casts in self.casts.items()},
            dict(self.guesses),
            dict(self.trust),
            dict(self.habit_cache),
        )

    def bets_of(self, seat: int, kind: str, key: int) -> Bets:
        found = self.bets.get((seat, kind, key))
        if found is None:
            found = self.bets[(seat, kind, key)] = Bets()
        return found

    def casts_of(self, fisherman: int, high: bool) -> Casts:
        return self.casts.setdefault((fisherman, high), Casts())

    def observe(self, view: View) -> None:
        """Count the lines of the round that are over and were not counted yet."""
        hands = [0 if seat == view.fisherman else TILES_PER_FISH for seat in range(view.players)]
        shown = {PRISE: 0, BREDOUILLE: 0}
        for number, line in enumerate(view.lines, 1):
            key = (view.round, number)
            if line.checked and key not in self.counted and number < LINES:
                self.counted.add(key)
                for seat in range(view.players):
                    if seat != view.fisherman and hands[seat] > 0:
                        for kind, index in (("bait", line.bait), ("line", number), ("all", 0)):
                            self.bets_of(seat, kind, index).add(line.bets[seat], hands[seat])
                if line.peche is not None and shown[PRISE] == 0:
                    self._cast_seen(view.fisherman, line.bait, line.peche == PRISE, shown[BREDOUILLE], key)
            for seat, tiles in enumerate(line.bets):
                hands[seat] -= tiles
            if line.peche is not None:
                shown[line.peche] += 1

    def _cast_seen(self, fisherman: int, bait: int, prise: bool, bredouilles: int, key: tuple[int, int]) -> None:
        """A line revealed before any Prise of its round: the round went on whatever the card, so that the
        bot sees it is no hint of the card."""
        casts = self.casts_of(fisherman, bait >= HIGH_BAIT)
        casts.prises += prise
        casts.expected += PRISES / (CARDS - bredouilles)
        casts.lines += 1
        guesses = self.guesses.pop(key, None)
        if guesses is not None:
            counts, model = (min(max(g, GUESS_FLOOR), 1.0 - GUESS_FLOOR) for g in guesses)
            score = math.log(model / counts) if prise else math.log((1.0 - model) / (1.0 - counts))
            self.trust[fisherman] = self.trust.get(fisherman, 0.0) + score

    def odds(self, fisherman: int, high: bool) -> float:
        """How much more (or less) than the counts alone this Fisherman puts a Prise under such a bait."""
        casts = self.casts_of(fisherman, high)
        prise = (casts.prises + CAST_PRIOR) / (casts.expected + CAST_PRIOR)
        bredouille = (casts.lines - casts.prises + CAST_PRIOR) / (casts.lines - casts.expected + CAST_PRIOR)
        return prise / bredouille

    def model_weight(self, fisherman: int) -> float:
        """How far the bot trusts the model of a calculating Fisherman over the counts, for this one."""
        return 1.0 / (1.0 + math.exp(-(self.trust.get(fisherman, 0.0) + MODEL_TRUST)))

    def habits(self, seat: int) -> dict[tuple[int, int], tuple[float, float]]:
        """(line, bait) -> the chance that this Fish bets something on such a line, and the part of his tiles
        he bets: his habit under that bait, scaled by his habit on that line against his habit overall."""
        everything = self.bets_of(seat, "all", 0)
        key = (seat, everything.lines)
        found = self.habit_cache.get(key)
        if found is None:
            rate, share = everything.rate(), everything.share()
            by_bait = {bait: self.bets_of(seat, "bait", bait) for bait in BUTIN_SLOTS}
            found = {}
            for line in range(1, LINES):
                by_line = self.bets_of(seat, "line", line)
                rate_scale, share_scale = by_line.rate() / rate, by_line.share() / share
                for bait, bets in by_bait.items():
                    found[(line, bait)] = (
                        min(RATE_CAP, bets.rate() * rate_scale),
                        min(1.0, bets.share() * share_scale),
                    )
            self.habit_cache[key] = found
        return found

    def fisher_model(self, players: int, tiles: dict[int, int]) -> FisherModel:
        """How a Fisherman may expect the Fish to bet, from their bets so far (`tiles`: each Fish's hand)."""
        total = sum(tiles.values())
        holders = [(self.habits(s), t) for s, t in tiles.items() if t]
        shares: list[tuple[float, ...]] = []
        reveals: list[tuple[float, ...]] = []
        for line in range(1, LINES):
            by_bait = [0.0] * (max(BUTIN_SLOTS) + 1)
            any_bet = [0.0] * (max(BUTIN_SLOTS) + 1)
            for bait in BUTIN_SLOTS:
                reveal = _any_of(habits[(line, bait)][0] for habits, _ in holders)
                any_bet[bait] = _rounded(reveal)
                if total and reveal > 0.0:  # the tiles bet when somebody bets: the expectation over the reveal
                    drawn = sum(habits[(line, bait)][1] * t for habits, t in holders)
                    by_bait[bait] = _rounded(min(1.0, drawn / total / reveal))
            shares.append(tuple(by_bait))
            reveals.append(tuple(any_bet))
        return FisherModel(tuple(shares), tuple(reveals), rival_weight(players))


def revealed(view: View, kind: str) -> int:
    return sum(1 for line in view.lines if line.peche == kind)


def closed(view: View) -> int:
    return sum(1 for line in view.lines if line.checked and line.peche is None)


def rival_weight(players: int) -> float:
    return RIVAL_WEIGHT_HEADS_UP if players == 2 else RIVAL_WEIGHT


def read_cast(view: View, model: FisherModel) -> float:
    """The chance of a Prise under the current line if the Fisherman plays cast_policy under `model`: over
    the ways to split the unrevealed cards between his hand and the closed lines (all equally likely), his
    chance of laying this bait over a Prise against his chance of laying it at all."""
    line = view.lines[-1]
    baits = tuple(sorted((*view.baits, line.bait)))
    prises = PRISES - revealed(view, PRISE)
    bredouilles = CARDS - PRISES - revealed(view, BREDOUILLE)
    hidden = closed(view)
    tiles = float(sum(view.hands) + sum(line.bets))
    prise = laid = 0.0
    for held in range(min(prises, len(baits)) + 1):
        buried = prises - held
        if buried > hidden or len(baits) - held > bredouilles:
            continue
        ways = math.comb(len(baits), held) * math.comb(hidden, buried)
        policy = cast_policy(Hold(baits, held, len(baits) - held, prises), tiles, model)
        prise += ways * policy.get((line.bait, PRISE), 0.0)
        laid += ways * (policy.get((line.bait, PRISE), 0.0) + policy.get((line.bait, BREDOUILLE), 0.0))
    return prise / laid if laid > 0.0 else prises / (prises + bredouilles)


# --- the bot -------------------------------------------------------------------------------------


class GreedyFishFish:
    at_once = True
    """One ply, no search: it decides at once (core/player.py decides_at_once)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._memory = Memory()

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        assert isinstance(view, View)
        when = (view.round, len(view.history))
        if when < self._memory.when:
            self._memory = Memory()
        self._memory.when = when
        self._memory.observe(view)
        if len(legal) == 1:
            return legal[0]
        first = legal[0]
        if isinstance(first, Bet):
            return self._bet(view, legal)
        if isinstance(first, Bait | Cast):
            return self._cast(view, legal)
        return legal[self._rng.randrange(len(legal))]

    def fork(self, rng: random.Random) -> "GreedyFishFish":
        """A bot with a copy of this one's memory (the search bot's playouts start from it)."""
        twin = GreedyFishFish(rng)
        twin._memory = self._memory.copy()
        return twin

    @property
    def memory(self) -> Memory:
        """What the bot saw of the current game."""
        return self._memory

    # --- as a Fish ---

    def guesses(self, view: View) -> tuple[float, float]:
        """Two guesses at the chance of a Prise under the current line: from the counts, tilted by the
        Fisherman's habits, and from the model of a calculating Fisherman (read_cast)."""
        memory = self._memory
        line = view.lines[-1]
        prises = PRISES - revealed(view, PRISE)
        unrevealed = CARDS - revealed(view, PRISE) - revealed(view, BREDOUILLE)
        counts = tilted(prises / unrevealed, memory.odds(view.fisherman, line.bait >= HIGH_BAIT))
        tiles = {s: view.hands[s] + line.bets[s] for s in range(view.players) if s != view.fisherman}
        return counts, read_cast(view, memory.fisher_model(view.players, tiles))

    def prise_chance(self, view: View) -> float:
        """The bot's guess at the chance of a Prise under the current line: the two guesses blended by how
        far it trusts the model for this Fisherman."""
        counts, model = self.guesses(view)
        weight = self._memory.model_weight(view.fisherman)
        return weight * model + (1.0 - weight) * counts

    def _bet(self, view: View, legal: Sequence[Action]) -> Action:
        memory = self._memory
        line = view.lines[-1]
        number = len(view.lines)
        hand = view.hands[view.seat]
        if any(tiles for seat, tiles in enumerate(line.bets) if seat != view.seat):
            reveal_now = 1.0
        else:
            later = view.order[view.order.index(view.seat) + 1 :]
            reveal_now = _any_of(memory.habits(s)[(number, line.bait)][0] for s in later if view.hands[s] > 0)
        others = [s for s in range(view.players) if s not in (view.seat, view.fisherman) and view.hands[s] > 0]
        reveal_later = _any_of(memory.bets_of(s, "all", 0).rate() for s in others)
        model = FishModel(
            _rounded(memory.odds(view.fisherman, False)),
            _rounded(memory.odds(view.fisherman, True)),
            _rounded(reveal_later),
            rival_weight(view.players),
        )
        counts, guess = self.guesses(view)
        memory.guesses[(view.round, number)] = (counts, guess)
        weight = memory.model_weight(view.fisherman)
        chance = weight * guess + (1.0 - weight) * counts
        prises = PRISES - revealed(view, PRISE)
        pool = Pool(view.baits, prises, CARDS - revealed(view, PRISE) - revealed(view, BREDOUILLE))
        values = [
            line_value(line.bait, pool, hand, bet, reveal=reveal_now, model=model, chance=chance)
            for bet in range(hand + 1)
        ]
        return pick_best(self._rng, legal, values)

    # --- as the Fisherman ---

    def _cast(self, view: View, legal: Sequence[Action]) -> Action:
        """A bait, or the card under it, drawn from cast_policy."""
        assert view.my_peche is not None, "the Fisherman sees his own Pêche cards"
        tiles = {s: view.hands[s] for s in range(view.players) if s != view.fisherman}
        model = self._memory.fisher_model(view.players, tiles)
        baits = tuple(sorted((*view.baits, view.lines[-1].bait))) if view.phase == CAST else view.baits
        prises = view.my_peche.count(PRISE)
        hold = Hold(baits, prises, len(view.my_peche) - prises, PRISES - revealed(view, PRISE))
        policy = cast_policy(hold, sum(tiles.values()), model)
        weights = [_chance(action, policy, view) for action in legal]
        total = sum(weights)
        if total <= 0.0:  # nothing the policy knows (it always covers every legal choice)
            return legal[self._rng.randrange(len(legal))]
        if isinstance(legal[0], Cast):  # the secret: no card likelier than 1/k + SPY_MARGIN
            weights = cap_probabilities([w / total for w in weights], 1.0 / len(legal) + SPY_MARGIN)
        return self._rng.choices(legal, weights)[0]


def _chance(action: Action, policy: dict[tuple[int, str], float], view: View) -> float:
    """The chance cast_policy gives a legal Bait, or a legal Cast under the bait just laid."""
    if isinstance(action, Bait):
        return sum(chance for (bait, _), chance in policy.items() if bait == action.value)
    if isinstance(action, Cast):
        return policy.get((view.lines[-1].bait, str(action.value)), 0.0)
    return 0.0


GREEDY: Final = GreedyFishFish
"""This game's greedy bot, for its registry entry."""
