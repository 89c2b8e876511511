"""The mental-poker deck through the session: private deals, a public card, face-down plays turned
up by their owner's key, every pass proven and checked when it arrives — and each way of cheating with
the deck caught and blamed on the right seat before any card of the deck is dealt."""

import random
from collections.abc import Callable
from typing import Any

import pytest
from toy_games.highcard import DECK, LABELS, RULES, PlayFaceDown

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.actions import Dealt
from p2pfish.core.wire import Json
from p2pfish.crypto import secp256k1
from p2pfish.crypto.identity import Identity
from p2pfish.crypto.proven_deck import card_point, make_lock_pass, make_rekey_pass
from p2pfish.selfplay import play_game
from p2pfish.session import bodies
from p2pfish.session.audit import audit
from p2pfish.session.decks import pass_context
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import DROP_AFTER_S, Session
from p2pfish.session.setup import GameSetup


def table(players: int, seed: int = 1) -> MemoryTable:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    setup = GameSetup.create(
        RULES.id, {}, tuple(s.public_bytes for s in signers), tuple(f"p{s}" for s in range(players))
    )
    rng = random.Random(seed)
    choosers = [RandomBot(rng)] * players
    return MemoryTable(setup, signers, choosers, rng=random.Random(seed), rules=RULES)


@pytest.mark.parametrize("players", [2, 3])
def test_a_dealt_game_ends_agreed_and_verified(players: int) -> None:
    game = table(players)
    game.run()
    outcomes = {str(s.outcome()) for s in game.sessions}
    assert len(outcomes) == 1 and all(s.finished and s.fault is None for s in game.sessions)
    for session in game.sessions:
        assert session.decks[DECK].published, "keys were published during play"
    result = audit(game.sessions[0].transcript(), RULES)
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
    game.sessions[seat] = Cheater(game.setup, seat, signer, game.stores[seat], tamper=tamper, rules=RULES)
    return game


def dealt(players: int) -> MemoryTable:
    """A table started and played until seat 0 has a move to choose (the deck is shuffled and dealt)."""
    game = table(players)
    game.start()
    while not game.sessions[0].decision() and game.step():
        pass
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


def pass_cards(body: dict[str, Json]) -> list[Json]:
    proven = body["pass"]
    assert isinstance(proven, dict) and isinstance(proven["cards"], list)
    return list(proven["cards"])


def with_cards(body: dict[str, Json], cards: list[Json]) -> dict[str, Json]:
    proven = body["pass"]
    assert isinstance(proven, dict)
    return {**body, "pass": {**proven, "cards": cards}}


def assert_blamed_before_any_deal(game: MemoryTable, cheater: int, kind: str = "violation") -> None:
    for session in honest(game, cheater):
        fault = session.fault
        assert fault is not None and (fault.seat, fault.kind) == (cheater, kind), fault
        assert fault.evidence, "the cheat's own signed pass is the evidence"
        assert session.turn == 0 and session.log == [], "caught at the pass, before the deck was dealt"
        replayed = audit(session.transcript(), RULES)
        assert replayed.fault is not None and replayed.fault.seat == cheater


def test_a_duplicated_card_in_a_lock_pass_is_caught_at_once() -> None:
    def duplicate(body: dict[str, Json]) -> dict[str, Json]:
        cards = pass_cards(body)
        cards[3] = cards[4]
        return with_cards(body, cards)

    game = with_cheater(table(3), 1, on(bodies.DECK_LOCK, duplicate))
    game.run()
    assert_blamed_before_any_deal(game, 1, "malformed")


def test_a_substituted_card_in_a_lock_pass_is_caught_at_once() -> None:
    def substitute(body: dict[str, Json]) -> dict[str, Json]:
        cards = pass_cards(body)
        cards[5] = card_point("no card").hex()
        return with_cards(body, cards)

    game = with_cheater(table(2), 1, on(bodies.DECK_LOCK, substitute))
    game.run()
    assert_blamed_before_any_deal(game, 1)


class DeckCheater(Session):
    """A peer whose deck passes are rigged the way an attacker would rig them: the proof is made honestly,
    but over an input deck it altered (no proof can be made over the real input)."""

    def __init__(self, *args: Any, rig: Callable[[list[bytes]], list[bytes]], kind: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rig, self.kind = rig, kind

    def _deck_pass(self, deck: Any, locking: bool) -> dict[str, Json]:
        kind = bodies.DECK_LOCK if locking else bodies.DECK_REKEY
        if kind != self.kind:
            return super()._deck_pass(deck, locking)
        assert self.seat is not None
        keys = self._deck_keys(deck.name, len(deck.table))
        lock_key = int(str(keys["lock_key"]), 16)
        rigged = tuple(self.rig(list(deck.cards)))
        context = pass_context(self.session_id, self.seat, deck.name, kind)
        if locking:
            order = keys["permutation"]
            assert isinstance(order, list)
            permutation = [int(str(i)) for i in order]
            return bodies.deck_pass(kind, self.turn, make_lock_pass(context, rigged, lock_key, permutation).to_wire())
        wire_keys = keys["card_keys"]
        assert isinstance(wire_keys, list)
        card_keys = [int(str(k), 16) for k in wire_keys]
        return bodies.deck_pass(kind, self.turn, make_rekey_pass(context, rigged, lock_key, card_keys).to_wire())


def with_deck_cheater(
    game: MemoryTable, seat: int, kind: str, rig: Callable[[list[bytes]], list[bytes]]
) -> MemoryTable:
    signer = Identity.from_seed(bytes([seat + 1]) * 32)
    game.sessions[seat] = DeckCheater(game.setup, seat, signer, game.stores[seat], rig=rig, kind=kind, rules=RULES)
    return game


def mark(cards: list[bytes]) -> list[bytes]:
    """The first locker's mark: card 0 becomes a known multiple of card 1."""
    cards[0] = secp256k1.point_bytes(secp256k1.mul(12345, secp256k1.point_from_bytes(cards[1])))
    return cards


def swap(cards: list[bytes]) -> list[bytes]:
    cards[0], cards[1] = cards[1], cards[0]
    return cards


def test_a_marked_deck_from_the_first_locker_is_blamed_before_any_deal() -> None:
    game = with_deck_cheater(table(3), 0, bodies.DECK_LOCK, mark)
    game.run()
    assert_blamed_before_any_deal(game, 0)


def test_a_rigged_rekey_that_moves_a_card_is_blamed_before_any_deal() -> None:
    game = with_deck_cheater(table(3), 2, bodies.DECK_REKEY, swap)
    game.run()
    assert_blamed_before_any_deal(game, 2)


def test_a_peer_resumed_after_a_marked_deck_reaches_the_same_verdict() -> None:
    game = with_deck_cheater(table(3), 0, bodies.DECK_LOCK, mark)
    game.run()
    live = game.sessions[1]
    assert live.fault is not None and live.fault.seat == 0
    resumed = Session.resume(game.stores[1], Identity.from_seed(bytes([2]) * 32), rules=RULES)
    assert resumed.fault is not None and (resumed.fault.seat, resumed.fault.kind) == (0, "violation")


def test_a_wrong_card_key_is_blamed_at_once() -> None:
    def wrong_key(body: dict[str, Json]) -> dict[str, Json]:
        keys = body["keys"]
        assert isinstance(keys, list)
        return {**body, "keys": [f"{7:064x}", *keys[1:]]}

    game = with_cheater(table(3), 2, on(bodies.CARD_KEYS, wrong_key))
    game.run()
    for session in honest(game, 2):
        assert session.fault is not None and (session.fault.seat, session.fault.kind) == (2, "violation")
        assert not any(isinstance(entry.action, Dealt) for entry in session.log)


def test_turning_up_another_card_than_the_one_played_is_caught() -> None:
    def claim_another(body: dict[str, Json]) -> dict[str, Json]:
        action = body["action"]
        assert isinstance(action, dict)
        return {**body, "action": {**action, "label": next(label for label in LABELS if label != action["label"])}}

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
    game = dealt(2)
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


def test_a_deck_audit_naming_no_deck_is_blamed_at_once_and_freezes_nobody() -> None:
    game = dealt(3)
    caller = game.sessions[0]
    caller._emit({"type": "deck-audit", "deck": "no-such-deck", "position": 7, "lock_key": "01", "card_keys": []})
    game.run()
    for session in honest(game, 0):
        assert session.fault is not None and (session.fault.seat, session.fault.kind) == (0, "malformed"), session.fault
        assert session.fault.evidence


def test_a_message_for_a_turn_already_played_is_blamed_when_it_arrives() -> None:
    game = dealt(3)
    late = game.sessions[2]
    late._emit(bodies.card_keys(0, []))
    game.run()
    for session in honest(game, 2):
        assert session.fault is not None and (session.fault.seat, session.fault.kind) == (2, "violation"), session.fault
        assert "already played" in session.fault.reason


def test_a_seat_that_goes_quiet_instead_of_turning_up_its_face_down_card_is_named_for_it() -> None:
    game = table(2)
    game.start()
    quiet = 0
    while game.step():
        game.in_flight = [m for m in game.in_flight if not (m[1] == quiet and b'"reveal-card"' in m[2])]
    waiter = game.sessions[1]
    assert waiter.waiting_for() == (quiet,) and waiter.fault is None
    waiter.tick(0.0)
    waiter.tick(DROP_AFTER_S)
    fault = waiter.fault
    assert fault is not None and (fault.seat, fault.kind) == (quiet, "timeout")
    assert "face-down move stays unproven" in fault.reason
    assert len(fault.evidence) == 1 and b'"t":"play"' in fault.evidence[0], "its face-down play is the evidence"


def test_each_seat_checks_the_passes_of_the_others_and_not_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2pfish.crypto.proven_deck import verify_lock_pass as lock_check
    from p2pfish.crypto.proven_deck import verify_rekey_pass as rekey_check
    from p2pfish.session import deck_turns

    checked: list[tuple[str, int]] = []

    def count_lock(context: bytes, cards: Any, lock: Any, seat: int) -> None:
        checked.append(("lock", seat))
        lock_check(context, cards, lock, seat)

    def count_rekey(context: bytes, cards: Any, lock_point: Any, rekey: Any, seat: int) -> None:
        checked.append(("rekey", seat))
        rekey_check(context, cards, lock_point, rekey, seat)

    monkeypatch.setattr(deck_turns, "verify_lock_pass", count_lock)
    monkeypatch.setattr(deck_turns, "verify_rekey_pass", count_rekey)
    game = table(3)
    game.run()
    assert all(s.finished and s.fault is None for s in game.sessions)
    # three seats, each checking the two others' lock and rekey passes of the one deck
    assert sorted(checked) == sorted((kind, seat) for kind in ("lock", "rekey") for seat in range(3) for _ in range(2))
    assert audit(game.sessions[0].transcript(), RULES).verified  # an observer checks every pass
