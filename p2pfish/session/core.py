"""The plumbing every turn of a session shares: the state it keeps, checking and chaining
incoming messages, signing and storing outgoing ones, and recording what the log applies.

A seat's secrets go to its store before the message that commits to them is built; its own
messages go to the store before they are sent (the store's batch is committed, synced, when the
outbox is taken); every message it accepts from another seat is stored (without a sync of its own:
the others hold it too) and relayed to every peer before any message of its own that could depend on it.
"""

import hashlib
from dataclasses import dataclass
from typing import Any

from p2pfish.core.actions import Action
from p2pfish.core.errors import MalformedInput, P2pfishError, ProtocolViolation
from p2pfish.core.game import AnyRules, Known, Outcome
from p2pfish.core.text import printable
from p2pfish.core.wire import Json, Scalar, scalar
from p2pfish.crypto.encoding import encode_u32, tagged_hash
from p2pfish.session import bodies
from p2pfish.session.bodies import (
    CHAT,
    SETTLE,
    STOP,
    turn_of,
)
from p2pfish.session.chains import Chain, ChainViolation
from p2pfish.session.chat_limits import ChatBudget, over_budget_reason, read_chat
from p2pfish.session.decks import DeckRecord
from p2pfish.session.envelope import Envelope, Signer, canonical, open_envelope, seal
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import Store

TAG_LOG = b"p2pfish/log/v1"
CHANCE_SEAT = 0xFFFFFFFF
SLOW_AFTER_S = 5.0
REPORT_GRACE_S = 3.0
"""How long a peer waits for its own proof of a fault another seat reported before it stops unproven."""
MAX_WAITING = 256
"""How many of an author's accepted messages may wait for their turn: an honest seat is never more than a
turn ahead of the table, and a peer that lags gets every author's missing messages at the same pace."""
MAX_WAITING_BYTES = 4 * 1024 * 1024
"""And how many bytes of them."""
DROP_AFTER_S = 60.0
DECIDE_WITHIN_S = 600.0


@dataclass(frozen=True)
class Fault:
    """Why the game stopped: the seat at fault (None if unknown), what kind, and the evidence."""

    seat: int | None
    kind: str
    reason: str
    evidence: tuple[bytes, ...] = ()

    def describe(self, names: tuple[str, ...]) -> str:
        """The fault in words, made printable (a reason may quote what another peer sent)."""
        who = "unknown peer" if self.seat is None else f"seat {self.seat} ({names[self.seat]})"
        return printable(f"{who}: {self.reason}")


@dataclass(frozen=True)
class Applied:
    turn: int
    seat: int | None
    action: Action


@dataclass(frozen=True)
class Finished:
    outcome: Outcome


@dataclass(frozen=True)
class Settlement:
    """A game ended early (PROTOCOL §10.8): without `gone`, after `turn` turns, with the scores so far there,
    signed by every other seat (`signers`)."""

    gone: int
    turn: int
    outcome: Outcome
    signers: tuple[int, ...]


@dataclass(frozen=True)
class SettleEnded:
    settlement: Settlement


@dataclass(frozen=True)
class Stopped:
    fault: Fault


@dataclass(frozen=True)
class ChatReceived:
    seat: int
    text: str


@dataclass(frozen=True)
class Slow:
    """A seat the game has waited on for a while; it is named as dropped at the drop timeout."""

    seat: int


Event = Applied | Finished | SettleEnded | Stopped | ChatReceived | Slow


class Unattributed(ProtocolViolation):
    """Proof that someone cheated, without knowing who."""


class SessionCore:
    """State and message handling; the turns themselves live in the classes built on this one."""

    def __init__(
        self,
        setup: GameSetup,
        seat: int | None,
        signer: Signer | None,
        store: Store,
        *,
        rules: AnyRules,
        slow_after: float = SLOW_AFTER_S,
        drop_after: float = DROP_AFTER_S,
        decide_within: float = DECIDE_WITHIN_S,
        relay: bool = True,
    ) -> None:
        """`rules`: the rules of the setup's game, which the caller looked up (a session never looks a game up)."""
        if seat is not None and not 0 <= seat < setup.players:
            raise MalformedInput(f"seat {seat} is not in this {setup.players}-player game")
        if (seat is None) != (signer is None):
            raise MalformedInput("a seat needs a signer, and an observer has none")
        self.setup = setup
        self.seat = seat
        self.rules = rules
        if rules.id != setup.game:
            raise MalformedInput(f"rules of {self.rules.id} handed to a session of {setup.game}")
        self.state: Any = self.rules.new_game(setup.players, setup.option_map)
        self.session_id = setup.session_id
        self._signer = signer
        self._store = store
        self._slow_after, self._drop_after, self._decide_within = slow_after, drop_after, decide_within
        self.relay = relay
        """Whether accepted messages of other seats go to the outbox to be relayed to every peer (§9); the
        network's peer runner switches it off and sends only what a peer lacks (net/node.py, PROTOCOL §17.3)."""
        saved = store.load_setup()
        if saved is None:
            store.save_setup(setup.to_wire(), seat)
        elif GameSetup.from_wire(saved[0]).session_id != self.session_id or saved[1] != seat:
            raise MalformedInput("this store belongs to another game or seat; use a fresh one")
        self._secrets: dict[str, Json] = store.load_secrets()
        self.chains = [Chain(s) for s in range(setup.players)]
        self._chat_budgets = [ChatBudget() for _ in range(setup.players)]
        self.turn = 0
        self.log: list[Applied] = []
        self.log_hash = tagged_hash(TAG_LOG, self.session_id)
        self._turn_hashes = [self.log_hash]
        """The log hash after each number of turns played (a settle names one, PROTOCOL §10.8)."""
        self.commitments: dict[tuple[int, str], bytes] = {}
        self.opened: dict[tuple[int, str], Scalar] = {}
        self.fault: Fault | None = None
        self.finished = False
        self._synced_at_end = False
        """Whether the store was synced once the game finished (the others may then leave: nothing is fetched
        again after that)."""
        self.accepted: list[bytes] = []
        self._sent: set[tuple[int, str]] = set()
        self._not_to_decide: object = object()
        """The last state the rules showed this seat has nothing to decide in (Session.decision)."""
        self._rand_commits: dict[int, bytes] = {}
        self._rand_reveals: dict[int, bytes] = {}
        self._rand_next: dict[int, bytes] = {}
        """The commitments to the next draw carried by the reveals taken so far in this draw."""
        self._carried: dict[int, bytes] = {}
        """Every seat's commitment to its contribution to the next draw, from its reveal of the last one."""
        self._carried_from: int | None = None
        """The turn of the draw whose reveals carried `_carried` (None: no draw yet, the next one commits first)."""
        self._pending: dict[int, Envelope] = {}
        self._ends: dict[int, Envelope] = {}
        self.decks: dict[str, DeckRecord] = {}
        self._waiting_since: dict[int, float] = {}
        self._slow_told: set[int] = set()
        self._outbox: list[bytes] = []
        self._reports: list[Envelope] = []
        self._unproven: list[Envelope] = []
        """Stop reports of other seats whose evidence proves nothing here (yet)."""
        self._unproven_since: float | None = None
        self._checking_report = False
        self.away: set[int] = set()
        """Seats whose players left meaning to resume: waited for as long as for a decision."""
        self._accepted_hashes: set[bytes] = set()
        """Hashes of accepted messages: a copy (relays make many) is dropped before it is even parsed."""
        self._stopped: dict[int, Envelope] = {}
        """Each seat's stop report: a seat that stopped the game on its side is never named for its silence."""
        self._own_stop: Envelope | None = None
        """This seat's own stop report, if it sent one (a resumed peer stays stopped)."""
        self._events: list[Event] = []
        self._restoring = False
        self._evidence: tuple[bytes, ...] = ()
        self._author: int | None = None
        self._init_settling()

    def _init_settling(self) -> None:
        """The settles' state (session/settling.py)."""

    def take_outbox(self) -> list[bytes]:
        """What to send now. The store's batch is committed first (synced if it holds this seat's own secret or
        message), so nothing leaves the peer before what it depends on is on disk; so do `chain_messages` and
        `own_messages`, the other ways a message leaves."""
        self._store.commit()
        if self.finished and not self._synced_at_end:
            self._synced_at_end = True
            self._store.sync()
        out, self._outbox = self._outbox, []
        return out

    def take_events(self) -> list[Event]:
        out, self._events = self._events, []
        return out

    def known(self) -> Known:
        """The local seat's own secret values, by purpose."""
        values: dict[str, Scalar] = {}
        for name, record in self._secrets.items():
            if name.startswith("secret/") and isinstance(record, dict):
                values[name.removeprefix("secret/")] = scalar(record["value"], "a stored secret")
            elif name.startswith("card/") and isinstance(record, dict):
                values[name.removeprefix("card/")] = str(record["label"])
        return values

    def have(self) -> list[int]:
        """How many messages of each author this peer has accepted: what it tells peers it holds."""
        return [chain.next_seq for chain in self.chains]

    def message_hash(self, author: int, seq: int) -> bytes:
        """The hash of the accepted message `seq` of `author` (IndexError when it is not held)."""
        return self.chains[author].accepted[seq].hash

    def chain_messages(self, author: int, start: int, limit: int) -> list[bytes]:
        """Up to `limit` accepted messages of `author` from seq `start` on, to resend to a peer."""
        self._store.commit()
        return [envelope.raw for envelope in self.chains[author].accepted[start : start + limit]]

    def own_messages(self) -> list[bytes]:
        """Every message this seat has signed, for resending after a reconnect."""
        self._store.commit()
        return [] if self.seat is None else [e.raw for e in self.chains[self.seat].accepted]

    def transcript(self) -> list[bytes]:
        """The game's full signed log as JSON lines: the setup, then every accepted message."""
        header = canonical({"type": "p2pfish-transcript", "setup": self.setup.to_wire()})
        return [header, *self.accepted]

    def _ingest(self, raw: bytes, via: int | None, *, signed_here: bool = False) -> None:
        """Check one message and add it to its author's chain. `via` None: it comes from a file or the
        store, so a message that no seat's signature vouches for is blamed on nobody. `signed_here`: this peer
        has just signed it (`_emit`), so its signature needs no check."""
        if hashlib.sha256(raw).digest() in self._accepted_hashes:
            return
        try:
            envelope = open_envelope(raw)
        except MalformedInput as error:
            self._link_fault(Fault(via, "malformed", error.reason, (raw,)))
            return
        if envelope.session != self.session_id:
            self._link_fault(Fault(via, "violation", "sent a message of another game (replay)", (raw,)))
            return
        if envelope.seat >= self.setup.players:
            reason = f"a message from seat {envelope.seat}, who is not playing"
            self._link_fault(Fault(via, "malformed", reason, (raw,)))
            return
        chain = self.chains[envelope.seat]
        if envelope.seq < chain.next_seq and chain.accepted[envelope.seq].hash == envelope.hash:
            return
        if self.fault is not None and not self._restoring and not self._may_take_after_stop(envelope.seat):
            return
        if not signed_here and not envelope.signature_valid(self.setup.roster[envelope.seat]):
            reason = f"a message signed as seat {envelope.seat} has a bad signature (forged)"
            self._link_fault(Fault(via, "violation", reason, (raw,)))
            return
        try:
            accepted = chain.offer(envelope)
        except ChainViolation as error:
            self._stop(Fault(error.seat, "violation", error.reason, error.evidence))
            return
        for message in accepted:
            self.accepted.append(message.raw)
            self._accepted_hashes.add(message.hash)
            own = message.seat == self.seat
            if own and message.kind in bodies.TURN_KINDS:
                self._sent.add((turn_of(message.body), message.kind))
            if not own and not self._restoring:
                self._store.save_received(message.raw)
                if self.relay and self.seat is not None:
                    self._outbox.append(message.raw)
            within_budget = self._chat_budgets[message.seat].count(message.kind)
            if not own and self.fault is None and not self._check_on_arrival(message):
                return
            if message.kind == SETTLE:
                chain.ready.remove(message)
                self._claim(message)
            elif message.kind in (CHAT, STOP):
                chain.ready.remove(message)
                if not own:
                    self._side_message(message, within_budget)
                elif message.kind == STOP:
                    self._own_stop = message

    def _check_on_arrival(self, message: Envelope) -> bool:
        """Everything about a message that does not wait for its turn is checked the moment it arrives: its
        type and fields, and that its turn has not passed. A message failing this stops the game, blamed on
        its author (its signature proves it), so no message can sit unjudged while the table waits."""
        if self.finished:
            return True
        self._evidence, self._author = (message.raw,), message.seat
        try:
            bodies.check_fields(message.body)
            if message.kind in bodies.TURN_KINDS and turn_of(message.body) < self.turn and not self._restoring:
                raise ProtocolViolation(f"sent its {message.kind} for turn {turn_of(message.body)}, already played")
            if message.seat in self._stopped and message.kind != SETTLE:
                raise ProtocolViolation("sent a message after its own stop report (a stop is its last word)")
            if message.kind == STOP:
                bodies.check_stop(message.body)
            waiting = self.chains[message.seat].ready
            if not self._restoring and (
                len(waiting) > MAX_WAITING or sum(len(e.raw) for e in waiting) > MAX_WAITING_BYTES
            ):
                limit = f"{MAX_WAITING} messages or {MAX_WAITING_BYTES // 2**20} MiB"
                raise ProtocolViolation(f"sent more than {limit} ahead of the game (a flood)")
        except P2pfishError as error:
            kind = "malformed" if isinstance(error, MalformedInput) else "violation"
            self._stop(Fault(message.seat, kind, error.reason, (message.raw,)))
            return False
        return True

    def _claim(self, envelope: Envelope) -> None:
        """A settle (session/settling.py)."""

    def _may_take_after_stop(self, seat: int) -> bool:
        """Whether a stopped session still takes a message of `seat` (session/settling.py)."""
        return True

    def _link_fault(self, fault: Fault) -> None:
        """A message no seat's signature vouches for is blamed on the link it came by. Evidence in another
        seat's stop report came by no link: it proves nothing here and is only set aside."""
        if fault.seat is None and self._checking_report:
            return
        self._stop(fault)

    def _side_message(self, envelope: Envelope, within_budget: bool) -> None:
        """Chat and stop reports are not part of any turn: chat is shown at once (if it keeps to its
        limits, chat_limits), a report is kept."""
        body = envelope.body
        try:
            bodies.check_fields(body)
            text = read_chat(body) if envelope.kind == CHAT else ""
            if not within_budget:
                raise MalformedInput(over_budget_reason())
        except MalformedInput as error:
            self._stop(Fault(envelope.seat, "malformed", error.reason, (envelope.raw,)))
            return
        if envelope.kind == CHAT:
            self._events.append(ChatReceived(envelope.seat, printable(text)))
        elif not self.finished:
            self._stopped.setdefault(envelope.seat, envelope)
            self._reports.append(envelope)

    def _emit(self, body: dict[str, Json]) -> None:
        assert self.seat is not None and self._signer is not None
        chain = self.chains[self.seat]
        envelope = seal(self._signer, self.session_id, self.seat, seq=chain.next_seq, prev=chain.head, body=body)
        self._store.save_message(envelope.raw)
        self._ingest(envelope.raw, via=self.seat, signed_here=True)
        self._outbox.append(envelope.raw)

    def _take(self, seat: int, kind: str) -> Envelope | None:
        """The next message of `seat` if it is the `kind` this turn awaits; a different one is a fault."""
        chain = self.chains[seat]
        if not chain.ready:
            return None
        envelope = chain.ready[0]
        self._evidence, self._author = (envelope.raw,), seat
        bodies.check_fields(envelope.body)
        turn = turn_of(envelope.body) if envelope.kind in bodies.TURN_KINDS else None
        if envelope.kind != kind or turn != self.turn:
            sent = envelope.kind or "an unknown message"
            raise ProtocolViolation(f"sent {sent} for turn {turn} while turn {self.turn} awaits its {kind}", seat)
        chain.ready.popleft()
        self._waiting_since.pop(seat, None)
        self._slow_told.discard(seat)
        return envelope

    def _apply_chance(self, action: Action) -> None:
        self._evidence, self._author = (), None
        self.state = self.rules.apply(self.state, None, action)
        self._record(None, action)
        self._next_turn()

    def _next_turn(self) -> None:
        self.turn += 1
        self._turn_hashes.append(self.log_hash)

    def _record(self, seat: int | None, action: Action) -> None:
        entry = Applied(self.turn, seat, action)
        self.log.append(entry)
        who = CHANCE_SEAT if seat is None else seat
        self.log_hash = tagged_hash(
            TAG_LOG, self.log_hash, encode_u32(self.turn), encode_u32(who), canonical(action.to_wire())
        )
        self._events.append(entry)

    def _save_secret(self, name: str, record: dict[str, Json], *, durable: bool = True) -> None:
        self._store.save_secret(name, record, durable=durable)
        self._secrets[name] = record

    def _stop(self, fault: Fault, *, tell_others: bool = True) -> None:
        """Stop the game for good; a player's session tells the other peers why, with the evidence."""
        if self.fault is not None:
            return
        self.fault = fault
        self._events.append(Stopped(fault))
        if tell_others and self.seat is not None and not self._restoring:
            self._emit(bodies.stop(fault.seat, fault.kind, fault.reason, fault.evidence[:2]))
