"""The one decide-deliver loop (p2pfish/session/runner.py), seat by seat, without a network."""

import random

from session_helpers import identities, make_setup

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.actions import Action
from p2pfish.core.player import Decision, Player, PlaysBy
from p2pfish.games.registry import get_rules
from p2pfish.session import runner
from p2pfish.session.session import Event, Session
from p2pfish.session.store import MemoryStore


def two_seats() -> list[Session]:
    ids = identities(2)
    setup = make_setup(ids)
    sessions = [Session(setup, seat, ids[seat], MemoryStore(), rules=get_rules(setup.game)) for seat in range(2)]
    for session in sessions:
        session.start()
    return sessions


def exchange(sessions: list[Session], players: list[Player | None]) -> list[list[bytes]]:
    """Settle every seat and deliver what it sent to the other, until nothing more is sent; what each sent."""
    sent: list[list[bytes]] = [[], []]
    while True:
        before = [len(s) for s in sent]
        for seat, session in enumerate(sessions):
            runner.settle(session, players[seat], sent[seat].append)
        for seat in range(2):
            for raw in sent[seat][before[seat] :]:
                sessions[1 - seat].receive(raw, via=seat)
        if [len(s) for s in sent] == before:
            return sent


def test_settle_plays_a_whole_game_between_two_players() -> None:
    sessions = two_seats()
    rng = random.Random(3)
    exchange(sessions, [RandomBot(rng), RandomBot(rng)])
    assert all(s.finished and s.fault is None for s in sessions), [s.fault for s in sessions]


def test_a_seat_without_a_player_only_sends_and_its_decision_waits_for_it() -> None:
    sessions = two_seats()
    exchange(sessions, [None, RandomBot(random.Random(1))])
    decision = sessions[0].decision()
    assert isinstance(decision, Decision) and decision.legal, "the game waits for seat 0's move"
    assert not runner.decide(sessions[0], None)
    shown: list[Decision] = []

    def first(view: object, legal: list[Action]) -> Action:
        shown.append(Decision(view, legal))
        return legal[0]

    assert runner.decide(sessions[0], PlaysBy(first))
    assert shown == [decision], "the player is shown the session's decision"


def test_flush_hands_over_events_only_when_asked() -> None:
    sessions = two_seats()
    rng = random.Random(5)
    exchange(sessions, [RandomBot(rng), RandomBot(rng)])
    events: list[Event] = []
    runner.flush(sessions[0], lambda raw: None, events.append)
    assert events, "the game's events were kept for whoever takes them"
    runner.flush(sessions[0], lambda raw: None, events.append)
    assert sessions[0].take_events() == []
