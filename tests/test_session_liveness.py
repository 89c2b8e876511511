"""No message can stall the table: whenever an honest peer's game is neither finished nor stopped, some
seat is being waited on (so its timer runs), and once every timer has run out the game is finished or
stopped. Checked over random delivery orders and over hostile seats that send any signed message they
like (unknown types, calls for audits of decks that do not exist, messages for turns already played or
not yet due, garbage fields) or go quiet at any point."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toy_games.highcard import RULES as HIGHCARD

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.session import bodies
from p2pfish.session.envelope import seal
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import DECIDE_WITHIN_S, REPORT_GRACE_S, Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

HOSTILE = 1


def hostile_bodies(turn: int) -> list[dict[str, Json]]:
    """Signed bodies a peer running any code could send at `turn`."""
    return [
        {"type": "deck-audit", "deck": "no-such-deck", "position": 7, "lock_key": "01", "card_keys": []},
        {"type": "no-such-type"},
        bodies.act(max(turn - 1, 0), {"t": "pass"}),
        bodies.act(turn + 3, {"t": "pass"}),
        bodies.card_keys(turn, ["zz"]),
        bodies.rand_commit(turn, bytes(32)),
        {"type": bodies.DECK_LOCK, "turn": turn, "pass": {"cards": []}},
        {"type": bodies.ACT, "turn": turn, "action": {"t": 5}, "extra": 1},
        bodies.chat("hello"),
        bodies.stop(0, "violation", "seat 0 cheated (not true)", (b"{}",)),
    ]


def make_table(game: str, players: int, seed: int) -> MemoryTable:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    roster = tuple(s.public_bytes for s in signers)
    setup = GameSetup.create(game, {}, roster, tuple(f"p{s}" for s in range(players)))
    rng = random.Random(seed)
    rules = HIGHCARD if game == HIGHCARD.id else get_rules(game)
    choosers = [RandomBot(rng)] * players
    return MemoryTable(setup, signers, choosers, rng=random.Random(seed), rules=rules)


def assert_someone_is_waited_on(session: Session) -> None:
    if session.finished or session.fault is not None:
        return
    waiting = session.waiting_for()
    assert waiting, f"seat {session.seat} at turn {session.turn} waits for nobody: the table is frozen"
    if waiting == (session.seat,):
        assert session.decision() is not None, "it waits for itself but cannot move"


def run_hostile(table: MemoryTable, plan: list[tuple[int, int]], quiet_from: int | None) -> None:
    """Deliver messages one by one; at step k of `plan` the hostile seat also signs hostile body i. From
    step `quiet_from` on, nothing the hostile seat sends is delivered (it went quiet)."""
    hostile = table.sessions[HOSTILE]
    attacks = dict(plan)
    table.start()
    for step in range(20_000):
        if step in attacks and hostile.fault is None:
            choices = hostile_bodies(hostile.turn)
            hostile._emit(choices[attacks[step] % len(choices)])
            table.collect(hostile)
        if quiet_from is not None and step >= quiet_from:
            table.in_flight = [m for m in table.in_flight if m[1] != HOSTILE]
            table.players[HOSTILE] = None
        if not table.step():
            break
        for session in table.sessions:
            if session.seat != HOSTILE:
                assert_someone_is_waited_on(session)
    for session in table.sessions:
        if session.seat == HOSTILE:
            continue
        assert_someone_is_waited_on(session)
        session.tick(0.0)
        session.tick(DECIDE_WITHIN_S + 1)
        assert session.finished or session.fault is not None, "after every timer ran out the game still hangs"
        if session.fault is not None:
            assert session.fault.seat in (None, HOSTILE), f"an honest seat was blamed: {session.fault}"


GAMES = st.sampled_from(["fishnstones", "highcard", "kunayala"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=GAMES,
    seed=st.integers(0, 10_000),
    plan=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 20)), max_size=3),
    quiet_from=st.none() | st.integers(0, 300),
)
def test_no_hostile_sequence_freezes_an_honest_peer(
    game: str, seed: int, plan: list[tuple[int, int]], quiet_from: int | None
) -> None:
    run_hostile(make_table(game, 3, seed), plan, quiet_from)


def test_an_honest_table_always_waits_on_someone_until_it_ends() -> None:
    for game in ("fishnstones", "highcard", "kingfish"):
        table = make_table(game, 3, 4)
        table.start()
        while table.step():
            for session in table.sessions:
                assert_someone_is_waited_on(session)
        assert all(s.finished for s in table.sessions)


def _draw_waiting_for_seat_one() -> tuple[Session, Session, Identity]:
    """A two-seat Fish'n'Stones game at its first draw: both committed, seat 0 revealed, seat 1 owes its reveal."""
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("a", "b"))
    honest, other = (
        Session(setup, seat, signers[seat], MemoryStore(), drop_after=30, rules=get_rules(setup.game))
        for seat in range(2)
    )
    honest.start()
    other.start()
    for raw in other.take_outbox():
        honest.receive(raw, via=1)
    honest.take_outbox()
    assert honest.waiting_for() == (1,)
    return honest, other, signers[1]


def _report_of_seat_one(other: Session, signer: Identity, kind: str, reason: str) -> bytes:
    chain = other.chains[1]
    body = bodies.stop(0, kind, reason, ())
    return seal(signer, other.session_id, 1, seq=chain.next_seq, prev=chain.head, body=body).raw


def test_an_unproven_report_from_a_seat_that_owes_a_step_says_what_it_owed() -> None:
    """The last revealer that stops the game with a claim nobody can check is not taken at its word, and every
    honest peer shows that it stopped while its reveal was due."""
    honest, other, signer = _draw_waiting_for_seat_one()
    honest.receive(_report_of_seat_one(other, signer, "violation", "seat 0 sent a bad reveal"), via=1)
    honest.tick(0.0)
    honest.tick(REPORT_GRACE_S + 0.1)
    fault = honest.fault
    assert fault is not None and fault.seat is None and fault.kind == "report", fault
    assert "seat 1 stopped the game, while its reveal for the draw start was due" in fault.reason


def test_a_seat_that_stopped_the_game_is_not_named_for_its_silence_afterwards() -> None:
    """Its own timeout report stops nothing here, but the silence that follows its stop is its report's, not a
    fault of its own that this peer could prove."""
    honest, other, signer = _draw_waiting_for_seat_one()
    honest.receive(_report_of_seat_one(other, signer, "timeout", "no sign of life for 30 s: dropped"), via=1)
    honest.tick(0.0)
    assert honest.fault is None
    honest.tick(31.0)
    fault = honest.fault
    assert fault is not None and fault.seat is None and "seat 1 stopped the game" in fault.reason, fault
