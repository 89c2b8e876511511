"""Rules-only self-play: bots play whole games in one process, chance answered by a seeded generator.

No crypto and no network: a secret choice goes into the seat's own knowledge and a placeholder
commitment into the log. This is the fastest way to run many games, and the reference the
networked game must agree with.
"""

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from p2pfish.bots import DEFAULT_MOVE_S
from p2pfish.bots.engine import EnginePlayer, check_seat_engines
from p2pfish.core.actions import Action, Chance, Commit, Dealt, SecretChoice, Shuffled, card_name
from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import AnyRules, ChanceEvent, ChanceRequest, Known, Outcome, ShuffleRequest
from p2pfish.core.player import Player, decision_for
from p2pfish.core.wire import Json, fields_to_wire
from p2pfish.games.registry import make_bot

PLACEHOLDER_DIGEST = bytes(32)


@dataclass(frozen=True)
class Step:
    """One applied action: `seat` (None for chance) chose `choice`, the log got `action`."""

    before: Any
    seat: int | None
    choice: Action
    action: Action
    after: Any
    known: Sequence[Known]


StepHook = Callable[[Step], None]


def play_game(
    rules: AnyRules,
    players: int,
    options: Mapping[str, str],
    bots: Sequence[Player],
    rng: random.Random,
    *,
    on_step: StepHook | None = None,
) -> tuple[Outcome, Any]:
    """Play one game to its end; returns the outcome and the final state."""
    state = rules.new_game(players, options)
    known: list[dict[str, Any]] = [{} for _ in range(players)]
    decks: dict[str, list[str]] = {}
    while (outcome := rules.outcome(state)) is None:
        request = rules.chance(state)
        seat: int | None
        action: Action
        if request is not None:
            seat, action = None, _answer(request, rng, decks, known)
        else:
            seat = rules.to_act(state)[0]
            action = bots[seat].choose(*decision_for(rules, state, seat, known[seat]))
        choice = action
        if isinstance(choice, SecretChoice):
            assert seat is not None
            known[seat][choice.purpose] = choice.value
            action = Commit(choice.purpose, PLACEHOLDER_DIGEST)
        before, state = state, rules.apply(state, seat, action)
        if on_step is not None:
            on_step(Step(before, seat, choice, action, state, known))
    return outcome, state


def _answer(
    request: ChanceEvent, rng: random.Random, decks: dict[str, list[str]], known: list[dict[str, Any]]
) -> Action:
    """Chance, played by the driver: what joint randomness and the mental-poker deck do in a real game."""
    if isinstance(request, ChanceRequest):
        return Chance(tuple(rng.sample(request.pool, request.count)))
    if isinstance(request, ShuffleRequest):
        decks[request.deck] = rng.sample(request.labels, len(request.labels))
        return Shuffled(request.deck, len(request.labels))
    labels = tuple(decks[request.deck][p] for p in request.positions)
    if request.to is None:
        return Dealt(request.deck, request.positions, None, labels)
    for position, label in zip(request.positions, labels, strict=True):
        known[request.to][card_name(request.deck, position)] = label
    return Dealt(request.deck, request.positions, request.to, None)


@dataclass(frozen=True)
class SelfplayResult:
    game: str
    players: int
    games: int
    seed: int
    bots: tuple[str, ...]
    wins: tuple[int, ...]
    """Games each seat won; a shared win counts for every winner."""
    mean_score: tuple[float, ...]
    games_per_s: float

    def to_wire(self) -> dict[str, Json]:
        return fields_to_wire(self)


def bot_kinds_for(players: int, kinds: Sequence[str]) -> tuple[str, ...]:
    """Seat i plays kinds[i], cycling the list when it is shorter than the table."""
    if not kinds:
        raise MalformedInput("name at least one bot kind")
    return tuple(kinds[i % len(kinds)] for i in range(players))


def _close_engines(seated: Sequence[Player], outcome: Outcome | None) -> None:
    for player in seated:
        if isinstance(player, EnginePlayer):
            player.close(outcome)


def selfplay(
    rules: AnyRules, players: int, games: int, *, seed: int, kinds: Sequence[str], options: Mapping[str, str],
    engines: Mapping[int, str] | None = None, engine_move_s: float = DEFAULT_MOVE_S,
) -> SelfplayResult:  # fmt: skip
    """`engines`: seat -> the command of an engine program that plays it (its bot kind then is its fallback),
    started afresh for each game."""
    if games < 1:
        raise MalformedInput(f"the number of games must be at least 1, not {games}")
    engines = engines or {}
    check_seat_engines(players, engines)
    seat_kinds = bot_kinds_for(players, kinds)
    rules.new_game(players, options)
    rng = random.Random(seed)
    bots = [make_bot(kind, rules.id, random.Random(rng.getrandbits(64))) for kind in seat_kinds]
    wins = [0] * players
    totals = [0] * players
    started = time.perf_counter()
    for _ in range(games):
        seated = list(bots)
        for seat, command in engines.items():
            seated[seat] = EnginePlayer(
                command, game=rules.id, title=rules.title, players=players, seat=seat, options=options,
                fallback=bots[seat], move_s=engine_move_s,
            )  # fmt: skip
        try:
            outcome, _ = play_game(rules, players, options, seated, rng)
        except BaseException:
            _close_engines(seated, None)
            raise
        _close_engines(seated, outcome)
        for seat in outcome.winners:
            wins[seat] += 1
        for seat, points in enumerate(outcome.scores):
            totals[seat] += points
    elapsed = time.perf_counter() - started
    return SelfplayResult(
        game=rules.id,
        players=players,
        games=games,
        seed=seed,
        bots=tuple("engine" if seat in engines else kind for seat, kind in enumerate(seat_kinds)),
        wins=tuple(wins),
        mean_score=tuple(round(t / games, 4) for t in totals),
        games_per_s=round(games / elapsed, 1),
    )
