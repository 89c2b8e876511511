"""The mental-poker deck through the session: private deals, a public card, face-down plays turned
up by their owner's key, every key released and every pass re-checked at the end — and each way of
cheating with the deck caught and blamed on the right seat."""

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from toy_games.highcard import DECK, LABELS, RULES, PlayFaceDown

from p2pfish.core.actions import Dealt
from p2pfish.core.wire import Json
from p2pfish.crypto import p256
from p2pfish.crypto.identity import Identity
from p2pfish.games import REGISTRY
from p2pfish.selfplay import play_game
from p2pfish.session import bodies
from p2pfish.session.audit import audit
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup


@pytest.fixture(autouse=True)
def highcard_registered() -> Iterator[None]:
    REGISTRY[RULES.id] = RULES
    yield
    del REGISTRY[RULES.id]


def table(players: int, seed: int = 1) -> MemoryTable:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    setup = GameSetup.create(
        RULES.id, {}, tuple(s.public_bytes for s in signers), tuple(f"p{s}" for s in range(players))
    )
    rng = random.Random(seed)
    return MemoryTable(setup, signers, [lambda view, legal: rng.choice(legal)] * players, rng=random.Random(seed))


@pytest.mark.parametrize("players", [2, 3])
def test_a_dealt_game_ends_agreed_and_audited(players: int) -> None:
    game = table(players)
    game.run()
    outcomes = {str(s.outcome()) for s in game.sessions}
    assert len(outcomes) == 1 and all(s.finished and s.fault is None for s in game.sessions)
    for session in game.sessions:
        assert session.decks[DECK].published, "keys were published during play"
    result = audit(game.sessions[0].transcript())
    assert result.verified and str(result.outcome) in outcomes


def test_each_seat_learns_its_own_hand_and_nothing_else_before_the_end() -> None:
    game = table(3)
    game.start()
    while not any(session.state.phase == "show" for session in game.sessions) and game.step():
        pass
    for session in game.sessions:
        assert session.seat is not None
        own = {f"{DECK}#{p}" for p in session.state.hands[session.seat]}
        cards = {name for name in session.known() if name.startswith(DECK)}
        assert cards == own
        for other in range(3):
            if other == session.seat:
                continue
            for position in session.state.hands[other]:
                keys = [k for (seat, p), k in session.decks[DECK].published.items() if p == position]
                assert len(keys) == 2, "only the two other seats' keys are public; the holder's key is not"


def test_rules_only_selfplay_deals_the_same_way() -> None:
    bots = [type("B", (), {"choose": lambda self, view, legal: legal[0]})() for _ in range(3)]
    outcome, final = play_game(RULES, 3, {}, bots, random.Random(5))
    assert sorted(final.shown) != [None, None, None] and len(outcome.scores) == 3
    assert {final.trump, *final.shown} <= set(LABELS)


class Cheater(Session):
    """A peer that runs the honest code but tampers with the bodies it signs."""

    def __init__(self, *args: Any, tamper: Callable[[dict[str, Json]], dict[str, Json]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tamper = tamper

    def _emit(self, body: dict[str, Json]) -> None:
        super()._emit(self.tamper(body))


def with_cheater(game: MemoryTable, seat: int, tamper: Callable[[dict[str, Json]], dict[str, Json]]) -> MemoryTable:
    signer = Identity.from_seed(bytes([seat + 1]) * 32)
    game.sessions[seat] = Cheater(game.setup, seat, signer, game.stores[seat], tamper=tamper)
    return game


def honest(game: MemoryTable, cheater: int) -> list[Session]:
    return [session for session in game.sessions if session.seat != cheater]


def on(kind: str, change: Callable[[dict[str, Json]], dict[str, Json]]) -> Callable[[dict[str, Json]], dict[str, Json]]:
    done: list[bool] = []

    def tamper(body: dict[str, Json]) -> dict[str, Json]:
        if body.get("type") != kind or done:
            return body
        done.append(True)
        return change(dict(body))

    return tamper


def test_a_duplicated_card_in_a_lock_pass_is_caught_at_once() -> None:
    def duplicate(body: dict[str, Json]) -> dict[str, Json]:
        cards = list(body["cards"])  # type: ignore[arg-type]
        cards[3] = cards[4]
        return {**body, "cards": cards}

    game = with_cheater(table(3), 1, on(bodies.DECK_LOCK, duplicate))
    game.run()
    for session in honest(game, 1):
        assert session.fault is not None and (session.fault.seat, session.fault.kind) == (1, "violation")
        assert "same card twice" in session.fault.reason
        assert session.fault.evidence and session.turn == 0 and session.log == []


def test_a_substituted_card_in_a_lock_pass_is_caught_by_the_final_audit() -> None:
    def substitute(body: dict[str, Json]) -> dict[str, Json]:
        cards = list(body["cards"])  # type: ignore[arg-type]
        cards[5] = p256.multiply(12345, bytes.fromhex(str(cards[5]))).hex()
        return {**body, "cards": cards}

    game = with_cheater(table(2), 1, on(bodies.DECK_LOCK, substitute))
    game.run()
    session = game.sessions[0]
    assert session.fault is not None and (session.fault.seat, session.fault.kind) == (1, "violation")
    assert "a card changed" in session.fault.reason
    assert not session.finished and session.rules.outcome(session.state) is not None


def test_a_wrong_card_key_is_blamed_at_once() -> None:
    def wrong_key(body: dict[str, Json]) -> dict[str, Json]:
        keys = list(body["keys"])  # type: ignore[arg-type]
        keys[0] = f"{7:064x}"
        return {**body, "keys": keys}

    game = with_cheater(table(3), 2, on(bodies.CARD_KEYS, wrong_key))
    game.run()
    for session in honest(game, 2):
        assert session.fault is not None and (session.fault.seat, session.fault.kind) == (2, "violation")
        assert "not the committed one" in session.fault.reason
        assert not any(isinstance(entry.action, Dealt) for entry in session.log)


def test_withholding_deck_keys_at_the_end_is_blamed() -> None:
    game = with_cheater(table(2), 1, on(bodies.END, lambda body: {**body, "decks": []}))
    game.run()
    session = game.sessions[0]
    assert session.fault is not None and session.fault.seat == 1 and "withheld" in session.fault.reason
    assert session.outcome() is None


def test_turning_up_another_card_than_the_one_played_is_caught() -> None:
    def claim_another(body: dict[str, Json]) -> dict[str, Json]:
        action = dict(body["action"])  # type: ignore[arg-type]
        action["label"] = next(label for label in LABELS if label != action["label"])
        return {**body, "action": action}

    def is_card_reveal(body: dict[str, Json]) -> dict[str, Json]:
        action = body.get("action")
        if isinstance(action, dict) and action.get("t") == "reveal-card":
            return claim_another(body)
        return body

    game = with_cheater(table(2), 0, is_card_reveal)
    game.run()
    session = game.sessions[1]
    assert session.fault is not None and (session.fault.seat, session.fault.kind) == (0, "violation")
    assert "card differs" in session.fault.reason


def test_playing_a_card_not_held_is_illegal() -> None:
    game = table(2)
    game.start()
    while not game.sessions[0].decision() and game.step():
        pass
    session = game.sessions[0]
    other_card = game.sessions[1].state.hands[1][0]
    session._emit(bodies.act(session.turn, PlayFaceDown(other_card).to_wire()))
    game.run()
    honest = game.sessions[1]
    assert honest.fault is not None and (honest.fault.seat, honest.fault.kind) == (0, "illegal")


def test_progress_counts_the_passes_of_a_shuffle() -> None:
    game = table(3)
    game.start()
    assert game.sessions[0].progress() == "shuffling deck/1: 1/6 passes"  # its own lock pass is done
    assert game.sessions[2].progress() == "shuffling deck/1: 0/6 passes"  # seat 0's pass is still in flight


def substitute_every_card(body: dict[str, Json]) -> dict[str, Json]:
    """A lock pass in which every card is replaced by a point that is no card of the deck."""
    cards = [p256.multiply(12345, bytes.fromhex(str(card))).hex() for card in body["cards"]]  # type: ignore[union-attr]
    return {**body, "cards": cards}


def test_a_substituted_card_that_is_dealt_stops_the_game_for_an_audit_that_names_the_cheat() -> None:
    game = with_cheater(table(3), 1, on(bodies.DECK_LOCK, substitute_every_card))
    game.run()
    for session in honest(game, 1):
        assert session.fault is not None and (session.fault.seat, session.fault.kind) == (1, "violation"), session.fault
        assert "lock pass" in session.fault.reason and session.fault.evidence
        assert session.rules.outcome(session.state) is None, "caught at the first card, not at the end"
        assert len(session._audit_claims) == 3, "every seat released its keys of the spoiled deck"
    assert audit(game.sessions[0].transcript()).fault is not None


def test_calling_an_honest_deck_spoiled_gets_the_caller_blamed() -> None:
    game = table(3)
    game.start()
    while not game.sessions[0].decision() and game.step():
        pass
    caller = game.sessions[0]
    caller._emit(bodies.deck_audit(caller._released_keys(DECK), 3))
    game.run()
    for session in honest(game, 0):
        assert session.fault is not None and (session.fault.seat, session.fault.kind) == (0, "violation"), session.fault
        assert "checks out" in session.fault.reason


def test_a_deck_audit_that_calls_nothing_is_ignored_and_releases_no_honest_key() -> None:
    game = table(3)
    game.start()
    while not game.sessions[0].decision() and game.step():
        pass
    caller = game.sessions[0]
    caller._emit(bodies.deck_audit(caller._released_keys(DECK), None))
    game.run()
    for session in honest(game, 0):
        assert session.fault is None and session.finished, "the game went on"
        own = [raw for raw in session.own_messages() if b'"deck-audit"' in raw]
        assert own == [], "no honest seat released its keys for a call nobody made"


def test_a_peer_resumed_during_a_deck_audit_reaches_the_same_verdict() -> None:
    game = with_cheater(table(3), 1, on(bodies.DECK_LOCK, substitute_every_card))
    game.run()
    live = game.sessions[0]
    assert live.fault is not None and live.fault.seat == 1
    resumed = Session.resume(game.stores[0], Identity.from_seed(bytes([1]) * 32))
    assert resumed.fault is not None and (resumed.fault.seat, resumed.fault.kind) == (1, "violation")
    assert resumed.fault.reason == live.fault.reason
