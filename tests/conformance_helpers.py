"""What the tests of every game share: refusals checked the same way, polling for a condition, an
in-memory table of random bots, and rules-only games between bots recorded step by step, for the
conformance suite (tests/test_conformance.py) and the golden playthroughs (tests/test_golden.py)."""

import dataclasses
import json
import pickle
import random
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from hypothesis import strategies as st

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.actions import Action, Dealt, Shuffled
from p2pfish.core.errors import IllegalAction
from p2pfish.core.game import AnyRules, Known, Outcome
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.games.game import Game
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.selfplay import Step, play_game
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.setup import GameSetup

T = TypeVar("T")


def snapshot(value: T) -> T:
    """A deep copy of plain game data (a pickle round trip: many times faster than copy.deepcopy), to compare a
    state with after `apply` (which must never mutate it)."""
    copied: T = pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
    return copied


def sizes(game: Game) -> range:
    """Every table size the game can be played at."""
    return range(game.rules.min_players, game.rules.max_players + 1)


IllegalCheck = Callable[[Any, int | None, Action], IllegalAction]


def illegal_checker(rules: AnyRules) -> IllegalCheck:
    """`expect_illegal(state, seat, action)` for `rules`: the action is refused with IllegalAction naming
    `seat` and giving a reason, and the state is left as it was."""

    def expect_illegal(state: Any, seat: int | None, action: Action) -> IllegalAction:
        before = snapshot(state)
        with pytest.raises(IllegalAction) as info:
            rules.apply(state, seat, action)
        assert info.value.seat == seat
        assert info.value.reason
        assert state == before
        return info.value

    return expect_illegal


def applied_purely(rules: AnyRules, state: Any, seat: int | None, action: Action) -> Any:
    """The state after `action`, checking that apply built a new state and left the old one as it was."""
    frozen = snapshot(state)
    after = rules.apply(state, seat, action)
    assert state == frozen, "apply changed the state it was given"
    return after


def stored_messages(path: Path) -> int:
    """How many messages a peer's game store holds (0 while it cannot be read: not yet made, or locked)."""
    try:
        with sqlite3.connect(path) as db:
            return int(db.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
    except sqlite3.Error:
        return 0


def start_options(players: int) -> st.SearchStrategy[dict[str, str]]:
    """A game's options with or without a first seat chosen ("start")."""
    return (st.none() | st.integers(0, players - 1)).map(lambda start: {} if start is None else {"start": str(start)})


def wait_for(condition: Callable[[], bool], timeout_s: float, what: str, poll_s: float = 0.01) -> None:
    """Poll `condition` until it holds; AssertionError naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(poll_s)
    raise AssertionError(f"timed out waiting for {what}")


def random_table(
    game: str,
    players: int,
    seed: int,
    *,
    options: Mapping[str, str] | None = None,
    names: Sequence[str] | None = None,
) -> MemoryTable:
    """An in-memory table of `game` whose seats all play random legal moves from one generator seeded
    with `seed`; seat s signs with the key seeded by bytes([s + 1]) * 32, and is named p<s> by default."""
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    shown = tuple(names) if names is not None else tuple(f"p{seat}" for seat in range(players))
    setup = GameSetup.create(game, dict(options or {}), tuple(s.public_bytes for s in signers), shown)
    rng = random.Random(seed)
    return MemoryTable(setup, signers, [RandomBot(rng)] * players, rng=random.Random(seed), rules=get_rules(setup.game))


def sent(action: Action) -> bool:
    """Whether the action goes on the wire as itself: the deck's turns (a shuffle, a deal) are the
    session's work and never sent as actions."""
    return not isinstance(action, Shuffled | Dealt)


def through_the_wire(rules: AnyRules, action: Action) -> Action:
    """The action as a peer reads it back: to its wire form, through JSON text, and decoded."""
    decoded: Action = rules.decode_action(json.loads(json.dumps(action.to_wire())))
    return decoded


def replay(rules: AnyRules, players: int, options: Mapping[str, str], log: Sequence[tuple[int | None, Action]]) -> Any:
    """The state after re-applying a log from a new game, every sent action read back from its wire form."""
    state = rules.new_game(players, options)
    for seat, action in log:
        applied = action
        if sent(action):
            applied = through_the_wire(rules, action)
            assert applied == action
        state = rules.apply(state, seat, applied)
    return state


@dataclass
class Played:
    """One rules-only game between bots, step by step."""

    players: int
    options: Mapping[str, str]
    steps: list[Step] = field(default_factory=list)
    known: list[dict[str, Any]] = field(default_factory=list)
    """Every seat's knowledge before each step (copies)."""
    outcome: Outcome | None = None
    final: Any = None

    @property
    def log(self) -> list[tuple[int | None, Action]]:
        return [(step.seat, step.action) for step in self.steps]


def play(
    rules: AnyRules,
    players: int,
    seed: int,
    *,
    kinds: Sequence[str] = ("random",),
    options: Mapping[str, str] | None = None,
    on_step: Callable[[Step, Sequence[Known]], None] | None = None,
) -> Played:
    """A seeded game between bots of `kinds` (seat s plays kinds[s % len(kinds)]); `on_step` sees each
    step with every seat's knowledge as it was before the step."""
    rng = random.Random(seed)
    bots = [make_bot(kinds[seat % len(kinds)], rules.id, random.Random(rng.getrandbits(64))) for seat in range(players)]
    played = Played(players, dict(options or {}))
    before: list[dict[str, Any]] = [{} for _ in range(players)]

    def hook(step: Step) -> None:
        nonlocal before
        played.steps.append(step)
        if on_step is not None:
            on_step(step, before)
        before = [dict(seat_known) for seat_known in step.known]

    played.outcome, played.final = play_game(rules, players, played.options, bots, rng, on_step=hook)
    played.known = before
    return played


class Witness(Protocol):
    """A bot that checks something of every choice it makes, and counts them."""

    decisions: int

    def choose(self, view: Any, legal: Sequence[Action]) -> Action: ...


def witnessed_decisions(rules: AnyRules, players: int, seed: int, witness: Callable[[int], Witness]) -> int:
    """Two games at `players` seats, seat s played by witness(s), drawing chance from `seed`: the decisions
    the witnesses checked."""
    rng = random.Random(seed)
    witnesses = [witness(seat) for seat in range(players)]
    for _ in range(2):
        play_game(rules, players, {}, witnesses, rng)
    return sum(w.decisions for w in witnesses)


def strings_of(value: object) -> set[str]:
    """Every string held in a value: in its dataclass fields, tuples, lists, sets and mapping values."""
    found: set[str] = set()
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        parts = _PARTS.get(type(item))
        if parts is None:
            parts = _PARTS[type(item)] = _parts_of(type(item))
        if parts is _STRING:
            found.add(item)
        elif parts is _ITEMS:
            pending.extend(item)
        elif parts is _VALUES:
            pending.extend(item.values())
        else:
            pending.extend(getattr(item, name) for name in parts)
    return found


_STRING, _ITEMS, _VALUES = ("",), ("*",), ("**",)
_PARTS: dict[type, tuple[str, ...]] = {}
"""How strings_of looks into a value of each type, found once per type (a view holds thousands of values): a
string, items, mapping values, or the names of a dataclass's fields (none: nothing to look into)."""


def _parts_of(kind: type) -> tuple[str, ...]:
    if issubclass(kind, str):
        return _STRING
    if issubclass(kind, list | tuple | set | frozenset):
        return _ITEMS
    if issubclass(kind, Mapping):
        return _VALUES
    if dataclasses.is_dataclass(kind):
        return tuple(kind.__dataclass_fields__)
    return ()


def strings_in(wire: Json) -> set[str]:
    """Every string value in a wire form (not the keys of its objects)."""
    return strings_of(wire)
