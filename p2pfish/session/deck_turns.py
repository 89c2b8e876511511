"""Deck turns: the mental-poker deck. A shuffle turn has each seat lock and shuffle, then re-key,
in seat order; a deal turn has every seat but the receiver publish its keys for the dealt cards;
an action that turns up a seat's own face-down cards carries that seat's keys; at the end every
key is released and every pass re-checked.

A card that opens to no card proves that some pass was dishonest, but not whose. The seat that finds
it (every seat, for a public card; the receiver alone, for a private one) stops the game for an
audit of that deck: it sends a deck-audit message with all its keys of the deck, every other seat
answers in kind, and the re-check of every pass names the cheat. A seat that claims a spoiled deck
whose passes all check out is blamed itself."""

from p2pfish.core.actions import Dealt, RevealsCards, Shuffled, card_name
from p2pfish.core.errors import IllegalAction, MalformedInput, ProtocolViolation
from p2pfish.core.game import DealRequest, ShuffleRequest
from p2pfish.core.wire import Json, as_list, field
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
from p2pfish.session import bodies
from p2pfish.session.bodies import (
    CARD_KEYS,
    DECK_LOCK,
    DECK_REKEY,
)
from p2pfish.session.core import DeckSpoiled, SessionCore, Unattributed
from p2pfish.session.decks import DeckRecord, keys_to_wire, read_deck, read_hashes, read_keys


class DeckTurns(SessionCore):
    def _shuffle_turn(self, request: ShuffleRequest) -> bool:
        """Each seat in seat order locks and shuffles the deck, then each in seat order re-keys it."""
        if request.deck in self.decks and len(self.decks[request.deck].rekeys) == self.setup.players:
            raise IllegalAction(f"the rules asked to shuffle {request.deck} twice")
        deck = self.decks.get(request.deck)
        if deck is None:
            deck = self.decks[request.deck] = DeckRecord(request.deck, CardTable(request.labels))
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
            labels = tuple(self._open(deck, p) for p in request.positions)
            self._apply_chance(Dealt(request.deck, request.positions, None, labels))
            return True
        if request.to == self.seat:
            for position, key in zip(
                request.positions, self._my_card_keys(request.deck, request.positions), strict=True
            ):
                deck.published[(self.seat, position)] = key
                self._save_secret(f"card/{card_name(request.deck, position)}", {"label": self._open(deck, position)})
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
            if self._open(deck, position) != label:
                raise ProtocolViolation(
                    f"claimed {label} at {deck_name} position {position}, but the card differs", seat
                )

    def _open(self, deck: DeckRecord, position: int) -> str:
        try:
            return deck.open(position, range(self.setup.players))
        except ProtocolViolation:
            raise DeckSpoiled(deck.name, position) from None

    def _audit_turn(self) -> bool:
        """Answer every deck called spoiled (once this peer holds its whole shuffle) with all this seat's
        keys of it; the first called deck that every seat has answered is re-checked: its dishonest pass
        is named, or, when every pass checks out, the lowest seat that called it spoiled."""
        called = [
            deck
            for deck in self._called_decks()
            if deck in self.decks and len(self.decks[deck].rekeys) == self.setup.players
        ]
        progress = False
        for deck in called:
            if self.seat is not None and (self.seat, deck) not in self._audit_claims:
                position = self._spoiled_at if deck == self._spoiled else None
                self._emit(bodies.deck_audit(self._released_keys(deck), position))
                progress = True
        seats = range(self.setup.players)
        for deck in called:
            if all((seat, deck) in self._audit_claims for seat in seats):
                self._judge_deck(deck)
        return progress

    def _audit_waits_for(self) -> tuple[int, ...]:
        for deck in self._called_decks():
            if deck in self.decks:
                return tuple(s for s in range(self.setup.players) if (s, deck) not in self._audit_claims)
        return ()

    def _judge_deck(self, name: str) -> None:
        claims = {seat: self._audit_claims[(seat, name)] for seat in range(self.setup.players)}
        callers = []
        for seat, envelope in claims.items():
            self._evidence, self._author = (envelope.raw,), seat
            position = field(envelope.body, "position")
            if position is not None and type(position) is not int:
                raise MalformedInput(f"a deck-audit position must be an integer or null, not {position!r}", seat)
            if position is not None:
                callers.append(seat)
        self._check_passes(self.decks[name], {seat: (e.raw, e.body) for seat, e in claims.items()})
        if callers:
            raise ProtocolViolation(f"called {name} spoiled, but every pass of it checks out", callers[0])
        raise Unattributed(f"a card of {name} opened to no card here, yet every pass of it checks out")

    def _check_passes(self, deck: DeckRecord, released: dict[int, tuple[bytes, dict[str, Json]]]) -> None:
        """Re-check every pass of `deck` with each seat's released keys (`lock_key` and `card_keys`, as an
        end or a deck-audit message carries them, with that message): a malformed key is blamed on its
        seat, a dishonest pass on its author, with every message as evidence."""
        size = len(deck.table)
        lock_keys: dict[int, int] = {}
        card_keys: dict[int, list[int]] = {}
        for seat, (raw, keys) in released.items():
            self._evidence, self._author = (raw,), seat
            lock_keys[seat] = read_keys([field(keys, "lock_key")], 1, seat)[0]
            card_keys[seat] = read_keys(field(keys, "card_keys"), size, seat)
        self._evidence, self._author = tuple(raw for raw, _ in released.values()), None
        deck.audit(self.session_id, lock_keys, card_keys)

    def _released_keys(self, deck: str) -> dict[str, Json]:
        record = self._secrets[f"deck/{deck}"]
        assert isinstance(record, dict)
        return {"deck": deck, "lock_key": record["lock_key"], "card_keys": record["card_keys"]}

    def _audit_decks(self) -> None:
        """Every deck key is public now: re-check every pass of every deck; blame the first cheat."""
        for name, deck in self.decks.items():
            released: dict[int, tuple[bytes, dict[str, Json]]] = {}
            for seat, envelope in self._ends.items():
                self._evidence, self._author = (envelope.raw,), seat
                keys = [
                    d
                    for d in as_list(field(envelope.body, "decks"), "the released decks")
                    if isinstance(d, dict) and d.get("deck") == name
                ]
                if len(keys) != 1:
                    raise ProtocolViolation(f"did not release its keys of {name} at the end (withheld)", seat)
                released[seat] = (envelope.raw, keys[0])
            self._check_passes(deck, released)
