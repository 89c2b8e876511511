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

The lobby link itself is not encrypted: it carries only public keys, names and addresses. It is plain TCP
with the lobby's own framing (lobbylink.py), so that this code bounds what a stranger can make the host
hold: a connection must prove the code with a fresh sealed hello within HELLO_WITHIN_S (at most
UNPROVEN_CAP such connections, the oldest dropped for a newer one), then bring its card within
ANSWER_WITHIN_S (at most one such connection per seat of the table); a message that does not open under
the code ends its connection.
"""

import asyncio
import hashlib
import hmac
import json
import secrets
import socket
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from p2pfish.core.errors import MalformedInput, P2pfishError, UsageError
from p2pfish.core.wire import Json, as_list, as_object, hex_bytes, str_field
from p2pfish.crypto.ed25519_rule import key_weakness
from p2pfish.crypto.encoding import encode_text, length_prefixed
from p2pfish.crypto.identity import Identity, verify
from p2pfish.crypto.kdf import scrypt
from p2pfish.net.joincode import CODE_ALPHABET, CODE_LENGTH
from p2pfish.net.lobbylink import (
    ACCEPT_BATCH,
    LINK_ERRORS,
    MAX_LOBBY_MESSAGE,
    STREAM_LIMIT,
    Budget,
    Link,
    listening_socket,
    open_link,
)
from p2pfish.net.mesh import CURVE_KEY_CHARS, is_curve_key, is_tcp_endpoint
from p2pfish.session.envelope import canonical, parse_json
from p2pfish.session.setup import CONTRIBUTION_BYTES, GameSetup, new_contribution

TAG_CODE = b"p2pfish/join-code/v2"
TAG_CARD = b"p2pfish/player-card/v3"
LOBBY_NONCE_BYTES = 32
HELLO_NONCE_BYTES = 16
HELLO_WITHIN_S = 3.0
"""A connection that has not proved the code (a fresh sealed hello) by then is closed."""
UNPROVEN_CAP = 64
"""At most this many connections that have not proved the code; one more drops the oldest of them."""
MAX_HELLOS_KEPT = 4096
REASON_CHARS = 200
RETRY_S = 0.25
FIRST_RETRY_S = 0.02
"""A joiner whose connection was refused or dropped before the welcome tries again after FIRST_RETRY_S, then
twice as long each time up to RETRY_S: one started with its host finds the lobby soon after it opens."""
START_FLUSH_S = 1.0
"""How long the host waits for its `start` messages to be written before it plays (they are still sent after)."""
MAX_TABLE = 16
"""More seats than a lobby message may announce (no game has as many): a joiner shows the cards' count then."""
ANSWER_WITHIN_S = 10.0
"""A host answers an admitted join at once; silence this long means no lobby is there."""


class LobbyRefused(P2pfishError):
    """The lobby would not let this player in (wrong code, full, or already started)."""


class LobbyClosed(LobbyRefused):
    """The host closed its lobby before the game started (its player left)."""


class StartRefused(LobbyRefused):
    """The host started a game this joiner must not play (not its card, not a setup of the cards sent):
    the host (seat 0) cheated, and the start message it sent is the evidence."""

    def __init__(self, reason: str, evidence: bytes = b"") -> None:
        super().__init__(reason, 0)
        self.evidence = evidence


def new_lobby_nonce() -> bytes:
    return secrets.token_bytes(LOBBY_NONCE_BYTES)


LOOK_ALIKES = "01ILO"
"""Characters no join code holds, since they are easily read as one another."""


def normal_code(code: str) -> str:
    """The code as the host shows it: upper case, without dashes or spaces. Raises MalformedInput."""
    normal = code.strip().upper().replace("-", "").replace(" ", "")
    if len(normal) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in normal):
        reason = f"a join code is {CODE_LENGTH} letters and digits like K7P2QX, not {code!r}"
        if any(c in LOOK_ALIKES for c in normal):
            reason += " (codes never hold 0, 1, I, L or O, which look alike: check the code the host shows)"
        raise MalformedInput(reason)
    return normal


def name_look(name: str) -> str:
    """How a name looks at a table: two names that look the same are one name (as GameSetup.shown_names
    judges them: case, spaces and compatibility forms aside)."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def unique_name(name: str, taken: Sequence[str]) -> str:
    """`name`, or `name-2`, `name-3`... the first that looks like none of the `taken` names."""
    looks = {name_look(other) for other in taken}
    if name_look(name) not in looks:
        return name
    number = 2
    while name_look(f"{name[:36]}-{number}") in looks:
        number += 1
    return f"{name[:36]}-{number}"


CODE_KDF_N, CODE_KDF_R, CODE_KDF_P = 2**10, 8, 8
"""scrypt's cost: 1 MiB of memory (128 * r * N bytes; the p lanes run one after another in that memory) and
about 17 ms of one core here, for the attacker a memory traffic of N * r * p * 128 bytes a guess
(PROTOCOL §17.7 gives the figures of a brute force)."""


def code_key(code: str) -> bytes:
    """The lobby's MAC key, stretched so that a captured lobby message cannot be brute-forced within the
    lobby's life (PROTOCOL §17.7)."""
    return scrypt(encode_text(normal_code(code)), TAG_CODE, n=CODE_KDF_N, r=CODE_KDF_R, p=CODE_KDF_P, length=32)


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
        weakness = key_weakness(card.identity)
        if weakness is not None:
            raise MalformedInput(f"the identity key of {card.name!r} is refused: {weakness}")
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


@dataclass(frozen=True)
class LobbyState:
    """What a joiner's lobby shows: the game, how many seats the table has, and who is in so far."""

    game: str
    players: int
    cards: tuple[PlayerCard, ...]


class LobbyHost:
    """The lobby's host: listens on `bind` (tcp://HOST:PORT, `*` or 0 for any port) from construction on,
    and admits players while `gather` runs. A rematch's lobby is given the roster of the game before
    (`seats`): the players of that game who join keep their seats, newcomers come after them; and the hello
    nonces that lobby heard (`heard`), which prove the code no more in this one (it has the same code)."""

    def __init__(
        self, game: str, options: Mapping[str, str], *, players: int, host: PlayerCard, code: str, bind: str,
        seats: Sequence[bytes] = (), heard: Sequence[str] = (),
    ) -> None:  # fmt: skip
        self.game, self.options, self.players, self.code = game, dict(options), players, normal_code(code)
        self.seats = tuple(seats)
        self.cards: list[PlayerCard] = [host]
        self.nonce = host.lobby
        """This lobby's nonce: every card admitted signs it. The host's card brings it (new_lobby_nonce)."""
        self._key = code_key(code)
        self._listener = _listen(bind)
        address, port = self._listener.getsockname()[:2]
        self.endpoint = f"tcp://{address}:{port}"
        self._server: asyncio.Server | None = None
        self._links: set[Link] = set()
        self._unproven: Budget[Link] = Budget(UNPROVEN_CAP)
        self._proven: Budget[Link] = Budget(players)
        self._joiners: list[Link] = []
        self._hellos: dict[str, None] = dict.fromkeys(heard[-MAX_HELLOS_KEPT:])
        """The nonces of the hellos seen, so that a captured hello is no proof of the code."""
        self._admitted = asyncio.Event()
        self._starting = False

    async def gather(
        self,
        on_change: Callable[[list[PlayerCard]], None] | None = None,
        *,
        start_now: asyncio.Event | None = None,
        minimum: int = 2,
    ) -> Table:
        """Admit players until the table is full — or until `start_now` is set with at least `minimum`
        players in — then start the game."""
        if self._server is None:
            self._server = await asyncio.start_server(
                self._serve, sock=self._listener, limit=STREAM_LIMIT, backlog=ACCEPT_BATCH
            )
        while len(self.cards) < self.players:
            if start_now is not None and start_now.is_set():
                if len(self.cards) >= minimum:
                    break
                start_now.clear()
            self._admitted.clear()
            await _first_of(self._admitted, start_now)
            if self._admitted.is_set() and on_change is not None:
                on_change(list(self.cards))
        self._starting = True
        table = self.table_to_start()
        start: dict[str, Json] = {"type": "start", "setup": table.setup.to_wire()}
        start["cards"] = [card.to_wire() for card in table.cards]
        for joiner in self._joiners:
            joiner.send(_sealed(self._key, start))
        await asyncio.gather(*(joiner.flushed(START_FLUSH_S) for joiner in self._joiners))
        return table

    def hellos_heard(self) -> tuple[str, ...]:
        """The hello nonces this lobby remembers, oldest first (for its rematch's lobby)."""
        return tuple(self._hellos)

    def table_to_start(self) -> Table:
        """The table in seat order: the host first, then the players of the game before in their seats (a
        rematch), then the others as they joined. Seats are the host's to order in any lobby (PROTOCOL §4)."""
        before = {identity: seat for seat, identity in enumerate(self.seats)}
        joiners = sorted(self.cards[1:], key=lambda card: before.get(card.identity, len(before)))
        cards = (self.cards[0], *joiners)
        return Table(setup_of(self.game, self.options, cards), cards)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(reader, writer)
        self._links.add(link)
        try:
            await self._converse(link)
        except LINK_ERRORS:
            pass
        except asyncio.CancelledError:
            pass  # only at the loop's shutdown; Python 3.11's start_server logs a cancelled handler as an error
        finally:
            self._links.discard(link)
            self._unproven.discard(link)
            self._proven.discard(link)
            link.close()
            self._free_seat_of(link)

    def _free_seat_of(self, link: Link) -> None:
        """A joiner whose connection ended before the start left the lobby: its seat is free again, and
        everyone still there is told."""
        if self._starting or link not in self._joiners:
            return
        index = self._joiners.index(link)
        del self._joiners[index]
        del self.cards[index + 1]
        self._announce()

    async def _converse(self, link: Link) -> None:
        """A connection's life: a fresh sealed hello within HELLO_WITHIN_S, a card within ANSWER_WITHIN_S
        of the welcome, then it waits for the start. Any message that does not open ends it."""
        _drop(self._unproven.admit(link))
        async with asyncio.timeout(HELLO_WITHIN_S):
            first = await link.recv()
        refusal = self._refusal_of_first(first)
        if refusal is not None:
            link.send(_refused(refusal))
            return
        self._unproven.discard(link)
        _drop(self._proven.admit(link))
        async with asyncio.timeout(ANSWER_WITHIN_S):
            if not await self._seated(link, first):
                return
        self._proven.discard(link)
        while self._handled(link, await link.recv()):
            pass

    async def _seated(self, link: Link, raw: bytes) -> bool:
        """Answer messages, from `raw` on, until this connection holds a seat (True) or must end (False)."""
        while self._handled(link, raw):
            if link in self._joiners:
                return True
            raw = await link.recv()
        return False

    def _refusal_of_first(self, raw: bytes) -> str | None:
        """Why the first message of a connection proves no knowledge of the code (None: it does)."""
        message = _opened(self._key, raw)
        if message is None:
            return "wrong join code"
        hello = _hello_nonce(message)
        if hello is None:
            return "a connection to the lobby begins with a hello"
        if hello in self._hellos:
            return "this hello was heard before (a replayed hello)"
        self._hellos[hello] = None
        if len(self._hellos) > MAX_HELLOS_KEPT:
            del self._hellos[next(iter(self._hellos))]
        return None

    def _handled(self, link: Link, raw: bytes) -> bool:
        """Answer one message; False when the connection must end (the message does not open)."""
        message = _opened(self._key, raw)
        if message is None:
            link.send(_refused("wrong join code"))
            return False
        if message.get("type") == "hello":
            welcome: dict[str, Json] = {"type": "welcome", "lobby": self.nonce.hex(), "hello": _hello_nonce(message)}
            welcome["names"] = [card.name for card in self.cards]
            return link.send(_sealed(self._key, welcome))
        refusal = self._admit(link, raw)
        if refusal is not None:
            return link.send(_refused(refusal))
        self._announce()
        return True

    def _announce(self) -> None:
        """A new card: the roster to every joiner, and word to `gather` (which tells the host's screen)."""
        update: dict[str, Json] = {"type": "lobby", "game": self.game, "players": self.players}
        update["cards"] = [card.to_wire() for card in self.cards]
        for joiner in self._joiners:
            joiner.send(_sealed(self._key, update))
        self._admitted.set()

    def _admit(self, joiner: Link, raw: bytes) -> str | None:
        message = _opened(self._key, raw)
        if message is None:
            return "wrong join code"
        if message.get("type") != "join":
            return "expected a join request"
        if self._starting or len(self.cards) >= self.players:
            return "the lobby is full"
        try:
            card = PlayerCard.from_wire(message.get("card"))
        except MalformedInput as error:
            return error.reason
        if card.lobby != self.nonce:
            return "this card was signed for another lobby (a replayed join)"
        if any(card.identity == known.identity for known in self.cards):
            return "a player with this identity is already in the lobby"
        if any(name_look(card.name) == name_look(known.name) for known in self.cards):
            return f"the name {card.name!r} is taken at this table: choose another with --name"
        if any(card.contribution == known.contribution for known in self.cards):
            return "this card's contribution is already in the lobby (a replayed card)"
        if any(card.curve_public == known.curve_public or card.endpoint == known.endpoint for known in self.cards):
            return "a player with this network key or endpoint is already in the lobby"
        if joiner in self._joiners:
            return "this connection has already joined"
        self.cards.append(card)
        self._joiners.append(joiner)
        return None

    async def close_before_start(self, reason: str) -> None:
        """The host's player left before the game started: tell every joiner the lobby is closed (waiting at
        most START_FLUSH_S for that to be written), then close it."""
        if not self._starting:
            self._starting = True
            closing = _sealed(self._key, {"type": "closed", "reason": reason[:REASON_CHARS]})
            for joiner in self._joiners:
                joiner.send(closing)
            await asyncio.gather(*(joiner.flushed(START_FLUSH_S) for joiner in self._joiners))
        self.close()

    def close(self) -> None:
        """Stop listening and end every connection: at once if it left what it was sent unread, else once
        that has been written (each connection's handler then sees the end of its stream)."""
        if self._server is not None:
            self._server.close()
        self._listener.close()
        for link in list(self._links):
            if link.unsent():
                link.abort()
            else:
                link.close()


def _refused(reason: str) -> bytes:
    """A refusal, its reason cut to what a joiner shows (a reason may quote the message refused)."""
    return canonical({"type": "refused", "reason": reason[:REASON_CHARS]})


def _hello_nonce(message: Mapping[str, Json]) -> str | None:
    """The nonce of a well-formed hello (HELLO_NONCE_BYTES as hex), else None."""
    hello = message.get("hello")
    if message.get("type") != "hello" or not isinstance(hello, str) or len(hello) != 2 * HELLO_NONCE_BYTES:
        return None
    return hello if all(c in "0123456789abcdef" for c in hello) else None


def _drop(link: Link | None) -> None:
    """End a connection pushed out of its budget by a newer one."""
    if link is not None:
        link.abort()


def _listen(bind: str) -> socket.socket:
    """The lobby's listening socket on tcp://HOST:PORT (`*` or 0: any free port). Raises UsageError (the
    address and port come from the command line)."""
    host, _, port = bind.removeprefix("tcp://").rpartition(":")
    try:
        return listening_socket(host, 0 if port == "*" else int(port))
    except (OSError, ValueError, OverflowError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise UsageError(f"cannot open a lobby on {bind}: {reason}") from None


async def _first_of(event: asyncio.Event, other: asyncio.Event | None) -> None:
    """Wait until `event` or `other` is set."""
    waiters = {asyncio.ensure_future(e.wait()) for e in (event, other) if e is not None}
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


async def join_lobby(
    address: str,
    code: str,
    make_card: Callable[[bytes], PlayerCard],
    *,
    timeout_s: float,
    on_change: Callable[[LobbyState], None] | None = None,
    on_welcome: Callable[[list[str]], None] | None = None,
    open_within_s: float | None = None,
) -> Table:
    """Join the lobby at HOST:PORT with the card `make_card` signs for its nonce, and wait for its game to
    start. `on_welcome` hears the names already at the table before the card is made. `open_within_s`: how
    long to wait for the lobby to open (a rematch's, which opens when its host's player asks; by default as
    long as for an answer). Raises LobbyRefused (LobbyClosed when the host closes its lobby)."""
    key = code_key(code)
    within = min(ANSWER_WITHIN_S, timeout_s)
    link, nonce, names = await _welcomed_within(address, key, open_within_s or within)
    try:
        if on_welcome is not None:
            on_welcome(names)
        card = make_card(nonce)
        link.send(_sealed(key, {"type": "join", "card": card.to_wire()}))
        try:
            async with asyncio.timeout(within):
                first = await link.recv()
        except TimeoutError:
            raise LobbyRefused(f"no lobby answered at {address} within {within:.0f} s") from None
        return await asyncio.wait_for(_await_start(_Replay(first, link), key, card, on_change), timeout_s)
    except TimeoutError:
        raise LobbyRefused(f"no game started at {address} within {timeout_s:.0f} s") from None
    except LINK_ERRORS:
        raise LobbyRefused(f"the lobby at {address} closed the connection") from None
    finally:
        link.abort()


PROBE_WITHIN_S = 3.0


async def opens_with(addresses: Sequence[str], code: str) -> list[bool]:
    """For each lobby address, whether the lobby there welcomes a hello sealed with `code` (nothing else is
    sent: a wrong code is refused at its first message). The code is never shown to a lobby in the clear."""
    key = code_key(code)

    async def opens(address: str) -> bool:
        try:
            link, _, _ = await _welcomed_within(address, key, PROBE_WITHIN_S)
        except LobbyRefused:
            return False
        link.abort()
        return True

    return list(await asyncio.gather(*(opens(address) for address in addresses)))


async def reopened(address: str, code: str, every_s: float) -> None:
    """Return once the lobby at `address` welcomes a hello sealed with `code`: a rematch's lobby, which its host
    opens again when its player asks. Nothing but hellos is sent; tried every `every_s` or so."""
    key = code_key(code)
    while True:
        try:
            link, _, _ = await _welcomed_within(address, key, every_s)
        except LobbyRefused:
            await asyncio.sleep(every_s)
            continue
        link.abort()
        return


async def _welcomed_within(address: str, key: bytes, within_s: float) -> tuple[Link, bytes, list[str]]:
    """A link to the lobby, its nonce and the names at its table, from the welcome to a hello. A lobby not
    (yet) listening, or one that drops the connection before answering, is tried again until `within_s` is
    up. Raises LobbyRefused."""
    host, _, port = address.rpartition(":")
    pause = FIRST_RETRY_S
    try:
        async with asyncio.timeout(within_s):
            while True:
                link: Link | None = None
                try:
                    link = await open_link(host.strip("[]"), int(port))
                    return link, *await _await_welcome(link, key)
                except LINK_ERRORS:
                    if link is not None:
                        link.abort()
                    await asyncio.sleep(pause)
                    pause = min(2 * pause, RETRY_S)
                except BaseException:
                    if link is not None:
                        link.abort()
                    raise
    except TimeoutError:
        raise LobbyRefused(f"no lobby answered at {address} within {within_s:.0f} s") from None


async def _await_welcome(link: Link, key: bytes) -> tuple[bytes, list[str]]:
    """The nonce of the lobby the host opened and the names at its table, from its answer to this hello."""
    hello = secrets.token_hex(HELLO_NONCE_BYTES)
    link.send(_sealed(key, {"type": "hello", "hello": hello}))
    while True:
        raw = await link.recv()
        _raise_if_refused(raw)
        message = _opened(key, raw)
        if message is None or message.get("type") != "welcome" or message.get("hello") != hello:
            continue
        lobby = message.get("lobby")
        names = message.get("names")
        taken = [name for name in names if isinstance(name, str)] if isinstance(names, list) else []
        if isinstance(lobby, str):
            try:
                return hex_bytes(lobby, "a lobby nonce", LOBBY_NONCE_BYTES), taken
            except MalformedInput:
                continue


class _Replay:
    """A link whose first message was already read: it is given again, then the link's own."""

    def __init__(self, first: bytes, link: Link) -> None:
        self._first: bytes | None = first
        self._link = link

    async def recv(self) -> bytes:
        first, self._first = self._first, None
        return first if first is not None else await self._link.recv()


def _raise_if_refused(raw: bytes) -> None:
    if len(raw) > MAX_LOBBY_MESSAGE:
        return
    try:
        plain = json.loads(raw)
    except (ValueError, RecursionError):
        return
    if isinstance(plain, dict) and plain.get("type") == "refused":
        raise LobbyRefused(f"the lobby refused to let you in: {str(plain.get('reason'))[:REASON_CHARS]}")


class _Receiver(Protocol):
    async def recv(self) -> bytes: ...


async def _await_start(
    link: _Receiver, key: bytes, card: PlayerCard, on_change: Callable[[LobbyState], None] | None
) -> Table:
    while True:
        raw = await link.recv()
        _raise_if_refused(raw)
        message = _opened(key, raw)
        if message is None:
            continue
        if message.get("type") == "closed":
            raise LobbyClosed(f"the host closed the lobby: {str(message.get('reason'))[:REASON_CHARS]}")
        cards = [PlayerCard.from_wire(c) for c in as_list(message.get("cards"), "the cards")]
        if message.get("type") == "lobby" and on_change is not None:
            game, players = message.get("game"), message.get("players")
            seats = players if type(players) is int and len(cards) <= players <= MAX_TABLE else len(cards)
            on_change(LobbyState(game if isinstance(game, str) else "", seats, tuple(cards)))
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
