"""Shared helpers for the session-layer tests (tests/test_session_*.py).

- identities, setups and random bots;
- `run_table`: a whole game through `MemoryTable`;
- `Net`: a step-by-step in-memory network of sessions with hooks for a cheater (its own decisions,
  a rewriter of its outgoing messages, a quarantine that keeps chosen messages back);
- `snapshot`: the honest state of a session, to show a bad message changed nothing;
- crash-injecting stores for the resume tests.
"""

import copy
import functools
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from p2pfish.bots.random_bot import RandomBot
from p2pfish.core.game import Outcome
from p2pfish.core.player import Decision, Player
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.games.fishnstones.rules import RULES
from p2pfish.games.registry import get_rules
from p2pfish.session import runner
from p2pfish.session.envelope import Envelope, open_envelope, seal
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Applied, Event, Fault, Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore, SqliteStore, Store

GAME = "fishnstones"


# --- identities, setups, bots ----------------------------------------------------------------------


def identities(players: int) -> list[Identity]:
    return [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]


def make_setup(ids: list[Identity], options: Mapping[str, str] | None = None) -> GameSetup:
    roster = tuple(identity.public_bytes for identity in ids)
    names = tuple(f"player{seat}" for seat in range(len(ids)))
    return GameSetup.create(GAME, dict(options or {}), roster, names)


def random_players(players: int, rng: random.Random) -> list[Player]:
    """Random bots for every seat, all drawing from `rng`."""
    return [RandomBot(rng) for _ in range(players)]


def run_table(
    players: int,
    seed: int,
    *,
    duplicate: float = 0.1,
    options: Mapping[str, str] | None = None,
    setup: GameSetup | None = None,
) -> MemoryTable:
    """A whole game of random bots through MemoryTable, random delivery order, some duplicates."""
    ids = identities(players)
    table = MemoryTable(
        setup or make_setup(ids, options),
        ids,
        random_players(players, random.Random(seed * 31 + 7)),
        rng=random.Random(seed),
        duplicate=duplicate,
        rules=get_rules((setup or make_setup(ids, options)).game),
    )
    table.run()
    return table


def replay(setup: GameSetup, log: list[Applied]) -> Any:
    """The rules state after applying a session's log from a new game."""
    state = RULES.new_game(setup.players, setup.option_map)
    for entry in log:
        state = RULES.apply(state, entry.seat, entry.action)
    return state


def replay_outcome(setup: GameSetup, log: list[Applied]) -> Outcome | None:
    return RULES.outcome(replay(setup, log))


# --- messages --------------------------------------------------------------------------------------


def body_of(raw: bytes) -> dict[str, Json]:
    return open_envelope(raw).body


def author_of(raw: bytes) -> int | None:
    """The seat a message claims as its author (None if that cannot be read)."""
    try:
        seat = json.loads(raw).get("seat")
    except (ValueError, AttributeError, RecursionError):
        return None
    return seat if isinstance(seat, int) else None


def is_stop(raw: bytes) -> bool:
    try:
        body = json.loads(raw).get("body")
    except (ValueError, AttributeError, RecursionError):
        return False
    return isinstance(body, dict) and body.get("type") == "stop"


def action_tag(raw: bytes) -> str | None:
    """The action tag ("bait", "reveal", "commit", ...) of an act message, else None."""
    body = body_of(raw)
    action = body.get("action")
    if body.get("type") == "act" and isinstance(action, dict):
        tag = action.get("t")
        return tag if isinstance(tag, str) else None
    return None


def forge(
    identity: Identity,
    session_id: bytes,
    seat: int,
    *,
    seq: int,
    prev: bytes,
    body: dict[str, Json],
) -> bytes:
    return seal(identity, session_id, seat, seq=seq, prev=prev, body=body).raw


def flip_hex(text: str, index: int) -> str:
    """`text` with the hex digit at `index` changed to another lower-case hex digit."""
    digit = "0" if text[index] != "0" else "1"
    return text[:index] + digit + text[index + 1 :]


# --- honest state ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    state: Any
    log: tuple[Applied, ...]
    turn: int
    log_hash: bytes
    commitments: tuple[tuple[tuple[int, str], bytes], ...]
    opened: tuple[tuple[tuple[int, str], Any], ...]
    finished: bool


def snapshot(session: Session) -> Snapshot:
    return Snapshot(
        session.state,
        tuple(session.log),
        session.turn,
        session.log_hash,
        tuple(sorted(session.commitments.items())),
        tuple(sorted(session.opened.items())),
        session.finished,
    )


# --- a step-by-step network ------------------------------------------------------------------------

Override = Callable[["Net", Session, Decision], bool]
"""A cheater's front end: acts (returns True) or declines to act now (returns False)."""
Transform = Callable[[bytes], bytes | None]


class Net:
    """Sessions joined by an in-memory network delivered one message at a time in a random order."""

    def __init__(
        self,
        players: int,
        seed: int,
        *,
        options: Mapping[str, str] | None = None,
        duplicate: float = 0.0,
        stores: list[Store] | None = None,
        setup: GameSetup | None = None,
        stops: bool = True,
        **session_options: Any,
    ) -> None:
        self.ids = identities(players)
        self.setup = setup or make_setup(self.ids, options)
        self.rng = random.Random(seed)
        self.choice_rng = random.Random(seed * 7919 + 1)
        self.duplicate = duplicate
        self.session_options = {"rules": get_rules(self.setup.game), **session_options}
        self.stops = stops
        """False: stop reports are kept off the network (in `self.reports`), so that every honest peer
        has to find a fault by itself."""
        self.reports: list[tuple[int, bytes]] = []
        self.stores: list[Store] = list(stores) if stores is not None else [MemoryStore() for _ in range(players)]
        self.sessions = [
            Session(self.setup, seat, self.ids[seat], self.stores[seat], **self.session_options)
            for seat in range(players)
        ]
        self.bots = random_players(players, self.choice_rng)
        self.overrides: dict[int, Override] = {}
        self.transforms: dict[int, Transform] = {}
        self.quarantine: Callable[[int, bytes], bool] | None = None
        self.held: list[tuple[int, bytes]] = []
        """(author, message) kept back by the quarantine."""
        self.down: set[tuple[int, int]] = set()
        """(from, to) links that lose every message sent on them."""
        self.frozen: set[int] = set()
        """Seats that neither decide nor get messages delivered (crashed, or paused by a test)."""
        self.in_flight: list[tuple[int, int, bytes]] = []
        """(to, via, message)."""
        self.wire: list[list[bytes]] = [[] for _ in range(players)]
        """What each seat put on the network as its own messages, in order (relays not included)."""
        self.events: list[list[Event]] = [[] for _ in range(players)]

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def session_id(self) -> bytes:
        return self.setup.session_id

    def start(self) -> None:
        for seat, session in enumerate(self.sessions):
            session.start()
            self.collect(seat)

    def collect(self, seat: int) -> None:
        """Send what `seat`'s session has for the network: its own messages (through the seat's transform
        and the quarantine) and the messages of others that it relays."""
        runner.flush(self.sessions[seat], functools.partial(self._put, seat), self.events[seat].append)

    def _put(self, seat: int, raw: bytes) -> None:
        if author_of(raw) != seat:
            self.send(seat, raw, relay=True)
            return
        transform = self.transforms.get(seat)
        out = raw if transform is None else transform(raw)
        if out is None:
            return
        if self.quarantine is not None and self.quarantine(seat, out):
            self.held.append((seat, out))
            return
        if not self.stops and is_stop(out):
            self.reports.append((seat, out))
            return
        self.send(seat, out)

    def send(self, seat: int, raw: bytes, to: list[int] | None = None, *, relay: bool = False) -> None:
        """Put `raw` on the network from `seat` to every other seat (or to `to`)."""
        if not relay:
            self.wire[seat].append(raw)
        for target in range(self.players) if to is None else to:
            if target != seat:
                self.in_flight.append((target, seat, raw))

    def deliver(self, to: int, raw: bytes, via: int | None) -> None:
        if to in self.transforms and author_of(raw) == to:
            return  # a cheater that rewrites its chain ignores the echoes of its forged messages
        self.sessions[to].receive(raw, via)
        self.collect(to)

    def default(self, seat: int, decision: Decision) -> None:
        """Play the seat's random bot choice (to `decision`, the one an override was shown)."""
        self.sessions[seat].act(self.bots[seat].choose(*decision))
        self.collect(seat)

    def emit_as(self, seat: int, body: dict[str, Json]) -> None:
        """The cheater signs `body` through its own session (which may then fault itself)."""
        session = self.sessions[seat]
        session._emit(body)
        session._advance()
        self.collect(seat)

    def decide(self) -> bool:
        decided = False
        for seat, session in enumerate(self.sessions):
            if seat in self.frozen:
                continue
            decision = session.decision()
            if decision is None:
                continue
            override = self.overrides.get(seat)
            if override is not None:
                if override(self, session, decision):
                    self.collect(seat)
                    decided = True
                continue
            if decision[1]:
                self.default(seat, decision)
                decided = True
        return decided

    def step(self) -> bool:
        """One decision round or one delivery; False when nothing is left to do."""
        if self.decide():
            return True
        deliverable = [i for i, (to, _, _) in enumerate(self.in_flight) if to not in self.frozen]
        if not deliverable:
            return False
        to, via, raw = self.in_flight.pop(self.rng.choice(deliverable))
        if (via, to) in self.down:
            return True
        if self.rng.random() < self.duplicate:
            self.in_flight.append((to, via, raw))
        self.deliver(to, raw, via)
        return True

    def run(self, until: Callable[["Net"], bool] | None = None, max_steps: int = 100_000) -> bool:
        """Step until `until` holds (True) or nothing is left to do (False)."""
        for _ in range(max_steps):
            if until is not None and until(self):
                return True
            if not self.step():
                return until is not None and until(self)
        raise AssertionError("the network did not settle")

    def honest(self, *cheaters: int) -> list[int]:
        return [seat for seat in range(self.players) if seat not in cheaters]

    def forge(
        self,
        seat: int,
        body: dict[str, Json],
        *,
        seq: int | None = None,
        prev: bytes | None = None,
        at: int | None = None,
        signer: int | None = None,
    ) -> bytes:
        """A message for `seat`'s chain, signed by `signer` (the seat itself unless told otherwise), at the next
        position of that chain as peer `at` (the seat itself unless told otherwise) holds it."""
        chain = self.sessions[seat if at is None else at].chains[seat]
        return forge(
            self.ids[seat if signer is None else signer],
            self.session_id,
            seat,
            seq=chain.next_seq if seq is None else seq,
            prev=chain.head if prev is None else prev,
            body=body,
        )


class Rewriter:
    """A cheater's outgoing filter: edits its own message bodies and re-signs its whole chain so it stays
    valid (its stop reports, should its own session stop, are withheld: a cheater does not own up).

    `edit` gets a copy of each body and returns the body to send (None: withhold the message and go on).
    Messages whose body was changed are listed in `forged`.
    """

    def __init__(self, net: Net, seat: int, edit: Callable[[dict[str, Json]], dict[str, Json] | None]) -> None:
        chain = net.sessions[seat].chains[seat]
        self.identity = net.ids[seat]
        self.session_id = net.session_id
        self.seat = seat
        self.edit = edit
        self.next_seq = chain.next_seq
        self.head = chain.head
        self.forged: list[bytes] = []

    def __call__(self, raw: bytes) -> bytes | None:
        envelope = open_envelope(raw)
        if envelope.kind == "stop":
            return None
        body = self.edit(copy.deepcopy(envelope.body))
        if body is None:
            return None
        if body == envelope.body and (envelope.seq, envelope.prev) == (self.next_seq, self.head):
            out = envelope
        else:
            out = seal(self.identity, self.session_id, self.seat, seq=self.next_seq, prev=self.head, body=body)
            if body != envelope.body:
                self.forged.append(out.raw)
        self.next_seq, self.head = out.seq + 1, out.hash
        return out.raw


# --- checking a fault ------------------------------------------------------------------------------


def deliver_bad(
    net: Net,
    raw: bytes,
    *,
    via: int,
    blame: int,
    kinds: tuple[str, ...],
    to: list[int] | None = None,
    awaited: bool = True,
) -> list[Fault]:
    """Deliver one bad message to each honest peer and check the fault and that nothing else changed."""
    faults: list[Fault] = []
    for seat in net.honest(blame) if to is None else to:
        session = net.sessions[seat]
        assert session.fault is None, session.fault
        if awaited:
            assert blame in session.waiting_for(), (seat, session.waiting_for())
        before = snapshot(session)
        session.receive(raw, via)
        net.collect(seat)
        fault = session.fault
        assert fault is not None, f"seat {seat} accepted a bad message"
        assert fault.seat == blame, fault
        assert fault.kind in kinds, fault
        assert fault.evidence, fault
        assert raw in fault.evidence, fault
        assert snapshot(session) == before
        faults.append(fault)
    return faults


# --- stores that crash -----------------------------------------------------------------------------


class Crash(Exception):
    """The process died."""


class _CrashAfterSecret:
    """When armed, the first message save after a matching secret save raises Crash (the message is
    kept in `lost`): the peer died after storing its secret and before its message went out."""

    armed_prefix: str | None = None
    primed = False
    lost: bytes | None = None

    def _after_secret(self, name: str) -> None:
        if self.armed_prefix is not None and name.startswith(self.armed_prefix):
            self.primed = True

    def _before_message(self, raw: bytes) -> None:
        if self.primed:
            self.primed, self.armed_prefix, self.lost = False, None, raw
            raise Crash(raw)


class CrashingMemoryStore(MemoryStore, _CrashAfterSecret):
    def save_secret(self, name: str, record: Json, *, durable: bool = True) -> None:
        super().save_secret(name, record, durable=durable)
        self._after_secret(name)

    def save_message(self, raw: bytes) -> None:
        self._before_message(raw)
        super().save_message(raw)


class CrashingSqliteStore(SqliteStore, _CrashAfterSecret):
    def save_secret(self, name: str, record: Json, *, durable: bool = True) -> None:
        super().save_secret(name, record, durable=durable)
        self._after_secret(name)

    def save_message(self, raw: bytes) -> None:
        self._before_message(raw)
        super().save_message(raw)


def envelope_of(raw: bytes) -> Envelope:
    return open_envelope(raw)


def pause_at_bait(net: Net) -> dict[str, bool]:
    """Make every seat's bot hold back its bait decision while the returned flag's "on" is True."""
    hold = {"on": True}

    def override(net: Net, session: Session, decision: Decision) -> bool:
        if session.state.phase == "bait" and hold["on"]:
            return False
        assert session.seat is not None
        net.default(session.seat, decision)
        return True

    for seat in range(net.players):
        net.overrides[seat] = override
    return hold
