"""One seat's decide-deliver loop, shared by everything that drives a session.

A session is sans-I/O: after each input it holds messages to send and events to tell, and perhaps a decision
due from its seat. The loop is always the same: send what it produced, let the seat's player decide if a
decision is due, and repeat — the decision produces new messages and may make another one due. The peer
runner (net/node.py) sends over a Transport; the in-memory table (memory_table.py) puts messages in flight;
the tests' step-by-step network (tests/session_helpers.py) through its cheaters' hooks. Each gives the runner
its own `send`. The functions hold no state: a caller may swap a seat's session or player at any time.
"""

from collections.abc import Callable

from p2pfish.core.player import Player
from p2pfish.session.session import Event, Session


def flush(session: Session, send: Callable[[bytes], None], on_event: Callable[[Event], None] | None = None) -> None:
    """Hand `send` each message the session produced (its own and those it relays), and `on_event` each event
    (None: events stay in the session for the caller to take)."""
    for raw in session.take_outbox():
        send(raw)
    if on_event is not None:
        for event in session.take_events():
            on_event(event)


def decide(session: Session, player: Player | None) -> bool:
    """Let `player` make the seat's move if one is due now; False when none is, or when nobody here plays the
    seat (None: it is played from outside — a person, a test's cheater). What the move produced is not sent
    yet (`flush`)."""
    if player is None:
        return False
    decision = session.decision()
    if decision is None:
        return False
    session.act(player.choose(*decision))
    return True


def settle(
    session: Session,
    player: Player | None,
    send: Callable[[bytes], None],
    on_event: Callable[[Event], None] | None = None,
) -> None:
    """Send, decide, and repeat, until the seat waits for the others (or for a move from outside)."""
    flush(session, send, on_event)
    while decide(session, player):
        flush(session, send, on_event)
