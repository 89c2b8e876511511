"""Edge cases found by the protocol review: deep nesting, side messages with stray fields, reports
after the end, and a stopped peer that restarts."""

import random

from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.session import bodies
from p2pfish.session.envelope import MAX_DEPTH, seal
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore


def table(players: int = 3, seed: int = 4) -> MemoryTable:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("a", "b", "c")[:players])
    rng = random.Random(seed)
    return MemoryTable(setup, signers, [lambda view, legal: rng.choice(legal)] * players, rng=random.Random(seed))


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
    peer = Session(game.setup, 0, signer, stores[0], slow_after=1, drop_after=2)
    peer.start()
    peer.tick(100.0)
    peer.tick(103.0)
    assert peer.fault is not None and peer.fault.kind == "timeout"
    again = Session.resume(stores[0], signer)
    assert again.fault is not None and again.fault.kind == "timeout" and "before it restarted" in again.fault.reason
    assert again.decision() is None and again.take_outbox() == []


def test_progress_names_the_protocol_step_under_way() -> None:
    game = table()
    game.start()
    step = game.sessions[0].progress()
    assert step.startswith("drawing by joint randomness: 1/3 committed, 0/3 revealed")
    game.run()
    assert game.sessions[0].progress() == ""
