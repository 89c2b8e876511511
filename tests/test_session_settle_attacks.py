"""Attacks on the early end (PROTOCOL §10.8): a remaining seat that picks the turn the table ends at, a settle
signed without a stop, a replica that ends at another turn than the others, a resumed peer that plays on after
its own stop, and a flood that keeps honest settles out."""

from session_helpers import Net, author_of, body_of

from p2pfish.session import bodies
from p2pfish.session.session import Session

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
