"""Attacks on the early end (PROTOCOL §10.8): a remaining seat that picks the turn the table ends at, a settle
signed without a stop, a replica that ends at another turn than the others, a resumed peer that plays on after
its own stop, a flood that keeps honest settles out, a finished replica that blamed an honest settle — and, as
an expected failure (a design question), a two-seat game won by naming the other seat gone."""

from session_helpers import Net, author_of, body_of

from p2pfish.session import bodies
from p2pfish.session.core import MAX_WAITING
from p2pfish.session.session import Session
from p2pfish.session.store import MemoryStore

GONE = 2


def waiting_for_gone(seed: int, players: int = 3, gone: int = GONE, after_turn: int = 12, alone: bool = False) -> Net:
    """A table whose other seats all wait for seat `gone` (frozen, its messages dropped); `alone`: for it only."""

    def waiting(session: Session) -> bool:
        if alone:
            state = session.state
            return session.rules.chance(state) is None and session.rules.to_act(state) == (gone,)
        return gone in session.waiting_for()

    net = Net(players, seed)
    net.start()
    net.run(until=lambda n: min(s.turn for s in n.sessions) >= after_turn)
    while not all(waiting(s) for s in net.sessions if s.seat != gone):
        assert net.step(), "the table ended without waiting for the gone seat"
    net.frozen.add(gone)
    net.in_flight = [m for m in net.in_flight if gone not in (m[1], author_of(m[2]))]
    net.run()
    return net


def table_waiting_for(seed: int, players: int, gone: int) -> Net | None:
    try:
        return waiting_for_gone(seed, players, gone)
    except AssertionError:
        return None


def last_turn_message(session: Session, seat: int) -> int:
    turns = [bodies.turn_of(e.body) for e in session.chains[seat].accepted if e.kind in bodies.TURN_KINDS]
    return max(turns, default=0)


def test_a_remaining_seat_cannot_pull_the_table_back_to_a_turn_it_was_long_past() -> None:
    """Seat 0 stops on seat 2's silence at turn 12+ but signs a settle at turn 1 (scores all but even, or
    whenever it led); honest seat 1 must not follow it there: seat 0 itself played turns far past turn 1."""
    net = waiting_for_gone(3)
    cheat, honest = net.sessions[0], net.sessions[1]
    cheat.give_up(GONE)
    net.collect(0)
    early = 1
    net.emit_as(0, bodies.settle(GONE, early, cheat._turn_hashes[early], cheat._outcome_at(early, GONE).to_wire()))
    net.run()
    honest.give_up(GONE)
    net.collect(1)
    honest.settle()
    net.collect(1)
    net.run()
    floor = min(last_turn_message(honest, seat) for seat in (0, 1))
    assert floor > early
    signed = [body_of(raw)["turn"] for raw in net.wire[1] if body_of(raw).get("type") == "settle"]
    assert early not in signed, f"honest seat 1 signed turn {early}, below every seat's last move ({floor})"
    assert honest.settlement is None or honest.settlement.turn >= floor


def test_a_settle_signed_without_a_stop_naming_that_seat_is_its_signers_violation() -> None:
    """A seat that is still playing signs a settle (at a turn it leads at) and plays on; the settle must not sit
    waiting for the table to stop later and pull the others back to it."""
    net = waiting_for_gone(3)
    cheat, honest = net.sessions[0], net.sessions[1]
    early = 2
    net.emit_as(0, bodies.settle(GONE, early, cheat._turn_hashes[early], cheat._outcome_at(early, GONE).to_wire()))
    net.run()
    assert honest.fault is not None and honest.fault.seat == 0, honest.fault


def lagging_replica_scenario() -> tuple[Net, Session]:
    """Seats 0 and 1 stop on seat 2 at turn T (its move alone). Honest seat 1 signs T; seat 0 (the cheat) signs T
    and then the last turn both had reached (T' < T, which an honest seat behind the others could have stopped at),
    and the network hands seat 1 the second before the first: seat 1 takes both at once, follows T' and ends at T,
    where the cheat ends too. A replica that has played only to a turn between (the gone seat's, coming back)
    then gets every message."""
    net = waiting_for_gone(3, alone=True)
    cheat, honest = net.sessions[0], net.sessions[1]
    for seat in (0, 1):
        net.sessions[seat].give_up(GONE)
        net.collect(seat)
    net.run()
    turn = honest.turn
    lower = honest._floor(GONE)
    assert lower < turn
    honest.settle()
    net.collect(1)
    before = len(cheat.chains[0].accepted)
    net.emit_as(0, bodies.settle(GONE, turn, cheat._turn_hashes[turn], cheat._outcome_at(turn, GONE).to_wire()))
    net.emit_as(0, bodies.settle(GONE, lower, cheat._turn_hashes[lower], cheat._outcome_at(lower, GONE).to_wire()))
    both = [e.raw for e in cheat.chains[0].accepted[before:]]
    net.in_flight = [m for m in net.in_flight if m[2] not in both]
    honest.receive(both[1], 0)
    honest.receive(both[0], 0)
    net.collect(1)
    net.run()
    return net, Session(net.setup, None, None, MemoryStore(), **net.session_options)


def test_a_replica_behind_the_table_ends_at_the_same_turn_as_the_others() -> None:
    net, behind = lagging_replica_scenario()
    honest = net.sessions[1]
    assert honest.settlement is not None and net.sessions[0].settlement == honest.settlement
    lines = honest.transcript()[1:]
    for raw in lines:
        if author_of(raw) != GONE:
            behind.receive(raw)
    for raw in lines:
        behind.receive(raw)
        if behind.settlement is not None:
            break
    assert behind.settlement == honest.settlement, (behind.turn, behind.settlement, honest.settlement)


def test_a_resumed_peer_that_stopped_does_not_play_on_with_messages_that_came_after_its_stop() -> None:
    """Seat 0 gives up on seat 2, which then sends what was due after all: seat 0 (settling) stores it but
    plays no more turns. Resumed from its store, it must not play on either, nor send a turn message after its
    own stop (which every other seat would hold against it)."""
    for seed in range(12):
        net = Net(3, seed)
        net.start()
        net.run(until=lambda n: min(s.turn for s in n.sessions) >= 8)
        while GONE not in net.sessions[0].waiting_for():
            assert net.step()
        net.frozen.add(GONE)
        net.run()
        net.sessions[0].give_up(GONE)
        net.collect(0)
        stopped_at = net.sessions[0].turn
        net.frozen.discard(GONE)
        net.run()
        if net.sessions[0].chains[GONE].next_seq == 0:
            continue
        resumed = Session.resume(net.stores[0], net.ids[0], **net.session_options)
        assert resumed.turn == stopped_at, (seed, resumed.turn, stopped_at)
        out = resumed.take_outbox()
        assert not [raw for raw in out if body_of(raw).get("type") in bodies.TURN_KINDS], seed
        for raw in out:
            net.sessions[1].receive(raw, 0)
        assert net.sessions[1].fault is None or net.sessions[1].fault.seat != 0, net.sessions[1].fault
        assert resumed.settle_offer() == GONE
        return
    raise AssertionError("no game went that way")


def test_one_seat_flooding_after_the_stop_does_not_keep_the_others_settles_out() -> None:
    """4 seats, seat 3 gone. Seat 0 signs, then sends chat after chat: a replica that took them before another
    honest seat's settle must still take that settle (the allowance after a stop is each author's own), or seat
    1 ends the game and seat 2 never can."""
    gone = 3
    net = next(net for seed in range(20) if (net := table_waiting_for(seed, 4, gone)) is not None)
    for seat in (0, 1, 2):
        net.sessions[seat].give_up(gone)
        net.collect(seat)
    net.run()
    cheat = net.sessions[0]
    cheat.settle()
    for _ in range(MAX_WAITING + 1):
        cheat._emit(bodies.chat("x"))
    flood = cheat.take_outbox()
    for raw in flood:
        net.sessions[2].receive(raw, 0)
    net.sessions[1].receive(flood[0], 0)
    for seat in (1, 2):
        net.sessions[seat].settle()
    net.in_flight.clear()
    for seat in (1, 2):
        net.collect(seat)
    net.run()
    first, second = net.sessions[1].settlement, net.sessions[2].settlement
    assert first is not None and second == first, (first, second)


def test_a_resumed_peer_keeps_the_settles_it_took_after_its_stop_and_ends_with_them() -> None:
    net = waiting_for_gone(3)
    for seat in (0, 1):
        net.sessions[seat].give_up(GONE)
        net.collect(seat)
    net.run()
    net.sessions[1].settle()
    net.collect(1)
    net.run()
    assert net.sessions[0].settled_by(1) == GONE
    resumed = Session.resume(net.stores[0], net.ids[0], **net.session_options)
    assert resumed.settled_by(1) == GONE and resumed.settle_offer() == GONE
    resumed.settle()
    assert resumed.settlement is not None and resumed.settlement.turn == net.sessions[1].turn
    for raw in resumed.take_outbox():
        net.sessions[1].receive(raw, 0)
    assert net.sessions[1].settlement == resumed.settlement


def test_a_replica_that_finished_the_game_does_not_blame_a_seat_that_stopped_at_the_end_and_settled() -> None:
    """Seat 2's `end` reaches seat 0 only: seat 0 finishes; seat 1 gives up on seat 2 at the end turn, stops and
    signs a settle there. Seat 0 takes both after its finish (it recorded no stop then): the game stays finished
    and nobody is blamed."""
    net = Net(3, 5)
    net.quarantine = lambda seat, raw: seat == GONE and body_of(raw).get("type") == "end"
    net.start()
    net.run()
    assert len(net.held) == 1 and GONE in net.sessions[1].waiting_for()
    net.sessions[1].give_up(GONE)
    net.collect(1)
    net.sessions[1].settle()
    net.collect(1)
    finished = net.sessions[0]
    finished.receive(net.held[0][1], GONE)
    assert finished.finished
    net.run()
    assert finished.finished and finished.fault is None, finished.fault


def test_at_two_seats_a_player_cannot_end_the_game_as_its_winner_by_naming_the_other_gone() -> None:
    """Two seats; seat 0 is right there (the game waits for seat 1, not for it). Seat 1 stops naming seat 0 for a
    silence that never was and signs a settle: the remaining seat is the only one that can win, so seat 1 wins, at
    seat 0's own replica too, and `verify` of either transcript says ENDED EARLY. Before §10.8 a losing player
    could only walk away with no result; an early end at two seats therefore names no winner: walking away with a
    word wins nothing."""
    net = Net(2, 4)
    net.start()
    net.run(until=lambda n: n.sessions[0].turn >= 10 and n.sessions[0].waiting_for() == (1,))
    quitter, victim = net.sessions[1], net.sessions[0]
    net.emit_as(1, bodies.stop(0, "timeout", "sent nothing for 60 s while its move was due: dropped", ()))
    turn = quitter.turn
    net.emit_as(1, bodies.settle(0, turn, quitter._turn_hashes[turn], quitter._outcome_at(turn, 0).to_wire()))
    net.run()
    assert victim.settlement is None or victim.settlement.outcome.winners == (), victim.settlement
    assert quitter.settlement is not None and quitter.settlement.outcome.winners == ()
