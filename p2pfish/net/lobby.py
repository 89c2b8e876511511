"""The lobby: where players meet before a game. Its host is only a rendezvous.

A joiner first says hello; the host answers with its lobby's fresh random nonce. Each player then brings
a card: its name, its Ed25519 identity, the CURVE key and endpoint of its mesh and that lobby nonce, all
signed by the identity, so a card is good for one lobby only and a captured join is refused by any later
lobby, even one with the same code. A joiner proves it knows the join code: every lobby message
carries an HMAC under a key hashed from the code, so a wrong code is refused and nobody without
it can join or speak for the host. Every card carries a fresh random contribution to the session id,
signed with it. When the table is full the host fixes the game setup (game, options, roster, every
card's contribution) and sends it with every card; each joiner checks that its own card and contribution
are in it, so no host can re-use an earlier game's id; from then on the peers talk to each
other directly over CURVE and the host is a player like any other.

The lobby link itself is not encrypted: it carries only public keys, names and addresses. Its sockets
refuse a frame over MAX_LOBBY_MESSAGE in libzmq itself (the connection is closed at the frame's header),
close a connection that has not finished its handshake within HANDSHAKE_S, and keep at most CONNECTION_CAP
connections open.
"""

import asyncio
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import zmq
import zmq.asyncio

from p2pfish.core.errors import MalformedInput, P2pfishError
from p2pfish.core.wire import Json, as_list, as_object, hex_bytes, str_field
from p2pfish.crypto.encoding import encode_text, length_prefixed
from p2pfish.crypto.identity import Identity, verify
from p2pfish.net.guard import HANDSHAKE_S, ConnectionCap
from p2pfish.net.mesh import CURVE_KEY_CHARS, is_curve_key, is_tcp_endpoint
from p2pfish.session.envelope import canonical, parse_json
from p2pfish.session.setup import CONTRIBUTION_BYTES, GameSetup, new_contribution

TAG_CODE = b"p2pfish/join-code/v1"
TAG_CARD = b"p2pfish/player-card/v3"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
MAX_LOBBY_MESSAGE = 16 * 1024
LOBBY_NONCE_BYTES = 32
LOBBY_PING_MS = 2000
"""The lobby's ZeroMQ heartbeat: a connection silent for three of these (not even answering a ping) is closed."""
ANSWER_WITHIN_S = 10.0
"""A host answers an admitted join at once; silence this long means no lobby is there."""


class LobbyRefused(P2pfishError):
    """The lobby would not let this player in (wrong code, full, or already started)."""


class StartRefused(LobbyRefused):
    """The host started a game this joiner must not play (not its card, not a setup of the cards sent):
    the host (seat 0) cheated, and the start message it sent is the evidence."""

    def __init__(self, reason: str, evidence: bytes = b"") -> None:
        super().__init__(reason, 0)
        self.evidence = evidence


def new_lobby_nonce() -> bytes:
    return secrets.token_bytes(LOBBY_NONCE_BYTES)


def new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(code: str) -> str:
    """The code as the host shows it: upper case, without dashes or spaces. Raises MalformedInput."""
    normal = code.strip().upper().replace("-", "").replace(" ", "")
    if len(normal) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in normal):
        raise MalformedInput(f"a join code is {CODE_LENGTH} letters and digits like K7P2QX, not {code!r}")
    return normal


def code_key(code: str) -> bytes:
    """The lobby's MAC key. scrypt makes each guess of a ~30-bit code cost ~16 MiB and ~50 ms, so a
    captured lobby message cannot be brute-forced cheaply."""
    return hashlib.scrypt(encode_text(normal_code(code)), salt=TAG_CODE, n=2**14, r=8, p=1, dklen=32)


@dataclass(frozen=True)
class PlayerCard:
    name: str
    identity: bytes
    curve_public: str
    endpoint: str
    contribution: bytes
    """This player's fresh random share of the session id of the game the lobby starts."""
    lobby: bytes
    """The nonce of the one lobby this card is for."""
    signature: bytes

    @staticmethod
    def signed_part(
        name: str, identity: bytes, curve_public: str, endpoint: str, contribution: bytes, *, lobby: bytes
    ) -> bytes:
        texts = (encode_text(name), identity, encode_text(curve_public), encode_text(endpoint))
        return length_prefixed(TAG_CARD, *texts, contribution, lobby)

    @classmethod
    def make(cls, identity: Identity, name: str, curve_public: str, endpoint: str, lobby: bytes) -> "PlayerCard":
        """A new card for the lobby with nonce `lobby`, with a contribution drawn now: one card for one game."""
        contribution = new_contribution()
        signed = cls.signed_part(name, identity.public_bytes, curve_public, endpoint, contribution, lobby=lobby)
        return cls(name, identity.public_bytes, curve_public, endpoint, contribution, lobby, identity.sign(signed))

    def valid(self) -> bool:
        fields = (self.name, self.identity, self.curve_public, self.endpoint, self.contribution)
        return verify(self.identity, self.signed_part(*fields, lobby=self.lobby), self.signature)

    def to_wire(self) -> dict[str, Json]:
        return {
            "name": self.name,
            "identity": self.identity.hex(),
            "curve": self.curve_public,
            "endpoint": self.endpoint,
            "contribution": self.contribution.hex(),
            "lobby": self.lobby.hex(),
            "signature": self.signature.hex(),
        }

    @classmethod
    def from_wire(cls, wire: Json) -> "PlayerCard":
        obj = as_object(wire, "a player card")
        card = cls(
            str_field(obj, "name")[:40],
            hex_bytes(str_field(obj, "identity"), "an identity key", 32),
            str_field(obj, "curve"),
            str_field(obj, "endpoint"),
            hex_bytes(str_field(obj, "contribution"), "a contribution", CONTRIBUTION_BYTES),
            hex_bytes(str_field(obj, "lobby"), "a lobby nonce", LOBBY_NONCE_BYTES),
            hex_bytes(str_field(obj, "signature"), "a card signature", 64),
        )
        if not card.valid():
            raise MalformedInput(f"the player card of {card.name!r} is not signed by its identity")
        if not is_curve_key(card.curve_public):
            raise MalformedInput(f"the player card of {card.name!r} holds no {CURVE_KEY_CHARS}-character CURVE key")
        if not is_tcp_endpoint(card.endpoint):
            raise MalformedInput(f"the player card of {card.name!r} holds no tcp://HOST:PORT endpoint")
        return card


def setup_of(game: str, options: Mapping[str, str], cards: list[PlayerCard] | tuple[PlayerCard, ...]) -> GameSetup:
    """The setup of a game at this table: the roster, names and contributions of the cards, in seat order."""
    return GameSetup(
        game,
        tuple(sorted(options.items())),
        tuple(c.identity for c in cards),
        tuple(c.name for c in cards),
        tuple(c.contribution for c in cards),
    )


def _sealed(key: bytes, message: dict[str, Json]) -> bytes:
    mac = hmac.new(key, canonical(message), hashlib.sha256).hexdigest()
    return canonical({**message, "mac": mac})


def _opened(key: bytes, raw: bytes) -> dict[str, Json] | None:
    """The message if its MAC is right under `key`, else None."""
    if len(raw) > MAX_LOBBY_MESSAGE:
        return None
    try:
        message = dict(as_object(parse_json(raw), "a lobby message"))
    except MalformedInput:
        return None
    mac = message.pop("mac", None)
    expected = hmac.new(key, canonical(message), hashlib.sha256).hexdigest()
    if not isinstance(mac, str) or not mac.isascii():
        return None  # hmac.compare_digest raises TypeError on text that is not ASCII
    return message if hmac.compare_digest(mac, expected) else None


@dataclass(frozen=True)
class Table:
    """A full lobby: the agreed setup and every seat's card, in seat order."""

    setup: GameSetup
    cards: tuple[PlayerCard, ...]

    def seat_of(self, identity: bytes) -> int:
        return self.setup.roster.index(identity)


class LobbyHost:
    def __init__(
        self, game: str, options: Mapping[str, str], *, players: int, host: PlayerCard, code: str, bind: str
    ) -> None:
        self.game, self.options, self.players, self.code = game, dict(options), players, normal_code(code)
        self.cards: list[PlayerCard] = [host]
        self.nonce = host.lobby
        """This lobby's nonce: every card admitted signs it. The host's card brings it (new_lobby_nonce)."""
        self._key = code_key(code)
        self._context = zmq.asyncio.Context()
        self._router = self._context.socket(zmq.ROUTER)
        self._router.linger = 1000
        _bound_socket_options(self._router)
        self._cap: ConnectionCap | None = None
        try:
            self._router.bind(bind)
        except zmq.ZMQError as error:
            self.close()
            raise MalformedInput(f"cannot open a lobby on {bind}: {error.strerror}") from None
        self.endpoint = self._router.getsockopt_string(zmq.LAST_ENDPOINT)
        self._joiners: list[bytes] = []

    async def gather(
        self,
        on_change: Callable[[list[PlayerCard]], None] | None = None,
        *,
        start_now: asyncio.Event | None = None,
        minimum: int = 2,
    ) -> Table:
        """Admit players until the table is full — or until `start_now` is set with at least `minimum`
        players in — then start the game."""
        if self._cap is None:
            self._cap = ConnectionCap(self._router, int(self.endpoint.rpartition(":")[2]))
        while len(self.cards) < self.players:
            if start_now is not None and start_now.is_set():
                if len(self.cards) >= minimum:
                    break
                start_now.clear()
            arrival = await self._next_or(start_now)
            if arrival is None:
                continue
            routing_id, raw = arrival
            if self._is_hello(raw):
                welcome: dict[str, Json] = {"type": "welcome", "lobby": self.nonce.hex()}
                await self._router.send_multipart([routing_id, _sealed(self._key, welcome)])
                continue
            refusal = self._admit(routing_id, raw)
            if refusal is not None:
                await self._router.send_multipart([routing_id, canonical({"type": "refused", "reason": refusal})])
                continue
            update: dict[str, Json] = {"type": "lobby", "game": self.game, "players": self.players}
            update["cards"] = [card.to_wire() for card in self.cards]
            for joiner in self._joiners:
                await self._router.send_multipart([joiner, _sealed(self._key, update)])
            if on_change is not None:
                on_change(list(self.cards))
        table = self.table_to_start()
        start: dict[str, Json] = {"type": "start", "setup": table.setup.to_wire()}
        start["cards"] = [card.to_wire() for card in table.cards]
        for joiner in self._joiners:
            await self._router.send_multipart([joiner, _sealed(self._key, start)])
        return table

    def table_to_start(self) -> Table:
        return Table(setup_of(self.game, self.options, self.cards), tuple(self.cards))

    async def _next_or(self, start_now: asyncio.Event | None) -> tuple[bytes, bytes] | None:
        """The next lobby message, or None when `start_now` is set first."""
        if start_now is None:
            return await self._next()
        arrival = asyncio.ensure_future(self._next())
        started = asyncio.ensure_future(start_now.wait())
        await asyncio.wait({arrival, started}, return_when=asyncio.FIRST_COMPLETED)
        started.cancel()
        if arrival.done():
            return arrival.result()
        arrival.cancel()
        return None

    async def _next(self) -> tuple[bytes, bytes]:
        while True:
            parts = await self._router.recv_multipart()
            if len(parts) == 2:
                return parts[0], parts[1]

    def _is_hello(self, raw: bytes) -> bool:
        message = _opened(self._key, raw)
        return message is not None and message.get("type") == "hello"

    def _admit(self, routing_id: bytes, raw: bytes) -> str | None:
        message = _opened(self._key, raw)
        if message is None:
            return "wrong join code"
        if message.get("type") != "join":
            return "expected a join request"
        try:
            card = PlayerCard.from_wire(message.get("card"))
        except MalformedInput as error:
            return error.reason
        if card.lobby != self.nonce:
            return "this card was signed for another lobby (a replayed join)"
        if any(card.identity == known.identity for known in self.cards):
            return "a player with this identity is already in the lobby"
        if any(card.contribution == known.contribution for known in self.cards):
            return "this card's contribution is already in the lobby (a replayed card)"
        if any(card.curve_public == known.curve_public or card.endpoint == known.endpoint for known in self.cards):
            return "a player with this network key or endpoint is already in the lobby"
        if routing_id in self._joiners:
            return "this connection has already joined"
        self.cards.append(card)
        self._joiners.append(routing_id)
        return None

    def close(self) -> None:
        if self._cap is not None:
            self._cap.close()
        self._router.close()
        self._context.term()


def _bound_socket_options(sock: zmq.asyncio.Socket) -> None:
    """What a lobby socket takes before reading: frames up to MAX_LOBBY_MESSAGE, a handshake within
    HANDSHAKE_S, and a peer that answers ZeroMQ's pings."""
    sock.maxmsgsize = MAX_LOBBY_MESSAGE
    sock.handshake_ivl = int(HANDSHAKE_S * 1000)
    sock.heartbeat_ivl = LOBBY_PING_MS
    sock.heartbeat_timeout = 3 * LOBBY_PING_MS


async def join_lobby(
    address: str,
    code: str,
    make_card: Callable[[bytes], PlayerCard],
    *,
    timeout_s: float,
    on_change: Callable[[list[PlayerCard]], None] | None = None,
) -> Table:
    """Join the lobby at HOST:PORT with the card `make_card` signs for its nonce, and wait for its game to
    start. Raises LobbyRefused."""
    key = code_key(code)
    context = zmq.asyncio.Context()
    dealer = context.socket(zmq.DEALER)
    dealer.linger = 0
    _bound_socket_options(dealer)
    within = min(ANSWER_WITHIN_S, timeout_s)
    try:
        dealer.connect(f"tcp://{address}")
        await dealer.send(_sealed(key, {"type": "hello"}))
        card = make_card(await _welcome_within(dealer, key, within, address))
        await dealer.send(_sealed(key, {"type": "join", "card": card.to_wire()}))
        if not await dealer.poll(int(within * 1000)):
            raise LobbyRefused(f"no lobby answered at {address} within {within:.0f} s")
        return await asyncio.wait_for(_await_start(dealer, key, card, on_change), timeout_s)
    except TimeoutError:
        raise LobbyRefused(f"no game started at {address} within {timeout_s:.0f} s") from None
    finally:
        dealer.close()
        context.term()


async def _welcome_within(dealer: zmq.asyncio.Socket, key: bytes, within_s: float, address: str) -> bytes:
    try:
        return await asyncio.wait_for(_await_welcome(dealer, key), within_s)
    except TimeoutError:
        raise LobbyRefused(f"no lobby answered at {address} within {within_s:.0f} s") from None


async def _await_welcome(dealer: zmq.asyncio.Socket, key: bytes) -> bytes:
    """The nonce of the lobby the host opened, from its answer to a hello."""
    while True:
        raw = await dealer.recv()
        _raise_if_refused(raw)
        message = _opened(key, raw)
        lobby = message.get("lobby") if message is not None and message.get("type") == "welcome" else None
        if isinstance(lobby, str):
            try:
                return hex_bytes(lobby, "a lobby nonce", LOBBY_NONCE_BYTES)
            except MalformedInput:
                continue


def _raise_if_refused(raw: bytes) -> None:
    if len(raw) > MAX_LOBBY_MESSAGE:
        return
    try:
        plain = json.loads(raw)
    except (ValueError, RecursionError):
        return
    if isinstance(plain, dict) and plain.get("type") == "refused":
        raise LobbyRefused(f"the lobby refused to let you in: {str(plain.get('reason'))[:200]}")


async def _await_start(
    dealer: zmq.asyncio.Socket, key: bytes, card: PlayerCard, on_change: Callable[[list[PlayerCard]], None] | None
) -> Table:
    while True:
        raw = await dealer.recv()
        _raise_if_refused(raw)
        message = _opened(key, raw)
        if message is None:
            continue
        cards = [PlayerCard.from_wire(c) for c in as_list(message.get("cards"), "the cards")]
        if message.get("type") == "lobby" and on_change is not None:
            on_change(cards)
        if message.get("type") == "start":
            table = Table(GameSetup.from_wire(message.get("setup")), tuple(cards))
            try:
                check_start(card, table)
            except StartRefused as refused:
                raise StartRefused(refused.reason, raw) from None
            return table


def check_start(card: PlayerCard, table: Table) -> None:
    """A joiner's check of the game the host started: this very card (with its fresh contribution) holds a
    seat, and the setup is made of exactly the cards sent, so the session id is new. Raises LobbyRefused."""
    cards = list(table.cards)
    if card not in cards:
        raise StartRefused("the host started a game without this player's card (an old or forged table)")
    if any(c.lobby != card.lobby for c in cards):
        raise StartRefused("the host started a game with a card signed for another lobby")
    if len({c.curve_public for c in cards}) != len(cards):
        raise StartRefused("the host started a game where two seats share a network key")
    if table.setup != setup_of(table.setup.game, table.setup.option_map, cards):
        raise StartRefused("the host started a game whose setup is not made of the cards it sent")
