"""Pipelined draws (PROTOCOL §10.2): each rand-reveal carries the seat's commitment to its contribution to the
next draw, so only a game's first draw has a commit phase. The attacks a seat would choose against that: change
its contribution once it has seen the others' (its reveal must open the commitment it carried), send a second
commitment for a draw it already committed to, leave its next commitment out, or reveal the next draw early,
before the others have committed to it. Each is refused or blamed on the cheater; an honest seat never is."""

from typing import Any

import pytest
from session_helpers import Net, Rewriter, body_of, envelope_of

from p2pfish.core.wire import Json
from p2pfish.crypto.commitment import commit
from p2pfish.crypto.randomness import next_draw_purpose
from p2pfish.session import bodies
from p2pfish.session.bodies import RAND_REVEAL

CHEATER = 1
HONEST = (0, 2)


def cheat_net(seed: int, **options: Any) -> Net:
    """Three seats of Fish'n'Stones with a random start: turn 0 (start) and turn 1 (fill/1) are two draws in a row.
    Stop reports stay off the network: each honest peer must find the fault itself."""
    return Net(3, seed, stops=False, **options)


def sent_reveal(net: Net, seat: int, turn: int) -> bool:
    return any(body_of(raw)["type"] == RAND_REVEAL and body_of(raw)["turn"] == turn for raw in net.wire[seat])


def assert_blamed(net: Net, kind: str, words: str) -> None:
    for seat in HONEST:
        fault = net.sessions[seat].fault
        assert fault is not None, f"seat {seat} found nothing"
        assert (fault.seat, fault.kind) == (CHEATER, kind), fault
        assert words in fault.reason, fault.reason
        assert all(envelope_of(raw).seat == CHEATER for raw in fault.evidence)


def test_a_reveal_changed_after_seeing_the_others_does_not_open_the_carried_commitment() -> None:
    """The last revealer of a draw wants another value once it has seen every other contribution: its reveal
    must open the commitment its reveal of the draw before carried, so it is blamed."""
    net = cheat_net(1)

    def change(body: dict[str, Json]) -> dict[str, Json]:
        if body.get("type") == RAND_REVEAL and body.get("turn") == 1:
            body["contribution"] = bytes(32).hex()
        return body

    net.transforms[CHEATER] = Rewriter(net, CHEATER, change)
    net.start()
    net.run()
    assert_blamed(net, "violation", "does not open its commitment")


def test_a_second_commitment_for_a_draw_already_committed_to_is_out_of_turn() -> None:
    net = cheat_net(2)
    net.start()
    assert net.run(until=lambda n: sent_reveal(n, CHEATER, 0))
    cheater = net.sessions[CHEATER]
    digest = commit(net.session_id, CHEATER, next_draw_purpose(0), value=bytes(32), nonce=bytes(32))
    net.emit_as(CHEATER, bodies.rand_commit(1, digest))
    net.run()
    assert_blamed(net, "violation", "sent rand-commit for turn 1 while turn 1 awaits its rand-reveal")
    assert cheater.fault is not None and cheater.fault.seat == CHEATER  # its own replica convicts it too


def test_a_reveal_without_its_next_commitment_is_malformed() -> None:
    net = cheat_net(3)

    def drop_next(body: dict[str, Json]) -> dict[str, Json]:
        if body.get("type") == RAND_REVEAL:
            del body["next"]
        return body

    net.transforms[CHEATER] = Rewriter(net, CHEATER, drop_next)
    net.start()
    net.run()
    assert_blamed(net, "malformed", "next")


@pytest.mark.parametrize("seed", range(3))
def test_a_reveal_of_the_next_draw_sent_early_waits_until_every_commitment_to_it_is_held(seed: int) -> None:
    """The cheater reveals its contribution to draw 1 right after its reveal of draw 0, while seat 2 (paused)
    has not revealed draw 0. Seat 0 holds the early reveal but does not take it, nor reveal draw 1 itself,
    until it holds every seat's reveal of draw 0 (so every commitment to draw 1); and nobody is blamed: an
    early reveal shows only the cheater's own value, fixed by the commitment it already sent, and cannot be
    told from a fast peer's."""
    net = cheat_net(10 + seed)
    net.start()  # every seat sends its commitment to draw 0
    net.frozen.add(2)
    assert net.run(until=lambda n: sent_reveal(n, CHEATER, 0))
    cheater = net.sessions[CHEATER]
    following = cheater._contribution(next_draw_purpose(0))
    after = cheater._contribution(next_draw_purpose(1))
    after_digest = commit(net.session_id, CHEATER, next_draw_purpose(1), value=after[0], nonce=after[1])
    net.emit_as(CHEATER, bodies.rand_reveal(1, *following, after_digest))
    early = cheater.own_messages()[-1]
    assert is_reveal(early, 1)
    first = net.sessions[0]
    assert net.run(until=lambda n: early in first.accepted)
    net.run()  # all that can happen while seat 2 is paused
    assert first.turn == 0 and first.fault is None
    assert not any(envelope_of(raw).seat == 0 and is_reveal(raw, 1) for raw in first.accepted)
    net.frozen.clear()
    net.run()
    for session in net.sessions:
        assert session.fault is None, session.fault
        assert session.finished
        assert session.log == first.log
    for seat in HONEST:
        accepted = net.sessions[seat].accepted
        own = next(i for i, raw in enumerate(accepted) if envelope_of(raw).seat == seat and is_reveal(raw, 1))
        held = {envelope_of(raw).seat for raw in accepted[:own] if is_reveal(raw, 0)}
        assert held == {0, 1, 2}, f"seat {seat} revealed draw 1 before holding every commitment to it"


def is_reveal(raw: bytes, turn: int) -> bool:
    body = body_of(raw)
    return body["type"] == RAND_REVEAL and body["turn"] == turn


def test_the_commitments_to_a_draw_that_never_comes_stay_closed_and_blame_nobody() -> None:
    net = Net(3, 20)
    net.start()
    net.run()
    session = net.sessions[0]
    assert session.finished and session.fault is None
    last_draw = max(entry.turn for entry in session.log if entry.seat is None)
    reveals = [body_of(raw) for raw in session.accepted if body_of(raw)["type"] == RAND_REVEAL]
    assert sum(body["turn"] == last_draw for body in reveals) == 3  # each carries a commitment never opened
    assert not any(purpose.startswith("rand/") for _, purpose in session.opened)
    ends = [body_of(raw) for raw in session.accepted if body_of(raw)["type"] == "end"]
    assert len(ends) == 3 and all("rand/" not in str(end["openings"]) for end in ends)
