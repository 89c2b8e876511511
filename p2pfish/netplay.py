"""Networked play from the command line: `host`, `join` and `resume` for one peer.

Each peer keeps one SQLite store per game (its secrets, every message it accepted, and what it needs
to rejoin the mesh), so a peer killed at any point can be started again with `p2pfish resume` and
finish the game with nothing lost.
"""

import asyncio
import ipaddress
import json
import os
import random
import resource
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import zmq.asyncio

from p2pfish.core.actions import Dealt
from p2pfish.core.errors import P2pfishError, UsageError, usage_errors
from p2pfish.core.player import Player
from p2pfish.core.text import printable, printable_lines
from p2pfish.core.wire import Json, as_list
from p2pfish.crypto.identity import Identity, load_or_create
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.net.joincode import new_join_code
from p2pfish.net.lobby import (
    LobbyHost,
    PlayerCard,
    StartRefused,
    Table,
    join_lobby,
    new_lobby_nonce,
    normal_code,
)
from p2pfish.net.mesh import Mesh, MeshPeer, new_curve_keypair
from p2pfish.net.node import NodeEvent, NodeTimers, PeerNode, PeerSilent
from p2pfish.paths import state_dir, write_private_file
from p2pfish.session.session import Finished, Session, Stopped
from p2pfish.session.setup import SHOWN_NAME_CHARS, GameSetup
from p2pfish.session.store import SqliteStore, Store

if TYPE_CHECKING:
    from p2pfish.net.discovery import Advertiser, LobbyAd

MESH_RECORD = "net/mesh"


class PeerVariant(Protocol):
    """How a peer differs from an honest one. Players' peers never do; the test tools' hostile peers do
    (p2pfish/tools/cheats.py), and are started through the tools alone."""

    def card_name(self, name: str) -> str: ...

    def lobby_host(self, game: str, options: dict[str, str], **kwargs: Any) -> LobbyHost: ...

    def new_session(self, setup: GameSetup, seat: int, signer: Identity, store: Store, **kwargs: Any) -> Session: ...

    def resume_session(self, store: Store, signer: Identity, **kwargs: Any) -> Session: ...


class HonestPeer:
    """The peer every player runs."""

    def card_name(self, name: str) -> str:
        return name

    def lobby_host(self, game: str, options: dict[str, str], **kwargs: Any) -> LobbyHost:
        return LobbyHost(game, options, **kwargs)

    def new_session(self, setup: GameSetup, seat: int, signer: Identity, store: Store, **kwargs: Any) -> Session:
        return Session(setup, seat, signer, store, **kwargs)

    def resume_session(self, store: Store, signer: Identity, **kwargs: Any) -> Session:
        return Session.resume(store, signer, **kwargs)


HONEST = HonestPeer()


@dataclass(frozen=True)
class PeerOptions:
    name: str
    bot: str
    seed: int | None
    identity_dir: str | None
    store: str | None
    transcript: str | None
    json: bool
    timers: NodeTimers
    variant: PeerVariant = HONEST


@contextmanager
def zmq_context() -> Iterator[zmq.asyncio.Context]:
    """The process's one ZeroMQ context, handed to its mesh; terminated once, at the end, after the mesh
    closed (its sockets' linger lets a goodbye leave). Sockets still open then are closed at once."""
    context = zmq.asyncio.Context()
    try:
        yield context
    finally:
        context.destroy(linger=0)


def local_address_towards(host: str) -> str:
    """The local IPv4 address that reaches `host` (a UDP 'connect' sends nothing)."""
    if host.startswith("127.") or host == "localhost":
        return "127.0.0.1"
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect((host, 9))
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def check_ipv4(address: str) -> None:
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        raise UsageError(f"--bind takes an IPv4 address such as 0.0.0.0 or 192.168.1.20, not {address!r}") from None


def primary_address() -> str:
    """This machine's LAN address (what a 'connect' of a UDP socket picks; it sends nothing)."""
    return local_address_towards("10.255.255.255")


def split_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"an address looks like HOST:PORT, not {address!r}")
    return host, int(port)


def say(options: PeerOptions, text: str) -> None:
    """A line for the terminal or the log: one printable line, since it may hold what another peer sent (a
    stop report's reason with line breaks would print lines of its choosing). With --json it goes to stderr:
    stdout then holds the event lines alone."""
    print(printable(text), file=sys.stderr if options.json else sys.stdout, flush=True)


EVENT = "event"
"""The key naming an event line's kind: `lobby`, `started`, `result` (README, "Events")."""


def emit(options: PeerOptions, event: str, fields: dict[str, Json]) -> None:
    """With --json: one event line on stdout, a JSON object whose first key is "event". Without: nothing."""
    if options.json:
        print(json.dumps({EVENT: event, **fields}), flush=True)


class Frontend(Protocol):
    """Who plays this seat: a headless bot (BotFrontend) or a person at the terminal UI."""

    start_now: asyncio.Event | None
    """Set by a host's player to start before the table is full (None: wait until it is full)."""

    def note(self, text: str) -> None: ...
    def lobby_open(self, title: str, address: str, code: str, wanted: int) -> None: ...
    def lobby_changed(self, cards: list[PlayerCard], wanted: int) -> None: ...
    def player(self, session: Session) -> Player | None: ...
    def started(self, session: Session, node: PeerNode, store: Path) -> None: ...
    def event(self, event: NodeEvent) -> None: ...
    async def finished(self, session: Session, node: PeerNode) -> None: ...


class BotFrontend:
    """A headless bot peer: it plays by itself and tells what happens in lines of text; with --json, also in
    event lines on stdout for the tools that start it (`lobby`, `started`, and `result` at the end)."""

    start_now: asyncio.Event | None = None

    def __init__(self, options: PeerOptions) -> None:
        self.options = options
        self.names: tuple[str, ...] = ()

    def note(self, text: str) -> None:
        say(self.options, text)

    def lobby_open(self, title: str, address: str, code: str, wanted: int) -> None:
        if self.options.json:
            emit(self.options, "lobby", {"address": address, "code": code, "players": wanted or None})
        else:
            print(f"LOBBY {address} CODE {code}", flush=True)
        self.note(f"{title} lobby open at {address}, join code {code}; waiting for {wanted - 1}")

    def lobby_changed(self, cards: list[PlayerCard], wanted: int) -> None:
        self.note(f"  {printable(cards[-1].name, SHOWN_NAME_CHARS)} joined ({len(cards)}/{wanted})")

    def player(self, session: Session) -> Player | None:
        return make_bot(self.options.bot, session.setup.game, random.Random(self.options.seed))

    def started(self, session: Session, node: PeerNode, store: Path) -> None:
        self.names = session.setup.shown_names
        setup = session.setup
        fields: dict[str, Json] = {"game": setup.game, "players": setup.players, "session": setup.session_id.hex()}
        emit(self.options, "started", fields | {"seat": session.seat, "store": str(store)})
        self.note(f"game {session.setup.session_id.hex()[:16]} starts: you are seat {session.seat}; store {store}")

    def event(self, event: NodeEvent) -> None:
        names = self.names
        if isinstance(event, PeerSilent):
            self.note(f"  waiting for {names[event.seat]} (silent for {event.seconds:.0f} s)")
        elif isinstance(event, Stopped):
            self.note(f"game stopped: {event.fault.describe(names)}")
        elif isinstance(event, Finished):
            scores = zip(names, event.outcome.scores, strict=True)
            self.note("game over: " + ", ".join(f"{name} {points}" for name, points in scores))

    async def finished(self, session: Session, node: PeerNode) -> None:
        return None


async def host_game(
    game: str,
    players: int,
    *,
    game_options: dict[str, str],
    bind_host: str,
    port: int,
    code: str | None,
    advertise: bool,
    options: PeerOptions,
    front: Frontend,
    context: zmq.asyncio.Context,
) -> int:
    with usage_errors():
        rules = get_rules(game)
        rules.new_game(players, game_options)
        join_code = normal_code(code) if code else new_join_code()
    check_ipv4(bind_host)
    identity = load_or_create(options.identity_dir)
    public, secret = new_curve_keypair()
    mesh = Mesh(secret, f"tcp://{bind_host}:*", context=context)
    endpoint = mesh.endpoint.replace("0.0.0.0", primary_address()) if bind_host == "0.0.0.0" else mesh.endpoint
    card = PlayerCard.make(identity, options.variant.card_name(options.name), public, endpoint, new_lobby_nonce())
    try:
        bind = f"tcp://{bind_host}:{port or '*'}"
        lobby = options.variant.lobby_host(game, game_options, players=players, host=card, code=join_code, bind=bind)
    except P2pfishError:
        mesh.close()
        raise
    host, lobby_port = split_address(lobby.endpoint.removeprefix("tcp://"))
    host = primary_address() if host == "0.0.0.0" else host
    front.lobby_open(rules.title, f"{host}:{lobby_port}", lobby.code, players)
    advertiser, ad = (
        await _advertise(game, players, host, lobby_port, bind_host=bind_host, options=options, front=front)
        if advertise
        else (None, None)
    )

    updates: set[asyncio.Task[None]] = set()

    def joined(cards: list[PlayerCard]) -> None:
        front.lobby_changed(cards, players)
        if advertiser is not None and ad is not None and len(cards) < players:
            update = asyncio.ensure_future(advertiser.update(replace(ad, joined=len(cards))))
            updates.add(update)
            update.add_done_callback(updates.discard)

    try:
        table = await lobby.gather(joined, start_now=front.start_now, minimum=rules.min_players)
    except BaseException:
        mesh.close()
        raise
    finally:
        lobby.close()
        if advertiser is not None:
            await advertiser.close()
    return await _play(table, 0, identity=identity, mesh=mesh, secret=secret, options=options, front=front)


async def _advertise(
    game: str, players: int, host: str, port: int, *, bind_host: str, options: PeerOptions, front: Frontend
) -> tuple["Advertiser | None", "LobbyAd | None"]:
    """Announce the lobby on the LAN (never from loopback); a failure only means no announcement. mDNS is
    imported only here and where lobbies are looked for: a peer that needs no discovery never loads it."""
    if host.startswith("127."):
        return None, None
    from p2pfish.net.discovery import Advertiser, LobbyAd, new_lobby_id

    try:
        ad = LobbyAd(options.name[:20], game, players, 1, host, port, new_lobby_id())
        advertiser = Advertiser()
        await advertiser.start(ad, None if bind_host == "0.0.0.0" else [bind_host])
    except (ValueError, OSError) as error:
        front.note(f"  (not announced on the LAN: {error})")
        return None, None
    return advertiser, ad


async def find_lobby(timeout_s: float) -> str:
    """The address of the one open lobby on the LAN; an error listing them when there are several."""
    from p2pfish.net.discovery import browse, format_lobbies

    ads = await browse(timeout_s)
    if len(ads) == 1:
        return f"{ads[0].address}:{ads[0].port}"
    if not ads:
        raise UsageError("no open lobby found on this network: give the host's HOST:PORT")
    raise UsageError(
        "several lobbies are open; pick one with HOST:PORT:", details=tuple(format_lobbies(ads).split("\n"))
    )


async def list_lobbies(timeout_s: float) -> int:
    from p2pfish.net.discovery import browse, format_lobbies

    print(printable_lines(format_lobbies(await browse(timeout_s))))
    return 0


async def join_game(
    address: str | None,
    code: str,
    options: PeerOptions,
    wait_s: float,
    front: Frontend,
    *,
    context: zmq.asyncio.Context,
) -> int:
    with usage_errors():
        code = normal_code(code)
    address = address or await find_lobby(3.0)
    host, _ = split_address(address)
    identity = load_or_create(options.identity_dir)
    public, secret = new_curve_keypair()
    mesh = Mesh(secret, f"tcp://{local_address_towards(host)}:*", context=context)
    front.lobby_open("the", address, code, 0)
    seen: list[PlayerCard] = []

    def changed(cards: list[PlayerCard]) -> None:
        seen[:] = cards
        front.lobby_changed(cards, 0)

    try:

        def make_card(lobby: bytes) -> PlayerCard:
            return PlayerCard.make(identity, options.variant.card_name(options.name), public, mesh.endpoint, lobby)

        table = await join_lobby(address, code, make_card, timeout_s=wait_s, on_change=changed)
    except StartRefused as refused:
        mesh.close()
        mine = [seat for seat, card in enumerate(seen) if card.identity == identity.public_bytes]
        return _refused_start(refused, mine[0] if mine else None, options, front)
    except BaseException:
        mesh.close()
        raise
    seat = table.seat_of(identity.public_bytes)
    return await _play(table, seat, identity=identity, mesh=mesh, secret=secret, options=options, front=front)


def _refused_start(refused: StartRefused, seat: int | None, options: PeerOptions, front: Frontend) -> int:
    """The host started a game this peer must not play: say so, and blame the host, with its message."""
    front.note(f"refused to play: {refused.reason} (blamed on the host, seat 0)")
    if options.json:
        fault: dict[str, Json] = {"seat": 0, "kind": "violation", "reason": refused.reason, "evidence": 1}
        result: dict[str, Json] = {"seat": seat, "session": None, "finished": False, "outcome": None, "fault": fault}
        result |= {"transcript": None, "store": None, "messages": 0, "dealt": 0, "peak_rss_mb": _peak_rss_mb()}
        emit(options, "result", result)
    return 1


def _peak_rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM starts afresh at exec; getrusage's maximum (the
    fallback elsewhere) carries over the peak of the process this one was forked from."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


async def _play(
    table: Table, seat: int, *, identity: Identity, mesh: Mesh, secret: str, options: PeerOptions, front: Frontend
) -> int:
    setup = table.setup
    try:
        path, store = _new_store(options, f"{setup.session_id.hex()[:16]}-seat{seat}.sqlite")
    except BaseException:
        mesh.close()
        raise
    store.save_secret(
        MESH_RECORD,
        {
            "curve_secret": secret,
            "cards": [card.to_wire() for card in table.cards],
            "bot": options.bot,
            "seed": options.seed,
            "name": options.name,
        },
    )
    session = options.variant.new_session(setup, seat, identity, store, drop_after=options.timers.drop_after_s)
    return await _run(session, mesh, table.cards, options=options, path=path, store=store, front=front)


def _new_store(options: PeerOptions, default_name: str) -> tuple[Path, SqliteStore]:
    """The game's store: --store, else a new file in the state folder (made owner-only if missing)."""
    if options.store:
        path = Path(options.store)
    else:
        state_dir().mkdir(mode=0o700, parents=True, exist_ok=True)
        path = state_dir() / default_name
    return path, SqliteStore(path, new=True)


async def resume_game(
    store_path: str,
    options: PeerOptions,
    make_front: Callable[[PeerOptions], Frontend],
    *,
    context: zmq.asyncio.Context,
) -> int:
    path = Path(store_path)
    if not os.path.lexists(path):
        raise UsageError(f"no store at {store_path}")
    store = SqliteStore(path)
    record = store.load_secrets().get(MESH_RECORD)
    if not isinstance(record, dict) or not {"cards", "curve_secret", "bot", "name"} <= set(record):
        raise UsageError(f"{store_path} holds no networked game to resume")
    identity = load_or_create(options.identity_dir)
    session = options.variant.resume_session(store, identity, drop_after=options.timers.drop_after_s)
    assert session.seat is not None
    if session.setup.roster[session.seat] != identity.public_bytes:
        raise UsageError("this game was played with another identity (use the same --identity-dir)")
    cards = tuple(PlayerCard.from_wire(card) for card in as_list(record["cards"], "the stored cards"))
    mesh = Mesh(str(record["curve_secret"]), cards[session.seat].endpoint, context=context)
    bot = str(record["bot"]) if options.bot == "" else options.bot
    seed = record.get("seed")
    resumed = PeerOptions(
        str(record["name"]), bot, seed if isinstance(seed, int) else None, options.identity_dir, str(path),
        options.transcript, options.json, options.timers, options.variant,
    )  # fmt: skip
    front = make_front(resumed)
    front.note(f"resuming game {session.setup.session_id.hex()[:16]} as seat {session.seat} at turn {session.turn}")
    return await _run(session, mesh, cards, options=resumed, path=path, store=store, front=front)


async def _run(
    session: Session, mesh: Mesh, cards: tuple[PlayerCard, ...], *, options: PeerOptions, path: Path,
    store: SqliteStore, front: Frontend,
) -> int:  # fmt: skip
    """Play the game to its end, then close the store and say how it went."""
    assert session.seat is not None
    node: PeerNode | None = None
    try:
        mesh.link(session.seat, [MeshPeer(card.endpoint, card.curve_public) for card in cards])
        node = PeerNode(session, mesh, front.player(session), timers=options.timers, on_event=front.event)
        front.started(session, node, path)
        await node.run()
    finally:
        mesh.close(done_with=() if node is None else node.done_with())
    try:
        if options.transcript:
            write_private_file(Path(options.transcript), b"\n".join(session.transcript()) + b"\n", "transcript")
        outcome = session.outcome()
        result: dict[str, Json] = {
            "seat": session.seat,
            "session": session.session_id.hex(),
            "finished": session.finished,
            "outcome": None if outcome is None else outcome.to_wire(),
            "fault": None if session.fault is None else {"seat": session.fault.seat, "kind": session.fault.kind,
                                                           "reason": session.fault.reason,
                                                           "evidence": len(session.fault.evidence)},
            "transcript": options.transcript,
            "store": str(path),
            "messages": node.sent + node.received,
            "dealt": sum(isinstance(entry.action, Dealt) for entry in session.log),
            "peak_rss_mb": _peak_rss_mb(),
        }  # fmt: skip
        await front.finished(session, node)
    finally:
        store.close()
    emit(options, "result", result)
    return 0 if session.finished else 1


def run(coroutine: Any) -> int:
    code: int = asyncio.run(coroutine)
    return code
