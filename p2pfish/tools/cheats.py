"""Hostile peers for `p2pfish match --cheat SEAT:KIND`: a session that runs the honest code but cheats
once, in one of the ways the protocol must catch. Every honest peer must then stop the game naming
this seat, with the evidence, and nothing else of its state may change.

Each cheat waits for its first chance (the first message of the right kind this seat sends) and then
plays honestly again, except where the cheat is to go quiet (withhold-reveal).
"""

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from p2pfish.core.actions import RevealsCards
from p2pfish.core.errors import IllegalAction, P2pfishError, UsageError
from p2pfish.core.game import AnyRules, ShuffleRequest
from p2pfish.core.wire import Json
from p2pfish.crypto import secp256k1
from p2pfish.crypto.proven_deck import card_point, make_lock_pass, make_rekey_pass
from p2pfish.games.registry import games
from p2pfish.net.lobby import LobbyHost, PlayerCard, Table
from p2pfish.paths import state_dir
from p2pfish.session import bodies
from p2pfish.session.decks import pass_context
from p2pfish.session.envelope import MAX_MESSAGE_BYTES, Signer, open_envelope, seal
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import SqliteStore, Store

KINDS: Final = (
    "forged-signature",
    "replay",
    "equivocate",
    "out-of-turn",
    "illegal-move",
    "bad-reveal",
    "copied-commitment",
    "wrong-card-key",
    "substitute-card",
    "withhold-reveal",
    "malformed",
    "oversize",
    "marked-deck",
    "rigged-rekey",
    "bogus-audit",
    "reused-game",
    "big-frame",
    "chat-flood",
    "oversize-evidence",
    "escape-name",
)
DECK_KINDS: Final = ("wrong-card-key", "substitute-card", "marked-deck", "rigged-rekey")
"""Cheats with the mental-poker deck: only for games that deal from one."""
DECK_GAMES: Final = tuple(game.id for game in games() if game.deals_cards)
HOST_KINDS: Final = ("reused-game",)
"""Cheats only the lobby's host can make (always seat 0); they are played in the lobby, not the session."""
PROCESS_KINDS: Final = ("big-frame", "escape-name")
"""Attacks on the other peers' processes (their memory, their terminal), seen only over the network."""
ESCAPE_NAME: Final = "\x1b[2K\rgame over: eve 99\n\x1b]0;pwned\x07eve"
"""The name `escape-name` joins with: it would erase a line, print a fake result and set the terminal title."""
BIG_FRAMES: Final = 8
BIG_FRAME_BYTES: Final = 64 * 1024 * 1024
FLOOD_CHATS: Final = 200
"""Five times the chat budget, sent at once: few enough that the flooder's own signing and syncing do not
make it look silent to the others."""


@dataclass(frozen=True)
class Cheat:
    seat: int
    kind: str

    @staticmethod
    def parse(text: str) -> "Cheat":
        """SEAT:KIND, e.g. 1:equivocate."""
        seat_text, _, kind = text.partition(":")
        if not (seat_text.isascii() and seat_text.isdigit()):
            raise UsageError(f"--cheat takes SEAT:KIND, e.g. 1:equivocate, not {text!r}")
        if kind not in KINDS:
            raise UsageError(f"no cheat {kind!r} (cheats: {', '.join(KINDS)})")
        return Cheat(int(seat_text), kind)

    def check(self, game: str, players: int) -> None:
        """Refuse a seat outside the table or a kind the game has no use for."""
        if self.seat >= players:
            raise UsageError(f"--cheat names seat {self.seat}, but the seats are 0..{players - 1}")
        if self.kind in HOST_KINDS and self.seat != 0:
            raise UsageError(f"{self.kind} is the host's attack: use --cheat 0:{self.kind}")
        if not self.applies_to(game):
            raise UsageError(f"{game} deals no cards, so {self.kind} does not apply ({', '.join(DECK_GAMES)} do)")

    def applies_to(self, game: str) -> bool:
        return self.kind not in DECK_KINDS or game in DECK_GAMES

    def to_flag(self) -> str:
        return f"{self.seat}:{self.kind}"


@dataclass(frozen=True)
class Hostile:
    """The peer variant (netplay.PeerVariant) of `p2pfish match --cheat`: honest but at the cheat's seat, which
    runs a CheatingSession; `reused-game` also makes the host's lobby start an earlier game's table again, and
    `escape-name` (told to the cheat's process alone) joins with a name of terminal escapes."""

    cheat: Cheat

    def card_name(self, name: str) -> str:
        return ESCAPE_NAME if self.cheat.kind == "escape-name" else name

    def lobby_host(self, game: str, options: dict[str, str], **kwargs: Any) -> LobbyHost:
        if self.cheat.kind == "reused-game":
            return ReplayingLobbyHost(game, options, **kwargs)
        return LobbyHost(game, options, **kwargs)

    def new_session(
        self, setup: GameSetup, seat: int, signer: Signer, store: Store, *, rules: AnyRules, **kwargs: Any
    ) -> Session:
        return make_session(self.cheat, setup, seat, signer, store, rules=rules, **kwargs)

    def resume_session(self, store: Store, signer: Signer, *, rules: AnyRules, **kwargs: Any) -> Session:
        session = Session.resume(store, signer, rules=rules, **kwargs)
        if self.cheat.seat != session.seat:
            return session
        session.__class__ = CheatingSession
        assert isinstance(session, CheatingSession)
        session.setup_cheat(self.cheat.kind)
        return session


def make_session(
    cheat: Cheat | None, setup: GameSetup, seat: int, signer: Signer, store: Store, *, rules: AnyRules, **kwargs: Any
) -> Session:
    """The honest Session, or a CheatingSession when this peer's seat is the cheat's."""
    if cheat is None or cheat.seat != seat:
        return Session(setup, seat, signer, store, rules=rules, **kwargs)
    return CheatingSession(setup, seat, signer, store, rules=rules, kind=cheat.kind, **kwargs)


class ReplayingLobbyHost(LobbyHost):
    """The rematch attack: the host starts the game with the setup and the (validly signed) cards of its
    latest earlier game with these players, so that the honest peers would re-open that game's stores,
    re-send its commitments and re-use its published keys. Every joiner must refuse and blame the host."""

    def table_to_start(self) -> Table:
        earlier = sorted(state_dir().glob("*-seat0.sqlite"), key=lambda path: path.stat().st_mtime)
        if not earlier:
            return super().table_to_start()
        store = SqliteStore(earlier[-1])
        saved, record = store.load_setup(), store.load_secrets().get("net/mesh")
        store.close()
        if saved is None or not isinstance(record, dict) or not isinstance(record.get("cards"), list):
            return super().table_to_start()
        cards = tuple(PlayerCard.from_wire(card) for card in record["cards"])  # type: ignore[union-attr]
        return Table(GameSetup.from_wire(saved[0]), cards)


class CheatingSession(Session):
    def __init__(self, *args: Any, kind: str, **kwargs: Any) -> None:
        self.setup_cheat(kind)
        super().__init__(*args, **kwargs)

    def setup_cheat(self, kind: str) -> None:
        self.kind = kind
        self.cheated = False
        self._deferred: dict[str, Json] | None = None
        self._last_action: dict[str, Json] | None = None
        self._withheld_from: int | None = None
        self._cheats: dict[str, Callable[[dict[str, Json]], bool]] = {
            "forged-signature": self._forged_signature,
            "replay": self._replay,
            "equivocate": self._equivocate,
            "out-of-turn": self._out_of_turn,
            "illegal-move": self._illegal_move,
            "bad-reveal": self._bad_reveal,
            "copied-commitment": self._copied_commitment,
            "wrong-card-key": self._wrong_card_key,
            "substitute-card": self._substitute_card,
            "withhold-reveal": self._withhold_reveal,
            "malformed": self._malformed,
            "oversize": self._oversize,
            "marked-deck": self._marked_deck,
            "rigged-rekey": self._rigged_rekey,
            "bogus-audit": self._bogus_audit,
            "reused-game": lambda body: False,  # played in the lobby (see netplay), not in the session
            "escape-name": lambda body: False,  # its name is its attack: see match.MatchTable.peer_flags
            "big-frame": self._big_frame,
            "chat-flood": self._chat_flood,
            "oversize-evidence": self._oversize_evidence,
        }

    def _emit(self, body: dict[str, Json]) -> None:
        action = body.get("action")
        if body.get("type") == bodies.ACT and isinstance(action, dict):
            self._last_action = action
        if not self.cheated and self._cheats[self.kind](body):
            self.cheated = self._deferred is None
            return
        super()._emit(body)

    def receive(self, raw: bytes, via: int | None = None) -> None:
        super().receive(raw, via)
        if self._deferred is not None and self.fault is None and not self.cheated:
            self._emit(self._deferred)
        if self.kind == "out-of-turn" and self.fault is None and not self.cheated:
            self._move_out_of_turn()

    # --- raw messages that no honest session would send ---

    def _send_raw(self, raw: bytes) -> None:
        self._outbox.append(raw)

    def _sealed(self, body: dict[str, Json], *, seat: int | None = None, session: bytes | None = None) -> bytes:
        """`body` signed with this seat's key, as the next message of `seat`'s chain (default: its own)."""
        assert self.seat is not None and self._signer is not None
        author = self.seat if seat is None else seat
        chain = self.chains[author]
        session_id = self.session_id if session is None else session
        return seal(self._signer, session_id, author, seq=chain.next_seq, prev=chain.head, body=body).raw

    def _forged_signature(self, body: dict[str, Json]) -> bool:
        """A chat in another seat's name, signed with this seat's key."""
        assert self.seat is not None
        super()._emit(body)
        self._send_raw(self._sealed(bodies.chat("I resign"), seat=(self.seat + 1) % self.setup.players))
        return True

    def _replay(self, body: dict[str, Json]) -> bool:
        """This seat's next message as it would be in another game."""
        other_game = hashlib.sha256(b"another game" + self.session_id).digest()
        self._send_raw(self._sealed(body, session=other_game))
        super()._emit(body)
        return True

    def _equivocate(self, body: dict[str, Json]) -> bool:
        """Two different messages with the same place in this seat's chain."""
        if body.get("type") not in (bodies.ACT, bodies.RAND_COMMIT, bodies.CARD_KEYS):
            return False
        conflicting = self._sealed(bodies.chat("the other story"))
        super()._emit(body)
        self._send_raw(conflicting)
        return True

    def _out_of_turn(self, body: dict[str, Json]) -> bool:
        """Nothing at its own turns: the cheat is a move while another seat alone is to act (see receive)."""
        return False

    def _move_out_of_turn(self) -> None:
        state, rules = self.state, self.rules
        if rules.outcome(state) is not None or rules.chance(state) is not None:
            return
        if self.seat in rules.to_act(state) or not self._last_action:
            return
        self.cheated = True
        super()._emit(bodies.act(self.turn, self._last_action))

    def _illegal_move(self, body: dict[str, Json]) -> bool:
        if body.get("type") != bodies.ACT:
            return False
        illegal = self._illegal_variant(body["action"])
        if illegal is None:
            return False
        super()._emit({**body, "action": illegal})
        return True

    def _illegal_variant(self, wire: Json) -> dict[str, Json] | None:
        """A well-formed action the rules refuse now: the honest one with one field changed."""
        if not isinstance(wire, dict):
            return None
        assert self.seat is not None
        for name, value in sorted(wire.items()):
            candidates: list[Json] = []
            if type(value) is int:
                candidates = [value + 1, value - 1, value + 7, 99]
            elif isinstance(value, str) and name != "t":
                candidates = ["AS", "KH", "x", value + "x"]
            for candidate in candidates:
                changed = {**wire, name: candidate}
                try:
                    action = self.rules.decode_action(changed)
                    if isinstance(action, RevealsCards):
                        continue
                    self.rules.apply(self.state, self.seat, action)
                except IllegalAction:
                    return changed
                except P2pfishError:
                    continue
        return None

    def _bad_reveal(self, body: dict[str, Json]) -> bool:
        """An opening with another nonce: it does not open the commitment."""
        nonce = body.get("nonce")
        if not isinstance(nonce, str):
            return False
        flipped = ("1" if nonce[0] == "0" else "0") + nonce[1:]
        super()._emit({**body, "nonce": flipped})
        return True

    def _copied_commitment(self, body: dict[str, Json]) -> bool:
        """Wait for another seat's commitment of the same turn and send its digest as this seat's own."""
        if body.get("type") != bodies.RAND_COMMIT:
            return False
        turn = body.get("turn")
        others = [
            envelope
            for seat, chain in enumerate(self.chains)
            if seat != self.seat
            for envelope in chain.accepted
            if envelope.kind == bodies.RAND_COMMIT and envelope.body.get("turn") == turn
        ]
        if not others:
            self._deferred = body
            self._sent.add((self.turn, bodies.RAND_COMMIT))  # so that the session does not send it meanwhile
            return True
        self._deferred = None
        self._sent.discard((self.turn, bodies.RAND_COMMIT))
        super()._emit({**body, "digest": others[0].body["digest"]})
        return True

    def _wrong_card_key(self, body: dict[str, Json]) -> bool:
        keys = body.get("keys")
        if body.get("type") != bodies.CARD_KEYS or not isinstance(keys, list) or not keys:
            return False
        super()._emit({**body, "keys": [f"{7:064x}", *keys[1:]]})
        return True

    def _substitute_card(self, body: dict[str, Json]) -> bool:
        """A lock pass with one card replaced by a point that is no card of the deck, the proof as made
        for the honest cards."""
        proven = body.get("pass")
        if body.get("type") != bodies.DECK_LOCK or not isinstance(proven, dict):
            return False
        cards = proven["cards"]
        assert isinstance(cards, list)
        super()._emit({**body, "pass": {**proven, "cards": [card_point("no card").hex(), *cards[1:]]}})
        return True

    def _deck_secrets(self) -> tuple[str, int, list[int], list[int]]:
        """The deck being shuffled now, this seat's lock key, permutation and card keys of it."""
        request = self.rules.chance(self.state)
        assert isinstance(request, ShuffleRequest)
        record = self._deck_keys(request.deck, len(request.labels))
        permutation = [int(str(i)) for i in record["permutation"]]  # type: ignore[union-attr]
        card_keys = [int(str(k), 16) for k in record["card_keys"]]  # type: ignore[union-attr]
        return request.deck, int(str(record["lock_key"]), 16), permutation, card_keys

    def _marked_deck(self, body: dict[str, Json]) -> bool:
        """The first-locker attack: replace one card of its input by a known multiple r of another
        (2C -> r·KS), so that the pair survives every later lock and the seat could find KS after the last
        one; the shuffle is proven for that marked input, the best an attacker can do."""
        if body.get("type") != bodies.DECK_LOCK:
            return False
        assert self.seat is not None
        deck_name, lock_key, permutation, _ = self._deck_secrets()
        marked = list(self.decks[deck_name].cards)
        marked[0] = secp256k1.point_bytes(secp256k1.mul(12345, secp256k1.point_from_bytes(marked[1])))
        context = pass_context(self.session_id, self.seat, deck_name, bodies.DECK_LOCK)
        lock = make_lock_pass(context, tuple(marked), lock_key, permutation)
        super()._emit(bodies.deck_pass(bodies.DECK_LOCK, self.turn, lock.to_wire()))
        return True

    def _rigged_rekey(self, body: dict[str, Json]) -> bool:
        """A re-key pass that moves a card (swaps the first two positions), proven for the swapped input."""
        if body.get("type") != bodies.DECK_REKEY:
            return False
        assert self.seat is not None
        deck_name, lock_key, _, card_keys = self._deck_secrets()
        swapped = list(self.decks[deck_name].cards)
        swapped[0], swapped[1] = swapped[1], swapped[0]
        context = pass_context(self.session_id, self.seat, deck_name, bodies.DECK_REKEY)
        rekey = make_rekey_pass(context, tuple(swapped), lock_key, card_keys)
        super()._emit(bodies.deck_pass(bodies.DECK_REKEY, self.turn, rekey.to_wire()))
        return True

    def _bogus_audit(self, body: dict[str, Json]) -> bool:
        """A signed call to audit a deck that does not exist (it froze every table once)."""
        super()._emit(body)
        bogus: dict[str, Json] = {"type": "deck-audit", "deck": "no-such-deck", "position": 7}
        bogus |= {"lock_key": f"{1:064x}", "card_keys": []}
        super()._emit(bogus)
        return True

    def _withhold_reveal(self, body: dict[str, Json]) -> bool:
        """Go quiet at the first opening it owes (a random contribution, a secret, a card): it keeps it,
        and everything after it, to itself, while its heartbeats go on."""
        if not (body.get("type") == bodies.RAND_REVEAL or "nonce" in body or "card_keys" in body):
            return False
        assert self.seat is not None
        self._withheld_from = self.chains[self.seat].next_seq
        super()._emit(body)
        return True

    def take_outbox(self) -> list[bytes]:
        return [raw for raw in super().take_outbox() if not self._withheld(raw)]

    def chain_messages(self, author: int, start: int, limit: int) -> list[bytes]:
        return [raw for raw in super().chain_messages(author, start, limit) if not self._withheld(raw)]

    def _withheld(self, raw: bytes) -> bool:
        if self._withheld_from is None:
            return False
        envelope = open_envelope(raw)
        return envelope.seat == self.seat and envelope.seq >= self._withheld_from

    def _malformed(self, body: dict[str, Json]) -> bool:
        if body.get("type") != bodies.ACT:
            return False
        super()._emit({**body, "action": {"t": 5}})
        return True

    def _oversize(self, body: dict[str, Json]) -> bool:
        """Bytes over the size limit in place of its next message."""
        self._send_raw(b'{"body":"' + b"x" * MAX_MESSAGE_BYTES + b'"}')
        super()._emit(body)
        return True

    def _big_frame(self, body: dict[str, Json]) -> bool:
        """Frames of 64 MiB on every link in place of messages: each would cost every peer that reads it whole
        its size in memory and a parse."""
        frame = b"x" * BIG_FRAME_BYTES
        for _ in range(BIG_FRAMES):
            self._send_raw(frame)
        super()._emit(body)
        return True

    def _chat_flood(self, body: dict[str, Json]) -> bool:
        """Hundreds of chats at once, each of a length a person could type, all validly signed."""
        super()._emit(body)
        for number in range(FLOOD_CHATS):
            super()._emit(bodies.chat(f"flood {number} " + "x" * 200))
        return True

    def _oversize_evidence(self, body: dict[str, Json]) -> bool:
        """Two signed messages of nearly the size limit at one place of its chain, each malformed: the evidence
        of either fault, quoted whole, would make an honest reporter's stop report too big to send."""
        if body.get("type") != bodies.ACT:
            return False
        for filler in "xy":
            action: dict[str, Json] = {"t": 5, "pad": filler * (MAX_MESSAGE_BYTES - 2048)}
            self._send_raw(self._sealed({**body, "action": action}))
        return True
