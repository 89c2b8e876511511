"""The replicated game of one peer, sans I/O.

Every peer runs the same turn machine over the same per-author hash chains, so all reach the same
log without any leader. A turn is what the rules wait for next:
- a chance turn: every seat commits to a random contribution, then (once all commitments are in)
  reveals it; the seed of the reveals picks the draw;
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

from dataclasses import dataclass
from typing import Any

from p2pfish.core.actions import Action, Chance, Commit, Dealt, Reveal, RevealsCards, SecretChoice, Shuffled, card_name
from p2pfish.core.errors import IllegalAction, MalformedInput, P2pfishError, ProtocolViolation
from p2pfish.core.game import AnyRules, ChanceRequest, DealRequest, Known, Outcome, ShuffleRequest
from p2pfish.core.wire import Json, Scalar, as_object, field, scalar
from p2pfish.crypto import p256
from p2pfish.crypto.commitment import check_opening, commit, new_nonce
from p2pfish.crypto.deck import (
    CardTable,
    LockedDeck,
    RekeyedDeck,
    card_key_commitments,
    lock_pass,
    new_card_keys,
    new_key,
    new_permutation,
    rekey_pass,
)
from p2pfish.crypto.encoding import encode_scalar, encode_u32, tagged_hash
from p2pfish.crypto.randomness import contribution_purpose, draw_indices, joint_seed, new_contribution
from p2pfish.games import get_rules
from p2pfish.session import bodies
from p2pfish.session.bodies import (
    ACT,
    CARD_KEYS,
    CHAT,
    DECK_LOCK,
    DECK_REKEY,
    END,
    RAND_COMMIT,
    RAND_REVEAL,
    Opening,
    hex_field,
    turn_of,
)
from p2pfish.session.chains import Chain
from p2pfish.session.decks import DeckRecord, keys_to_wire, read_deck, read_hashes, read_keys
from p2pfish.session.envelope import Envelope, Signer, canonical, open_envelope, seal
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import Store

TAG_LOG = b"p2pfish/log/v1"
CHANCE_SEAT = 0xFFFFFFFF
SLOW_AFTER_S = 5.0
DROP_AFTER_S = 60.0


@dataclass(frozen=True)
class Fault:
    """Why the game stopped: the seat at fault (None if unknown), what kind, and the evidence."""

    seat: int | None
    kind: str
    reason: str
    evidence: tuple[bytes, ...] = ()

    def describe(self, names: tuple[str, ...]) -> str:
        who = "unknown peer" if self.seat is None else f"seat {self.seat} ({names[self.seat]})"
        return f"{who}: {self.reason}"


@dataclass(frozen=True)
class Applied:
    turn: int
    seat: int | None
    action: Action


@dataclass(frozen=True)
class Finished:
    outcome: Outcome


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


Event = Applied | Finished | Stopped | ChatReceived | Slow


def _list(value: Json) -> list[Json]:
    if not isinstance(value, list):
        raise MalformedInput("expected a list")
    return value


def _fault_kind(error: P2pfishError) -> str:
    if isinstance(error, MalformedInput):
        return "malformed"
    if isinstance(error, IllegalAction):
        return "illegal"
    return "violation"


class Session:
    """One peer's replica of one game (seat None: an observer that only verifies, as `verify` is)."""

    def __init__(
        self,
        setup: GameSetup,
        seat: int | None,
        signer: Signer | None,
        store: Store,
        *,
        slow_after: float = SLOW_AFTER_S,
        drop_after: float = DROP_AFTER_S,
    ) -> None:
        if seat is not None and not 0 <= seat < setup.players:
            raise MalformedInput(f"seat {seat} is not in this {setup.players}-player game")
        if (seat is None) != (signer is None):
            raise MalformedInput("a seat needs a signer, and an observer has none")
        self.setup = setup
        self.seat = seat
        self.rules: AnyRules = get_rules(setup.game)
        self.state: Any = self.rules.new_game(setup.players, setup.option_map)
        self.session_id = setup.session_id
        self._signer = signer
        self._store = store
        self._slow_after, self._drop_after = slow_after, drop_after
        if store.load_setup() is None:
            store.save_setup(setup.to_wire(), seat)
        self._secrets: dict[str, Json] = store.load_secrets()
        self.chains = [Chain(s) for s in range(setup.players)]
        self.turn = 0
        self.log: list[Applied] = []
        self.log_hash = tagged_hash(TAG_LOG, self.session_id)
        self.commitments: dict[tuple[int, str], bytes] = {}
        self.opened: dict[tuple[int, str], Scalar] = {}
        self.fault: Fault | None = None
        self.finished = False
        self.accepted: list[bytes] = []
        self._sent: set[tuple[int, str]] = set()
        self._rand_commits: dict[int, bytes] = {}
        self._rand_reveals: dict[int, bytes] = {}
        self._pending: dict[int, Envelope] = {}
        self._ends: dict[int, Envelope] = {}
        self.decks: dict[str, DeckRecord] = {}
        self._waiting_since: dict[int, float] = {}
        self._slow_told: set[int] = set()
        self._outbox: list[bytes] = []
        self._events: list[Event] = []
        self._restoring = False
        self._evidence: tuple[bytes, ...] = ()
        self._author: int | None = None

    # --- construction from a store -----------------------------------------------------------------

    @classmethod
    def resume(cls, store: Store, signer: Signer | None, **timeouts: float) -> "Session":
        """The session a crashed peer had, rebuilt from its store; it then goes on where it stopped."""
        saved = store.load_setup()
        if saved is None:
            raise MalformedInput("this store holds no game to resume")
        setup_wire, seat = saved
        session = cls(GameSetup.from_wire(setup_wire), seat, signer, store, **timeouts)
        session._restoring = True
        for raw in store.load_messages():
            session._ingest(raw, via=None)
        session._restoring = False
        session._advance()
        return session

    def start(self) -> None:
        """Send what the first turn needs from this seat (a new game's first random contribution)."""
        self._advance()

    # --- inputs ------------------------------------------------------------------------------------

    def receive(self, raw: bytes, via: int | None = None) -> None:
        """A message from the network; `via` is the seat the transport authenticated as its sender."""
        if self.fault is None:
            self._ingest(raw, via)
            self._advance()

    def act(self, choice: Action) -> None:
        """The local seat's decision. Raises IllegalAction (and sends nothing) if it is not legal now."""
        decision = self.decision()
        if decision is None:
            raise IllegalAction("it is not your turn to act", self.seat)
        if choice not in decision[1]:
            raise IllegalAction(f"{choice} is not a legal move now", self.seat)
        self._act_now(choice)
        self._advance()

    def chat(self, text: str) -> None:
        if self.seat is not None and self.fault is None:
            self._emit(bodies.chat(text))

    def tick(self, now: float) -> None:
        """Let time pass: name slow seats, and stop the game if one is silent past the drop timeout."""
        if self.fault is not None or self.finished:
            return
        waiting = set(self.waiting_for()) - {self.seat}
        for seat in list(self._waiting_since):
            if seat not in waiting:
                del self._waiting_since[seat]
        for seat in sorted(waiting):
            since = self._waiting_since.setdefault(seat, now)
            if now - since >= self._drop_after:
                self._stop(Fault(seat, "timeout", f"sent nothing for {self._drop_after:.0f} s: dropped"))
                return
            if now - since >= self._slow_after and seat not in self._slow_told:
                self._slow_told.add(seat)
                self._events.append(Slow(seat))

    # --- outputs and queries -----------------------------------------------------------------------

    def take_outbox(self) -> list[bytes]:
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

    def view(self) -> Any:
        assert self.seat is not None
        return self.rules.view(self.state, self.seat, self.known())

    def outcome(self) -> Outcome | None:
        return self.rules.outcome(self.state) if self.finished else None

    def decision(self) -> tuple[Any, list[Action]] | None:
        """(view, legal actions) when the local seat must decide now, else None."""
        if self.seat is None or self.fault is not None or self.finished or (self.turn, ACT) in self._sent:
            return None
        if self.rules.outcome(self.state) is not None or self.rules.chance(self.state) is not None:
            return None
        if self.seat not in self.rules.to_act(self.state):
            return None
        known = self.known()
        legal = list(self.rules.legal_actions(self.state, self.seat, known))
        return self.rules.view(self.state, self.seat, known), legal

    def waiting_for(self) -> tuple[int, ...]:
        """The seats whose message the current turn still awaits."""
        if self.fault is not None or self.finished:
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

    def own_messages(self) -> list[bytes]:
        """Every message this seat has signed, for resending after a reconnect."""
        return [] if self.seat is None else [e.raw for e in self.chains[self.seat].accepted]

    def transcript(self) -> list[bytes]:
        """The game's full signed log as JSON lines: the setup, then every accepted message."""
        header = canonical({"type": "p2pfish-transcript", "setup": self.setup.to_wire()})
        return [header, *self.accepted]

    # --- ingesting messages ------------------------------------------------------------------------

    def _ingest(self, raw: bytes, via: int | None) -> None:
        try:
            envelope = open_envelope(raw)
        except MalformedInput as error:
            self._stop(Fault(via, "malformed", error.reason, (raw,)))
            return
        culprit = via if via is not None else envelope.seat
        if envelope.session != self.session_id:
            self._stop(Fault(culprit, "violation", "sent a message of another game (replay)", (raw,)))
            return
        if envelope.seat >= self.setup.players:
            self._stop(Fault(via, "malformed", f"a message from seat {envelope.seat}, who is not playing", (raw,)))
            return
        if not envelope.signature_valid(self.setup.roster[envelope.seat]):
            who = f"seat {envelope.seat}"
            self._stop(Fault(culprit, "violation", f"a message signed as {who} has a bad signature (forged)", (raw,)))
            return
        chain = self.chains[envelope.seat]
        earlier = chain.accepted[envelope.seq] if envelope.seq < chain.next_seq else chain.ahead.get(envelope.seq)
        try:
            accepted = chain.offer(envelope)
        except ProtocolViolation as error:
            evidence = (raw,) if earlier is None else (earlier.raw, raw)
            self._stop(Fault(error.seat, "violation", error.reason, evidence))
            return
        for message in accepted:
            self.accepted.append(message.raw)
            if not self._restoring and message.seat != self.seat:
                self._store.save_message(message.raw)
            if message.seat == self.seat and message.kind in bodies.TURN_KINDS:
                self._sent.add((turn_of(message.body), message.kind))

    def _emit(self, body: dict[str, Json]) -> None:
        assert self.seat is not None and self._signer is not None
        chain = self.chains[self.seat]
        envelope = seal(self._signer, self.session_id, self.seat, seq=chain.next_seq, prev=chain.head, body=body)
        self._store.save_message(envelope.raw)
        self._ingest(envelope.raw, via=self.seat)
        self._outbox.append(envelope.raw)

    def _take(self, seat: int, kind: str) -> Envelope | None:
        """The next message of `seat` if it is the `kind` this turn awaits; a different one is a fault."""
        chain = self.chains[seat]
        while chain.ready and chain.ready[0].kind == CHAT:
            self._deliver_chat(chain.ready.popleft())
        if not chain.ready:
            return None
        envelope = chain.ready[0]
        self._evidence, self._author = (envelope.raw,), seat
        turn = turn_of(envelope.body) if envelope.kind in bodies.TURN_KINDS else None
        if envelope.kind != kind or turn != self.turn:
            sent = envelope.kind or "an unknown message"
            raise ProtocolViolation(f"sent {sent} for turn {turn} while turn {self.turn} awaits its {kind}", seat)
        chain.ready.popleft()
        self._waiting_since.pop(seat, None)
        return envelope

    def _deliver_chat(self, envelope: Envelope) -> None:
        text = envelope.body.get("text")
        if isinstance(text, str):
            self._events.append(ChatReceived(envelope.seat, text[: bodies.MAX_CHAT_CHARS]))

    # --- the turn machine --------------------------------------------------------------------------

    def _advance(self) -> None:
        if self._restoring:
            return
        while self.fault is None and not self.finished:
            self._evidence, self._author = (), None
            try:
                if not self._step():
                    break
            except P2pfishError as error:
                seat = error.seat if error.seat is not None else self._author
                self._stop(Fault(seat, _fault_kind(error), error.reason, self._evidence))

    def _step(self) -> bool:
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

    def _chance_turn(self, purpose: str, pool: tuple[Scalar, ...], count: int) -> bool:
        players = self.setup.players
        event = f"{self.turn}:{purpose}"
        rand_purpose = contribution_purpose(event)
        progress = False
        if self.seat is not None and (self.turn, RAND_COMMIT) not in self._sent:
            contribution, nonce = self._contribution()
            digest = commit(self.session_id, self.seat, rand_purpose, value=contribution, nonce=nonce)
            self._emit(bodies.rand_commit(self.turn, digest))
            progress = True
        for seat in range(players):
            if seat not in self._rand_commits and (envelope := self._take(seat, RAND_COMMIT)) is not None:
                self._rand_commits[seat] = hex_field(envelope.body, "digest", 32)
                progress = True
        if len(self._rand_commits) < players:
            return progress
        if self.seat is not None and (self.turn, RAND_REVEAL) not in self._sent:
            self._emit(bodies.rand_reveal(self.turn, *self._contribution()))
            progress = True
        for seat in range(players):
            if seat not in self._rand_reveals and (envelope := self._take(seat, RAND_REVEAL)) is not None:
                contribution = hex_field(envelope.body, "contribution", 32)
                nonce = hex_field(envelope.body, "nonce", 32)
                digest = self._rand_commits[seat]
                if not check_opening(digest, self.session_id, seat, rand_purpose, value=contribution, nonce=nonce):
                    raise ProtocolViolation("its random contribution does not open its commitment", seat)
                self._rand_reveals[seat] = contribution
                progress = True
        if len(self._rand_reveals) < players:
            return progress
        seed = joint_seed(self.session_id, event, [self._rand_reveals[s] for s in range(players)])
        self._rand_commits.clear()
        self._rand_reveals.clear()
        self._apply_chance(Chance(tuple(pool[i] for i in draw_indices(seed, len(pool), count))))
        return True

    def _contribution(self) -> tuple[bytes, bytes]:
        """This seat's contribution and nonce for the current chance turn, stored before first use."""
        name = f"rand/{self.turn}"
        record = self._secrets.get(name)
        if not isinstance(record, dict):
            record = {"contribution": new_contribution().hex(), "nonce": new_nonce().hex()}
            self._save_secret(name, record)
        return bytes.fromhex(str(record["contribution"])), bytes.fromhex(str(record["nonce"]))

    def _shuffle_turn(self, request: ShuffleRequest) -> bool:
        """Each seat in seat order locks and shuffles the deck, then each in seat order re-keys it."""
        if request.deck in self.decks and len(self.decks[request.deck].rekeys) == self.setup.players:
            raise IllegalAction(f"the rules asked to shuffle {request.deck} twice")
        deck = self.decks.setdefault(request.deck, DeckRecord(request.deck, CardTable(request.labels)))
        players, size = self.setup.players, len(request.labels)
        progress = False
        while len(deck.rekeys) < players:
            locking = len(deck.locks) < players
            seat = len(deck.locks) if locking else len(deck.rekeys)
            kind = DECK_LOCK if locking else DECK_REKEY
            if seat == self.seat and (self.turn, kind) not in self._sent:
                self._emit(self._deck_pass(deck, locking))
            envelope = self._take(seat, kind)
            if envelope is None:
                return progress
            cards = read_deck(field(envelope.body, "cards"), size, seat)
            if locking:
                deck.locks.append(LockedDeck(seat, cards))
            else:
                hashes = read_hashes(field(envelope.body, "commitments"), size, seat)
                deck.rekeys.append(RekeyedDeck(seat, cards, hashes))
            progress = True
        self._apply_chance(Shuffled(request.deck, size))
        return True

    def _deck_pass(self, deck: DeckRecord, locking: bool) -> dict[str, Json]:
        keys = self._deck_keys(deck.name, len(deck.table))
        lock_key = int(str(keys["lock_key"]), 16)
        if locking:
            permutation = [int(str(i)) for i in keys["permutation"]]  # type: ignore[union-attr]
            cards = lock_pass(deck.cards, lock_key, permutation)
            return bodies.deck_lock(self.turn, [card.hex() for card in cards])
        assert self.seat is not None
        card_keys = [int(str(k), 16) for k in keys["card_keys"]]  # type: ignore[union-attr]
        cards = rekey_pass(deck.cards, lock_key, card_keys)
        hashes = card_key_commitments(self.session_id, self.seat, card_keys)
        return bodies.deck_rekey(self.turn, [card.hex() for card in cards], [h.hex() for h in hashes])

    def _deck_keys(self, deck: str, size: int) -> dict[str, Json]:
        """This seat's lock key, permutation and card keys for `deck`, stored before first use."""
        name = f"deck/{deck}"
        record = self._secrets.get(name)
        if not isinstance(record, dict):
            record = {
                "lock_key": f"{new_key():064x}",
                "permutation": list(new_permutation(size)),
                "card_keys": [f"{key:064x}" for key in new_card_keys(size)],
            }
            self._save_secret(name, record)
        return record

    def _my_card_keys(self, deck: str, positions: tuple[int, ...] | list[int]) -> list[int]:
        record = self._secrets[f"deck/{deck}"]
        assert isinstance(record, dict) and isinstance(record["card_keys"], list)
        return [int(str(record["card_keys"][p]), 16) for p in positions]

    def _deal_turn(self, request: DealRequest) -> bool:
        """Every seat but the receiver publishes its keys for the dealt positions, checked at once."""
        deck = self.decks.get(request.deck)
        if deck is None or len(deck.rekeys) < self.setup.players:
            raise IllegalAction(f"the rules dealt from {request.deck} before it was shuffled")
        seats = range(self.setup.players)
        givers = [s for s in seats if s != request.to]
        progress = False
        if self.seat in givers and (self.turn, CARD_KEYS) not in self._sent:
            keys = self._my_card_keys(request.deck, request.positions)
            self._emit(bodies.card_keys(self.turn, keys_to_wire(keys)))
            progress = True
        for seat in givers:
            if seat not in self._pending and (envelope := self._take(seat, CARD_KEYS)) is not None:
                keys = read_keys(field(envelope.body, "keys"), len(request.positions), seat)
                for position, key in zip(request.positions, keys, strict=True):
                    deck.accept_key(self.session_id, seat, position, key)
                self._pending[seat] = envelope
                progress = True
        if len(self._pending) < len(givers):
            return progress
        self._pending.clear()
        if request.to is None:
            labels = tuple(deck.open(p, seats) for p in request.positions)
            self._apply_chance(Dealt(request.deck, request.positions, None, labels))
            return True
        if request.to == self.seat:
            for position, key in zip(
                request.positions, self._my_card_keys(request.deck, request.positions), strict=True
            ):
                deck.published[(self.seat, position)] = key
                self._save_secret(f"card/{card_name(request.deck, position)}", {"label": deck.open(position, seats)})
                del deck.published[(self.seat, position)]
        self._apply_chance(Dealt(request.deck, request.positions, request.to, None))
        return True

    def _check_card_reveal(self, seat: int, action: RevealsCards, body: dict[str, Json]) -> None:
        """The author's own keys must be the committed ones and open exactly the cards it names."""
        cards = action.revealed_cards()
        keys = read_keys(field(body, "card_keys"), len(cards), seat)
        seats = range(self.setup.players)
        for (deck_name, position, label), key in zip(cards, keys, strict=True):
            deck = self.decks.get(deck_name)
            if deck is None:
                raise IllegalAction(f"turned up a card of {deck_name}, which was never shuffled", seat)
            deck.accept_key(self.session_id, seat, position, key)
            if not deck.has_all_keys(position, seats):
                raise IllegalAction(f"turned up position {position} of {deck_name}, which it was not dealt", seat)
            if deck.open(position, seats) != label:
                raise ProtocolViolation(
                    f"claimed {label} at {deck_name} position {position}, but the card differs", seat
                )

    def _apply_chance(self, action: Action) -> None:
        self._evidence, self._author = (), None
        self.state = self.rules.apply(self.state, None, action)
        self._record(None, action)
        self.turn += 1

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
        self.turn += 1
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
        legal = decision[1]
        if len(legal) == 1 and isinstance(legal[0], Reveal):
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
            decks: list[Json] = [self._released_keys(name) for name in self.decks]
            self._emit(bodies.end(self.turn, self.log_hash, outcome.to_wire(), openings, decks))
            progress = True
        for seat in range(self.setup.players):
            if seat not in self._ends and (envelope := self._take(seat, END)) is not None:
                self._check_end(seat, envelope, outcome)
                self._ends[seat] = envelope
                progress = True
        if len(self._ends) == self.setup.players:
            self._audit_decks()
            self.finished = True
            self._events.append(Finished(outcome))
        return progress

    def _released_keys(self, deck: str) -> Json:
        record = self._secrets[f"deck/{deck}"]
        assert isinstance(record, dict)
        return {"deck": deck, "lock_key": record["lock_key"], "card_keys": record["card_keys"]}

    def _audit_decks(self) -> None:
        """Every deck key is public now: re-check every pass of every deck; blame the first cheat."""
        for name, deck in self.decks.items():
            size = len(deck.table)
            lock_keys: dict[int, int] = {}
            card_keys: dict[int, list[int]] = {}
            for seat, envelope in self._ends.items():
                self._evidence, self._author = (envelope.raw,), seat
                released = [
                    d for d in _list(field(envelope.body, "decks")) if isinstance(d, dict) and d.get("deck") == name
                ]
                if len(released) != 1:
                    raise ProtocolViolation(f"did not release its keys of {name} at the end (withheld)", seat)
                lock_keys[seat] = p256.scalar_from_bytes(bytes.fromhex(str(released[0]["lock_key"])), seat)
                card_keys[seat] = read_keys(released[0]["card_keys"], size, seat)
            self._evidence, self._author = (), None
            deck.audit(self.session_id, lock_keys, card_keys)

    def _check_end(self, seat: int, envelope: Envelope, outcome: Outcome) -> None:
        if hex_field(envelope.body, "log", 32) != self.log_hash:
            raise ProtocolViolation("signed a different log of the game than this peer applied", seat)
        if as_object(field(envelope.body, "outcome"), "outcome") != outcome.to_wire():
            raise ProtocolViolation("signed a different outcome than the rules give", seat)
        for opening in bodies.read_openings(envelope.body):
            self._check_opening(seat, opening.purpose, opening.value, opening.nonce)
            self.opened[(seat, opening.purpose)] = scalar(opening.value, "an opened value")
        closed = [p for s, p in self.commitments if s == seat and (s, p) not in self.opened]
        if closed:
            raise ProtocolViolation(f"did not open {', '.join(closed)} at the end (withheld)", seat)

    # --- bookkeeping -------------------------------------------------------------------------------

    def _record(self, seat: int | None, action: Action) -> None:
        entry = Applied(self.turn, seat, action)
        self.log.append(entry)
        who = CHANCE_SEAT if seat is None else seat
        self.log_hash = tagged_hash(
            TAG_LOG, self.log_hash, encode_u32(self.turn), encode_u32(who), canonical(action.to_wire())
        )
        self._events.append(entry)

    def _save_secret(self, name: str, record: dict[str, Json]) -> None:
        self._store.save_secret(name, record)
        self._secrets[name] = record

    def _stop(self, fault: Fault) -> None:
        if self.fault is None:
            self.fault = fault
            self._events.append(Stopped(fault))
