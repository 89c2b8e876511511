"""The terminal UI wired to a game: the front end of `host`, `join` and `resume` without `--bot`,
and `p2pfish play`, the one-command default — you against bot peers on this machine, each bot its
own process, all through the real lobby, CURVE mesh and protocol."""

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from p2pfish.bots import LEVELS
from p2pfish.core.actions import Action
from p2pfish.core.errors import UsageError
from p2pfish.core.player import Decision, Player
from p2pfish.core.text import printable
from p2pfish.games.registry import get_rules, kit_for
from p2pfish.net.lobby import PlayerCard, new_join_code
from p2pfish.net.node import NodeEvent, NodeTimers, PeerAway, PeerBack, PeerNode, PeerSilent
from p2pfish.netplay import PeerOptions, host_game, zmq_context
from p2pfish.session.audit import audit
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Applied, ChatReceived, Finished, Session, Slow, Stopped
from p2pfish.session.setup import SHOWN_NAME_CHARS
from p2pfish.ui.app import GameApp, Lobby
from p2pfish.ui.kit import GameUi


class SessionWindow:
    """What the app reads of one seat's session: its view, its decision, whom it waits for."""

    def __init__(self, session: Session) -> None:
        assert session.seat is not None
        self.session = session
        self.seat: int = session.seat
        self.names: tuple[str, ...] = session.setup.shown_names
        self.game: str = session.setup.game

    def view(self) -> Any:
        return self.session.view()

    def decision(self) -> Decision | None:
        return self.session.decision()

    def waiting_for(self) -> tuple[int, ...]:
        return tuple(seat for seat in self.session.waiting_for() if seat != self.seat)

    def progress(self) -> str:
        return self.session.progress()


class NodeController(SessionWindow):
    """The app's window on one seat of a networked game."""

    def __init__(self, session: Session, node: PeerNode) -> None:
        super().__init__(session)
        self.node = node

    def act(self, action: Action) -> None:
        self.node.act(action)

    def chat(self, text: str) -> bool:
        if not self.session.can_chat():
            return False
        self.node.chat(text)
        return True

    def leave(self) -> None:
        self.node.leave()


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
                self.app.log(kit_for(self.game).narrate(event.seat, event.action, self.names))
            elif isinstance(event, Finished):
                verdict = "Audit: " + ("verified." if audit(self.session.transcript()).verified else "FAILED.")
                self.app.game_over(event.outcome.winners, verdict)
            elif isinstance(event, Stopped):
                self.app.stopped(f"The game stopped: {event.fault.describe(self.names)}")
            elif isinstance(event, ChatReceived):
                self.app.log(f"{self.names[event.seat]}: {event.text}", "chat")


class UiFrontend:
    """A person plays this seat in the full-screen terminal app."""

    def __init__(
        self, options: PeerOptions, *, ascii_only: bool, input: Input | None = None, output: Output | None = None
    ) -> None:
        self.options = options
        self.start_now: asyncio.Event | None = asyncio.Event()
        self.app = GameApp(ascii_only=ascii_only, on_start=self._start, input=input, output=output)
        self.names: tuple[str, ...] = ()
        self.store: Path | None = None
        self._app_task: asyncio.Future[None] | None = None
        self._lobby: Lobby | None = None
        self._session: Session | None = None
        self.kit: GameUi | None = None

    def _start(self) -> None:
        if self.start_now is not None:
            self.start_now.set()

    def _ensure_app(self) -> None:
        if self._app_task is None:
            self._app_task = asyncio.ensure_future(self.app.run())

    def note(self, text: str) -> None:
        self._ensure_app()
        self.app.log(text, "dim")

    def lobby_open(self, title: str, address: str, code: str, wanted: int) -> None:
        self._ensure_app()
        self._lobby = Lobby(title.capitalize(), address, code, [self.options.name], wanted, host=wanted > 0)
        self.app.show_lobby(self._lobby)

    def lobby_changed(self, cards: list[PlayerCard], wanted: int) -> None:
        if self._lobby is not None:
            self._lobby.players = [printable(card.name, SHOWN_NAME_CHARS) for card in cards]
            self._lobby.wanted = wanted or self._lobby.wanted or len(cards)
            self.app.show_lobby(self._lobby)

    def player(self, session: Session) -> Player | None:
        """None: the person's moves come from the app (NodeController.act)."""
        return None

    def started(self, session: Session, node: PeerNode, store: Path) -> None:
        self._ensure_app()
        self.names, self.store = session.setup.shown_names, store
        self.kit = kit_for(session.setup.game)
        self.app.start(NodeController(session, node), self.kit)
        self._session = session

    def event(self, event: NodeEvent) -> None:
        names = self.names
        if isinstance(event, Applied) and self.kit is not None:
            self.app.log(self.kit.narrate(event.seat, event.action, names))
        elif isinstance(event, Finished) and self._session is not None:
            result = audit(self._session.transcript())
            verdict = (
                "Audit: every signature, commitment and random draw verified."
                if result.verified
                else f"AUDIT FAILED: {result.fault.describe(names) if result.fault else 'incomplete'}"
            )
            self.app.game_over(event.outcome.winners, verdict)
        elif isinstance(event, Stopped):
            self.app.stopped(f"The game stopped: {event.fault.describe(names)}")
        elif isinstance(event, ChatReceived):
            self.app.log(f"{names[event.seat]}: {event.text}", "chat")
        elif isinstance(event, (Slow, PeerSilent)):
            self.app.announce(f"Waiting for {names[event.seat]}: no answer for a while.")
        elif isinstance(event, PeerAway):
            self.app.announce(f"{names[event.seat]} left the game; waiting for them to resume it.")
        elif isinstance(event, PeerBack):
            self.app.announce(f"{names[event.seat]} is back.")

    async def finished(self, session: Session, node: PeerNode) -> None:
        if self._app_task is not None:
            await self._app_task
        if self.app.left and self.store is not None:
            print(f"You left the game. Come back to it with: p2pfish resume {self.store}")


class PlayFrontend(UiFrontend):
    """`p2pfish play`: the UI front end, plus bot peers started as processes once the lobby opens."""

    def __init__(self, options: PeerOptions, *, bots: list[str], seed: int, ascii_only: bool, **io: Any) -> None:
        super().__init__(options, ascii_only=ascii_only, **io)
        self.bots, self.seed = bots, seed
        self.workdir = Path(tempfile.mkdtemp(prefix="p2pfish-play-"))
        self.processes: list[subprocess.Popen[bytes]] = []

    def lobby_open(self, title: str, address: str, code: str, wanted: int) -> None:
        super().lobby_open(title, address, code, wanted)
        env = {**os.environ, "XDG_STATE_HOME": str(self.workdir / "state")}
        for index, kind in enumerate(self.bots, start=1):
            argv = [
                sys.executable, "-m", "p2pfish", "join", address, "--code", code, "--bot", kind,
                "--seed", str(self.seed * 10 + index), "--name", f"{kind} bot {index}",
                "--identity-dir", str(self.workdir / f"bot{index}"),
            ]  # fmt: skip
            with (self.workdir / f"bot{index}.log").open("wb") as log:
                self.processes.append(subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env))

    async def finished(self, session: Session, node: PeerNode) -> None:
        """Over: the bots go too. Left: they wait (10 minutes) for `p2pfish resume`."""
        await super().finished(session, node)
        if not self.app.left:
            self.stop_bots()

    def stop_bots(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()


async def play_local(
    game: str, bots: int, seed: int, *, ascii_only: bool, name: str, input: Input | None = None,
    output: Output | None = None, level: str | None = None,
) -> int:  # fmt: skip
    """You against `bots` bot peers on this machine, over loopback, through the whole protocol; `level` (a key of
    bots.LEVELS) picks their kind, else they are greedy and random by turns."""
    rules = get_rules(game)
    kit_for(game)
    players = bots + 1
    if not rules.min_players <= players <= rules.max_players:
        raise UsageError(f"{rules.title} needs {rules.min_players - 1}-{rules.max_players - 1} bots, not {bots}")
    kinds = [LEVELS[level] if level else "greedy" if index % 2 else "random" for index in range(1, players)]
    options = PeerOptions(name, "", seed, None, None, None, False, NodeTimers())
    front = PlayFrontend(options, bots=kinds, seed=seed, ascii_only=ascii_only, input=input, output=output)
    front.start_now = None
    with zmq_context() as context:
        try:
            return await host_game(
                game, players, game_options={}, bind_host="127.0.0.1", port=0, code=new_join_code(), advertise=False,
                options=options, front=front, context=context,
            )  # fmt: skip
        except BaseException:
            front.stop_bots()
            raise
