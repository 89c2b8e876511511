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
    """A player may also have `at_once = True` (see decides_at_once)."""

    def choose(self, view: Any, legal: list[Action]) -> Action:
        """One of `legal`, chosen from what `view` shows."""
        ...


@dataclass(frozen=True)
class PlaysBy:
    """A Player that is one function (view, legal) -> action: a test's or a benchmark's strategy."""

    choose: Callable[[Any, list[Action]], Action]
    at_once: bool = False
    """The function decides in well under a millisecond (see decides_at_once)."""


def decides_at_once(player: object) -> bool:
    """The player says it decides at once: well under a millisecond, tens at worst against a 200 ms heartbeat
    (an `at_once` attribute that is True: the random bot, the greedy bots, a benchmark's strategy). A peer
    runner then makes its moves inline, without handing each decision to a worker thread and back (which
    costs more than the decision). A player that may think longer (a search bot, an engine) decides in a
    worker thread so that the peer's timers run on."""
    return getattr(player, "at_once", False) is True


def decision_for(rules: AnyRules, state: Any, seat: int, known: Known) -> Decision:
    """The decision `seat` faces in `state` (the caller knows it is due: no outcome, no chance, in to_act)."""
    legal = list(rules.legal_actions(state, seat, known))
    return Decision(rules.view(state, seat, known), legal)
