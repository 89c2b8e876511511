"""The rules-engine contract that every game module implements.

A game is a pure function of its log: `state = reduce(apply, log, new_game(...))`. The rules never
draw random numbers; they ask for chance with a ChanceRequest and receive a Chance action. Secrets
enter the state only as commitments; the value lives in the owning seat's `Known` until a Reveal.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from p2pfish.core.actions import Action, Chance
from p2pfish.core.errors import IllegalAction
from p2pfish.core.text import shown_value
from p2pfish.core.wire import Json, Scalar

Known = Mapping[str, Scalar]
"""What one seat knows privately: the value of each of its own secrets, by purpose."""

State = TypeVar("State")
View_co = TypeVar("View_co", covariant=True)


@dataclass(frozen=True, slots=True)
class ChanceRequest:
    """Draw `count` values without replacement from the multiset `pool`, for everyone to see."""

    purpose: str
    pool: tuple[Scalar, ...]
    count: int


@dataclass(frozen=True, slots=True)
class ShuffleRequest:
    """Shuffle a new face-down deck of these (distinct) labels, so that no seat knows the order."""

    deck: str
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DealRequest:
    """Turn up the cards at these positions of `deck`: for seat `to` alone, or for all when None."""

    deck: str
    positions: tuple[int, ...]
    to: int | None


ChanceEvent = ChanceRequest | ShuffleRequest | DealRequest


@dataclass(frozen=True, slots=True)
class Outcome:
    """Final scores per seat and the winning seats (several when the tie-breaks leave a tie)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def to_wire(self) -> dict[str, Json]:
        return {"scores": list(self.scores), "winners": list(self.winners)}

    @classmethod
    def highest_wins(cls, scores: tuple[int, ...], gone: int | None = None) -> "Outcome":
        """The seats with the highest score win (all of them on a tie); a `gone` seat cannot win."""
        best = max(score for seat, score in enumerate(scores) if seat != gone)
        return cls(scores, tuple(seat for seat, score in enumerate(scores) if score == best and seat != gone))


class GameRules(Protocol[State, View_co]):
    """One game's rules. Every method is pure; errors are MalformedInput or IllegalAction."""

    id: str
    title: str
    min_players: int
    max_players: int

    def new_game(self, players: int, options: Mapping[str, str]) -> State:
        """The state before the first action; options are the textual `key=value` game options."""
        ...

    def chance(self, state: State) -> ChanceEvent | None:
        """The chance event the game waits for, if it waits for one."""
        ...

    def to_act(self, state: State) -> tuple[int, ...]:
        """The seats whose action the game waits for (several in a simultaneous phase)."""
        ...

    def reveal_due(self, state: State, seat: int) -> bool:
        """Whether `seat` must now open a secret it holds (a commitment, a face-down card): a move
        its software makes by itself, with no decision, so a silence then is not thinking time."""
        ...

    def legal_actions(self, state: State, seat: int, known: Known) -> Sequence[Action]:
        """What `seat` may do now, given its own secrets. Empty when it is not to act."""
        ...

    def apply(self, state: State, seat: int | None, action: Action) -> State:
        """The state after `seat` (None: chance) plays `action`. Raises IllegalAction, naming
        the seat, and leaves `state` untouched when the action breaks the rules."""
        ...

    def view(self, state: State, seat: int, known: Known) -> View_co:
        """All that `seat` may see: never another seat's secret or a covered card."""
        ...

    def outcome(self, state: State) -> Outcome | None:
        """The result once the game is over, else None."""
        ...

    def outcome_so_far(self, state: State, gone: int) -> Outcome | None:
        """The result of a game ended early without the seat `gone` (PROTOCOL §10.8): every seat's score so far, and
        the winners among the other seats (`gone` forfeits) by the game's own tie-breaks. None when the scores so
        far are not public (they hang on a secret only its holder could open)."""
        ...

    def audit(self, state: State, opened: Mapping[tuple[int, str], Scalar]) -> None:
        """At the end every commitment is open (`opened`: (seat, purpose) -> value): check what only
        those values can prove, raising IllegalAction naming the seat. Most games check nothing."""
        ...

    def decode_action(self, wire: Json) -> Action:
        """An action from its wire form; raises MalformedInput."""
        ...


AnyRules = GameRules[Any, Any]


def check_chance(request: ChanceRequest, action: Chance) -> None:
    """Raise IllegalAction unless `action` draws `request.count` values from the pool multiset."""
    if len(action.values) != request.count:
        raise IllegalAction(f"{request.purpose}: expected {request.count} values, got {len(action.values)}")
    remaining = list(request.pool)
    for value in action.values:
        if value not in remaining:
            raise IllegalAction(f"{request.purpose}: {shown_value(value)} is not left in the pool")
        remaining.remove(value)


def check_turn(seat: int, players: int, to_act: tuple[int, ...], phase: str) -> None:
    """Raise IllegalAction, naming the seat, unless it is a seat of the table that is to act now."""
    if not 0 <= seat < players:
        raise IllegalAction(f"there is no seat {seat} in a {players}-player game", seat)
    if seat not in to_act:
        raise IllegalAction(f"it is not seat {seat}'s turn to act ({phase} phase)", seat)


T = TypeVar("T")


def replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """The tuple with the item at `index` replaced by `value` (a state is immutable)."""
    return (*items[:index], value, *items[index + 1 :])


Event = TypeVar("Event", bound=ChanceEvent)


def due_chance(request: Event | None, phase: str) -> Event:
    """The chance event the game waits for; IllegalAction when it waits for none."""
    if request is None:
        raise IllegalAction(f"no chance event is due in the {phase} phase")
    return request
