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
the best mean value of each thing it may hide (the game's `hidden`: a King Fish bait's suit), so the search
reveals no more of the secret than the greedy bot does.
"""

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final, Protocol, runtime_checkable

from p2pfish.bots.mixed import draw_hidden
from p2pfish.core.actions import Action, Chance, Commit, Dealt, SecretChoice, Shuffled, card_name
from p2pfish.core.game import AnyRules, ChanceEvent, ChanceRequest, Outcome, ShuffleRequest
from p2pfish.core.player import Player
from p2pfish.core.wire import Scalar

MARGIN_WEIGHT: Final = 0.1
MARGIN_SCALE: Final = 4.0
"""A playout's reward is the seat's share of the win plus MARGIN_WEIGHT * tanh(margin / MARGIN_SCALE), the
margin being its score less the best other score: a lost game lost narrowly is better than one lost badly.
A playout stopped at a horizon, the game not over, is rewarded 0.5 + 0.5 * tanh(margin / the sampler's
`horizon_scale`): a lead there is a chance to win, the larger the likelier, not a win."""
CANDIDATES: Final = 8
GREEDY_TRUST: Final = 1.0
"""The search overrules the greedy bot's choice only when its best action beat the greedy choice, over the sweeps
that played both (paired on the same world and seed), by more than GREEDY_TRUST standard errors of that mean
difference, and in at least MIN_PAIRS sweeps: a noisy edge leaves the greedy choice."""
MIN_PAIRS: Final = 4
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


@runtime_checkable
class Forkable(Protocol):
    """A playout policy with a memory of the game (Fish Fish's greedy bot reads each Fisherman's habits): the
    search bot keeps one, shown each of its decisions, and starts every playout's players as forks of it, so
    that they remember what the seat saw instead of starting the game afresh mid-round."""

    def fork(self, rng: random.Random) -> Player:
        """A copy with the same memory (later views seen by either do not reach the other), drawing from
        `rng`."""
        ...


@runtime_checkable
class Remembers(Protocol):
    """A playout policy told, at each decision, the action the seat took (the search's, which may overrule its
    own): a Kuna Yala greedy bot remembers which cards its seat placed, to read the others' from the rest."""

    def chose(self, view: Any, action: Action) -> None: ...


def is_secret_choice(view: Any, legal: Sequence[Action]) -> bool:
    return isinstance(legal[0], SecretChoice)


@dataclass(frozen=True)
class Sampler:
    """A game's determinizer: `sample` draws a World consistent with one seat's view; `secret` tells whether a
    decision's choice stays hidden from the other seats (then the bot mixes it)."""

    sample: Callable[[Any, random.Random], World]
    secret: Callable[[Any, Sequence[Action]], bool] = is_secret_choice
    horizon: "Horizon | None" = None
    """Where a playout may stop early: given the state searched from and the playout's world, the scores to
    judge the playout by when it may stop there, else None (None: every playout goes to the game's end)."""
    horizon_scale: float = MARGIN_SCALE
    """The lead at a horizon (in points) that makes a playout's reward 0.5 + 0.5 * tanh(1) (see MARGIN_SCALE)."""
    hidden: Callable[[Any, Action], object] = lambda view, action: action
    """What of a secret choice stays hidden (the action itself; a King Fish bait: its suit): what a spy guesses."""
    prepare: "Callable[[Any, Player], Callable[[Any, random.Random], World]] | None" = None
    """Given one decision's view and the seat's own playout policy (its memory: what the seat alone saw), the
    determinizer for that decision (None: `sample`): a Fish Fish Fish weighs the card under the line by how the
    seat reads the Fisherman."""
    prior: Callable[[Any, Sequence[Action]], list[float]] | None = None
    """A quick value of each legal action (the greedy bot's): with more than `candidates` actions, only the
    `candidates` best by it are searched (None: all are)."""
    candidates: int = CANDIDATES
    """How many of the prior's best actions are searched (the greedy bot's choice always is)."""
    play_out: "Callable[..., Outcome | Scores] | None" = None
    """A faster play_out for this game (same arguments, same result; None: play_out)."""
    default: Callable[[Any, Sequence[Action]], int | None] | None = None
    """The index of the action the search keeps unless another is clearly better (None, or returning None: the
    playout policy's own choice at this seat)."""
    last_turn: Callable[[Any, Sequence[Action]], Action | None] | None = None
    """For a game whose bots disguise a dealt secret (p2pfish/bots/disguise.py): the exact best action, for the
    seat's true secret, of a turn after which the game surely ends and the secret is revealed, else None. A
    disguised search bot plays it undisguised (nothing it shows can be used any more)."""


Horizon = Callable[[Any, World], tuple[float, ...] | None]
Scores = tuple[float, ...]
"""The scores a playout stopped at a horizon is judged by."""


def round_horizon(root: Any, world: World) -> tuple[float, ...] | None:
    """For games of independent rounds whose state keeps `history`, the points of each finished round: a playout
    stops at the end of the round searched, judged by the totals so far."""
    history: tuple[tuple[int, ...], ...] = world.state.history
    if len(history) <= len(root.history):
        return None
    return tuple(sum(points[seat] for points in history) for seat in range(len(history[0])))


@dataclass(frozen=True)
class Budget:
    """How long the bot searches a move: `iterations` playouts, and at most `seconds` (None: no time limit)."""

    iterations: int
    seconds: float | None = None


DEFAULT_BUDGET: Final = Budget(iterations=400, seconds=0.7)
"""The search bot's budget when none is given (the `hard` level): at most 400 playouts and 0.7 s a move."""


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


def play_out(
    rules: AnyRules,
    world: World,
    players: Sequence[Player],
    rng: random.Random,
    *,
    horizon: Horizon | None = None,
    root: Any = None,
) -> "Outcome | Scores":
    """Play the world to its end (or to the horizon, judged from `root`, the state searched), each seat by its
    player."""
    root = world.state if root is None else root
    while (outcome := rules.outcome(world.state)) is None:
        if horizon is not None and (scores := horizon(root, world)) is not None:
            return scores
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


def reward(outcome: Outcome | Scores, seat: int, scale: float = MARGIN_SCALE) -> float:
    if not isinstance(outcome, Outcome):
        rest = [points for s, points in enumerate(outcome) if s != seat]
        return 0.5 + 0.5 * math.tanh((outcome[seat] - max(rest, default=outcome[seat])) / scale)
    share = 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0
    others = [points for s, points in enumerate(outcome.scores) if s != seat]
    margin = outcome.scores[seat] - max(others) if others else 0
    return share + MARGIN_WEIGHT * math.tanh(margin / MARGIN_SCALE)


def clearly_better(differences: Sequence[float]) -> bool:
    """Whether paired reward differences (an action's less the greedy choice's) show a real edge: their mean above
    GREEDY_TRUST standard errors, over MIN_PAIRS pairs or more."""
    n = len(differences)
    if n < MIN_PAIRS:
        return False
    mean = sum(differences) / n
    spread = sum((d - mean) ** 2 for d in differences) / (n - 1)
    return mean > 0.0 and mean > GREEDY_TRUST * math.sqrt(spread / n)


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
        self.last_pairs: dict[int, list[float]] = {}
        """Per action, its reward less the greedy choice's in each sweep of the last search that played both."""
        self._own: Player = policy(random.Random(rng.getrandbits(64)))
        """The playout policy playing along at this seat: what it would choose is the search's default."""

    def values(self, view: Any, legal: Sequence[Action], keep: int | None = None) -> tuple[list[float], list[int]]:
        """The mean playout reward of each legal action and how many playouts it got.

        The budget is spent in sweeps: a sweep samples one world and one playout seed and plays every action still
        in the running from that same world with that same seed, so the actions are compared on common random
        numbers (their difference is far less noisy than their values). The actions are halved, best means kept,
        ceil(log2 n) times at even steps of the budget (sequential halving); action `keep` always stays."""
        rng, seat, budget = self._rng, view.seat, self.budget
        n = len(legal)
        totals, visits = [0.0] * n, [0] * n
        running = self._candidates(view, legal, keep)
        n = len(running)
        stages = max(1, math.ceil(math.log2(n)))
        deadline = None if budget.seconds is None else self._clock() + budget.seconds
        draw = self._sampler.sample if self._sampler.prepare is None else self._sampler.prepare(view, self._own)
        done, stage = 0, 1
        self.last_pairs = {}
        while done < budget.iterations and (deadline is None or done == 0 or self._clock() < deadline):
            sample = draw(view, rng)
            seed = rng.getrandbits(64)
            sweep: dict[int, float] = {}
            for index in running:
                if deadline is not None and done > 0 and self._clock() >= deadline:
                    break
                world = World(
                    sample.state, [dict(k) for k in sample.known], {d: list(c) for d, c in sample.decks.items()}
                )
                sweep[index] = self._playout(world, seat, legal[index], random.Random(seed))
                totals[index] += sweep[index]
                visits[index] += 1
                done += 1
            if keep is not None and keep in sweep:
                for index, value in sweep.items():
                    self.last_pairs.setdefault(index, []).append(value - sweep[keep])
            if len(running) > 1 and stage < stages and done >= budget.iterations * stage / stages:
                stage += 1
                running.sort(key=lambda i: totals[i] / max(1, visits[i]), reverse=True)
                kept = running[: max(1, (len(running) + 1) // 2)]
                if keep is not None and keep in running and keep not in kept:
                    kept.append(keep)
                running = kept
        self.last_iterations = done
        means = [t / v if v else -math.inf for t, v in zip(totals, visits, strict=True)]
        return means, visits

    def _candidates(self, view: Any, legal: Sequence[Action], keep: int | None) -> list[int]:
        count = self._sampler.candidates
        if self._sampler.prior is None or len(legal) <= count:
            return list(range(len(legal)))
        prior = self._sampler.prior(view, legal)
        best = sorted(range(len(legal)), key=lambda i: prior[i], reverse=True)[:count]
        return best if keep is None or keep in best else [*best, keep]

    def _playout(self, world: World, seat: int, action: Action, rng: random.Random) -> float:
        root = world.state
        play(self._rules, world, seat, action)
        make = self._own.fork if isinstance(self._own, Forkable) else self._policy
        players = [make(random.Random(rng.getrandbits(64))) for _ in world.known]
        run = play_out if self._sampler.play_out is None else self._sampler.play_out
        outcome = run(self._rules, world, players, rng, horizon=self._sampler.horizon, root=root)
        return reward(outcome, seat, self._sampler.horizon_scale)

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        action = self._choose(view, legal)
        if isinstance(self._own, Remembers):
            self._own.chose(view, action)
        return action

    def _choose(self, view: Any, legal: Sequence[Action]) -> Action:
        default = self._own.choose(view, list(legal))  # every decision, so that its memory sees every view
        if len(legal) == 1:
            return legal[0]
        if self._sampler.secret(view, legal):
            means, visits = self.values(view, legal)
            seen = [m if v else min(x for x in means if x > -math.inf) for m, v in zip(means, visits, strict=True)]
            return draw_hidden(self._rng, legal, seen, partial(self._sampler.hidden, view), SECRET_TEMPERATURE)
        chosen = None if self._sampler.default is None else self._sampler.default(view, legal)
        greedy = legal.index(default) if chosen is None else chosen
        means, visits = self.values(view, legal, keep=greedy)
        most = max(visits)
        best = max((i for i in range(len(legal)) if visits[i] == most), key=lambda i: means[i])
        return legal[best] if clearly_better(self.last_pairs.get(best, [])) else legal[greedy]
