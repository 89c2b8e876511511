"""What the rules of every game are built from, said once: the table's size, the start draw, the answer
to each kind of chance event, the action a phase expects, and a wire form read as a core or a game action.

Each game's rules class derives from `Rules` and keeps its own state, phases and actions (its rules.py).
"""

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from p2pfish.core.actions import Action, Chance, Dealt, Shuffled, checked_tag, decode_core_action
from p2pfish.core.errors import IllegalAction, MalformedInput
from p2pfish.core.game import ChanceRequest, DealRequest, Outcome, ShuffleRequest, check_chance
from p2pfish.core.wire import Json, Scalar, as_object

A = TypeVar("A", bound=Action)


class Rules:
    """A game's identity and table size, the checks every game makes the same way, and no final audit (a game
    whose secrets are each checked when revealed leaves nothing for the end; one that does not overrides it)."""

    id: str
    title: str
    min_players: int
    max_players: int
    action_fields: ClassVar[Mapping[str, set[str]]] = {}
    """Per tag of the game's own actions, exactly the fields its wire form holds (for `decode_action`)."""

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise MalformedInput(f"{self.title} is for {self.min_players}-{self.max_players} players, not {players}")

    def outcome_so_far(self, state: Any, gone: int) -> Outcome | None:
        """No early end unless the game says how its scores so far are counted."""
        return None

    def audit(self, state: Any, opened: Mapping[tuple[int, str], Scalar]) -> None:
        """Every secret of this game is checked when it is revealed: nothing is left for the end."""

    def decode_action(self, wire: Json) -> Action:
        """A core action, or one of the game's own once its fields are exactly those of its tag."""
        obj = as_object(wire)
        core = decode_core_action(obj)
        if core is not None:
            return core
        return self.decode_own(checked_tag(obj, self.id, self.action_fields), obj)

    def decode_own(self, tag: str, obj: Mapping[str, Json]) -> Action:
        """One of the game's own actions, of tag `tag`, whose fields are checked already."""
        raise MalformedInput(f"unknown {self.id} action {tag!r}")


def start_draw(players: int) -> ChanceRequest:
    """The public draw of the seat that starts (a game's `start=random`)."""
    return ChanceRequest("start", tuple(range(players)), 1)


def drawn(request: ChanceRequest, action: Action) -> tuple[Scalar, ...]:
    """The values `action` draws for `request`; IllegalAction unless it is a draw the request allows."""
    if not isinstance(action, Chance):
        raise IllegalAction(f"chance must answer {request.purpose} with a draw, not {action}")
    check_chance(request, action)
    return action.values


def drawn_seat(request: ChanceRequest, action: Action) -> int:
    """The seat a draw among the seats (`start_draw`) picked."""
    seat = drawn(request, action)[0]
    assert isinstance(seat, int)
    return seat


def check_shuffled(request: ShuffleRequest, action: Action) -> None:
    if action != Shuffled(request.deck, len(request.labels)):
        raise IllegalAction(f"expected the shuffle of {request.deck}, not {action}")


def dealt_labels(request: DealRequest, action: Action) -> tuple[str, ...] | None:
    """The labels a public deal turned up (None for a private one); IllegalAction unless `action` is the deal
    `request` asked for."""
    labels = action.labels if isinstance(action, Dealt) else None
    if action != Dealt(request.deck, request.positions, request.to, labels) or (request.to is None) != (
        labels is not None
    ):
        kind = "the" if request.to is None else "a private"
        raise IllegalAction(f"expected {kind} deal of {request.deck} {request.positions}, not {action}")
    return labels


def expect(action: Action, kind: type[A], seat: int, wanted: str) -> A:
    """`action`, when it is of the kind the phase wants; else IllegalAction naming the seat and saying `wanted`."""
    if not isinstance(action, kind):
        raise IllegalAction(f"{wanted}, not {action}", seat)
    return action
