"""The terminal UI wired to a game: the front end of `host`, `join` and `resume` without `--bot`,
and `p2pfish play`, the one-command default — you against bot peers on this machine, each bot its
own process, all through the real lobby, CURVE mesh and protocol."""

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from p2pfish.botpeers import BotPeers
from p2pfish.core.actions import Action
from p2pfish.core.errors import UsageError
from p2pfish.core.player import Decision, Player
from p2pfish.core.text import printable
from p2pfish.games.registry import get_rules, kit_for
from p2pfish.invocation import join_line, p2pfish_command, resume_line
from p2pfish.net.lobby import PlayerCard, reopened
from p2pfish.net.node import NodeEvent, NodeTimers, PeerAway, PeerBack, PeerNode, PeerSilent
from p2pfish.netplay import PeerOptions, host_game, zmq_context
from p2pfish.paths import write_private_file
from p2pfish.playstart import LOOPBACK
from p2pfish.resumable import transcript_beside
from p2pfish.session.audit import audit
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Applied, ChatReceived, Finished, Session, SettleEnded, Settlement, Stopped
from p2pfish.session.setup import SHOWN_NAME_CHARS
from p2pfish.ui.app import GameApp, Lobby, Wait
from p2pfish.ui.kit import GameUi
from p2pfish.ui.narrator import Narrator

REMATCH_LOOK_S = 2.0
"""How often a joiner's end screen looks for its host's rematch lobby."""


class SessionWindow:
    """What the app reads of one seat's session: its view, its decision, whom it waits for."""

    def __init__(self, session: Session) -> None:
        assert session.seat is not None
        self.session = session
        self.seat: int = session.seat
        self.names: tuple[str, ...] = session.setup.shown_names
        self.game: str = session.setup.game
        kit = kit_for(self.game)
        self.narrator = Narrator(session.rules, session.setup.option_map, kit, seat=self.seat, names=self.names)

    def news(self) -> list[str]:
        """The log entries applied since this was last asked, in words as this seat reads them."""
        return self.narrator.lines([(entry.seat, entry.action) for entry in self.session.log], self.session.known())

    def view(self) -> Any:
        return self.session.view()

    def decision(self) -> Decision | None:
        return self.session.decision()

    def waiting_for(self) -> tuple[int, ...]:
        return tuple(seat for seat in self.session.waiting_for() if seat != self.seat)

    def waits(self) -> tuple[Wait, ...]:
        """Whom the game waits for: an in-memory table has no clock, hence no time limit."""
        return tuple(Wait(seat, self.session.deciding(seat), None) for seat in self.waiting_for())

    def progress(self) -> str:
        return self.session.progress()

    def end_offer(self) -> int | None:
        """The seat this seat may agree to end the game without (PROTOCOL §10.8)."""
        return self.session.settle_offer()

    def end_now(self) -> None:
        self.session.settle()

    def close(self) -> None:
        """The end screen closed."""


class NodeController(SessionWindow):
    """The app's window on one seat of a networked game."""

    def __init__(self, session: Session, node: PeerNode) -> None:
        super().__init__(session)
        self.node = node

    def act(self, action: Action) -> None:
        self.node.act(action)

    def waits(self) -> tuple[Wait, ...]:
        """Whom the game waits for, each with the time left before the table's timeout, and whether its
        player is deciding, its link silent, or its player gone meaning to come back."""
        now, node = self.node.clock(), self.node
        return tuple(
            Wait(seat, self.session.deciding(seat), self.session.time_left(seat, now), node.link_silent(seat),
                 node.left_to_resume(seat))
            for seat in self.waiting_for()
        )  # fmt: skip

    def chat(self, text: str) -> bool:
        if not self.session.can_chat():
            return False
        self.node.chat(text)
        return True

    def leave(self) -> None:
        self.node.leave()

    def end_offer(self) -> int | None:
        """The seat this seat may end the game without now: the one its timers named gone, or one the game
        waits for whose link is silent or whose player left, once it has played (PROTOCOL §10.8): a seat that never
        sent a message cannot be named gone, and the game stops at the table's timeout naming nobody."""
        session, node = self.session, self.node
        offer = session.settle_offer()
        if offer is not None or session.fault is not None or session.settlement is not None:
            return offer
        silent = [
            seat
            for seat in self.waiting_for()
            if (node.link_silent(seat) or node.left_to_resume(seat)) and session.has_played(seat)
        ]
        if not silent or session.rules.outcome_so_far(session.state, silent[0]) is None:
            return None
        return silent[0]

    def end_now(self) -> None:
        gone = self.end_offer()
        if gone is not None:
            self.session.give_up(gone)
            self.node.settle()

    def close(self) -> None:
        """The end screen closed: stop waiting for an early end nobody else agreed to."""
        if self.session.settlement is None and not self.session.finished:
            self.node.stop_settling()


class TableController(SessionWindow):
    """The app's window on one seat of an in-memory table whose other seats are bots: the same app,
    the same sessions and crypto, without sockets (for tests and the keypress benchmark)."""

    def __init__(self, table: MemoryTable, seat: int, app: GameApp) -> None:
        super().__init__(table.sessions[seat])
        self.table, self.app = table, app
        self.left = False

    def act(self, action: Action) -> None:
        self.session.act(action)
        self.settle()

    def end_now(self) -> None:
        self.session.settle()
        self.settle()

    def chat(self, text: str) -> bool:
        sent = self.session.chat(text)
        self.settle()
        return sent

    def leave(self) -> None:
        self.left = True

    def settle(self) -> None:
        """Run the table until it waits for this seat (or ends), telling the app what happened."""
        self.table.collect(self.session)
        self.table.settle()
        for event in self.session.take_events():
            if isinstance(event, Applied):
                for line in self.news():
                    self.app.log(line)
            elif isinstance(event, Finished):
                verdict = "Audit: " + (
                    "verified." if audit(self.session.transcript(), self.session.rules).verified else "FAILED."
                )
                self.app.game_over(event.outcome.winners, verdict)
            elif isinstance(event, Stopped):
                self.app.stopped(f"The game stopped: {event.fault.describe(self.names)}")
            elif isinstance(event, SettleEnded):
                self.app.log(early_end_words(event.settlement, self.names), "announce")
                self.app.game_over(
                    event.settlement.outcome.winners,
                    f"Ended early without {self.names[event.settlement.gone]}.",
                    event.settlement.outcome.scores,
                )
            elif isinstance(event, ChatReceived):
                self.app.log(f"{self.names[event.seat]}: {event.text}", "chat")


class UiFrontend:
    """A person plays this seat in the full-screen terminal app."""

    def __init__(
        self,
        options: PeerOptions,
        *,
        ascii_only: bool,
        input: Input | None = None,
        output: Output | None = None,
        bots: BotPeers | None = None,
    ) -> None:
        self.options = options
        self.bots = bots
        self.ascii_only, self._input, self._output = ascii_only, input, output
        self.rematch_offer = ""
        """What the end screen's `r` does (empty: no rematch, as after `resume`): set when a lobby opens."""
        self.start_now: asyncio.Event | None = asyncio.Event()
        self.left_lobby: asyncio.Event | None = asyncio.Event()
        self.app = GameApp(
            ascii_only=ascii_only, on_start=self._start, on_add_bot=self._add_bot, input=input, output=output
        )
        self.names: tuple[str, ...] = ()
        self.store: Path | None = None
        self._app_task: asyncio.Future[None] | None = None
        self._lobby: Lobby | None = None
        self._joined: tuple[str, str] | None = None
        """A joiner's lobby address and code: where its host opens a rematch's lobby."""
        self._looking: asyncio.Future[None] | None = None
        self._session: Session | None = None
        self._window: NodeController | None = None
        self.kit: GameUi | None = None

    def _start(self) -> None:
        if self.start_now is not None:
            self.start_now.set()

    def _add_bot(self) -> str:
        lobby = self._lobby
        if self.bots is None or lobby is None or not lobby.host:
            return "Only the host seats bots."
        if len(lobby.players) + self.bots.on_their_way(lobby.players) >= lobby.wanted:
            return "The table is full (or every free seat has a bot on its way)."
        return f"{self.bots.add()} is joining."

    def _ensure_app(self) -> None:
        if self._app_task is None:
            self._app_task = asyncio.ensure_future(self.app.run())
            self._app_task.add_done_callback(self._app_ended)

    def _app_ended(self, _: "asyncio.Future[None]") -> None:
        """The app ended before the game started: the player left the lobby."""
        if self._session is None and self.left_lobby is not None:
            self.left_lobby.set()

    def note(self, text: str) -> None:
        self._ensure_app()
        self.app.log(text, "dim")

    def lobby_open(self, title: str, address: str, code: str, wanted: int, more: Sequence[str] = ()) -> None:
        self._ensure_app()
        hosting = wanted > 0
        offer = "rematch: reopen the lobby" if hosting else "rematch: rejoin the host"
        self.rematch_offer = self.rematch_offer or offer
        self._joined = None if hosting else (address, code)
        self._lobby = Lobby(
            title, address, code, [self.options.name], wanted, host=hosting, more=list(more),
            join_line=join_line(address, code) if hosting else "",
        )  # fmt: skip
        self.app.show_lobby(self._lobby)

    def lobby_changed(self, cards: list[PlayerCard], wanted: int, title: str = "") -> None:
        if self._lobby is not None:
            self._lobby.players = [printable(card.name, SHOWN_NAME_CHARS) for card in cards]
            self._lobby.wanted = wanted or self._lobby.wanted
            self._lobby.title = title or self._lobby.title
            self.app.show_lobby(self._lobby)

    def player(self, session: Session) -> Player | None:
        """None: the person's moves come from the app (NodeController.act)."""
        return None

    def started(self, session: Session, node: PeerNode, store: Path) -> None:
        self._ensure_app()
        self.names, self.store = session.setup.shown_names, store
        self.kit = kit_for(session.setup.game)
        self._window = NodeController(session, node)
        self.app.start(self._window, self.kit)
        self.app.rematch_offer = self.rematch_offer
        self._session = session
        self.app.log(f"Left or crashed? {resume_line()} brings you back to this game.", "dim")

    def event(self, event: NodeEvent) -> None:
        names = self.names
        if isinstance(event, Applied) and self._window is not None:
            for line in self._window.news():
                self.app.log(line)
        elif isinstance(event, Finished) and self._session is not None:
            result = audit(self._session.transcript(), self._session.rules)
            verdict = (
                "Audit: every signature, commitment and random draw verified."
                if result.verified
                else f"AUDIT FAILED: {result.fault.describe(names) if result.fault else 'incomplete'}"
            )
            self.app.game_over(event.outcome.winners, verdict)
            self._look_for_rematch()
        elif isinstance(event, Stopped):
            self.app.stopped(f"The game stopped: {event.fault.describe(names)}")
            self._look_for_rematch()
        elif isinstance(event, SettleEnded):
            self.app.log(early_end_words(event.settlement, names), "announce")
            self.app.game_over(
                event.settlement.outcome.winners,
                f"Ended early without {names[event.settlement.gone]}.",
                event.settlement.outcome.scores,
            )
            self._look_for_rematch()
        elif isinstance(event, ChatReceived):
            self.app.log(f"{names[event.seat]}: {event.text}", "chat")
        elif isinstance(event, PeerSilent):
            self.app.announce(f"Lost contact with {names[event.seat]}: nothing heard for {event.seconds:.0f} s.")
        elif isinstance(event, PeerAway):
            self.app.announce(f"{names[event.seat]} left the game; waiting for them to resume it.")
        elif isinstance(event, PeerBack):
            self.app.announce(f"{names[event.seat]} is back.")

    def _look_for_rematch(self) -> None:
        """A joiner's end screen: its player is told once the host opens its lobby again for a rematch."""
        if self._joined is not None and self._looking is None and self.rematch_offer:
            self._looking = asyncio.ensure_future(self._await_rematch(*self._joined))

    async def _await_rematch(self, address: str, code: str) -> None:
        await reopened(address, code, REMATCH_LOOK_S)
        self.app.announce("The host opened its lobby again: r joins the rematch.")

    async def finished(self, session: Session, node: PeerNode) -> None:
        if self._app_task is not None:
            await self._app_task
        if self._looking is not None:
            self._looking.cancel()
        if self.app.left and self.store is not None and not (session.finished or session.fault):
            print(f"You left the game. Come back to it with: {resume_line(self.store)}")
            if self.bots is not None and self.bots.running():
                print("Your bots leave it too, and come back with you (within a day).")
        elif session.finished or session.fault is not None:
            print(self.summary(session))

    def rematch(self) -> "UiFrontend | None":
        """The front of the rematch the player asked for on the end screen, or None."""
        if not self.app.rematch:
            return None
        following = UiFrontend(
            self.options, ascii_only=self.ascii_only, input=self._input, output=self._output, bots=self.bots
        )
        following.rematch_offer = self.rematch_offer
        if self.start_now is None:
            following.start_now = None
        return following

    def summary(self, session: Session) -> str:
        """The result as printed when the end screen closes: scores, winners, the audit and the transcript,
        written beside the game's store (or where --transcript said)."""
        names = self.names
        lines = [f"p2pfish - {self.kit.title if self.kit else session.setup.game} - session "
                 f"{session.session_id.hex()[:16]}"]  # fmt: skip
        outcome = session.outcome()
        if outcome is None and session.settlement is not None:
            outcome = session.settlement.outcome
            lines.append(early_end_words(session.settlement, names))
        if outcome is None:
            fault = session.fault
            lines.append(f"The game stopped: {fault.describe(names) if fault else 'unfinished'}")
        else:
            for seat in sorted(range(len(names)), key=lambda seat: -outcome.scores[seat]):
                mark = "  winner" if seat in outcome.winners else ""
                lines.append(f"  {names[seat]:<{max(len(n) for n in names)}}  {outcome.scores[seat]:>4} points{mark}")
            lines.append("Winner: " + " and ".join(names[seat] for seat in outcome.winners))
        path = Path(self.options.transcript) if self.options.transcript else self._transcript_path()
        if path is not None:
            if not path.exists():
                write_private_file(path, b"\n".join(session.transcript()) + b"\n", "transcript")
            lines.append(f"Transcript: {path} (check it with: {p2pfish_command()} verify {path})")
        return "\n".join(lines)

    def _transcript_path(self) -> Path | None:
        """Where the transcript goes without --transcript: beside the game's store."""
        if self.store is None:
            return None
        return transcript_beside(self.store)


def early_end_words(settlement: Settlement, names: tuple[str, ...]) -> str:
    signers = ", ".join(names[seat] for seat in settlement.signers)
    return (
        f"Ended early without {names[settlement.gone]}, with the scores so far after turn {settlement.turn}; "
        f"signed by {signers}."
    )


async def play_local(
    game: str, bots: BotPeers, port: int, code: str, *, ascii_only: bool, name: str, input: Input | None = None,
    output: Output | None = None,
) -> int:  # fmt: skip
    """You against the `bots` (bot peers on this machine, started already and trying to join the lobby at
    LOOPBACK:`port` with `code`), over loopback, through the whole protocol: this peer hosts that lobby."""
    rules = get_rules(game)
    kit_for(game)
    players = len(bots.processes) + 1
    if not rules.min_players <= players <= rules.max_players:
        low, high = rules.min_players - 1, rules.max_players - 1
        raise UsageError(f"{rules.title} needs {low}-{high} bots, not {players - 1}")
    options = PeerOptions(name, "", bots.seed, None, None, None, False, NodeTimers())
    front = UiFrontend(options, ascii_only=ascii_only, input=input, output=output, bots=bots)
    front.start_now = None
    front.rematch_offer = "rematch with the same bots"
    with zmq_context() as context:
        return await host_game(
            game, players, game_options={}, bind_host=LOOPBACK, port=port, code=code, advertise=False,
            options=options, front=front, context=context, bots=bots,
        )  # fmt: skip
