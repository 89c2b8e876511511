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
from p2pfish.core.errors import IllegalAction, MalformedInput, P2pfishError
from p2pfish.core.wire import Json
from p2pfish.crypto import p256
from p2pfish.session import bodies
from p2pfish.session.envelope import MAX_MESSAGE_BYTES, Signer, open_envelope, seal
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import Store

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
)
DECK_KINDS: Final = ("wrong-card-key", "substitute-card")
"""Cheats with the mental-poker deck: only for games that deal from one."""
DECK_GAMES: Final = ("kunayala", "kingfish")


@dataclass(frozen=True)
class Cheat:
    seat: int
    kind: str

    @staticmethod
    def parse(text: str) -> "Cheat":
        """SEAT:KIND, e.g. 1:equivocate."""
        seat_text, _, kind = text.partition(":")
        if not (seat_text.isascii() and seat_text.isdigit()):
            raise MalformedInput(f"--cheat takes SEAT:KIND, e.g. 1:equivocate, not {text!r}")
        if kind not in KINDS:
            raise MalformedInput(f"no cheat {kind!r} (cheats: {', '.join(KINDS)})")
        return Cheat(int(seat_text), kind)

    def check(self, game: str, players: int) -> None:
        """Refuse a seat outside the table or a kind the game has no use for."""
        if self.seat >= players:
            raise MalformedInput(f"--cheat names seat {self.seat}, but the seats are 0..{players - 1}")
        if not self.applies_to(game):
            raise MalformedInput(f"{game} deals no cards, so {self.kind} does not apply ({', '.join(DECK_GAMES)} do)")

    def applies_to(self, game: str) -> bool:
        return self.kind not in DECK_KINDS or game in DECK_GAMES

    def to_flag(self) -> str:
        return f"{self.seat}:{self.kind}"


def make_session(
    cheat: Cheat | None, setup: GameSetup, seat: int, signer: Signer, store: Store, **kwargs: Any
) -> Session:
    """The honest Session, or a CheatingSession when this peer's seat is the cheat's."""
    if cheat is None or cheat.seat != seat:
        return Session(setup, seat, signer, store, **kwargs)
    return CheatingSession(setup, seat, signer, store, kind=cheat.kind, **kwargs)


def resume_session(cheat: Cheat | None, store: Any, signer: Any, **kwargs: Any) -> Session:
    session = Session.resume(store, signer, **kwargs)
    if cheat is None or cheat.seat != session.seat:
        return session
    session.__class__ = CheatingSession
    assert isinstance(session, CheatingSession)
    session.setup_cheat(cheat.kind)
    return session


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
        """A lock pass with one card replaced by a point that is no card of the deck."""
        cards = body.get("cards")
        if body.get("type") != bodies.DECK_LOCK or not isinstance(cards, list):
            return False
        forged = p256.multiply(p256.random_scalar(), bytes.fromhex(str(cards[0]))).hex()
        super()._emit({**body, "cards": [forged, *cards[1:]]})
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
