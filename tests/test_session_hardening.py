"""Edge cases found by the protocol review: deep nesting, side messages with stray fields, reports
after the end, and a stopped peer that restarts."""

import pytest
from conformance_helpers import random_table

from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.session import bodies
from p2pfish.session.chains import MAX_AHEAD, MAX_AHEAD_BYTES
from p2pfish.session.envelope import MAX_DEPTH, MAX_MESSAGE_BYTES, MAX_VALUES, seal
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session, stored_setup
from p2pfish.session.store import MemoryStore


def table(players: int = 3, seed: int = 4) -> MemoryTable:
    return random_table("fishnstones", players, seed, names=("a", "b", "c")[:players])


def signed_by(game: MemoryTable, seat: int, body: dict[str, Json]) -> bytes:
    chain = game.sessions[seat].chains[seat]
    signer = Identity.from_seed(bytes([seat + 1]) * 32)
    return seal(signer, game.setup.session_id, seat, seq=chain.next_seq, prev=chain.head, body=body).raw


def test_a_message_nested_too_deeply_is_malformed_and_blamed_on_its_sender() -> None:
    game = table()
    game.start()
    nested: Json = "x"
    for _ in range(MAX_DEPTH + 2):
        nested = [nested]
    raw = signed_by(game, 1, {"type": "chat", "text": nested})
    game.sessions[0].receive(raw, via=1)
    fault = game.sessions[0].fault
    assert fault is not None and (fault.seat, fault.kind) == (1, "malformed") and "nested" in fault.reason


def test_a_chat_with_a_stray_field_is_malformed() -> None:
    game = table()
    game.start()
    while game.deliver_next():
        pass
    game.sessions[0].receive(signed_by(game, 2, {"type": "chat", "text": "hi", "extra": 1}), via=2)
    fault = game.sessions[0].fault
    assert fault is not None and (fault.seat, fault.kind) == (2, "malformed") and "extra" in fault.reason


def test_a_stop_report_after_the_end_changes_nothing() -> None:
    game = table()
    game.run()
    peer = game.sessions[0]
    assert peer.finished and peer.fault is None
    outcome = peer.outcome()
    peer.receive(signed_by(game, 1, bodies.stop(2, "violation", "too late", ())), via=1)
    assert peer.fault is None and peer.outcome() == outcome


def test_a_peer_that_stopped_stays_stopped_when_it_restarts() -> None:
    game = table()
    game.start()
    for _ in range(40):
        game.step()
    stores = [MemoryStore() for _ in range(3)]
    signer = Identity.from_seed(bytes([1]) * 32)
    peer = Session(game.setup, 0, signer, stores[0], slow_after=1, drop_after=2, rules=get_rules(game.setup.game))
    peer.start()
    peer.tick(100.0)
    peer.tick(103.0)
    assert peer.fault is not None and peer.fault.kind == "timeout"
    again = Session.resume(stores[0], signer, rules=get_rules(stored_setup(stores[0])[0].game))
    assert again.fault is not None and again.fault.kind == "timeout" and "before it restarted" in again.fault.reason
    assert again.decision() is None and again.take_outbox() == []


def test_progress_names_the_protocol_step_under_way() -> None:
    game = table()
    game.start()
    step = game.sessions[0].progress()
    assert step.startswith("drawing by joint randomness: 1/3 committed, 0/3 revealed")
    game.run()
    assert game.sessions[0].progress() == ""


def test_a_message_of_too_many_values_is_malformed_and_blamed_on_its_sender() -> None:
    """A 64 KiB message of `[[],[],...]` would hold over a megabyte once parsed, for the rest of the game."""
    game = table()
    game.start()
    raw = signed_by(game, 1, {"type": "chat", "text": [[] for _ in range(MAX_VALUES)]})
    assert len(raw) < MAX_MESSAGE_BYTES
    game.sessions[0].receive(raw, via=1)
    fault = game.sessions[0].fault
    assert fault is not None and (fault.seat, fault.kind) == (1, "malformed") and "JSON values" in fault.reason


def holding_all_of_seat_one(game: MemoryTable) -> Session:
    """Seat 0, given every message seat 1 has sent so far (so the next one extends seat 1's chain there)."""
    peer = game.sessions[0]
    for raw in game.sessions[1].own_messages():
        peer.receive(raw, via=1)
    return peer


def test_a_stop_report_is_its_authors_last_word() -> None:
    """Stop reports spend no chat budget and wait for no turn: a seat sending one and playing on (or sending
    more) could flood every store, or make the others never name it for going quiet."""
    game = table()
    game.start()
    peer = holding_all_of_seat_one(game)
    chain = game.sessions[1].chains[1]
    signer = Identity.from_seed(bytes([2]) * 32)
    stop = seal(signer, game.setup.session_id, 1, seq=chain.next_seq, prev=chain.head,
                body=bodies.stop(None, "timeout", "no sign of life for 30 s: dropped", ()))  # fmt: skip
    again = seal(signer, game.setup.session_id, 1, seq=stop.seq + 1, prev=stop.hash, body=bodies.chat("still here"))
    peer.receive(stop.raw, via=1)
    assert peer.fault is None, "a timeout report alone stops nothing here"
    peer.receive(again.raw, via=1)
    fault = peer.fault
    assert fault is not None and (fault.seat, fault.kind) == (1, "violation") and "stop report" in fault.reason


@pytest.mark.parametrize(
    "change",
    [
        {"seat": "0"},
        {"seat": -1},
        {"kind": "report"},
        {"reason": "x" * (bodies.MAX_CHAT_CHARS + 1)},
        {"reason": ["x"]},
        {"evidence": ["a", "b", "c"]},
        {"evidence": [[[]] * 50]},
        {"evidence": [{"sha256": "ab", "size": 1, "excerpt": ""}]},
        {"evidence": "x"},
    ],
)
def test_a_stop_report_is_checked_in_full_when_it_arrives(change: dict[str, Json]) -> None:
    game = table()
    game.start()
    holding_all_of_seat_one(game)
    body = {**bodies.stop(2, "violation", "seat 2 cheated", ()), **change}
    game.sessions[0].receive(signed_by(game, 1, body), via=1)
    fault = game.sessions[0].fault
    assert fault is not None and (fault.seat, fault.kind) == (1, "malformed"), fault


def test_messages_far_ahead_of_their_chain_are_a_flood_past_four_mebibytes() -> None:
    game = table()
    game.start()
    peer, chain = game.sessions[0], game.sessions[1].chains[1]
    signer = Identity.from_seed(bytes([2]) * 32)
    gap = chain.next_seq + 5
    sent = 0
    for seq in range(gap, gap + MAX_AHEAD):
        body = bodies.chat("x" * bodies.MAX_CHAT_CHARS) | {"text": "y" * 60_000}
        peer.receive(seal(signer, game.setup.session_id, 1, seq=seq, prev=bytes(32), body=body).raw, via=1)
        sent += 1
        if peer.fault is not None:
            break
    fault = peer.fault
    assert fault is not None and fault.seat == 1 and "ahead of its chain" in fault.reason, fault
    assert sent * 60_000 > MAX_AHEAD_BYTES and sent < MAX_AHEAD
