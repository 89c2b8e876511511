"""King Fish through real sessions (in memory): a whole game agreed and audited with a fresh deck each
round, and each way of cheating with the cards caught and blamed on the cheat, with the evidence, while
honest state stays where it was: a line or a bait the seat does not hold, a line or a bait named as
another card than the one played, a bait turned up at another position than the one played."""

from collections.abc import Callable
from typing import Any

import pytest
from conformance_helpers import random_table

from p2pfish.core.actions import card_name
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.games.kingfish.rules import DECK_LABELS, RULES, State
from p2pfish.session.audit import audit
from p2pfish.session.decks import keys_to_wire
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session

CHEAT = 1
Tamper = Callable[["Cheater", dict[str, Any]], dict[str, Any] | None]
"""Returns the forged action wire form (and may change the body), or None to send the honest one."""


def table(players: int, seed: int = 1) -> MemoryTable:
    return random_table(RULES.id, players, seed, options={"start": "0"})


def test_a_whole_game_ends_agreed_and_every_round_deck_is_audited() -> None:
    game = table(2)
    game.run()
    assert all(s.finished and s.fault is None for s in game.sessions)
    assert len({str(s.outcome()) for s in game.sessions}) == 1
    assert sorted(game.sessions[0].decks) == ["round-1", "round-2"]
    result = audit(game.sessions[0].transcript(), game.sessions[0].rules)
    assert result.verified and str(result.outcome) == str(game.sessions[0].outcome())


def kingfish(session: Session) -> State:
    """The session's game state, typed: these tables play King Fish."""
    assert isinstance(session.state, State)
    return session.state


class Cheater(Session):
    """Runs the honest code but forges its first action of one kind; `body` is what it signs."""

    def __init__(self, *args: Any, kind: str, tamper: Tamper, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kind, self.tamper, self.cheated = kind, tamper, False

    def _emit(self, body: dict[str, Json]) -> None:
        action = body.get("action")
        if not self.cheated and isinstance(action, dict) and action.get("t") == self.kind:
            forged = self.tamper(self, dict(body))
            if forged is not None:
                self.cheated = True
                body = {**body, **forged}
        super()._emit(body)

    def hand(self) -> tuple[int, ...]:
        assert self.seat is not None
        return kingfish(self).hands[self.seat]

    def label(self, position: int) -> str:
        return str(self.known()[card_name(self.state.deck, position)])

    def keys(self, position: int) -> list[Json]:
        return keys_to_wire(self._my_card_keys(self.state.deck, [position]))


def play_with_cheater(kind: str, tamper: Tamper, players: int = 3) -> tuple[list[Session], Cheater]:
    game = table(players)
    signer = Identity.from_seed(bytes([CHEAT + 1]) * 32)
    cheater = Cheater(game.setup, CHEAT, signer, game.stores[CHEAT], rules=RULES, kind=kind, tamper=tamper)
    game.sessions[CHEAT] = cheater
    game.run()
    assert cheater.cheated, "the cheat was tried"
    return [s for s in game.sessions if s.seat != CHEAT], cheater


def assert_blamed(honest: list[Session], kind: str, words: str) -> None:
    for session in honest:
        fault = session.fault
        assert fault is not None and (fault.seat, fault.kind) == (CHEAT, kind), fault
        assert words in fault.reason and fault.evidence
        assert RULES.to_act(session.state) == (CHEAT,), "the forged action was not applied"
        assert session.outcome() is None


def another_seats_card(cheater: Cheater) -> int:
    state = kingfish(cheater)
    return state.hands[(CHEAT + 1) % state.players][0]


def test_a_line_from_another_seats_hand_is_blamed() -> None:
    def steal(cheater: Cheater, body: dict[str, Any]) -> dict[str, Any]:
        position = another_seats_card(cheater)
        action = {**body["action"], "position": position, "label": DECK_LABELS[0]}
        return {"action": action, "card_keys": cheater.keys(position)}

    honest, _ = play_with_cheater("line", steal)
    assert_blamed(honest, "illegal", "which it was not dealt")


def misname(cheater: Cheater, body: dict[str, Any]) -> dict[str, Any]:
    """Name the card turned up as another one, not yet shown."""
    label = next(
        label for label in DECK_LABELS if label not in cheater.state.shown and label != body["action"]["label"]
    )
    return {"action": {**body["action"], "label": label}}


@pytest.mark.parametrize("move", ["line", "reveal-card"])
def test_a_card_turned_up_as_another_card_is_blamed(move: str) -> None:
    """A line card, or a bait turned up, named as a card it is not."""
    honest, _ = play_with_cheater(move, misname)
    assert_blamed(honest, "violation", "the card differs")


def test_a_bait_from_another_seats_hand_is_blamed() -> None:
    def steal(cheater: Cheater, body: dict[str, Any]) -> dict[str, Any]:
        return {"action": {**body["action"], "position": another_seats_card(cheater)}}

    honest, _ = play_with_cheater("bait", steal)
    assert_blamed(honest, "illegal", "a card it does not hold")


def test_a_bait_turned_up_at_another_position_than_the_one_played_is_blamed() -> None:
    def swap(cheater: Cheater, body: dict[str, Any]) -> dict[str, Any] | None:
        """Turn up another card the cheat really holds, with its true label and key: a better bait."""
        if not cheater.hand():
            return None
        position = cheater.hand()[0]
        action = {**body["action"], "position": position, "label": cheater.label(position)}
        return {"action": action, "card_keys": cheater.keys(position)}

    honest, _ = play_with_cheater("reveal-card", swap)
    assert_blamed(honest, "illegal", "not the bait it played")


@pytest.mark.parametrize("players", [2, 5])
def test_honest_tables_of_every_size_finish_the_first_round(players: int) -> None:
    game = table(players, seed=players)
    game.start()
    while all(s.state.round == 1 for s in game.sessions) and game.step():
        pass
    assert all(s.fault is None for s in game.sessions)
    assert {s.state.round for s in game.sessions} <= {1, 2} and any(s.state.round == 2 for s in game.sessions)
