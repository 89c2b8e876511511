"""Networked play from the command line: `host`, `join` and `resume` for one peer.

Each peer keeps one SQLite store per game (its secrets, every message it accepted, and what it needs
to rejoin the mesh), so a peer killed at any point can be started again with `p2pfish resume` and
finish the game with nothing lost.
"""

import asyncio
import contextlib
import ipaddress
import json
import os
import random
import resource
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import zmq.asyncio

from p2pfish.announcing import LobbyAnnouncement
from p2pfish.botpeers import BotPeers, BotSeat
from p2pfish.bots import DEFAULT_MOVE_S
from p2pfish.core.actions import Dealt
from p2pfish.core.errors import P2pfishError, UsageError, usage_errors
from p2pfish.core.game import AnyRules
from p2pfish.core.player import Player
from p2pfish.core.text import printable, printable_lines
from p2pfish.core.wire import Json, as_list
from p2pfish.crypto.identity import Identity, load_or_create
from p2pfish.forkedpeer import BotSpawner
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.invocation import join_line
from p2pfish.net.addresses import lan_addresses, local_address_towards, primary_address
from p2pfish.net.joincode import new_join_code
from p2pfish.net.lobby import (
    START_FLUSH_S,
    LobbyHost,
    LobbyState,
    PlayerCard,
    StartRefused,
    Table,
    join_lobby,
    new_lobby_nonce,
    normal_code,
    opens_with,
    unique_name,
)
from p2pfish.net.mesh import Mesh, MeshPeer, new_curve_keypair
from p2pfish.net.node import NodeEvent, NodeTimers, PeerNode, PeerSilent
from p2pfish.paths import state_dir, write_private_file
from p2pfish.resumable import transcript_beside
from p2pfish.session.session import Finished, Session, SettleEnded, Settlement, Stopped, stored_setup
from p2pfish.session.setup import SHOWN_NAME_CHARS, GameSetup
from p2pfish.session.store import SqliteStore, Store

if TYPE_CHECKING:
    from p2pfish.bots.engine import EnginePlayer

MESH_RECORD = "net/mesh"


class PeerVariant(Protocol):
    """How a peer differs from an honest one. Players' peers never do; the test tools' hostile peers do
    (p2pfish/tools/cheats.py), and are started through the tools alone."""

    def card_name(self, name: str) -> str: ...

    def lobby_host(self, game: str, options: dict[str, str], **kwargs: Any) -> LobbyHost: ...

    def new_session(
        self, setup: GameSetup, seat: int, signer: Identity, store: Store, *, rules: AnyRules, **kwargs: Any
    ) -> Session: ...

    def resume_session(self, store: Store, signer: Identity, *, rules: AnyRules, **kwargs: Any) -> Session: ...


class HonestPeer:
    """The peer every player runs."""

    def card_name(self, name: str) -> str:
        return name

    def lobby_host(self, game: str, options: dict[str, str], **kwargs: Any) -> LobbyHost:
        return LobbyHost(game, options, **kwargs)

    def new_session(
        self, setup: GameSetup, seat: int, signer: Identity, store: Store, *, rules: AnyRules, **kwargs: Any
    ) -> Session:
        return Session(setup, seat, signer, store, rules=rules, **kwargs)

    def resume_session(self, store: Store, signer: Identity, *, rules: AnyRules, **kwargs: Any) -> Session:
        return Session.resume(store, signer, rules=rules, **kwargs)


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
    engine: str | None = None
    """An engine program's command line (protocol/ENGINE.md) that plays the seat; `bot` is then its fallback."""
    engine_move_s: float = DEFAULT_MOVE_S
    name_is_default: bool = False
    """The name was not given (--name): at a table where it is taken, the peer takes `name-2`, `name-3`..."""
    tethered: bool = False
    """A headless peer started by another process (botpeers.py): it leaves when its standard input closes."""


@contextmanager
def zmq_context() -> Iterator[zmq.asyncio.Context]:
    """The process's one ZeroMQ context, handed to its mesh; terminated once, at the end, after the mesh
    closed (its sockets' linger lets a goodbye leave). Sockets still open then are closed at once."""
    context = zmq.asyncio.Context()
    try:
        yield context
    finally:
        context.destroy(linger=0)


@contextmanager
def game_context(context: zmq.asyncio.Context, fresh: bool) -> Iterator[zmq.asyncio.Context]:
    """The ZeroMQ context of a game: the process's, or for a rematch a new one, terminated after it (a mesh's
    ZAP handler cannot bind again in a context where an earlier mesh's handler was bound)."""
    if not fresh:
        yield context
        return
    with zmq_context() as new:
        yield new


def check_ipv4(address: str) -> None:
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        raise UsageError(f"--bind takes an IPv4 address such as 0.0.0.0 or 192.168.1.20, not {address!r}") from None


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
    left_lobby: asyncio.Event | None
    """Set when the player leaves the lobby before the game starts (None: a bot, which never leaves)."""

    def note(self, text: str) -> None: ...
    def lobby_open(self, title: str, address: str, code: str, wanted: int, more: Sequence[str] = ()) -> None:
        """The lobby is open at `address` (a joiner's: the one it joins), and at the `more` addresses too;
        `wanted` is the table's seat count, 0 while a joiner does not know it yet."""

    def lobby_changed(self, cards: list[PlayerCard], wanted: int, title: str = "") -> None: ...
    def player(self, session: Session) -> Player | None: ...
    def started(self, session: Session, node: PeerNode, store: Path) -> None: ...
    def event(self, event: NodeEvent) -> None: ...
    async def finished(self, session: Session, node: PeerNode) -> None: ...
    def rematch(self) -> "Frontend | None":
        """The front of the rematch this seat's player asked for once the game was over, else None."""


class BotFrontend:
    """A headless bot peer: it plays by itself and tells what happens in lines of text; with --json, also in
    event lines on stdout for the tools that start it (`lobby`, `started`, and `result` at the end). A
    tethered one (options.tethered) leaves once its standard input closes: from the lobby, or from a game
    unfinished as a player who means to come back (botpeers.py)."""

    start_now: asyncio.Event | None = None

    def __init__(self, options: PeerOptions) -> None:
        self.options = options
        self.names: tuple[str, ...] = ()
        self.engine: EnginePlayer | None = None
        self._in_lobby: list[str] = []
        self.left_lobby: asyncio.Event | None = asyncio.Event() if options.tethered else None
        self._node: PeerNode | None = None
        self._tether: threading.Thread | None = None
        self._untied = False

    def _watch_tether(self) -> None:
        """Once, from the event loop: a thread reads standard input to its end, then the peer leaves."""
        if not self.options.tethered or self._tether is not None:
            return
        loop = asyncio.get_running_loop()

        def read_to_the_end() -> None:
            with contextlib.suppress(OSError):
                while os.read(sys.stdin.fileno(), 4096):
                    pass
            with contextlib.suppress(RuntimeError):  # the loop closed: the peer is done anyway
                loop.call_soon_threadsafe(self._untethered)

        self._tether = threading.Thread(target=read_to_the_end, name="tether", daemon=True)
        self._tether.start()

    def _untethered(self) -> None:
        self._untied = True
        node = self._node
        if node is None:
            if self.left_lobby is not None:  # after a moment: a start its host sent before it went is played
                asyncio.get_running_loop().call_later(START_FLUSH_S, self.left_lobby.set)
        elif not (node.session.finished or node.session.fault is not None):
            self.note("the process that started this bot is gone: leaving the game until it comes back")
            node.leave()

    def note(self, text: str) -> None:
        say(self.options, text)

    def lobby_open(self, title: str, address: str, code: str, wanted: int, more: Sequence[str] = ()) -> None:
        self._watch_tether()
        if self.options.json:
            fields: dict[str, Json] = {"address": address, "code": code, "players": wanted or None}
            emit(self.options, "lobby", fields | {"addresses": [address, *more]})
        else:
            print(f"LOBBY {address} CODE {code}", flush=True)
        if wanted:
            self._in_lobby = [printable(self.options.name, SHOWN_NAME_CHARS)]
            also = f" (also at {', '.join(more)})" if more else ""
            self.note(f"{title} lobby open at {address}{also}, join code {code}; waiting for {wanted - 1}")
            self.note(f"  to join: {join_line(address, code)}")
        else:
            self.note(f"joining the lobby at {address} with code {code}")

    def lobby_changed(self, cards: list[PlayerCard], wanted: int, title: str = "") -> None:
        names = [printable(card.name, SHOWN_NAME_CHARS) for card in cards]
        before, self._in_lobby = self._in_lobby, names
        seats = f"({len(cards)}/{wanted})" if wanted else f"({len(cards)})"
        if not before:
            self.note(f"  {title or 'the'} lobby: {', '.join(names)} {seats}")
            return
        for name in names:
            if name not in before:
                self.note(f"  {name} joined {seats}")
        for name in before:
            if name not in names:
                self.note(f"  {name} left {seats}")

    def player(self, session: Session) -> Player | None:
        bot = make_bot(self.options.bot, session.setup.game, random.Random(self.options.seed))
        if self.options.engine is None:
            return bot
        from p2pfish.bots.engine import EnginePlayer  # loaded only for a seat an engine plays

        setup, seat = session.setup, session.seat
        assert seat is not None
        self.engine = EnginePlayer(
            self.options.engine, game=setup.game, title=get_rules(setup.game).title, players=setup.players,
            seat=seat, options=dict(setup.options), fallback=bot, move_s=self.options.engine_move_s, note=self.note,
        )  # fmt: skip
        return self.engine

    def started(self, session: Session, node: PeerNode, store: Path) -> None:
        self.names = session.setup.shown_names
        self._node = node
        self._watch_tether()
        if self._untied:  # its standard input closed between the lobby and the game
            asyncio.get_running_loop().call_soon(self._untethered)
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
        elif isinstance(event, SettleEnded):
            ended = event.settlement
            scores = zip(names, ended.outcome.scores, strict=True)
            self.note(
                f"game ended early without {names[ended.gone]}, with the scores so far: "
                + ", ".join(f"{name} {points}" for name, points in scores)
            )

    async def finished(self, session: Session, node: PeerNode) -> None:
        if self.engine is not None:
            self.engine.close(session.outcome())

    def rematch(self) -> None:
        """A headless peer plays one game (a host's bots are started again for its rematch: botpeers.py)."""
        return None


@dataclass(frozen=True)
class Hosted:
    """A game this peer hosted, as its rematch takes it up: the lobby's port and code, and who sat where."""

    status: int
    port: int
    code: str
    roster: tuple[bytes, ...]
    names: tuple[str, ...]
    over: bool
    """The game finished or stopped (else its player left it, meaning to come back)."""
    hellos: tuple[str, ...]
    """The hello nonces its lobby heard: none proves the code to the rematch's lobby, which has the same code."""


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
    bots: BotPeers | None = None,
    fill: int = 0,
) -> int:
    """Host a game: open the lobby (seating `fill` of the `bots` in it), play, and stop the bots once the game
    is over (when its player left it meaning to resume, they leave it the same way, to come back with it).
    A rematch its player asks for on the end screen opens the lobby again, on the same port with the same
    code, and seats the same bots again; the players of the game before keep their seats."""
    before: Hosted | None = None
    while True:
        try:
            with game_context(context, before is not None) as this_context:
                hosted = await _host_game(
                    game, players, game_options=game_options, bind_host=bind_host, port=port, code=code,
                    advertise=advertise, options=options, front=front, context=this_context, bots=bots, fill=fill,
                    before=before,
                )  # fmt: skip
        except BaseException:
            if bots is not None:
                bots.stop()
            raise
        following = front.rematch() if hosted is not None and hosted.over else None
        if bots is not None and hosted is not None and not hosted.over:
            bots.release()
        elif bots is not None:
            bots.stop()
            if following is None:
                bots.remove_files()
        if hosted is None:
            return 0
        if following is None:
            return hosted.status
        front, port, code, before = following, hosted.port, hosted.code, hosted


async def _host_game(
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
    bots: BotPeers | None,
    fill: int,
    before: Hosted | None,
) -> Hosted | None:
    """One game hosted; None if its player left the lobby."""
    with usage_errors():
        rules = get_rules(game)
        rules.new_game(players, game_options)
        join_code = normal_code(code) if code else new_join_code()
    check_ipv4(bind_host)
    identity = load_or_create(options.identity_dir)
    public, secret = new_curve_keypair()
    mesh = Mesh(secret, f"tcp://{bind_host}:*", context=context)
    everywhere = bind_host == "0.0.0.0"
    endpoint = mesh.endpoint.replace("0.0.0.0", primary_address()) if everywhere else mesh.endpoint
    card = PlayerCard.make(identity, options.variant.card_name(options.name), public, endpoint, new_lobby_nonce())
    seats, heard = ((), ()) if before is None else (before.roster, before.hellos)
    try:
        bind = f"tcp://{bind_host}:{port or '*'}"
        lobby = options.variant.lobby_host(
            game, game_options, players=players, host=card, code=join_code, bind=bind, seats=seats, heard=heard
        )
    except P2pfishError:
        mesh.close()
        raise
    _, lobby_port = split_address(lobby.endpoint.removeprefix("tcp://"))
    hosts = (lan_addresses() or [primary_address()]) if everywhere else [bind_host]
    shown = [f"{shown_host}:{lobby_port}" for shown_host in hosts]
    front.lobby_open(rules.title, shown[0], lobby.code, players, shown[1:])
    if before is not None:
        front.note("A rematch: the lobby is open again with the same code; the others join it by pressing r.")
    if bots is not None:
        bots.open(shown[0], lobby.code)
        if before is None:
            for _ in range(fill):
                bots.add()
        else:
            bots.again(list(before.names))
    announcement = (
        LobbyAnnouncement(options.name, game, players, hosts, lobby_port, bind_host=bind_host, note=front.note)
        if advertise
        else None
    )

    def joined(cards: list[PlayerCard]) -> None:
        front.lobby_changed(cards, players, rules.title)
        if announcement is not None:
            announcement.seated(len(cards))

    try:
        table = await unless_left(front, lobby.gather(joined, start_now=front.start_now, minimum=rules.min_players))
        if table is None:
            await lobby.close_before_start("the host left")
    except BaseException:
        mesh.close()
        raise
    finally:
        lobby.close()
        if announcement is not None:
            await announcement.close()
    if table is None:
        mesh.close()
        if bots is not None:
            bots.stop()
        say(options, "You left the lobby; the players in it were told.")
        return None
    kept: Json = None
    if bots is not None:
        seated: list[Json] = [dict(entry) for entry in bots.seats(table.setup.names)]
        kept = {"folder": str(bots.workdir), "seed": bots.seed, "bots": seated}
    played = await _play(table, 0, identity=identity, mesh=mesh, secret=secret, options=options, front=front, bots=kept)
    setup = table.setup
    return Hosted(played.status, lobby_port, lobby.code, setup.roster, setup.names, played.over, lobby.hellos_heard())


Result = TypeVar("Result")


async def unless_left(front: Frontend, step: Awaitable[Result]) -> Result | None:
    """What `step` gives, or None (and `step` cancelled) as soon as the player leaves the lobby."""
    task = asyncio.ensure_future(step)
    if front.left_lobby is None:
        return await task
    leaving = asyncio.ensure_future(front.left_lobby.wait())
    try:
        await asyncio.wait({task, leaving}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    finally:
        leaving.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return None


async def find_lobby(timeout_s: float, code: str) -> str:
    """The address of the open lobby on the LAN that `code` opens: the first one seen that welcomes a hello sealed
    with the code (the browsing stops there), else the one lobby seen; an error listing them when none or several
    were seen and none takes the code."""
    from p2pfish.net.discovery import LobbyAd, browse, format_lobbies

    taken = asyncio.Event()
    opened: list[str] = []
    checks: dict[str, asyncio.Task[None]] = {}

    async def check(address: str) -> None:
        if (await opens_with([address], code))[0]:
            opened.append(address)
            taken.set()

    def found(ad: LobbyAd) -> None:
        address = f"{ad.address}:{ad.port}"
        if address not in checks:
            checks[address] = asyncio.ensure_future(check(address))

    try:
        ads = await browse(timeout_s, on_found=found, enough=taken)
        pending = set(checks.values())
        while pending and not opened:
            _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in checks.values():
            task.cancel()
        await asyncio.gather(*checks.values(), return_exceptions=True)
    if opened:
        return opened[0]
    if len(ads) == 1:
        return f"{ads[0].address}:{ads[0].port}"
    if not ads:
        raise UsageError("no open lobby found on this network: give the host's HOST:PORT")
    raise UsageError(
        "no open lobby takes this code; pick one with HOST:PORT:", details=tuple(format_lobbies(ads).split("\n"))
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
    """Join the lobby at `address` (else the one on the LAN that takes `code`) and play. A rematch its player
    asks for on the end screen joins the same lobby again, waiting up to `wait_s` for its host to open it."""
    with usage_errors():
        code = normal_code(code)
    address = address or await find_lobby(3.0, code)
    status = await _join_game(address, code, options, wait_s, front, context=context, rematch=False)
    following = front.rematch()
    while following is not None:
        front = following
        with game_context(context, True) as this_context:
            status = await _join_game(address, code, options, wait_s, front, context=this_context, rematch=True)
        following = front.rematch()
    return status


async def _join_game(
    address: str,
    code: str,
    options: PeerOptions,
    wait_s: float,
    front: Frontend,
    *,
    context: zmq.asyncio.Context,
    rematch: bool,
) -> int:
    host, _ = split_address(address)
    identity = load_or_create(options.identity_dir)
    public, secret = new_curve_keypair()
    mesh = Mesh(secret, f"tcp://{local_address_towards(host)}:*", context=context)
    front.lobby_open("", address, code, 0)
    if rematch:
        front.note("A rematch: waiting for the host to open its lobby again (it does when its player presses r).")
    seen: list[PlayerCard] = []
    taken: list[str] = []

    def changed(state: LobbyState) -> None:
        seen[:] = state.cards
        front.lobby_changed(list(state.cards), state.players, game_title(state.game))

    def make_card(lobby: bytes) -> PlayerCard:
        name = unique_name(options.name, taken) if options.name_is_default else options.name
        return PlayerCard.make(identity, options.variant.card_name(name), public, mesh.endpoint, lobby)

    try:
        joining = join_lobby(
            address, code, make_card, timeout_s=wait_s, on_change=changed, on_welcome=taken.extend,
            open_within_s=wait_s if rematch else None,
        )  # fmt: skip
        table = await unless_left(front, joining)
    except StartRefused as refused:
        mesh.close()
        mine = [seat for seat, card in enumerate(seen) if card.identity == identity.public_bytes]
        return _refused_start(refused, mine[0] if mine else None, options, front)
    except BaseException:
        mesh.close()
        raise
    if table is None:
        mesh.close()
        say(options, "You left the lobby; the host was told.")
        return 0
    seat = table.seat_of(identity.public_bytes)
    named = replace(options, name=table.setup.names[seat])
    played = await _play(
        table, seat, identity=identity, mesh=mesh, secret=secret, options=named, front=front, host_at=host
    )
    return played.status


def game_title(game: str) -> str:
    """The game's title, or its id as sent when this program does not know it."""
    try:
        return get_rules(game).title
    except P2pfishError:
        return printable(game, SHOWN_NAME_CHARS)


def _refused_start(refused: StartRefused, seat: int | None, options: PeerOptions, front: Frontend) -> int:
    """The host started a game this peer must not play: say so, and blame the host, with its message."""
    front.note(f"refused to play: {refused.reason} (blamed on the host, seat 0)")
    if options.json:
        fault: dict[str, Json] = {"seat": 0, "kind": "violation", "reason": refused.reason, "evidence": 1}
        result: dict[str, Json] = {"seat": seat, "session": None, "finished": False, "outcome": None, "fault": fault}
        result |= {"transcript": None, "store": None, "messages": 0, "dealt": 0, "peak_rss_mb": _peak_rss_mb()}
        emit(options, "result", result)
    return 1


def _engine_report(player: Player | None) -> dict[str, Json] | None:
    """How the engine played, when one plays the seat (its module is loaded only then)."""
    if "p2pfish.bots.engine" not in sys.modules:
        return None
    from p2pfish.bots.engine import EnginePlayer

    return player.report() if isinstance(player, EnginePlayer) else None


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
    table: Table,
    seat: int,
    *,
    identity: Identity,
    mesh: Mesh,
    secret: str,
    options: PeerOptions,
    front: Frontend,
    host_at: str = "",
    bots: Json = None,
) -> "Played":
    """Play the table's game at `seat`. `host_at`: a joiner's lobby address, where it reaches the host's mesh
    too (host_endpoint). `bots`: the host's bot peers, kept for resume to start them again (bots_to_resume)."""
    setup = table.setup
    try:
        rules = get_rules(setup.game)
        path, store = _new_store(options, store_name(setup, seat))
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
            "engine": options.engine,
            "engine_move_s": options.engine_move_s,
            "host_at": host_at,
            "bots": bots,
        },
    )
    session = options.variant.new_session(
        setup, seat, identity, store, rules=rules, drop_after=options.timers.drop_after_s
    )
    store.commit()  # before the game is announced (`started`): a peer killed from then on can resume it
    return await _run(session, mesh, table.cards, options=options, path=path, store=store, front=front, host_at=host_at)


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
    spawner: BotSpawner | None = None,
) -> int:
    """`spawner`: where the game's bots, if it had any, start from (forkedpeer.py); ended here if it had none."""
    path = Path(store_path)
    if not os.path.lexists(path):
        raise UsageError(f"no store at {store_path}")
    store = SqliteStore(path)
    record = store.load_secrets().get(MESH_RECORD)
    if not isinstance(record, dict) or not {"cards", "curve_secret", "bot", "name"} <= set(record):
        raise UsageError(f"{store_path} holds no networked game to resume")
    identity = load_or_create(options.identity_dir)
    rules = get_rules(stored_setup(store)[0].game)
    session = options.variant.resume_session(store, identity, rules=rules, drop_after=options.timers.drop_after_s)
    assert session.seat is not None
    if session.setup.roster[session.seat] != identity.public_bytes:
        raise UsageError("this game was played with another identity (use the same --identity-dir)")
    cards = tuple(PlayerCard.from_wire(card) for card in as_list(record["cards"], "the stored cards"))
    mesh = Mesh(str(record["curve_secret"]), cards[session.seat].endpoint, context=context)
    bot = str(record["bot"]) if options.bot == "" else options.bot
    seed = record.get("seed")
    engine, move_s = record.get("engine"), record.get("engine_move_s")
    resumed = PeerOptions(
        str(record["name"]), bot, seed if isinstance(seed, int) else None, options.identity_dir, str(path),
        options.transcript, options.json, options.timers, options.variant,
        engine=options.engine or (engine if isinstance(engine, str) else None),
        engine_move_s=options.engine_move_s if options.engine else _seconds(move_s, options.engine_move_s),
        tethered=options.tethered,
    )  # fmt: skip
    front = make_front(resumed)
    front.note(f"resuming game {session.setup.session_id.hex()[:16]} as seat {session.seat} at turn {session.turn}")
    host_at = record.get("host_at")
    bots = bots_to_resume(record.get("bots"), session.setup, spawner)
    if bots is None and spawner is not None:
        spawner.close(at_once=True)
    if bots is None and isinstance(record.get("bots"), dict):
        front.note("Its bots cannot come back: their folder is gone (it goes a day after they last played).")
    try:
        played = await _run(
            session, mesh, cards, options=resumed, path=path, store=store, front=front,
            host_at=host_at if isinstance(host_at, str) else "",
        )  # fmt: skip
    except BaseException:
        if bots is not None:
            bots.stop()
        raise
    if bots is not None and played.over:
        bots.stop()
        bots.remove_files()
    elif bots is not None:
        bots.release()
    return played.status


def bots_to_resume(record: Json, setup: GameSetup, spawner: BotSpawner | None = None) -> BotPeers | None:
    """The bot peers of a game this peer hosted (the `bots` of its store's record; None if it had none),
    started again from their stores: they left with the process that started them. Bots whose folder is
    gone (removed a day after its last write) cannot come back; the game then waits for them in vain."""
    if not isinstance(record, dict) or not isinstance(record.get("folder"), str):
        return None
    folder = Path(str(record["folder"]))
    if not _own_folder(folder):  # gone, or another's made since under the same name in a shared /tmp
        return None
    seed = record.get("seed")
    bots = BotPeers(seed if isinstance(seed, int) else None, workdir=folder, spawner=spawner)
    seats = []
    entries = record.get("bots")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        seat, index, kind, name = (entry.get(key) for key in ("seat", "index", "kind", "name"))
        if type(seat) is int and type(index) is int and isinstance(kind, str) and isinstance(name, str):
            store = folder / "state" / "p2pfish" / store_name(setup, seat)
            if store.is_file() and not store.is_symlink():
                seats.append(BotSeat(index, kind, name, store))
    if not seats:
        return None
    bots.resume(seats)
    return bots


def _own_folder(folder: Path) -> bool:
    try:
        return folder.is_dir() and not folder.is_symlink() and folder.stat().st_uid == os.getuid()
    except OSError:
        return False


def store_name(setup: GameSetup, seat: int) -> str:
    """The file name of a seat's store in the state folder."""
    return f"{setup.session_id.hex()[:16]}-seat{seat}.sqlite"


def _seconds(value: Json, otherwise: float) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else otherwise


async def _run(
    session: Session,
    mesh: Mesh,
    cards: tuple[PlayerCard, ...],
    *,
    options: PeerOptions,
    path: Path,
    store: SqliteStore,
    front: Frontend,
    host_at: str = "",
) -> "Played":
    """Play the game to its end, then close the store and say how it went."""
    assert session.seat is not None
    node: PeerNode | None = None
    try:
        endpoints = [card.endpoint for card in cards]
        if session.seat != 0:
            endpoints[0] = host_endpoint(endpoints[0], host_at)
        mesh.link(session.seat, [MeshPeer(at, card.curve_public) for at, card in zip(endpoints, cards, strict=True)])
        node = PeerNode(session, mesh, front.player(session), timers=options.timers, on_event=front.event)
        front.started(session, node, path)
        await node.run()
    finally:
        mesh.close(done_with=() if node is None else node.done_with())
    try:
        transcript = options.transcript
        over = session.finished or session.fault is not None or session.settlement is not None
        tidy = over and not options.json and path.parent.resolve() == state_dir().resolve()
        if tidy and not transcript:
            transcript = str(transcript_beside(path))
        if transcript:
            write_private_file(Path(transcript), b"\n".join([*session.transcript(), b""]), "transcript")  # one copy
        if tidy:
            _remove_store(store, path)
        outcome = session.outcome()
        result: dict[str, Json] = {
            "seat": session.seat,
            "session": session.session_id.hex(),
            "finished": session.finished,
            "outcome": None if outcome is None else outcome.to_wire(),
            "settled": settled_wire(session.settlement),
            "fault": None if session.fault is None else {"seat": session.fault.seat, "kind": session.fault.kind,
                                                           "reason": session.fault.reason,
                                                           "evidence": len(session.fault.evidence)},
            "transcript": transcript,
            "store": str(path),
            "messages": node.sent + node.received,
            "dealt": sum(isinstance(entry.action, Dealt) for entry in session.log),
            "peak_rss_mb": _peak_rss_mb(),
        }  # fmt: skip
        await front.finished(session, node)
        report = _engine_report(node.player)
        if report is not None:
            result["engine"] = report
    finally:
        store.close()
    emit(options, "result", result)
    return Played(0 if session.finished or session.settlement is not None else 1, over)


@dataclass(frozen=True)
class Played:
    status: int
    """The peer's exit status: 0 when the game finished (or ended early, §10.8)."""
    over: bool
    """The game finished, ended early or stopped (else its player left it, meaning to come back)."""


def settled_wire(settlement: Settlement | None) -> Json:
    """An early end (§10.8) in a result line."""
    if settlement is None:
        return None
    return {"gone": settlement.gone, "turn": settlement.turn, "outcome": settlement.outcome.to_wire(),
            "signers": list(settlement.signers)}  # fmt: skip


def host_endpoint(card_endpoint: str, host_at: str) -> str:
    """Where a joiner reaches the host's mesh: at the IPv4 address it reached the host's lobby at, with the
    port of the host's card. A host bound to every interface writes one of its addresses into its card (its
    primary one), which a joiner on another of its networks (a cable beside the Wi-Fi) cannot reach; its
    mesh listens on all of them. The CURVE key, not the address, proves it is the host."""
    try:
        address = ipaddress.IPv4Address(host_at)
    except ValueError:
        return card_endpoint
    if address.is_loopback or address.is_unspecified:
        return card_endpoint
    return f"tcp://{host_at}:{card_endpoint.rpartition(':')[2]}"


def _remove_store(store: SqliteStore, path: Path) -> None:
    """A game over in the state folder: its store (kept only to resume) goes, with SQLite's companions; its
    transcript stays beside it (p2pfish verify reads it)."""
    store.close()
    for name in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))):
        with contextlib.suppress(OSError):
            name.unlink()


def run(coroutine: Any) -> int:
    code: int = asyncio.run(coroutine)
    return code
