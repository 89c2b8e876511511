"""Relay: a tiny benchmark game for the network figures (2-8 players, where Fish'n'Stones stops at 4).

Seats take turns round robin, each turn one `Pass(n)` action (n = the number of actions played
before it); the game is over after `actions` actions (the option, default 200). No chance, no
secrets, nothing to reveal; everyone scores 0 and every seat wins. It exists only so that the full
stack (signed messages, chains, relay, CURVE mesh) can be timed with as many peers as the mesh allows.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from p2pfish.core.actions import Action
from p2pfish.core.errors import IllegalAction, MalformedInput
from p2pfish.core.game import ChanceEvent, Known, Outcome
from p2pfish.core.rules_parts import Rules
from p2pfish.core.wire import Json, as_object, field, int_field

DEFAULT_ACTIONS: Final = 200
MAX_ACTIONS: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class Pass(Action, tag="pass", said="pass {n}"):
    """Hand the turn on; `n` is the number of actions played before this one."""

    n: int


@dataclass(frozen=True, slots=True)
class State:
    players: int
    actions: int
    """How many actions the game lasts."""
    done: int
    """How many actions have been played."""


@dataclass(frozen=True, slots=True)
class View:
    seat: int
    to_act: int | None
    done: int
    actions: int


class Relay(Rules):
    id = "relay"
    title = "Relay (benchmark)"
    min_players = 2
    max_players = 8

    def new_game(self, players: int, options: Mapping[str, str]) -> State:
        self.check_players(players)
        unknown = sorted(set(options) - {"actions"})
        if unknown:
            raise MalformedInput(f"unknown {self.id} option(s) {', '.join(unknown)} (known: actions)")
        text = options.get("actions", str(DEFAULT_ACTIONS))
        if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_ACTIONS:
            raise MalformedInput(f"actions must be a whole number from 1 to {MAX_ACTIONS}, not {text!r}")
        return State(players, int(text), 0)

    def chance(self, state: State) -> ChanceEvent | None:
        return None

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.done >= state.actions else (state.done % state.players,)

    def reveal_due(self, state: State, seat: int) -> bool:
        return False

    def legal_actions(self, state: State, seat: int, known: Known) -> Sequence[Action]:
        return (Pass(state.done),) if seat in self.to_act(state) else ()

    def apply(self, state: State, seat: int | None, action: Action) -> State:
        if seat is None or seat not in self.to_act(state):
            raise IllegalAction("it is not this seat's turn", seat)
        if action != Pass(state.done):
            raise IllegalAction(f"{action} is not legal now (expected pass {state.done})", seat)
        return State(state.players, state.actions, state.done + 1)

    def view(self, state: State, seat: int, known: Known) -> View:
        to_act = self.to_act(state)
        return View(seat, to_act[0] if to_act else None, state.done, state.actions)

    def outcome(self, state: State) -> Outcome | None:
        if state.done < state.actions:
            return None
        return Outcome((0,) * state.players, tuple(range(state.players)))

    def decode_action(self, wire: Json) -> Action:
        obj = as_object(wire)
        if field(obj, "t") != "pass" or set(obj) != {"t", "n"}:
            raise MalformedInput(f"a relay action is exactly {{'t': 'pass', 'n': N}}, not {dict(obj)!r}")
        n = int_field(obj, "n")
        if n < 0:
            raise MalformedInput(f"a pass counts actions, so it is not negative: {n}")
        return Pass(n)


RULES: Final = Relay()
