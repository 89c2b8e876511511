"""The spy: how well someone who knows a bot's algorithm, and sees what the bot sees, guesses its secret choices.

At each secret decision (the game's Sampler.secret: a cat column, a Pêche card, a face-down bait) the spy copies
the bot — its algorithm and its memory of the game, with a random generator of its own — and guesses what the
bot hides (Sampler.hidden: the choice, or a bait's suit): for a search bot, the hidden value of the action its own
search values most; for any other bot, the value its copies choose most often over SPY_RUNS tries (the mode of the
bot's mixed strategy). Blind guessing hits 1 / (the hidden values the legal choices offer) on average. A bot's
secrets are unpredictable when the spy's hit rate stays within 10 points of blind.
"""

import copy
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2pfish.bots.search import Budget, Sampler, SearchBot
from p2pfish.core.actions import Action
from p2pfish.core.player import Player
from p2pfish.core.wire import Json
from p2pfish.games.registry import game_of, make_bot
from p2pfish.selfplay import play_game

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
