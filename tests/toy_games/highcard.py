"""High card: a tiny game that uses every feature of the mental-poker deck.

Shuffle 8 cards; deal 2 privately to each seat; turn one card up as the trump; each seat in turn
plays one of its cards face down; then each turns its card up (with its key); the highest card wins,
a card equal to the trump counts double.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from p2pfish.core.actions import Action, Dealt, RevealCard, Shuffled, card_name, decode_core_action
from p2pfish.core.errors import IllegalAction, MalformedInput
from p2pfish.core.game import ChanceEvent, DealRequest, Known, Outcome, ShuffleRequest
from p2pfish.core.wire import Json, Scalar, as_object, field, int_field

DECK = "deck/1"
LABELS = tuple(str(rank) for rank in range(1, 9))
HAND = 2


@dataclass(frozen=True, slots=True)
class PlayFaceDown(Action):
    position: int

    def to_wire(self) -> dict[str, Json]:
        return {"t": "play", "position": self.position}


@dataclass(frozen=True, slots=True)
class State:
    players: int
    phase: str
    hands: tuple[tuple[int, ...], ...]
    trump: str | None
    played: tuple[int | None, ...]
    shown: tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class View:
    seat: int
    phase: str
    hand: tuple[tuple[int, str | None], ...]
    trump: str | None
    shown: tuple[str | None, ...]


class HighCard:
    id = "highcard"
    title = "High card"
    min_players = 2
    max_players = 3

    def new_game(self, players: int, options: Mapping[str, str]) -> State:
        if not 2 <= players <= 3:
            raise MalformedInput(f"high card is for 2-3 players, not {players}")
        return State(players, "shuffle", ((),) * players, None, (None,) * players, (None,) * players)

    def chance(self, state: State) -> ChanceEvent | None:
        if state.phase == "shuffle":
            return ShuffleRequest(DECK, LABELS)
        if state.phase == "deal":
            seat = next(s for s in range(state.players) if not state.hands[s])
            return DealRequest(DECK, tuple(range(seat * HAND, seat * HAND + HAND)), seat)
        if state.phase == "trump":
            return DealRequest(DECK, (len(LABELS) - 1,), None)
        return None

    def to_act(self, state: State) -> tuple[int, ...]:
        if state.phase == "play":
            return (state.played.index(None),)
        if state.phase == "show":
            return (state.shown.index(None),)
        return ()

    def reveal_due(self, state: State, seat: int) -> bool:
        return state.phase == "show" and seat in self.to_act(state)

    def legal_actions(self, state: State, seat: int, known: Known) -> Sequence[Action]:
        if seat not in self.to_act(state):
            return ()
        if state.phase == "play":
            return [PlayFaceDown(p) for p in state.hands[seat]]
        position = state.played[seat]
        assert position is not None
        label = known.get(card_name(DECK, position))
        return [RevealCard(DECK, position, str(label))] if label is not None else []

    def apply(self, state: State, seat: int | None, action: Action) -> State:
        if seat is None:
            if isinstance(action, Shuffled) and state.phase == "shuffle":
                return replace(state, phase="deal")
            if isinstance(action, Dealt) and state.phase == "deal" and action.to is not None:
                hands = list(state.hands)
                hands[action.to] = action.positions
                return replace(state, hands=tuple(hands), phase="deal" if not all(hands) else "trump")
            if isinstance(action, Dealt) and state.phase == "trump" and action.labels is not None:
                return replace(state, trump=action.labels[0], phase="play")
            raise IllegalAction(f"chance cannot play {action} now")
        if seat not in self.to_act(state):
            raise IllegalAction("not your turn", seat)
        if state.phase == "play":
            if not isinstance(action, PlayFaceDown) or action.position not in state.hands[seat]:
                raise IllegalAction(f"{action} is not a card in your hand", seat)
            played = (*state.played[:seat], action.position, *state.played[seat + 1 :])
            return replace(state, played=played, phase="show" if None not in played else "play")
        if not isinstance(action, RevealCard) or action.position != state.played[seat]:
            raise IllegalAction(f"{action} is not the card you played", seat)
        shown = (*state.shown[:seat], action.label, *state.shown[seat + 1 :])
        return replace(state, shown=shown, phase="over" if None not in shown else "show")

    def view(self, state: State, seat: int, known: Known) -> View:
        hand = tuple((p, _str(known.get(card_name(DECK, p)))) for p in state.hands[seat])
        return View(seat, state.phase, hand, state.trump, state.shown)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        scores = tuple(int(str(label)) * (2 if label == state.trump else 1) for label in state.shown)
        return Outcome(scores, tuple(s for s, v in enumerate(scores) if v == max(scores)))

    def outcome_so_far(self, state: State, gone: int) -> Outcome | None:
        """The cards are hidden until the end: no scores so far."""
        return None

    def audit(self, state: State, opened: Mapping[tuple[int, str], Scalar]) -> None:
        """Every secret of this game is checked when it is revealed: nothing is left for the end."""

    def decode_action(self, wire: Json) -> Action:
        obj = as_object(wire)
        core = decode_core_action(obj)
        if core is not None:
            return core
        if field(obj, "t") == "play":
            return PlayFaceDown(int_field(obj, "position"))
        raise MalformedInput(f"unknown highcard action {obj.get('t')!r}")


def _str(value: object) -> str | None:
    return None if value is None else str(value)


RULES = HighCard()
