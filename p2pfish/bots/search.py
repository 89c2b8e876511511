"""The search bot: determinized Monte Carlo search over the pure rules (information-set MCTS at its root).

Each iteration samples one full game state consistent with what the seat sees (its game's sampler: from the
seat's view alone, never another seat's secret), picks one of the seat's legal actions by UCB1 over the
statistics gathered at the root across all the samples so far, plays it, and plays the game out to its end
with every seat (the bot's own included) played by the game's greedy bot on its own view of that sampled state.
The root statistics are shared by every sample — the root is one information set, as in single-observer ISMCTS
(Cowling, Powley & Whitehouse 2012, and OpenSpiel's ismcts.cc), with the tree cut at depth one and the greedy
bots as the playout policy, which makes it strong at a few hundred iterations (a move's deeper consequences
show through the greedy playouts rather than through a deeper tree).

A secret choice (a SecretChoice, or what the game's `secret` says is one) is drawn from capped_softmax over
the actions' mean values, so the search reveals no more of the secret than the greedy bot does.
"""

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from p2pfish.bots.mixed import draw_secret
from p2pfish.core.actions import Action, Chance, Commit, Dealt, SecretChoice, Shuffled, card_name
from p2pfish.core.game import AnyRules, ChanceEvent, ChanceRequest, Outcome, ShuffleRequest
from p2pfish.core.player import Player
from p2pfish.core.wire import Scalar

EXPLORATION: Final = 0.5
"""UCB1's exploration constant, for rewards in about [0, 1]."""
MARGIN_WEIGHT: Final = 0.1
MARGIN_SCALE: Final = 4.0
"""A playout's reward is the seat's share of the win plus MARGIN_WEIGHT * tanh(margin / MARGIN_SCALE), the
margin being its score less the best other score: a lost game lost narrowly is better than one lost badly."""
SECRET_TEMPERATURE: Final = 0.05
"""The softmax temperature of a secret choice, in reward units (about one win in twenty)."""
PLACEHOLDER_DIGEST: Final = bytes(32)


@dataclass
class World:
    """One full game as a sampler imagines it: the rules' state, every seat's own secrets, and the order of every
    face-down deck (deck name -> the labels by position)."""

    state: Any
    known: list[dict[str, Scalar]]
    decks: dict[str, list[str]] = field(default_factory=dict)


PolicyMaker = Callable[[random.Random], Player]


def is_secret_choice(view: Any, legal: Sequence[Action]) -> bool:
    return isinstance(legal[0], SecretChoice)


@dataclass(frozen=True)
class Sampler:
    """A game's determinizer: `sample` draws a World consistent with one seat's view; `secret` tells whether a
    decision's choice stays hidden from the other seats (then the bot mixes it)."""

    sample: Callable[[Any, random.Random], World]
    secret: Callable[[Any, Sequence[Action]], bool] = is_secret_choice


@dataclass(frozen=True)
class Budget:
    """How long the bot searches a move: `iterations` playouts, and at most `seconds` (None: no time limit)."""

    iterations: int
    seconds: float | None = None


DEFAULT_BUDGET: Final = Budget(iterations=400, seconds=0.8)
"""The search bot's budget when none is given (the `hard` level): at most 400 playouts and 0.8 s a move."""


def chance_action(request: ChanceEvent, world: World, rng: random.Random) -> Action:
    """Chance played inside a sampled world (what joint randomness and the deck do in a real game)."""
    if isinstance(request, ChanceRequest):
        return Chance(tuple(rng.sample(request.pool, request.count)))
    if isinstance(request, ShuffleRequest):
        world.decks[request.deck] = rng.sample(request.labels, len(request.labels))
        return Shuffled(request.deck, len(request.labels))
    labels = tuple(world.decks[request.deck][p] for p in request.positions)
    if request.to is None:
        return Dealt(request.deck, request.positions, None, labels)
    for position, label in zip(request.positions, labels, strict=True):
        world.known[request.to][card_name(request.deck, position)] = label
    return Dealt(request.deck, request.positions, request.to, None)


def play(rules: AnyRules, world: World, seat: int | None, action: Action) -> None:
    """Apply `action` of `seat` to the world; a secret choice goes into the seat's knowledge, its Commit into the
    state."""
    if isinstance(action, SecretChoice):
        assert seat is not None
        world.known[seat][action.purpose] = action.value
        action = Commit(action.purpose, PLACEHOLDER_DIGEST)
    world.state = rules.apply(world.state, seat, action)


def play_out(rules: AnyRules, world: World, players: Sequence[Player], rng: random.Random) -> Outcome:
    """Play the world to its end, each seat by its player."""
    while (outcome := rules.outcome(world.state)) is None:
        request = rules.chance(world.state)
        if request is not None:
            play(rules, world, None, chance_action(request, world, rng))
            continue
        seat = rules.to_act(world.state)[0]
        known = world.known[seat]
        legal = list(rules.legal_actions(world.state, seat, known))
        action = legal[0] if len(legal) == 1 else players[seat].choose(rules.view(world.state, seat, known), legal)
        play(rules, world, seat, action)
    return outcome


def reward(outcome: Outcome, seat: int) -> float:
    share = 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0
    others = [points for s, points in enumerate(outcome.scores) if s != seat]
    margin = outcome.scores[seat] - max(others) if others else 0
    return share + MARGIN_WEIGHT * math.tanh(margin / MARGIN_SCALE)


class SearchBot:
    """A Player that searches each decision (see the module's docstring)."""

    def __init__(
        self,
        rules: AnyRules,
        sampler: Sampler,
        policy: PolicyMaker,
        rng: random.Random,
        budget: Budget,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._rules = rules
        self._sampler = sampler
        self._policy = policy
        self._rng = rng
        self.budget = budget
        self._clock = clock
        self.last_iterations = 0

    def values(self, view: Any, legal: Sequence[Action]) -> tuple[list[float], list[int]]:
        """The mean playout reward of each legal action and how many playouts it got."""
        rules, rng, seat = self._rules, self._rng, view.seat
        n = len(legal)
        totals = [0.0] * n
        visits = [0] * n
        deadline = None if self.budget.seconds is None else self._clock() + self.budget.seconds
        done = 0
        while done < self.budget.iterations and (deadline is None or done < n or self._clock() < deadline):
            world = self._sampler.sample(view, rng)
            index = done if done < n else self._select(totals, visits, done)
            play(rules, world, seat, legal[index])
            players = [self._policy(random.Random(rng.getrandbits(64))) for _ in world.known]
            totals[index] += reward(play_out(rules, world, players, rng), seat)
            visits[index] += 1
            done += 1
        self.last_iterations = done
        means = [t / v if v else -math.inf for t, v in zip(totals, visits, strict=True)]
        return means, visits

    def _select(self, totals: Sequence[float], visits: Sequence[int], done: int) -> int:
        log_n = math.log(done)
        best, best_score = 0, -math.inf
        for i, (total, n) in enumerate(zip(totals, visits, strict=True)):
            score = total / n + EXPLORATION * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = i, score
        return best

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        means, visits = self.values(view, legal)
        if self._sampler.secret(view, legal):
            seen = [m if v else min(x for x in means if x > -math.inf) for m, v in zip(means, visits, strict=True)]
            return draw_secret(self._rng, legal, seen, SECRET_TEMPERATURE)
        most = max(visits)
        best = max((i for i in range(len(legal)) if visits[i] == most), key=lambda i: means[i])
        return legal[best]
