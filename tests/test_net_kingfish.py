"""King Fish over the network (its matches at every table size: tests/test_net_play.py): no peer able to
decrypt a card it was not dealt or shown — checked, message by message, against every deck key of every seat (read
from the seats' own stores, since no key is ever released at the end), in each peer's store and in
everything it received."""

import json
import sqlite3
from collections import defaultdict
from pathlib import Path

from secrecy_helpers import finished_match, strings

from p2pfish.core.actions import Dealt, RevealCard
from p2pfish.games.kingfish.rules import PlayLine
from p2pfish.games.registry import get_rules
from p2pfish.session.audit import read_setup
from p2pfish.session.envelope import open_envelope
from p2pfish.session.session import Session
from p2pfish.session.store import MemoryStore

Card = tuple[str, int]
"""(deck, position)."""


class Dealing:
    """Who was dealt each card privately, and which cards the rules turned up for all, from an
    observer's replay of the transcript up to the end (where every key is released on purpose)."""

    def __init__(self, lines: list[bytes]) -> None:
        setup = read_setup(lines[0])
        observer = Session(setup, None, None, MemoryStore(), rules=get_rules(setup.game))
        for raw in lines[1:]:
            if open_envelope(raw).body.get("type") != "end":
                observer.receive(raw)
        assert observer.fault is None
        self.holder: dict[Card, int] = {}
        self.shown: set[Card] = set()
        for entry in observer.log:
            action = entry.action
            if isinstance(action, Dealt):
                for position in action.positions:
                    if action.to is None:
                        self.shown.add((action.deck, position))
                    else:
                        self.holder[(action.deck, position)] = action.to
            elif isinstance(action, (PlayLine, RevealCard)):
                self.shown.add((action.deck, action.position))


class Keys:
    """Every deck key of the game, from each seat's own store: which card key belongs to whom."""

    def __init__(self, stores: dict[int, str], players: int) -> None:
        self.card_key: dict[str, tuple[str, int, int]] = {}
        """key hex -> (deck, seat, position)."""
        self.lock_key: dict[str, int] = {}
        for seat, store in stores.items():
            with sqlite3.connect(store) as db:
                rows = list(db.execute("SELECT name, record FROM secrets WHERE name LIKE 'deck/%'"))
            for name, record in rows:
                keys = json.loads(record)
                self.lock_key[str(keys["lock_key"])] = seat
                for position, key in enumerate(keys["card_keys"]):
                    self.card_key[str(key)] = (name.removeprefix("deck/"), seat, position)
        self.players = players
        assert len(self.lock_key) == players * players, "one deck per round, one round per player"


class Reader:
    """Follows one peer through what it holds: it may open a card only once it holds every seat's key
    for it, and then only a card dealt to it, a card the rules turned up, or a card another seat
    has already played face up or turned up in a message this peer received."""

    def __init__(self, seat: int, keys: Keys, dealing: Dealing) -> None:
        self.seat, self.keys, self.dealing = seat, keys, dealing
        self.key_holders: dict[Card, set[int]] = defaultdict(set)
        self.opened: set[Card] = set()
        self.played_by_owner: set[Card] = set()

    def learn(self, value: object) -> None:
        for text in strings(value):
            owner = self.keys.lock_key.get(text)
            assert owner is None or owner == self.seat, f"seat {self.seat} held seat {owner}'s lock key"
            found = self.keys.card_key.get(text)
            if found is None:
                continue
            deck, key_seat, position = found
            card = (deck, position)
            self.key_holders[card].add(key_seat)
            if len(self.key_holders[card]) == self.keys.players and card not in self.opened:
                self.opened.add(card)
                self.check(card)

    def check(self, card: Card) -> None:
        holder = self.dealing.holder.get(card)
        if holder == self.seat:
            return
        if holder is None:
            assert card in self.dealing.shown, f"seat {self.seat} could open {card}, which was never turned up"
        else:
            assert card in self.played_by_owner, f"seat {self.seat} could open {card} in seat {holder}'s hand"

    def receive(self, raw: bytes) -> None:
        envelope = open_envelope(raw)
        action = envelope.body.get("action")
        if isinstance(action, dict) and action.get("t") in ("line", "reveal-card"):
            card = (str(action["deck"]), int(str(action["position"])))
            if self.dealing.holder.get(card) == envelope.seat:
                self.played_by_owner.add(card)
        self.learn(envelope.body)


def test_no_peer_can_decrypt_a_card_it_was_not_dealt_or_shown_before_the_end(tmp_path: Path) -> None:
    players = 3
    table, results = finished_match("kingfish", players, ["random"], 7, tmp_path, timeout_s=120)
    lines = table.transcripts[0].read_bytes().splitlines()
    stores = {int(str(r["seat"])): str(r["store"]) for r in results if r is not None}
    dealing, keys = Dealing(lines), Keys(stores, players)
    for result in results:
        assert result is not None and isinstance(result["seat"], int)
        reader = Reader(result["seat"], keys, dealing)
        with sqlite3.connect(str(result["store"])) as db:
            secrets = [json.loads(record) for (record,) in db.execute("SELECT record FROM secrets")]
            received = [bytes(row[0]) for row in db.execute("SELECT raw FROM messages ORDER BY n")]
        reader.learn(secrets)
        for raw in received:
            if open_envelope(raw).body.get("type") == "end":
                break
            reader.receive(raw)
        mine = {card for card, holder in dealing.holder.items() if holder == reader.seat}
        assert len(mine) == players * 6, "each round dealt this seat six cards"
        assert reader.opened == mine | dealing.shown, "the check sees every card the seat could open"
