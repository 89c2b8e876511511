"""Deck turns: the mental-poker deck. A shuffle turn has each seat lock and shuffle, then re-key, in seat
order, every pass with its proof, checked by every peer when it arrives (a dishonest pass is blamed on its
author before any card of the deck is dealt); a deal turn has every seat but the receiver publish its keys
for the dealt cards, each checked at once against its key point; an action that turns up a seat's own
face-down cards carries that seat's keys, checked the same way."""

from p2pfish.core.actions import Dealt, RevealsCards, Shuffled, card_name
from p2pfish.core.errors import IllegalAction, ProtocolViolation
from p2pfish.core.game import DealRequest, ShuffleRequest
from p2pfish.core.wire import Json, field
from p2pfish.crypto.proven_deck import (
    CardTable,
    LockPass,
    RekeyPass,
    make_lock_pass,
    make_rekey_pass,
    new_card_keys,
    new_key,
    new_permutation,
    verify_lock_pass,
    verify_rekey_pass,
)
from p2pfish.session import bodies
from p2pfish.session.bodies import CARD_KEYS, DECK_LOCK, DECK_REKEY
from p2pfish.session.core import SessionCore, Unattributed
from p2pfish.session.decks import DeckRecord, keys_to_wire, pass_context, read_keys


class DeckTurns(SessionCore):
    def _shuffle_turn(self, request: ShuffleRequest) -> bool:
        """Each seat in seat order locks and shuffles the deck, then each in seat order re-keys it; each
        pass is proven against the deck before it."""
        if request.deck in self.decks and self.decks[request.deck].shuffled:
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
            context = pass_context(self.session_id, seat, deck.name, kind)
            # A seat's own pass, made here from its own secrets, needs no proof checked here: the others check it.
            if locking:
                lock = LockPass.from_wire(field(envelope.body, "pass"), size, seat)
                if seat != self.seat:
                    verify_lock_pass(context, deck.cards, lock, seat)
                deck.locks.append(lock)
            else:
                rekey = RekeyPass.from_wire(field(envelope.body, "pass"), size, seat)
                if seat != self.seat:
                    verify_rekey_pass(context, deck.cards, deck.locks[seat].lock_point, rekey, seat)
                deck.rekeys.append(rekey)
            progress = True
        self._apply_chance(Shuffled(request.deck, size))
        return True

    def _deck_pass(self, deck: DeckRecord, locking: bool) -> dict[str, Json]:
        assert self.seat is not None
        keys = self._deck_keys(deck.name, len(deck.table))
        lock_key = int(str(keys["lock_key"]), 16)
        kind = DECK_LOCK if locking else DECK_REKEY
        context = pass_context(self.session_id, self.seat, deck.name, kind)
        if locking:
            permutation = [int(str(i)) for i in keys["permutation"]]  # type: ignore[union-attr]
            lock = make_lock_pass(context, deck.cards, lock_key, permutation)
            return bodies.deck_pass(kind, self.turn, lock.to_wire())
        card_keys = [int(str(k), 16) for k in keys["card_keys"]]  # type: ignore[union-attr]
        rekey = make_rekey_pass(context, deck.cards, lock_key, card_keys)
        return bodies.deck_pass(kind, self.turn, rekey.to_wire())

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
        if deck is None or not deck.shuffled:
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
                    deck.accept_key(seat, position, key)
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
                label: dict[str, Json] = {
                    "label": self._open(deck, position)
                }  # dealt again from the store's messages on resume
                self._save_secret(f"card/{card_name(request.deck, position)}", label, durable=False)
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
            deck.accept_key(seat, position, key)
            if not deck.has_all_keys(position, seats):
                raise IllegalAction(f"turned up position {position} of {deck_name}, which it was not dealt", seat)
            if self._open(deck, position) != label:
                raise ProtocolViolation(
                    f"claimed {label} at {deck_name} position {position}, but the card differs", seat
                )

    def _open(self, deck: DeckRecord, position: int) -> str:
        """The card at `position`, every key of it in hand. With every pass proven and every key checked,
        a position that opens to no card means the cryptography itself failed: nobody can be named."""
        label = deck.open(position, range(self.setup.players))
        if label is None:
            raise Unattributed(f"position {position} of {deck.name} opened to no card, though every pass is proven")
        return label
