"""The replicated game of one peer, sans I/O.

Every peer runs the same turn machine over the same per-author hash chains, so all reach the same
log without any leader. A turn is what the rules wait for next:
- a chance turn: every seat reveals a random contribution once every seat's commitment to it is in
  (committed in the game's first draw's commit phase, later with the seat's reveal of the draw before);
  the seed of the reveals picks the draw;
- a decision turn: one `act` message from each seat in `to_act` (several seats: a simultaneous
  phase), applied in seat order once all are in;
- the end turn: every seat opens what is still closed and signs the log hash and the outcome.
Each seat's next message in its chain must be the one the current turn awaits from it; anything
else is a protocol violation by that seat, proven by its own signature.

Inputs: `receive(raw, via)` for a message from the network, `act(choice)` for the local front
end's decision, `tick(now)` for time. Outputs: `take_outbox()` (messages to send to every peer)
and `take_events()` (what front ends show). A seat's secrets go to its store before the message
that commits to them is built.
"""

from typing import Any

from p2pfish.core.actions import Action, Commit, Reveal, RevealsCards, SecretChoice
from p2pfish.core.errors import IllegalAction, MalformedInput, P2pfishError, ProtocolViolation
from p2pfish.core.game import AnyRules, ChanceRequest, DealRequest, Outcome, ShuffleRequest
from p2pfish.core.player import Decision, decision_for
from p2pfish.core.wire import Json, Scalar, field, scalar
from p2pfish.crypto.commitment import check_opening, commit, new_nonce
from p2pfish.crypto.encoding import encode_scalar
from p2pfish.session import bodies
from p2pfish.session.bodies import (
    ACT,
    END,
    Opening,
    hex_field,
)
from p2pfish.session.core import (
    CHANCE_SEAT,
    DECIDE_WITHIN_S,
    DROP_AFTER_S,
    REPORT_GRACE_S,
    SLOW_AFTER_S,
    TAG_LOG,
    Applied,
    ChatReceived,
    Event,
    Fault,
    Finished,
    SettleEnded,
    Settlement,
    Slow,
    Stopped,
    Unattributed,
)
from p2pfish.session.deck_turns import DeckTurns
from p2pfish.session.decks import keys_to_wire
from p2pfish.session.envelope import Envelope, Signer, canonical
from p2pfish.session.random_turns import RandomTurns
from p2pfish.session.settling import Settling
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import Store

__all__ = [
    "CHANCE_SEAT",
    "DECIDE_WITHIN_S",
    "DROP_AFTER_S",
    "REPORT_GRACE_S",
    "SLOW_AFTER_S",
    "TAG_LOG",
    "Applied",
    "ChatReceived",
    "Event",
    "Fault",
    "Finished",
    "Session",
    "SettleEnded",
    "Settlement",
    "Slow",
    "Stopped",
    "stored_setup",
]


def stored_setup(store: Store) -> tuple[GameSetup, int | None]:
    """The setup of the game a store holds and the seat it played (None: an observer), for `Session.resume`."""
    saved = store.load_setup()
    if saved is None:
        raise MalformedInput("this store holds no game to resume")
    return GameSetup.from_wire(saved[0]), saved[1]


def _fault_kind(error: P2pfishError) -> str:
    if isinstance(error, MalformedInput):
        return "malformed"
    if isinstance(error, IllegalAction):
        return "illegal"
    return "violation"


class Session(RandomTurns, DeckTurns, Settling):
    """One peer's replica of one game (seat None: an observer that only verifies, as `verify` is)."""

    @classmethod
    def resume(cls, store: Store, signer: Signer | None, *, rules: AnyRules, **options: Any) -> "Session":
        """The session a crashed peer had, rebuilt from its store (with the rules of its game, `stored_setup`'s);
        it then goes on where it stopped."""
        setup, seat = stored_setup(store)
        session = cls(setup, seat, signer, store, rules=rules, **options)
        messages = store.load_messages()
        after_stop: list[bytes] = []
        session._restoring = True
        for index, raw in enumerate(messages):
            session._ingest(raw, via=None)
            if session._own_stop is not None:
                after_stop = messages[index + 1 :]
                break
        session._restoring = False
        session._advance()
        if session.fault is None and session._own_stop is not None:
            body = session._own_stop.body
            reason = f"this peer stopped the game before it restarted: {bodies.report_reason(body)}"
            blamed = body.get("seat")
            seat = blamed if type(blamed) is int and 0 <= blamed < session.setup.players else None
            session._stop(Fault(seat, str(body.get("kind")), reason, (session._own_stop.raw,)), tell_others=False)
        session._restore_after_stop(after_stop)
        return session

    def _restore_after_stop(self, messages: list[bytes]) -> None:
        """What a peer stopped for a seat's silence took while it waited for settles (§10.8): taken again as it
        was then, into the chains only — the turns stay where the stop left them, as they did before the
        restart (played on, they could have this seat send a turn message after its own stop)."""
        if not messages or not self._settling():
            return
        self._restoring = True
        for raw in messages:
            self._ingest(raw, via=None)
        self._restoring = False
        self._settle_check()

    def start(self) -> None:
        """Send what the first turn needs from this seat (a new game's first random contribution)."""
        self._advance()

    def receive(self, raw: bytes, via: int | None = None) -> None:
        """A message from the network; `via` is the seat the transport authenticated as its sender. A game
        stopped for a seat's silence still takes messages: the others' settles may end it (§10.8)."""
        if self.fault is None or self._settling():
            self._ingest(raw, via)
            self._advance()

    def refuse_frame(self, via: int, reason: str, frame: bytes = b"") -> None:
        """The transport took from seat `via` a frame no message can be (over a size limit): the game
        stops, blamed on that seat's authenticated link, as a malformed message would be, the frame kept as
        the evidence (a stop report carries it as its hash and an excerpt)."""
        if self.fault is None:
            self._link_fault(Fault(via, "malformed", reason, (frame,) if frame else ()))

    def act(self, choice: Action) -> None:
        """The local seat's decision. Raises IllegalAction (and sends nothing) if it is not legal now."""
        decision = self.decision()
        if decision is None:
            raise IllegalAction("it is not your turn to act", self.seat)
        if choice not in decision.legal:
            raise IllegalAction(f"{choice} is not a legal move now", self.seat)
        self._act_now(choice)
        self._advance()

    def chat(self, text: str) -> bool:
        """Send a chat (cut to its length limit); False, sending nothing, when the game stopped or this
        seat's chat budget is spent (chat_limits): an honest seat never sends a chat the others refuse."""
        if not self.can_chat():
            return False
        self._emit(bodies.chat(text))
        return True

    def can_chat(self) -> bool:
        """Whether `chat` would send now (a seat whose game goes on, with chat budget left)."""
        return self.seat is not None and self.fault is None and self._chat_budgets[self.seat].can_chat()

    def set_away(self, seat: int, away: bool) -> None:
        """A player left meaning to resume (or came back): wait for it as long as for a decision, counted
        from when the wait began (leaving and coming back again and again does not restart it)."""
        if away:
            self.away.add(seat)
        else:
            self.away.discard(seat)

    def abort(self, reason: str) -> None:
        """Stop the game for a reason no seat's signature proves (peers disagree on the setup)."""
        if self.fault is None and not self.finished:
            self._stop(Fault(None, "violation", reason))

    def drop(self, seat: int, silence: str) -> None:
        """The transport has had no sign of life from `seat` (no frame, no message by any path) for its
        timeout: if the game waits for that seat, stop it, naming the seat with what it owed. A seat the
        game does not wait for now is not named: the game goes on as long as it can."""
        if self.fault is None and not self.finished and seat in self.waiting_for() and seat != self.seat:
            self._stop_waiting_for(seat, silence)

    def _stop_waiting_for(self, seat: int, silence: str) -> None:
        """Stop the game because `seat` stayed silent while it was waited for. A seat that never sent a
        message of this game is not named (the lobby may have started the game without it), and a seat
        that stopped the game on its side is not named for the silence that follows."""
        report = self._stopped.get(seat)
        if report is not None:
            self._stop_unproven(report)
        elif not self.chains[seat].accepted:
            reason = f"seat {seat} never sent a message of this game ({silence}): it may never have joined it"
            self._stop(Fault(None, "timeout", reason))
        else:
            due, evidence = self._due_from(seat)
            self._stop(Fault(seat, "timeout", f"{silence} while {due}: dropped", evidence))

    def tick(self, now: float) -> None:
        """Let time pass: name slow seats, and stop the game when one stays silent too long — past
        `drop_after` when its software answers by itself, past `decide_within` when a player decides.
        Another seat's stop report that this peer cannot prove stops the game REPORT_GRACE_S later,
        naming nobody: meanwhile the culprit's own messages may still arrive here and prove it."""
        if self.fault is not None or self.finished:
            return
        if self._unproven:
            self._unproven_since = now if self._unproven_since is None else self._unproven_since
            if now - self._unproven_since >= REPORT_GRACE_S:
                self._stop_unproven(self._unproven[-1])
                return
        waiting = set(self.waiting_for()) - {self.seat}
        for seat in list(self._waiting_since):
            if seat not in waiting:
                del self._waiting_since[seat]
                self._slow_told.discard(seat)
        for seat in sorted(waiting):
            limit = self._decide_within if self._deciding(seat) or seat in self.away else self._drop_after
            since = self._waiting_since.setdefault(seat, now)
            if now - since >= limit:
                self._stop_waiting_for(seat, f"sent nothing for {limit:.0f} s")
                return
            if now - since >= self._slow_after and seat not in self._slow_told:
                self._slow_told.add(seat)
                self._events.append(Slow(seat))

    def time_left(self, seat: int, now: float) -> float:
        """How long the table still waits for `seat` before its timeout stops the game (the clock of
        `tick`): the limit for a player who decides, or for the seat's software, less the wait so far."""
        limit = self._decide_within if self._deciding(seat) or seat in self.away else self._drop_after
        return max(0.0, limit - (now - self._waiting_since.get(seat, now)))

    def has_played(self, seat: int) -> bool:
        """Whether `seat` has sent a message of this game: only such a seat can be named gone (a game never
        names a seat that may never have joined it, §10.8)."""
        return bool(self.chains[seat].accepted)

    def deciding(self, seat: int) -> bool:
        """Whether the current turn waits for `seat`'s player to decide (not for its software's step)."""
        return self._deciding(seat)

    def _due_from(self, seat: int) -> tuple[str, tuple[bytes, ...]]:
        """What the table waits for from `seat`, in words, and the seat's own signed messages whose proof
        that wait leaves owed (its commitments still closed), so that going quiet never hides a cheat."""
        closed = [p for s, p in self.commitments if s == seat and (s, p) not in self.opened]
        evidence = tuple(
            envelope.raw
            for envelope in self.chains[seat].accepted
            if isinstance(action := envelope.body.get("action"), dict)
            and action.get("t") == "commit"
            and action.get("purpose") in closed
        )[-2:]
        unproven = f" (left unproven: {', '.join(closed)})" if closed else ""
        state = self.state
        if self.rules.outcome(state) is not None:
            return f"its end of the game was due{unproven}", evidence
        request = self.rules.chance(state)
        if isinstance(request, ChanceRequest):
            step = "commitment" if seat not in self._rand_commits else "reveal"
            return f"its {step} for the draw {request.purpose} was due", ()
        if isinstance(request, ShuffleRequest):
            return f"its pass over {request.deck} was due", ()
        if isinstance(request, DealRequest):
            return f"its keys to deal from {request.deck} were due", ()
        if self.rules.reveal_due(state, seat):
            if not closed:
                acts = [e.raw for e in self.chains[seat].accepted if e.kind == ACT]
                return "the reveal it owes was due (its earlier face-down move stays unproven)", tuple(acts[-1:])
            return f"the reveal it owes was due{unproven}", evidence
        return f"its move was due{unproven}", evidence

    def _stop_unproven(self, report: Envelope) -> None:
        """Stop on another seat's report that this peer cannot check: nobody is named (a fault on the
        reporter's own link convinces only the reporter), but the reason says what the reporter owed."""
        owed = f", while {self._due_from(report.seat)[0]}" if report.seat in self.waiting_for() else ""
        claim = bodies.report_reason(report.body)
        reason = f"seat {report.seat} stopped the game{owed}: {claim} (not proven here)"
        self._stop(Fault(None, "report", reason, (report.raw,)), tell_others=False)

    def _deciding(self, seat: int) -> bool:
        """Whether the current turn waits for `seat` to decide (not for an automatic protocol step)."""
        state = self.state
        if self.rules.outcome(state) is not None or self.rules.chance(state) is not None:
            return False
        return not self.rules.reveal_due(state, seat)

    def view(self) -> Any:
        assert self.seat is not None
        return self.rules.view(self.state, self.seat, self.known())

    def outcome(self) -> Outcome | None:
        return self.rules.outcome(self.state) if self.finished else None

    def decision(self) -> Decision | None:
        """The local seat's view and legal actions when it must decide now, else None."""
        if self.seat is None or self.fault is not None or self.finished or (self.turn, ACT) in self._sent:
            return None
        if self.settlement is not None:
            return None
        state = self.state
        if state is self._not_to_decide:  # a peer asks after every frame: most leave the state as it was
            return None
        rules = self.rules
        if rules.outcome(state) is not None or rules.chance(state) is not None or self.seat not in rules.to_act(state):
            self._not_to_decide = state  # rules are pure: in this state, this seat never decides
            return None
        return decision_for(rules, state, self.seat, self.known())

    def progress(self) -> str:
        """The protocol step under way, in words, for a front end to show while it waits."""
        if self.fault is not None or self.finished:
            return ""
        players = self.setup.players
        if self.rules.outcome(self.state) is not None:
            return f"auditing the game: {len(self._ends)}/{players} seats opened their secrets"
        request = self.rules.chance(self.state)
        if isinstance(request, ChanceRequest):
            committed, revealed = len(self._rand_commits), len(self._rand_reveals)
            return f"drawing by joint randomness: {committed}/{players} committed, {revealed}/{players} revealed"
        if isinstance(request, ShuffleRequest):
            deck = self.decks.get(request.deck)
            done = 0 if deck is None else len(deck.locks) + len(deck.rekeys)
            return f"shuffling {request.deck}: {done}/{2 * players} passes"
        if isinstance(request, DealRequest):
            givers = players - (request.to is not None)
            return f"dealing from {request.deck}: keys {len(self._pending)}/{givers}"
        return ""

    def waiting_for(self) -> tuple[int, ...]:
        """The seats whose message the current turn still awaits."""
        if self.fault is not None or self.finished or self.settlement is not None:
            return ()
        everyone = range(self.setup.players)
        if self.rules.outcome(self.state) is not None:
            return tuple(s for s in everyone if s not in self._ends)
        request = self.rules.chance(self.state)
        if isinstance(request, ChanceRequest):
            if len(self._rand_commits) < self.setup.players:
                return tuple(s for s in everyone if s not in self._rand_commits)
            return tuple(s for s in everyone if s not in self._rand_reveals)
        if isinstance(request, ShuffleRequest):
            deck = self.decks.get(request.deck)
            done = 0 if deck is None else len(deck.locks) + len(deck.rekeys)
            return (done % self.setup.players,)
        if isinstance(request, DealRequest):
            return tuple(s for s in everyone if s != request.to and s not in self._pending)
        return tuple(s for s in self.rules.to_act(self.state) if s not in self._pending)

    def _advance(self) -> None:
        if self._restoring:
            return
        while self.fault is None and not self.finished and self.settlement is None:
            self._evidence, self._author = (), None
            try:
                if not self._step():
                    break
                self._refuse_stale()
            except Unattributed as error:
                self._stop(Fault(None, "violation", error.reason, self._evidence))
            except P2pfishError as error:
                seat = error.seat if error.seat is not None else self._author
                self._stop(Fault(seat, _fault_kind(error), error.reason, self._evidence))
            except (KeyError, ValueError, TypeError, IndexError) as error:
                if self._author is None:
                    raise
                reason = f"a message could not be processed ({type(error).__name__}: {str(error)[:80]})"
                self._stop(Fault(self._author, "malformed", reason, self._evidence))
        while self.fault is None and self._reports:
            self._check_report(self._reports.pop(0))
        self._settle_check()

    def give_up(self, seat: int) -> None:
        """This seat's player stops waiting for `seat` (shown as silent) before the table's timeout: the game
        stops naming it, as the timeout would, so that the table may end it without that seat (§10.8)."""
        if self.fault is None and not self.finished and seat in self.waiting_for() and seat != self.seat:
            self._stop_waiting_for(seat, "its player's table stopped waiting for it")

    def _refuse_stale(self) -> None:
        """A turn message that waits in its author's chain for a turn already played was sent for a turn that
        was not its author's to play: a violation, found as soon as that turn is played here, as on arrival
        (_check_on_arrival) — not only when the game next waits for its author, which may be never (another
        seat's stop may come first, and this peer could then not prove what it holds)."""
        for chain in self.chains:
            if not chain.ready:
                continue
            envelope = chain.ready[0]
            if envelope.kind in bodies.TURN_KINDS and bodies.turn_of(envelope.body) < self.turn:
                self._evidence, self._author = (envelope.raw,), envelope.seat
                played = bodies.turn_of(envelope.body)
                raise ProtocolViolation(f"sent its {envelope.kind} for turn {played}, already played", envelope.seat)

    def _check_report(self, report: Envelope) -> None:
        """Another seat stopped the game. Check its evidence here: a fault this peer can prove itself
        stands; otherwise the game stops all the same, but nobody is named on the reporter's word.
        A report that some seat went silent proves nothing to anyone else: this peer's own timers
        decide (the reporter has stopped, so they will soon name whoever is really gone)."""
        if report.body.get("kind") == "timeout":
            return
        self._checking_report = True
        try:
            for raw in bodies.read_evidence(report.body):
                if self.fault is None:
                    self._ingest(raw, via=None)
        finally:
            self._checking_report = False
        self._advance()
        if self.fault is None and self.seat is None:
            self._stop_unproven(report)  # an observer replaying a file has no messages still on their way
        elif self.fault is None:
            self._unproven.append(report)

    def _step(self) -> bool:
        """One turn of the game."""
        outcome = self.rules.outcome(self.state)
        if outcome is not None:
            return self._end_turn(outcome)
        request = self.rules.chance(self.state)
        if isinstance(request, ChanceRequest):
            return self._chance_turn(request.purpose, request.pool, request.count)
        if isinstance(request, ShuffleRequest):
            return self._shuffle_turn(request)
        if isinstance(request, DealRequest):
            return self._deal_turn(request)
        return self._decision_turn(self.rules.to_act(self.state))

    def _decision_turn(self, seats: tuple[int, ...]) -> bool:
        progress = False
        if self.seat in seats and (self.turn, ACT) not in self._sent:
            progress = self._act_automatically()
        for seat in seats:
            if seat not in self._pending and (envelope := self._take(seat, ACT)) is not None:
                self._pending[seat] = envelope
                progress = True
        if len(self._pending) < len(seats):
            return progress
        state = self.state
        commitments: dict[tuple[int, str], bytes] = {}
        opened: dict[tuple[int, str], Scalar] = {}
        actions = []
        for seat in sorted(seats):
            envelope = self._pending[seat]
            self._evidence, self._author = (envelope.raw,), seat
            action = self.rules.decode_action(field(envelope.body, "action"))
            if isinstance(action, Commit):
                commitments[(seat, action.purpose)] = self._check_new_commitment(seat, action)
            elif isinstance(action, Reveal):
                nonce = hex_field(envelope.body, "nonce", 32)
                self._check_opening(seat, action.purpose, action.value, nonce)
                opened[(seat, action.purpose)] = action.value
            elif isinstance(action, RevealsCards):
                self._check_card_reveal(seat, action, envelope.body)
            state = self.rules.apply(state, seat, action)
            actions.append((seat, action))
        self.state = state
        self.commitments.update(commitments)
        self.opened.update(opened)
        for seat, action in actions:
            self._record(seat, action)
        self._pending.clear()
        self._next_turn()
        return True

    def _check_new_commitment(self, seat: int, action: Commit) -> bytes:
        if (seat, action.purpose) in self.commitments:
            raise IllegalAction(f"committed to {action.purpose!r} twice", seat)
        return action.digest

    def _check_opening(self, seat: int, purpose: str, value: Json, nonce: bytes) -> None:
        digest = self.commitments.get((seat, purpose))
        if digest is None:
            raise IllegalAction(f"revealed {purpose!r} without having committed to it", seat)
        if (seat, purpose) in self.opened:
            raise IllegalAction(f"revealed {purpose!r} twice", seat)
        encoded = encode_scalar(scalar(value, "a revealed value"))
        if not check_opening(digest, self.session_id, seat, purpose, value=encoded, nonce=nonce):
            raise ProtocolViolation(f"its reveal of {purpose!r} does not open its commitment", seat)

    def _act_automatically(self) -> bool:
        """Play what needs no decision: a reveal, or a secret choice already stored before a crash."""
        decision = self.decision()
        if decision is None:
            return False
        legal = decision.legal
        assert self.seat is not None
        if len(legal) == 1 and self.rules.reveal_due(self.state, self.seat):
            self._act_now(legal[0])
            return True
        for choice in legal:
            if isinstance(choice, SecretChoice) and f"secret/{choice.purpose}" in self._secrets:
                stored = self.known()[choice.purpose]
                self._act_now(SecretChoice(choice.purpose, stored))
                return True
        return False

    def _act_now(self, choice: Action) -> None:
        assert self.seat is not None
        if isinstance(choice, SecretChoice):
            name = f"secret/{choice.purpose}"
            record = self._secrets.get(name)
            if not isinstance(record, dict):
                record = {"value": choice.value, "nonce": new_nonce().hex()}
                self._save_secret(name, record)
            nonce = bytes.fromhex(str(record["nonce"]))
            digest = commit(self.session_id, self.seat, choice.purpose, value=encode_scalar(choice.value), nonce=nonce)
            body = bodies.act(self.turn, Commit(choice.purpose, digest).to_wire())
        elif isinstance(choice, Reveal):
            body = bodies.act(self.turn, choice.to_wire(), self._secret_nonce(choice.purpose))
        elif isinstance(choice, RevealsCards):
            keys = [self._my_card_keys(deck, [position])[0] for deck, position, _ in choice.revealed_cards()]
            body = bodies.act(self.turn, choice.to_wire(), card_keys=keys_to_wire(keys))
        else:
            body = bodies.act(self.turn, choice.to_wire())
        self._emit(body)

    def _secret_nonce(self, purpose: str) -> bytes:
        record = self._secrets[f"secret/{purpose}"]
        assert isinstance(record, dict)
        return bytes.fromhex(str(record["nonce"]))

    def _end_turn(self, outcome: Outcome) -> bool:
        progress = False
        if self.seat is not None and (self.turn, END) not in self._sent:
            openings = [
                Opening(purpose, self.known()[purpose], self._secret_nonce(purpose))
                for seat, purpose in self.commitments
                if seat == self.seat and (seat, purpose) not in self.opened
            ]
            self._emit(bodies.end(self.turn, self.log_hash, outcome.to_wire(), openings))
            progress = True
        for seat in range(self.setup.players):
            if seat not in self._ends and (envelope := self._take(seat, END)) is not None:
                self._check_end(seat, envelope, outcome)
                self._ends[seat] = envelope
                progress = True
        if len(self._ends) == self.setup.players:
            self._evidence = tuple(envelope.raw for _, envelope in sorted(self._ends.items()))
            self._author = None
            self.rules.audit(self.state, self.opened)
            self.finished = True
            self._events.append(Finished(outcome))
        return progress

    def _check_end(self, seat: int, envelope: Envelope, outcome: Outcome) -> None:
        if hex_field(envelope.body, "log", 32) != self.log_hash:
            raise ProtocolViolation("signed a different log of the game than this peer applied", seat)
        if canonical(field(envelope.body, "outcome")) != canonical(outcome.to_wire()):
            raise ProtocolViolation("signed a different outcome than the rules give", seat)
        for opening in bodies.read_openings(envelope.body):
            self._check_opening(seat, opening.purpose, opening.value, opening.nonce)
            self.opened[(seat, opening.purpose)] = scalar(opening.value, "an opened value")
        closed = [p for s, p in self.commitments if s == seat and (s, p) not in self.opened]
        if closed:
            raise ProtocolViolation(f"did not open {', '.join(closed)} at the end (withheld)", seat)
