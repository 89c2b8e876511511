"""Runs one seat's session over the mesh (any Transport: the ZeroMQ Mesh, or a LoopbackHub's endpoint in
tests) until the game ends or stops.

Three kinds of frames travel: a session message ("M", the signed bytes); a heartbeat ("H": the
session id, so that peers given different games notice, and how many messages of each author this
peer holds); a goodbye ("B", the same numbers, sent once by a peer that finished and leaves); and "A", sent by a
player who leaves a game unfinished and means to resume it: the others then wait longer for it.
The heartbeat is the acknowledgement: when a peer's heartbeat shows it lacks messages this peer
holds, they are sent again (less and less often while its count does not move) — so nothing is lost to
a reconnect, a dropped frame or a peer that crashed and came back. Each link is read at most
LINK_FRAMES_PER_S frames a second, yielding to the heartbeats after every frame. A peer that sends
nothing at all, not even heartbeats, and none of whose messages arrives by any other peer either, is
shown as silent; once the game waits for it past the timeout, the session stops the game naming it (see
Session.drop).

A player (a bot) decides in a worker thread while the event loop runs on, so a slow decision (a search bot
thinking for a second) never holds back heartbeats, resends or the reading of frames; its move is made on the
loop once it is ready, if the session still waits for it and it is still legal (else the seat decides again).
Without a running event loop (a test stepping the node by hand) the player decides at once.

Every frame's size is checked before it is parsed: a signed message is at most MAX_MESSAGE_BYTES, a
heartbeat, goodbye or away frame at most MAX_BEAT_BYTES. A frame over its limit (libzmq refuses
those far above, mesh.py) stops the game blaming the seat whose authenticated link carried it.

A peer's messages are read only once its heartbeat has shown it plays this very game (each peer sends a
heartbeat before anything else on its links). A host that gave two peers different setups therefore stops
the game naming nobody, instead of getting an honest peer blamed for "a message of another game".
"""

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

from p2pfish.core.actions import Action
from p2pfish.core.errors import P2pfishError
from p2pfish.core.player import Player
from p2pfish.net.transport import Transport
from p2pfish.session import runner
from p2pfish.session.envelope import MAX_MESSAGE_BYTES
from p2pfish.session.session import Event, Session

MESSAGE, HEARTBEAT, BYE, AWAY = b"M", b"H", b"B", b"A"
RESEND_BATCH = 64
RESEND_BACKOFF_MAX_S = 8.0
"""A peer whose have-vector for an author does not move after a resend is sent that author's messages again
after resend_after_s, then twice as long each time, up to this; the wait is back to resend_after_s once it moves."""
LINK_FRAMES_PER_S = 2000
"""Frames read per second from one link (a token bucket of as many frames, refilled at this rate); frames over it
are dropped unread. An honest peer sends a few heartbeats a second, its moves, and resends in batches of
RESEND_BATCH per author: far below. What is dropped of an honest peer is sent again (its heartbeats show it)."""
EARLY_BYTES = 4 * 1024 * 1024
"""Bytes of messages kept from a peer whose heartbeat has not yet shown it plays this game (more are resent
later)."""
MAX_BEAT_BYTES = 4096
"""A heartbeat or goodbye: the session id and one count per seat, as JSON."""
FRAME_LIMITS = {MESSAGE: MAX_MESSAGE_BYTES, HEARTBEAT: MAX_BEAT_BYTES, BYE: MAX_BEAT_BYTES, AWAY: MAX_BEAT_BYTES}


@dataclass(frozen=True)
class NodeTimers:
    heartbeat_s: float = 0.2
    silent_after_s: float = 2.0
    """No frame at all for this long: the peer is shown as silent."""
    drop_after_s: float = 30.0
    """No sign of life for this long while the game waits for the peer: the game stops, naming it."""
    resend_after_s: float = 0.5
    """How long to wait before sending a peer the same missing messages again."""
    linger_s: float = 5.0
    """After the end, how long to keep serving peers that still lack messages."""
    away_s: float = 600.0
    """How long to wait for a player who left to resume before dropping it."""


@dataclass(frozen=True)
class PeerSilent:
    seat: int
    seconds: float


@dataclass(frozen=True)
class PeerBack:
    seat: int


@dataclass(frozen=True)
class PeerAway:
    """A player left the game meaning to resume it."""

    seat: int


NodeEvent = Event | PeerSilent | PeerBack | PeerAway


class PeerNode:
    def __init__(
        self,
        session: Session,
        mesh: Transport,
        player: Player | None,
        *,
        timers: NodeTimers = NodeTimers(),
        on_event: Callable[[NodeEvent], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        assert session.seat is not None
        self.session = session
        self.mesh = mesh
        self.player = player
        self.timers = timers
        self.on_event = on_event
        self.clock = clock
        self.sent = 0
        self.received = 0
        self._started = clock()
        self._last_heard: dict[int, float] = {}
        self._silent: set[int] = set()
        self._peer_have: dict[int, list[int]] = {}
        self._last_resend: dict[tuple[int, int], float] = {}
        self._resend_wait: dict[tuple[int, int], float] = {}
        """How long after the last resend of (seat, author) the next may go, while the seat's count stays put."""
        self._resent_from: dict[tuple[int, int], int] = {}
        """The highest count of (seat, author) a heartbeat showed when that author's messages were last resent."""
        self._budget: dict[int, tuple[float, float]] = {}
        """Per link: (frames it may still send now, when that was counted)."""
        self.dropped = 0
        """Frames dropped unread because their link sent over LINK_FRAMES_PER_S."""
        self._gone: set[int] = set()
        self._away: set[int] = set()
        self._leaving = False
        self._same_game: set[int] = set()
        """Seats whose heartbeat showed this game's session id: their messages are read."""
        self._early: dict[int, list[bytes]] = {}
        self._early_bytes: dict[int, int] = {}
        self._thinking = False
        """The player is deciding in a worker thread."""
        self._player_failed: BaseException | None = None

    async def run(self) -> None:
        """Play until the game ends or stops, then linger until every peer holds what this one does."""
        self._beat()
        self._guarded(self.session.start)
        for raw in self.session.own_messages():
            self.mesh.broadcast([MESSAGE, raw])
        self._after_input()
        receiver = asyncio.create_task(self._receive_forever())
        try:
            while not self._over():
                self._guarded(self._beat)
                await self._pause(receiver)
            deadline = self.clock() + (0 if self._leaving else self.timers.linger_s)
            while self.clock() < deadline and not self._everyone_caught_up():
                self._guarded(self._beat)
                await self._pause(receiver)
            if self.session.finished:
                self.mesh.broadcast([BYE, json.dumps(self.session.have()).encode()])
        finally:
            receiver.cancel()

    async def _pause(self, receiver: "asyncio.Task[None]") -> None:
        """Wait one heartbeat, or less if the receiver ended: it ends only by failing, and then so does the run
        (a peer whose frames go unread must not go on looking alive to the others)."""
        await asyncio.wait({receiver}, timeout=self.timers.heartbeat_s)
        if self._player_failed is not None:
            raise PeerFailed(f"this seat's player failed: {self._player_failed!r}") from self._player_failed
        if receiver.done():
            error = receiver.exception()
            if isinstance(error, P2pfishError):
                raise error
            raise PeerFailed(f"this peer failed reading a frame: {type(error).__name__}: {error}") from error

    def act(self, action: Action) -> None:
        """A move made from outside (a person's; a `player`'s are made here). Raises IllegalAction."""

        def move() -> None:
            self.session.act(action)
            self._after_input()

        self._guarded(move)

    def chat(self, text: str) -> None:
        def say() -> None:
            self.session.chat(text)
            self._after_input()

        self._guarded(say)

    def _guarded(self, step: Callable[[], object]) -> None:
        """Run a step that may store something: a failure of this peer's store stops the game the same way
        wherever it happens (a heartbeat's tick, a move, a frame)."""
        try:
            step()
        except sqlite3.Error as error:
            self._store_failed(error)

    def leave(self) -> None:
        """Leave the game unfinished: tell the others this seat will be back, then stop running."""
        self.mesh.broadcast([AWAY, b""])
        self._leaving = True

    def _over(self) -> bool:
        return self.session.finished or self.session.fault is not None or self._leaving

    def _everyone_caught_up(self) -> bool:
        """Every other peer holds all this one does, or has left holding all it needed."""
        mine = self.session.have()
        return all(
            seat in self._gone
            or (seat in self._peer_have and all(t >= m for t, m in zip(self._peer_have[seat], mine, strict=True)))
            for seat in self.mesh.others
        )

    async def _receive_forever(self) -> None:
        """Read frames until cancelled. Each frame yields to the event loop: with frames queued, a receive
        completes at once, and a peer streaming small frames would otherwise starve the heartbeats (and a UI).
        A store that fails while a frame is handled stops the game here, naming nobody; the run then ends."""
        while True:
            seat, frames = await self.mesh.receive()
            if self._within_budget(seat):
                try:
                    self.on_frames(seat, frames)
                except sqlite3.Error as error:
                    self._store_failed(error)
            else:
                self.dropped += 1
            await asyncio.sleep(0)

    def _within_budget(self, seat: int) -> bool:
        """Take one frame from the link's budget (LINK_FRAMES_PER_S); False when it is spent."""
        now = self.clock()
        left, then = self._budget.get(seat, (float(LINK_FRAMES_PER_S), now))
        left = min(float(LINK_FRAMES_PER_S), left + (now - then) * LINK_FRAMES_PER_S)
        if left < 1:
            self._budget[seat] = (left, now)
            return False
        self._budget[seat] = (left - 1, now)
        return True

    def _store_failed(self, error: sqlite3.Error) -> None:
        """This peer's own store failed: stop the game naming nobody (telling the others, if the stop report
        can still be stored)."""
        with contextlib.suppress(sqlite3.Error):  # the stop is set before its report is stored: it holds
            self.session.abort(f"this peer's game store failed: {error}")
        if self.session.fault is None:  # a finished game: nothing to stop, but nothing more can be kept
            raise PeerFailed(f"this peer's game store failed: {error}") from error
        with contextlib.suppress(sqlite3.Error):
            self._after_input()

    def on_frames(self, seat: int, frames: list[bytes]) -> None:
        """One multipart frame from an authenticated peer."""
        self._heard(seat)
        oversize = _oversize(frames)
        if oversize is not None:
            self.session.refuse_frame(seat, oversize, max(frames, key=len))
            self._after_input()
            return
        if frames[0] == MESSAGE and len(frames) == 2:
            if seat not in self._same_game:
                self._keep_early(seat, frames[1])
                return
            self._receive_message(frames[1], seat)
        elif frames[0] == HEARTBEAT and len(frames) == 2:
            self._heartbeat_from(seat, frames[1])
        elif frames[0] == BYE:
            self._gone.add(seat)
            return
        elif frames[0] == AWAY:
            self._away.add(seat)
            self.session.set_away(seat, True)
            self._tell(PeerAway(seat))
            return
        self._after_input()

    def _keep_early(self, seat: int, raw: bytes) -> None:
        held = self._early_bytes.get(seat, 0)
        if held + len(raw) <= EARLY_BYTES:
            self._early.setdefault(seat, []).append(raw)
            self._early_bytes[seat] = held + len(raw)

    def _heartbeat_from(self, seat: int, payload: bytes) -> None:
        try:
            beat = json.loads(payload)
        except (ValueError, RecursionError):
            return
        if not isinstance(beat, dict):
            return
        session = beat.get("session")
        if not isinstance(session, str):
            return
        if session != self.session.session_id.hex():
            if seat in self._same_game or self.session.have()[seat] > 0:
                return  # it has shown this game already: a change of mind proves nothing, and its timers run
            self._early.pop(seat, None)
            self._early_bytes.pop(seat, None)
            self.session.abort(f"seat {seat} plays another game setup: the lobby gave the peers different games")
            return
        if seat not in self._same_game:
            self._same_game.add(seat)
            self._early_bytes.pop(seat, None)
            for raw in self._early.pop(seat, []):
                self._receive_message(raw, seat)
        have = beat.get("have")
        players = self.session.setup.players
        if isinstance(have, list) and len(have) == players and all(type(n) is int and n >= 0 for n in have):
            self._peer_have[seat] = have
            self._resend_missing(seat)

    def _receive_message(self, raw: bytes, via: int) -> None:
        """A signed message, from its author or relayed: any message of an author accepted by any path is a
        sign of that author's life, so a seat that talks to this peer only through others is not silent."""
        self.received += 1
        before = self.session.have()
        self.session.receive(raw, via=via)
        for author, (held, had) in enumerate(zip(self.session.have(), before, strict=True)):
            if held > had and author != self.session.seat:
                self._alive(author)

    def _resend_missing(self, seat: int) -> None:
        """Send the peer up to RESEND_BATCH messages of each author its heartbeat shows it lacks, resend_after_s
        after the last such resend while its count for that author rises past any it showed at the resends,
        else after a wait that doubles, up to RESEND_BACKOFF_MAX_S, at each resend that did not move it (a peer
        that never reads is not sent the same messages every resend_after_s forever)."""
        now = self.clock()
        theirs = self._peer_have[seat]
        for author, held in enumerate(self.session.have()):
            key = (seat, author)
            if theirs[author] >= held:
                continue
            moved = theirs[author] > self._resent_from.get(key, -1)
            if moved:
                self._resend_wait[key] = self.timers.resend_after_s
            wait = self._resend_wait.get(key, self.timers.resend_after_s)
            if now - self._last_resend.get(key, -1e9) >= wait:
                if not moved:
                    self._resend_wait[key] = min(2 * wait, max(RESEND_BACKOFF_MAX_S, self.timers.resend_after_s))
                self._last_resend[key] = now
                self._resent_from[key] = max(theirs[author], self._resent_from.get(key, -1))
                for raw in self.session.chain_messages(author, theirs[author], RESEND_BATCH):
                    self.mesh.send(seat, [MESSAGE, raw])
                    self.sent += 1

    def _heard(self, seat: int) -> None:
        """A frame on `seat`'s own link: it is alive, here, and back if it had left or said goodbye."""
        self._alive(seat)
        self._gone.discard(seat)
        if seat in self._away:
            self._away.discard(seat)
            self.session.set_away(seat, False)

    def _alive(self, seat: int) -> None:
        """A sign of `seat`'s life, perhaps only a message of it relayed by another peer (which says nothing of
        whether it left meaning to come back, or said goodbye: only its own frames clear those)."""
        self._last_heard[seat] = self.clock()
        if seat in self._silent:
            self._silent.discard(seat)
            self._tell(PeerBack(seat))

    def beat(self) -> None:
        """One heartbeat: tell the peers what this one holds, check who is silent, let time pass."""
        self._beat()

    def _beat(self) -> None:
        now = self.clock()
        beat = {"session": self.session.session_id.hex(), "have": self.session.have()}
        self.mesh.broadcast([HEARTBEAT, json.dumps(beat).encode()])
        for seat in self.mesh.others:
            quiet = now - self._last_heard.get(seat, self._started)
            if self._over() or seat in self._gone:
                continue
            if quiet >= (self.timers.away_s if seat in self._away else self.timers.drop_after_s):
                self.session.drop(seat, f"no sign of life for {quiet:.0f} s")
                if self.session.fault is not None:
                    self._gone.add(seat)
            if quiet >= self.timers.silent_after_s and seat not in self._silent:
                self._silent.add(seat)
                self._tell(PeerSilent(seat, quiet))
        self.session.tick(now)
        self._after_input()

    def _after_input(self) -> None:
        """Send what the session produced, report its events, and make the player's moves while they are due (in a
        worker thread when an event loop runs)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            runner.settle(self.session, self.player, self._send_own, self._tell)
            return
        runner.flush(self.session, self._send_own, self._tell)
        self._think(loop)

    def _think(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the player deciding in a worker thread, if a decision is due and it is not deciding already."""
        player = self.player
        if player is None or self._thinking or self._over():
            return
        decision = self.session.decision()
        if decision is None:
            return
        self._thinking = True
        thought = loop.run_in_executor(None, player.choose, *decision)
        thought.add_done_callback(self._thought)

    def _thought(self, thought: "asyncio.Future[Action]") -> None:
        """The player decided (on the loop's thread): make its move if the session still waits for that move."""
        self._thinking = False
        if thought.cancelled():
            return
        error = thought.exception()
        if error is not None:
            self._player_failed = error
            return
        action = thought.result()
        decision = self.session.decision()
        if decision is not None and action in decision.legal and not self._over():
            self._guarded(lambda: self.session.act(action))
        self._guarded(self._after_input)

    def _send_own(self, raw: bytes) -> None:
        """A message the session produced (its own or a relay): to every peer."""
        self.mesh.broadcast([MESSAGE, raw])
        self.sent += 1

    def _tell(self, event: NodeEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)


class PeerFailed(P2pfishError):
    """The peer cannot go on (its store failed after the end, or a frame's handling failed): one line."""


def _oversize(frames: list[bytes]) -> str | None:
    """Why these frames break the size limit of their kind (an unknown kind's: MAX_MESSAGE_BYTES), or None."""
    limit = FRAME_LIMITS.get(frames[0], MAX_MESSAGE_BYTES)
    for part in frames:
        if len(part) > max(limit, 1):
            return f"sent a frame of {len(part)} bytes, over the {limit}-byte limit for its kind"
    return None
