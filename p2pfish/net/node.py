"""Runs one seat's session over the mesh (any Transport: the ZeroMQ Mesh, or a LoopbackHub's endpoint in
tests) until the game ends or stops.

Three kinds of frames travel: a session message ("M", the signed bytes, and the sender's chain heads: how many
messages of each author it holds and the hash of the last, net/heads.py); a heartbeat ("H": the session id, so
that peers given different games notice, the heads, and whether its game stopped); a goodbye ("B", the counts,
sent once by a peer that finished and leaves); and "A", sent by a player who leaves a game unfinished and means
to resume it: the others then wait longer for it.

Relay on demand (PROTOCOL §17.3): a peer sends its own messages to every peer, and nobody relays blindly. The
heads are the acknowledgement: a message a peer's heads show it lacks, held here relay_grace_s, is sent to it
again (less and less often while its count does not move) — so nothing is lost to a reconnect, a dropped frame,
a peer that crashed and came back or an author that crashed mid-send. A message from its author is read only
once this peer holds what the author's heads show, so no message is read on top of a version of another it
lacks; heads that differ from this peer's chain are a fork, and this peer's version goes to that peer at once,
where it proves the equivocation. A copy of a message from a third peer waits relay_grace_s. Each link is read at
most LINK_FRAMES_PER_S frames a second, yielding to the heartbeats every YIELD_EVERY_FRAMES frames. A peer that
sends nothing at all, not even heartbeats, and none of whose messages arrives by any other peer either, is shown
as silent; once the game waits for it past the timeout, the session stops the game naming it (see Session.drop).

A player (a bot) decides in a worker thread while the event loop runs on, so a slow decision (a search bot
thinking for a second) never holds back heartbeats, resends or the reading of frames; its move is made on the
loop once it is ready, if the session still waits for it and it is still legal (else the seat decides again).
A player that decides at once (core/player.py decides_at_once: the random and greedy bots) decides on the loop
instead: the handoff to a thread and back would cost more than its decision, and lengthen every turn. Without
a running event loop (a test stepping the node by hand) the player decides at once.

Every frame's size is checked before it is parsed: a signed message is at most MAX_MESSAGE_BYTES, a
heartbeat, goodbye or away frame at most MAX_BEAT_BYTES. A frame over its limit (libzmq refuses
those far above, mesh.py) stops the game blaming the seat whose authenticated link carried it.

A peer's messages are read only once its heartbeat has shown it plays this very game (each peer sends a
heartbeat before anything else on its links). A host that gave two peers different setups therefore stops
the game naming nobody, instead of getting an honest peer blamed for "a message of another game".
"""

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import math
import random
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

from p2pfish.core.actions import Action
from p2pfish.core.errors import P2pfishError
from p2pfish.core.player import Player, decides_at_once
from p2pfish.net import heads
from p2pfish.net.heads import Heads
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
YIELD_EVERY_FRAMES = 8
"""The frame reader yields to the event loop at least this often (a frame that waited for its receive has
yielded already: one yield a frame would cost a pass of the loop each)."""
EARLY_BYTES = 4 * 1024 * 1024
"""Bytes of messages kept from a peer whose heartbeat has not yet shown it plays this game (more are resent
later); also the bytes held per link for their heads (a message of its author waiting for what its author held,
a copy from another peer waiting out relay_grace_s)."""
HELD_MESSAGES = 256
"""And how many messages are held per link for their heads; over either limit a message is dropped (an honest
one comes again: what a peer lacks is resent)."""
FORK_PUSH_BACKOFF_MAX_S = 8.0
"""A peer whose heads show a fork against this one is sent this peer's version at once, then again only after
resend_after_s, doubling up to this, while it keeps showing a fork of that author."""
MAX_BEAT_BYTES = 4096
"""A heartbeat or goodbye: the session id and one count per seat, as JSON."""
FAREWELL_WAIT_S = 0.3
"""After its goodbye, how long a peer waits for the others' (theirs cross its own when all finish together): a
frame still queued for a seat that said goodbye need not hold the close up (mesh.Mesh.close)."""
BEAT_JITTER = 0.25
"""A heartbeat comes heartbeat_s after the last, give or take this share of it (at random)."""
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
    relay_grace_s: float = 0.5
    """A message held here goes to a peer whose heads show it lacks it only once it has been held this long (its
    author sent it to that peer too); a copy of another author's message from a third peer waits as long before
    it is read (by then its author's own frames have shown any fork it hides)."""
    heads_wait_s: float = 2.0
    """A message from its author waits at most this long for what its heads show, then it is read anyway: heads
    delay reading, they never block it (a real fork has been pushed and proven by then; false heads sent to one
    peer only would otherwise keep it from ever reading the message, and get it named for the silence)."""
    linger_s: float = 5.0
    """After the end, how long to keep serving peers that still lack messages (after a finish, up to
    drop_after_s for a seat whose heartbeat showed it lacks some: it may be restarting)."""
    away_s: float = 600.0
    """How long to wait for a player who left to resume before dropping it."""
    settle_wait_s: float = 60.0
    """After a stop for a seat's silence: how long to wait for every other seat to sign an early end (§10.8)."""


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
        session.relay = False  # a peer sends its own messages; what another lacks goes by heads (PROTOCOL §17.3)
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
        self._session_hex = session.session_id.hex()
        self._same_game: set[int] = set()
        """Seats whose heartbeat showed this game's session id: their messages are read."""
        self._early: dict[int, list[tuple[bytes, Heads | None]]] = {}
        self._early_bytes: dict[int, int] = {}
        self._thinking = False
        """The player is deciding in a worker thread."""
        self._player_failed: BaseException | None = None
        self._accepted_at: list[list[float]] = [[-1e9] * held for held in session.have()]
        """When each message of each author was accepted here (those held at the start: long ago)."""
        self._noted = len(session.accepted)
        """How many messages the session had accepted when they were last stamped in _accepted_at."""
        self._heads_at = (len(session.accepted), heads.heads_of(session))
        """This peer's heads, and how many messages it had accepted then."""
        self._heads_sent = (self._heads_at[1], heads.encode(self._heads_at[1]))
        """The heads last sent with a message, and their encoding."""
        self._held: dict[bytes, _Held] = {}
        """By hash: messages not yet read for their heads (see _route)."""
        self._held_load: dict[int, tuple[int, int]] = {}
        """Per link: (messages, bytes) it has held here."""
        self._held_at: dict[tuple[int, int, int], bytes] = {}
        """(link, author, seq): the hash of the message held for that place from that link."""
        self._held_have: list[int] = []
        """This peer's have-vector when it last looked at what is held."""
        self._held_due = math.inf
        """The earliest wait of a held message that runs out."""
        self._fork_push: dict[tuple[int, int], tuple[float, float]] = {}
        """(seat, author): when this peer's version was last pushed to a seat showing a fork, and the wait."""
        self.frames_out: dict[bytes, int] = {}
        """Frames queued for peers, by kind (a broadcast counts one per peer)."""
        self._stopped: set[int] = set()
        """Seats whose heartbeat says their game stopped: they take no more messages, so none is owed them."""
        self._settling = True
        """Whether a stopped game still waits for an early end (`stop_settling`)."""
        self._awaiting_settles = False
        """Whether this peer is in that wait: it still takes messages, so its heartbeat does not say stopped."""
        self._woken = asyncio.Event()
        self._beat_rng = random.Random()
        """Set when the game is over and something happened (a frame, a move, a leave): the run looks again."""

    async def run(self) -> None:
        """Play until the game ends or stops, then linger until every peer holds what this one does."""
        self._beat()
        self._guarded(self.session.start)
        for raw in self.session.own_messages():
            self._broadcast([MESSAGE, raw])  # without heads, like a resend: these may be old
        self._after_input()
        receiver = asyncio.create_task(self._receive_forever())
        try:
            while not self._over():
                self._guarded(self._beat)
                if not self._over():  # a heartbeat's tick may have ended it (a timeout)
                    await self._pause(receiver, self._beat_gap())
            if not self._leaving and self.session.settle_offer() is not None:
                await self._wait_for_settlement(receiver)
            over_at = self.clock()
            next_beat = over_at
            while self.clock() < over_at + self._linger_s() and not self._everyone_caught_up():
                if self.clock() >= next_beat:  # the first at once: the others learn that this peer holds the end
                    self._guarded(self._beat)
                    next_beat = self.clock() + self._beat_gap()
                await self._pause(receiver, min(next_beat, over_at + self._linger_s()) - self.clock())
            if self.session.finished or self.session.settlement is not None:
                self._broadcast([BYE, json.dumps(self.session.have()).encode()])
                farewell = self.clock() + FAREWELL_WAIT_S
                while self.clock() < farewell and len(self.done_with()) < len(self.mesh.others):
                    await self._pause(receiver, farewell - self.clock())
        finally:
            receiver.cancel()

    async def _wait_for_settlement(self, receiver: "asyncio.Task[None]") -> None:
        """The game stopped for a seat's silence: a bot agrees at once to end it with the scores so far, a person
        when they say so (`settle`); wait up to settle_wait_s for every other seat to agree (PROTOCOL §10.8)."""
        if self.player is not None:
            self.settle()
        until = self.clock() + self.timers.settle_wait_s
        next_beat = self.clock()
        self._awaiting_settles = True
        try:
            while self.session.settlement is None and self.clock() < until and not self._leaving and self._settling:
                if self.clock() >= next_beat:
                    self._guarded(self._beat)
                    next_beat = self.clock() + self._beat_gap()
                await self._pause(receiver, min(next_beat, until) - self.clock())
        finally:
            self._awaiting_settles = False

    def _beat_gap(self) -> float:
        """The time to the next heartbeat: heartbeat_s give or take BEAT_JITTER of it, drawn afresh each time, so
        that peers that started together do not all beat (and all read each other's beats) at the same instant."""
        return self.timers.heartbeat_s * (1.0 + BEAT_JITTER * (2.0 * self._beat_rng.random() - 1.0))

    def stop_settling(self) -> None:
        """Stop waiting for an early end (this seat's person left the end screen)."""
        self._settling = False
        self._woken.set()

    def settle(self) -> None:
        """Agree to end the game without the seat this peer found gone, with the scores so far (a person's
        choice; a bot agrees by itself). Does nothing when no such end is open (`Session.settle_offer`)."""
        if self.session.settle_offer() is not None:
            self._guarded(self.session.settle)
            self._guarded(self._after_input)
        self._woken.set()

    def _follow_settle(self) -> None:
        """A bot gives up on a seat another seat has signed an end without, once that seat is silent here too."""
        if self.player is None or self.session.fault is not None:
            return
        for seat in self.mesh.others:
            gone = self.session.settled_by(seat)
            if gone is not None and gone in self.session.waiting_for() and self.link_silent(gone):
                self.session.give_up(gone)
                return

    def done_with(self) -> set[int]:
        """The seats that need nothing more from this peer: they said goodbye, or their game stopped, or this
        peer's stop names them with proof. Frames still queued for them may be dropped at the close."""
        cheat = self._cheat()
        return {seat for seat in self.mesh.others if seat in self._gone or seat in self._stopped or seat == cheat}

    def _cheat(self) -> int | None:
        """The seat this peer's stop names with proof, if any (a seat named for its silence is not one)."""
        fault = self.session.fault
        return fault.seat if fault is not None and fault.kind != "timeout" and fault.evidence else None

    async def _pause(self, receiver: "asyncio.Task[None]", timeout_s: float) -> None:
        """Wait `timeout_s`, or less: once the game is over, until the next frame (each may be the last
        acknowledgement the linger waits for). If the receiver ended, it failed, and so does the run (a peer
        whose frames go unread must not go on looking alive to the others); so does a player that failed."""
        self._woken.clear()
        woken = asyncio.ensure_future(self._woken.wait())
        try:
            await asyncio.wait({receiver, woken}, timeout=max(0.0, timeout_s), return_when=asyncio.FIRST_COMPLETED)
        finally:
            woken.cancel()
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
        self._wake_if_over()

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
        self._broadcast([AWAY, b""])
        self._leaving = True
        self._wake_if_over()

    def _wake_if_over(self) -> None:
        if self._over():
            self._woken.set()

    def _over(self) -> bool:
        session = self.session
        return session.finished or session.fault is not None or session.settlement is not None or self._leaving

    def _linger_s(self) -> float:
        """How long after the end this peer serves peers that lack what it holds: linger_s; but after a finish,
        while a seat's last have-vector shows it lacks messages (it may have crashed in the end exchange and be
        restarting), as long as the table's timeout, so that it can finish too (PROTOCOL §17.3)."""
        if self._leaving:
            return 0.0
        if self.session.finished and any(self._behind(seat) for seat in self.mesh.others):
            return max(self.timers.linger_s, self.timers.drop_after_s)
        return self.timers.linger_s

    def _behind(self, seat: int) -> bool:
        """`seat`'s last heartbeat showed it lacks messages this peer holds (and it has not said goodbye)."""
        theirs = self._peer_have.get(seat)
        mine = self.session.have()
        return seat not in self._gone and theirs is not None and any(t < m for t, m in zip(theirs, mine, strict=True))

    def _everyone_caught_up(self) -> bool:
        """Every other peer holds all this one does, or has left holding all it needed, or has stopped its game
        (it takes nothing more), or is the seat this peer's stop names with proof: a cheater is owed nothing. (A
        seat named for its silence is waited for: it may be a peer that crashed and comes back.)"""
        mine, done = self.session.have(), self.done_with()
        return all(
            seat in done
            or (seat in self._peer_have and all(t >= m for t, m in zip(self._peer_have[seat], mine, strict=True)))
            for seat in self.mesh.others
        )

    async def _receive_forever(self) -> None:
        """Read frames until cancelled, yielding to the event loop every YIELD_EVERY_FRAMES frames: with frames
        queued, a receive completes at once, and a peer streaming small frames would otherwise starve the
        heartbeats (and a UI). A store that fails while a frame is handled stops the game here, naming nobody;
        the run then ends."""
        frames_read = 0
        while True:
            frames_read += 1
            if frames_read % YIELD_EVERY_FRAMES == 0:
                await asyncio.sleep(0)
            seat, frames = await self.mesh.receive()
            if self._within_budget(seat):
                try:
                    self.on_frames(seat, frames)
                except sqlite3.Error as error:
                    self._store_failed(error)
                self._wake_if_over()
            else:
                self.dropped += 1

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
        if frames[0] == MESSAGE and len(frames) in (2, 3):
            theirs = heads.parse(frames[2], self.session.setup.players) if len(frames) == 3 else None
            if len(frames) == 3 and len(frames[2]) > MAX_BEAT_BYTES:
                theirs = None
            if seat not in self._same_game:
                self._keep_early(seat, frames[1], theirs)
                return
            self._route(frames[1], seat, theirs)
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
        self._release_held()
        self._after_input()

    def _keep_early(self, seat: int, raw: bytes, theirs: Heads | None) -> None:
        held = self._early_bytes.get(seat, 0)
        if held + len(raw) <= EARLY_BYTES:
            self._early.setdefault(seat, []).append((raw, theirs))
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
            for raw, theirs in self._early.pop(seat, []):
                self._route(raw, seat, theirs)
        players = self.session.setup.players
        theirs = heads.read(beat, players)
        have = beat.get("have")
        if theirs is not None:
            self._peer_heads(seat, theirs)
        elif isinstance(have, list) and len(have) == players and all(type(n) is int and n >= 0 for n in have):
            self._peer_have[seat] = have  # a have-vector without heads: no fork can be seen in it
        else:
            return
        self._resend_missing(seat)
        if beat.get("stopped") is True:
            self._stopped.add(seat)
        else:
            self._stopped.discard(seat)

    def _peer_heads(self, seat: int, theirs: Heads, *, skip: int | None = None) -> bool:
        """Record a peer's heads and push it this peer's version of any message it holds differently. True when
        the heads (author `skip` left out) show nothing this peer lacks and no fork."""
        self._peer_have[seat] = list(theirs.have)
        comparison = heads.compare(self.session, self._own_heads(), theirs, skip=skip)
        for author, seq in comparison.forks:
            self._push_fork(seat, author, seq)
        return not comparison.missing and not comparison.forks

    def _push_fork(self, seat: int, author: int, seq: int) -> None:
        """Send `seat` this peer's version of message `seq` of `author`, which it holds differently: there it is
        an equivocation proof (PROTOCOL §9), and its stop report carries both versions to everyone."""
        now = self.clock()
        last, wait = self._fork_push.get((seat, author), (-1e9, self.timers.resend_after_s))
        if now - last < wait:
            return
        self._fork_push[(seat, author)] = (now, min(2 * wait, max(FORK_PUSH_BACKOFF_MAX_S, wait)))
        for raw in self.session.chain_messages(author, seq, 1):
            self._send(seat, [MESSAGE, raw])

    def _route(self, raw: bytes, via: int, theirs: Heads | None) -> None:
        """A message frame from `via`, with the sender's heads when it sent it. A message that would extend its
        author's chain here is read at once only when it comes from its author with heads that show nothing this
        peer lacks or holds differently; else it is held: until those messages are here (a fork: until the
        game stops on its proof); a copy from another peer, relay_grace_s (PROTOCOL §17.3)."""
        place = _place(raw)
        if place is None or place[0] >= self.session.setup.players or place[2] != self._session_hex:
            self._receive_message(raw, via)  # not a message of this game's seats: the session judges it
            return
        author, seq, _ = place
        if theirs is not None and via != author:
            self._peer_heads(via, theirs)
        if seq < self.session.have()[author]:
            self._receive_message(raw, via)  # a copy, or a second version: the proof of an equivocation
            return
        digest = hashlib.sha256(raw).digest()
        now = self.clock()
        earlier = self._held.get(digest)
        if earlier is not None:
            if earlier.heads is not None and author != via and earlier.until > now + self.timers.relay_grace_s:
                sooner = now + self.timers.relay_grace_s  # another peer accepted it: its heads wait no longer
                self._held[digest] = dataclasses.replace(earlier, until=sooner)
                self._held_due = min(self._held_due, sooner)
            if earlier.heads is not None or author != via:
                return  # held already: for its author's heads, or a copy that waits and that this one joins
            self._unhold(earlier)  # a copy from another peer waited: its author's own copy decides instead
        if author == via:
            if theirs is None or self._peer_heads(via, theirs, skip=via):
                self._receive_message(raw, via)
                return
            self._hold(_Held(raw, digest, via, author, seq, theirs, now + self.timers.heads_wait_s))
        else:
            self._hold(_Held(raw, digest, via, author, seq, None, now + self.timers.relay_grace_s))

    def _hold(self, held: "_Held") -> None:
        """Hold a message (within the link's limits). A second version of a place already held from the same
        link is not held: both go to the session, whose proof of the equivocation they are."""
        place = (held.via, held.author, held.seq)
        other = self._held.get(self._held_at.get(place, b""))
        if other is not None:
            self._unhold(other)
            self._receive_message(other.raw, other.via)
            self._receive_message(held.raw, held.via)
            return
        count, size = self._held_load.get(held.via, (0, 0))
        if count >= HELD_MESSAGES or size + len(held.raw) > EARLY_BYTES:
            return
        self._held_load[held.via] = (count + 1, size + len(held.raw))
        self._held[held.hash] = held
        self._held_at[place] = held.hash
        self._held_due = min(self._held_due, held.until)

    def _release_held(self) -> None:
        """Read every held message whose wait is over, until none is. Nothing to look at while this peer holds
        what it held at the last look and no wait has run out (a frame costs no scan of what is held)."""
        if not self._held or (self.session.have() == self._held_have and self.clock() < self._held_due):
            return
        released = True
        while released and self._held:
            released = False
            now = self.clock()
            have = self.session.have()
            for held in list(self._held.values()):
                ready = held.seq < have[held.author] or now >= held.until
                if not ready and held.heads is not None:
                    comparison = heads.compare(self.session, self._own_heads(), held.heads, skip=held.author)
                    ready = not comparison.missing and not comparison.forks
                if ready:
                    self._unhold(held)
                    self._receive_message(held.raw, held.via)
                    released = True
        self._held_have = self.session.have()
        self._held_due = min((held.until for held in self._held.values()), default=math.inf)

    def _unhold(self, held: "_Held") -> None:
        del self._held[held.hash]
        self._held_at.pop((held.via, held.author, held.seq), None)
        count, size = self._held_load[held.via]
        self._held_load[held.via] = (count - 1, size - len(held.raw))

    def _receive_message(self, raw: bytes, via: int) -> None:
        """A signed message, from its author or relayed: any message of an author accepted by any path is a
        sign of that author's life, so a seat that talks to this peer only through others is not silent."""
        self.received += 1
        before = self.session.have()
        self.session.receive(raw, via=via)
        for author, (held, had) in enumerate(zip(self.session.have(), before, strict=True)):
            if held > had and author != self.session.seat:
                self._alive(author)
        self._note_accepted()

    def _note_accepted(self) -> None:
        """Stamp the messages accepted since the last call (nothing to do when none was)."""
        if len(self.session.accepted) == self._noted:
            return
        self._noted = len(self.session.accepted)
        now = 0.0
        for times, held in zip(self._accepted_at, self.session.have(), strict=True):
            if held > len(times):
                now = now or self.clock()
                times.extend([now] * (held - len(times)))

    def _resend_missing(self, seat: int) -> None:
        """Send the peer up to RESEND_BATCH messages of each author its heartbeat shows it lacks, resend_after_s
        after the last such resend while its count for that author rises past any it showed at the resends,
        else after a wait that doubles, up to RESEND_BACKOFF_MAX_S, at each resend that did not move it (a peer
        that never reads is not sent the same messages every resend_after_s forever)."""
        self._note_accepted()
        now = self.clock()
        theirs = self._peer_have[seat]
        for author, held in enumerate(self.session.have()):
            key = (seat, author)
            if theirs[author] >= held or self._accepted_at[author][theirs[author]] > now - self.timers.relay_grace_s:
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
                since = self._accepted_at[author][theirs[author] :]
                settled = sum(1 for t in since if t <= now - self.timers.relay_grace_s)
                for raw in self.session.chain_messages(author, theirs[author], min(RESEND_BATCH, settled)):
                    self._send(seat, [MESSAGE, raw])
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

    def link_silent(self, seat: int) -> bool:
        """No frame from `seat` for `silent_after_s`: its link looks dead (shown as disconnected)."""
        return seat in self._silent

    def left_to_resume(self, seat: int) -> bool:
        """The player of `seat` left the game meaning to resume it."""
        return seat in self._away

    def beat(self) -> None:
        """One heartbeat: tell the peers what this one holds, check who is silent, let time pass."""
        self._beat()

    def _beat(self) -> None:
        now = self.clock()
        extra: dict[str, object] = {"session": self.session.session_id.hex()}
        if self.session.fault is not None and not self._awaiting_settles:
            # it takes no more messages: nobody need linger for it to catch up (while it waits for the others'
            # settles it does: a peer that ended early must not close on it before its last settle got there)
            extra["stopped"] = True
        self._broadcast([HEARTBEAT, heads.encode(self._own_heads(), **extra)])
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
        self._follow_settle()
        self._release_held()
        self._after_input()

    def _after_input(self) -> None:
        """Send what the session produced, report its events, and make the player's moves while they are due (in a
        worker thread when an event loop runs)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            runner.settle(self.session, self.player, self._send_own, self._tell)
            self._note_accepted()
            return
        runner.flush(self.session, self._send_own, self._tell)
        self._note_accepted()
        if self.player is not None and decides_at_once(self.player):
            self._decide_here(self.player)
        else:
            self._think(loop)

    def _decide_here(self, player: Player) -> None:
        """Make a quick player's moves on the loop while they are due (a player that fails stops the run, as
        one deciding in a worker thread does)."""
        while self._player_failed is None and not self._over():
            decision = self.session.decision()
            if decision is None:
                return
            try:
                action = player.choose(*decision)
            except Exception as error:  # the run reports it (PeerFailed), as for a worker thread
                self._player_failed = error
                self._woken.set()
                return
            self.session.act(action)
            runner.flush(self.session, self._send_own, self._tell)
            self._note_accepted()

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
        """A message the session produced (its own; a cheat's forgery): to every peer, with this peer's heads,
        which hold only what it accepted before it built the message. (A resend goes without: heads newer than
        the message could make two held messages wait for each other.)"""
        self._note_accepted()
        self._broadcast([MESSAGE, raw, self._heads()])
        self.sent += 1

    def _heads(self) -> bytes:
        own = self._own_heads()
        if self._heads_sent[0] is not own:
            self._heads_sent = (own, heads.encode(own))
        return self._heads_sent[1]

    def _own_heads(self) -> Heads:
        """This peer's heads, worked out again only once it has accepted another message (chains only grow)."""
        accepted = len(self.session.accepted)
        if self._heads_at[0] != accepted:
            self._heads_at = (accepted, heads.heads_of(self.session))
        return self._heads_at[1]

    def _broadcast(self, frames: list[bytes]) -> None:
        self.mesh.broadcast(frames)
        self.frames_out[frames[0]] = self.frames_out.get(frames[0], 0) + len(self.mesh.others)

    def _send(self, seat: int, frames: list[bytes]) -> None:
        self.mesh.send(seat, frames)
        self.frames_out[frames[0]] = self.frames_out.get(frames[0], 0) + 1

    def _tell(self, event: NodeEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)


@dataclass(frozen=True)
class _Held:
    """A message held for its heads: read once this peer holds what `heads` show (its author's own copy), or at
    `until` (heads_wait_s for the author's copy, relay_grace_s for another peer's), or once it no longer extends
    its author's chain."""

    raw: bytes
    hash: bytes
    via: int
    author: int
    seq: int
    heads: Heads | None
    until: float


class PeerFailed(P2pfishError):
    """The peer cannot go on (its store failed after the end, or a frame's handling failed): one line."""


_PLACE = re.compile(
    rb',"prev":"[0-9a-f]{64}","seat":(0|[1-9][0-9]{0,8}),"seq":(0|[1-9][0-9]{0,17}),"session":"([0-9a-f]{64})",'
    rb'"sig":"[0-9a-f]{128}"}\Z'
)


def _place(raw: bytes) -> tuple[int, int, str] | None:
    """A message's author, seq and session id (hex), read from the end of its canonical form (§4: its keys
    sorted, `body` first) without parsing it; None when it does not end like one. Only the session accepts
    a message, after checking it in full: a message that is not canonical is refused there, whatever this says."""
    found = _PLACE.search(raw[-400:])
    return None if found is None else (int(found[1]), int(found[2]), found[3].decode())


def _oversize(frames: list[bytes]) -> str | None:
    """Why these frames break the size limit of their kind (an unknown kind's: MAX_MESSAGE_BYTES), or None."""
    limit = FRAME_LIMITS.get(frames[0], MAX_MESSAGE_BYTES)
    for part in frames:
        if len(part) > max(limit, 1):
            return f"sent a frame of {len(part)} bytes, over the {limit}-byte limit for its kind"
    return None
