"""The spy: how well someone who knows a bot's algorithm, and sees what the bot sees, guesses its secret choices.

At each secret decision (the game's Sampler.secret: a cat column, a Pêche card, a face-down bait) the spy copies
the bot — its algorithm and its memory of the game, with a random generator of its own — and guesses what the
bot hides (Sampler.hidden: the choice, or a bait's suit): for a search bot, the hidden value of the action its own
search values most; for any other bot, the value its copies choose most often over SPY_RUNS tries (the mode of the
bot's mixed strategy). Blind guessing hits 1 / (the hidden values the legal choices offer) on average. A bot's
secrets are unpredictable when the spy's hit rate stays within 10 points of blind.
"""

import copy
import math
import random
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from p2pfish.bots.base import TIE
from p2pfish.bots.disguise import Disguise, Disguised
from p2pfish.bots.search import Budget, Sampler, SearchBot
from p2pfish.core.actions import Action
from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import AnyRules
from p2pfish.core.player import Player
from p2pfish.core.wire import Json
from p2pfish.games.registry import game_of, make_bot
from p2pfish.selfplay import Step, play_game

SPY_RUNS = 15


@dataclass
class SpyTally:
    decisions: int = 0
    hits: int = 0
    blind: float = 0.0
    """The sum over decisions of the blind guess's chance."""

    def to_wire(self) -> dict[str, Json]:
        n = max(1, self.decisions)
        return {"decisions": self.decisions, "hit_rate": round(self.hits / n, 4), "blind": round(self.blind / n, 4)}


def spy_guess(bot: Player, sampler: Sampler, view: Any, legal: Sequence[Action], rng: random.Random) -> object:
    if isinstance(bot, SearchBot):
        twin = copy.copy(bot)
        twin._rng = random.Random(rng.getrandbits(64))
        means, _ = twin.values(view, legal)
        return sampler.hidden(view, legal[max(range(len(legal)), key=lambda i: means[i])])
    counts: Counter[object] = Counter()
    for _ in range(SPY_RUNS):
        other: Any = copy.deepcopy(bot)
        other._rng = random.Random(rng.getrandbits(64))
        counts[sampler.hidden(view, other.choose(view, list(legal)))] += 1
    return counts.most_common(1)[0][0]


class Spied:
    """A player whose secret decisions a spy guesses before it makes them."""

    def __init__(self, bot: Player, sampler: Sampler, tally: SpyTally, rng: random.Random) -> None:
        self._bot, self._sampler, self._tally, self._rng = bot, sampler, tally, rng

    def choose(self, view: Any, legal: list[Action]) -> Action:
        if len(legal) < 2 or not self._sampler.secret(view, legal):
            return self._bot.choose(view, legal)
        hidden = {self._sampler.hidden(view, action) for action in legal}
        if len(hidden) < 2:
            return self._bot.choose(view, legal)
        guess = spy_guess(self._bot, self._sampler, view, legal, self._rng)
        action = self._bot.choose(view, legal)
        self._tally.decisions += 1
        self._tally.hits += self._sampler.hidden(view, action) == guess
        self._tally.blind += 1.0 / len(hidden)
        return action


def measure_spy(
    game_id: str, kind: str, *, games: int, players: int = 2, seed: int = 1, iterations: int = 60
) -> SpyTally:
    """The spy's hit rate on the secrets of a `kind` bot at seat 0 (the others greedy) over `games` games."""
    game = game_of(game_id)
    sampler = game.sampler()
    tally = SpyTally()
    for index in range(games):
        rng = random.Random(f"spy/{seed}/{index}")
        bot = make_bot(kind, game_id, random.Random(rng.getrandbits(64)), budget=Budget(iterations))
        seats: list[Player] = [Spied(bot, sampler, tally, random.Random(rng.getrandbits(64)))]
        seats += [make_bot("greedy", game_id, random.Random(rng.getrandbits(64))) for _ in range(1, players)]
        play_game(game.rules, players, {}, seats, rng)
    return tally


# --- dealt secrets (p2pfish/bots/disguise.py): a spy who reads the secret from the moves -------------------------

COLOUR_SPY_FLOOR = 1e-6
"""The least probability the spy's model gives any legal move (so that no single move rules a value out for good
when the spy's copy of a search bot, which it cannot run exactly, chose another)."""


def move_chances(inner: Player, view: Any, legal: Sequence[Action], rng: random.Random) -> list[float]:
    """The chance that `inner` plays each of `legal` on `view`, as the spy works it out: a bot with `values` picks
    one of its best evenly; a search bot, the action its copy's search chooses; any other, each action as often as
    SPY_RUNS copies of it choose it."""
    values = getattr(inner, "values", None)
    if isinstance(inner, SearchBot):
        twin = copy.copy(inner)
        twin._rng = random.Random(rng.getrandbits(64))
        twin._own = copy.deepcopy(inner._own)  # its memory as the bot's, told the twin's moves, not the bot's
        chosen = legal.index(twin.choose(view, list(legal)))
        counts = [1.0 if i == chosen else 0.0 for i in range(len(legal))]
    elif values is not None:
        scores: list[float] = values(view, legal)
        top = max(scores)
        counts = [1.0 if score >= top - TIE else 0.0 for score in scores]
    else:
        counts = [0.0] * len(legal)
        for _ in range(SPY_RUNS):
            other: Any = copy.deepcopy(inner)
            other._rng = random.Random(rng.getrandbits(64))
            counts[legal.index(other.choose(view, list(legal)))] += 1.0
    total = sum(counts)
    return [max(COLOUR_SPY_FLOOR, count / total) for count in counts]


@dataclass
class SecretSpyTally(SpyTally):
    games: int = 0
    final_hits: int = 0
    """Games whose secret the spy named right once the game was over (before it was revealed)."""

    def to_wire(self) -> dict[str, Json]:
        return {
            **super().to_wire(),
            "games": self.games,
            "final_hit_rate": round(self.final_hits / max(1, self.games), 4),
        }


class ColourSpy:
    """Watches one disguised (or plain) bot's moves and keeps the log-likelihood of each value of its dealt secret:
    a period's moves (a turn's) are played as one drawn value, so the spy sums, over the values `drawn` the period
    may have been played as, their chances times the likelihood of its moves under each. A disguised search bot's
    last turn (p2pfish/bots/disguise.py) is played for its true value, and the spy reads it so."""

    def __init__(self, bot: Player, disguise: Disguise, rng: random.Random) -> None:
        self._inner = bot.inner if isinstance(bot, Disguised) else bot
        self._disguised = isinstance(bot, Disguised)
        self._last_turn = bot.last_turn if isinstance(bot, Disguised) else None
        """A disguised search bot's exact play of a turn that ends the game: for its true colour, shown as it is."""
        self._disguise, self._rng = disguise, rng
        self._past = {value: 0.0 for value in disguise.values}
        self._period: Hashable = None
        self._chances: dict[object, Mapping[object, float]] = {}
        self._moves = {value: 0.0 for value in disguise.values}
        """The log-likelihood of the current period's moves if played as each value."""

    def _fold(self) -> dict[object, float]:
        """The log-likelihood of all the moves seen, under each value of the secret."""
        if not self._chances:
            return dict(self._past)
        top = max(self._moves.values())
        folded = {}
        for secret, past in self._past.items():
            mix = sum(self._chances[secret][v] * math.exp(ll - top) for v, ll in self._moves.items())
            folded[secret] = past + top + math.log(max(mix, 1e-300))
        return folded

    def guess(self, candidates: Sequence[object]) -> object:
        folded = self._fold()
        top = max(folded[c] for c in candidates)
        best = [c for c in candidates if folded[c] >= top - 1e-9]
        return best[self._rng.randrange(len(best))]

    def saw(self, view: Any, legal: Sequence[Action], action: Action) -> None:
        last = self._last_turn is not None and self._last_turn(view, legal) is not None
        period = (self._disguise.period(view), last)  # a turn's last moves may follow a disguised octopus move
        if period != self._period:
            self._past, self._period = self._fold(), period
            self._moves = {value: 0.0 for value in self._disguise.values}
            self._chances = {
                secret: self._disguise.chances(view, secret)
                if self._disguised and not last
                else {v: float(v == secret) for v in self._disguise.values}
                for secret in self._disguise.values
            }
        index = legal.index(action)
        seed = self._rng.getrandbits(64)  # the same for every value: a bot blind to the secret shows nothing of it
        for value in self._disguise.values:
            as_if = self._disguise.as_if(view, value)
            if last and self._last_turn is not None:
                played = self._last_turn(as_if, legal)
                chances = [1.0 if a == played else COLOUR_SPY_FLOOR for a in legal]
            else:
                chances = move_chances(self._inner, as_if, legal, random.Random(seed))
            self._moves[value] += math.log(chances[index])


class SecretSpied:
    """The spied seat: before each of its decisions the spy (another seat, which knows its own secret and so rules
    it out) names the secret it reads from the moves so far."""

    def __init__(self, bot: Player, spy: ColourSpy, disguise: Disguise, tally: SecretSpyTally) -> None:
        self._bot, self._spy, self.disguise, self._tally = bot, spy, disguise, tally
        self.spy_secret: object = None
        self.secret: object = None
        """The spied seat's secret, as its last view showed it."""

    def candidates(self) -> list[object]:
        return [v for v in self.disguise.values if v != self.spy_secret]

    def choose(self, view: Any, legal: list[Action]) -> Action:
        secret = self.secret = self.disguise.secret(view)
        action = self._bot.choose(view, legal)
        if len(legal) < 2 or secret is None:
            return action
        candidates = self.candidates()
        self._tally.decisions += 1
        self._tally.hits += self._spy.guess(candidates) == secret
        self._tally.blind += 1.0 / len(candidates)
        self._spy.saw(view, legal, action)
        return action


def measure_secret_spy(
    game_id: str, kind: str, *, games: int, players: int = 2, seed: int = 1, iterations: int = 60, plain: bool = False
) -> SecretSpyTally:
    """The spy's hit rate on the dealt secret of a `kind` bot at seat 0 (the others greedy) over `games` games: at
    each of its decisions, and once each game is over. `plain`: the bot without its disguise (for comparison)."""
    game = game_of(game_id)
    disguise = game.disguise()
    if disguise is None:
        raise MalformedInput(f"{game_id} has no dealt secret that moves show")
    tally = SecretSpyTally()
    for index in range(games):
        rng = random.Random(f"secret-spy/{seed}/{index}")
        bot = make_bot(kind, game_id, random.Random(rng.getrandbits(64)), budget=Budget(iterations))
        if plain and isinstance(bot, Disguised):
            bot = bot.inner
        spy = ColourSpy(bot, disguise, random.Random(rng.getrandbits(64)))
        spied = SecretSpied(bot, spy, disguise, tally)
        seats: list[Player] = [spied]
        seats += [make_bot("greedy", game_id, random.Random(rng.getrandbits(64))) for _ in range(1, players)]
        play_game(game.rules, players, {}, seats, rng, on_step=partial(note_spy_secret, game.rules, spied))
        tally.games += 1
        tally.final_hits += spy.guess(spied.candidates()) == spied.secret
    return tally


def note_spy_secret(rules: AnyRules, spied: "SecretSpied", step: Step) -> None:
    """Tell the spy its own secret (seat 1's), once dealt."""
    spied.spy_secret = spied.disguise.secret(rules.view(step.after, 1, step.known[1]))
