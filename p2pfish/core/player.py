"""Who plays a seat: a `Player` is handed a `Decision` (the seat's view and its legal actions) and picks one.

Every decision source is a Player: the bots (random, each game's greedy one), the test and bench strategies,
and whatever a peer runner is told plays its seat. A person at the terminal UI is not one: the app reads the
same Decision from its window on the session and hands the chosen action back (`act`) when it is made.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from p2pfish.core.actions import Action
from p2pfish.core.game import AnyRules, Known


class Decision(NamedTuple):
    """What a seat due to decide is given: its view of the game and the actions it may take now."""

    view: Any
    legal: list[Action]


class Player(Protocol):
    def choose(self, view: Any, legal: list[Action]) -> Action:
        """One of `legal`, chosen from what `view` shows."""
        ...


@dataclass(frozen=True)
class PlaysBy:
    """A Player that is one function (view, legal) -> action: a test's or a benchmark's strategy."""

    choose: Callable[[Any, list[Action]], Action]


def decision_for(rules: AnyRules, state: Any, seat: int, known: Known) -> Decision:
    """The decision `seat` faces in `state` (the caller knows it is due: no outcome, no chance, in to_act)."""
    legal = list(rules.legal_actions(state, seat, known))
    return Decision(rules.view(state, seat, known), legal)
