"""The full-screen terminal app: lobby, game and end screens for one seat.

It sees only what a `Controller` gives it — this seat's view, its legal moves, whom the game waits
for — and hands back the player's choices. Network and session events reach it as plain calls
(`log`, `announce`, `game_over`, `stopped`), each followed by a redraw. The screens draw a `Snapshot`
of the game, read from the controller once after such calls (and after the player's own move or
chat), not once per panel and frame.
"""

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import WordCompleter
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, Dimension, Float, FloatContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from p2pfish.core.actions import Action
from p2pfish.core.player import Decision
from p2pfish.core.text import printable
from p2pfish.ui.kit import GameUi

MIN_COLUMNS, MIN_ROWS = 80, 24
CHOICE_ROWS, CHOICE_COLUMNS = 3, 3
BOARD_WIDTH = 66
LOG_LINES = 200
LOBBY_NAME_CHARS = 40

STYLE = Style.from_dict(
    {
        "title": "bold",
        "dim": "#888888",
        "fish": "#33aaff bold",
        "stone": "#bb8844",
        "water": "#5566aa",
        "empty": "#666666",
        "mycolumn": "underline",
        "selected": "reverse",
        "turn": "#ffcc00 bold",
        "player": "",
        "secret": "#ff77ff",
        "error": "#ff5555 bold",
        "chat": "#88ff88",
        "announce": "#ffaa00 bold",
        "choice": "",
        "choice.selected": "reverse",
        "red": "#ff5f5f bold",
        "yellow": "#ffd75f bold",
        "green": "#5fd75f bold",
        "blue": "#5fafff bold",
        "coral": "#ff875f",
        "shark": "#bcbcbc bold",
        "octopus": "#d787ff bold",
        "bones": "#808080",
    }
)

KEYS_HELP = """Keys
  Up / Down   pick one of your legal moves     Enter   play the picked move
  Tab         complete a command               ?       this help (Esc closes it)
  Ctrl-C      leave the game (asks first; `p2pfish resume` brings you back)
  say TEXT    chat with the table              quit    leave the game
"""


class Controller(Protocol):
    """What the app may ask of the game: one seat's view and moves, never anything else."""

    seat: int
    names: tuple[str, ...]
    game: str

    def view(self) -> Any: ...
    def decision(self) -> Decision | None: ...
    def waiting_for(self) -> tuple[int, ...]: ...
    def progress(self) -> str: ...
    def act(self, action: Action) -> None: ...
    def chat(self, text: str) -> bool: ...
    def leave(self) -> None: ...


@dataclass
class Lobby:
    title: str
    """The game's title; empty while a joiner does not know it yet."""
    address: str
    code: str
    players: list[str]
    wanted: int
    """The table's seats; 0 while a joiner does not know them yet."""
    host: bool
    more: list[str] = field(default_factory=list)
    """The lobby's other addresses (the host's other networks)."""
    join_line: str = ""
    """The command another player types to join (shown to the host)."""


@dataclass(frozen=True)
class Snapshot:
    """The game as the screens draw it: this seat's view and, when it must decide now, its legal moves."""

    seat: int
    names: tuple[str, ...]
    view: Any
    legal: list[Action] | None
    """None while the game waits for others, and once it is over or stopped."""


@dataclass
class Model:
    log: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    message: tuple[str, str] = ("", "")
    selected: int = 0
    help: bool = False
    confirm_leave: bool = False
    lobby: Lobby | None = None
    winners: tuple[int, ...] | None = None
    audit: str = ""
    stopped: str = ""
    waiting_since: dict[int, float] = field(default_factory=dict)


class GameApp:
    def __init__(
        self,
        *,
        ascii_only: bool = False,
        input: Input | None = None,
        output: Output | None = None,
        on_start: Callable[[], None] | None = None,
        on_add_bot: Callable[[], str] | None = None,
    ) -> None:
        self.controller: Controller | None = None
        self.ascii_only = ascii_only
        self.model = Model()
        self.on_start = on_start
        self.on_add_bot = on_add_bot
        """A host's `bot` command (or `+`) in the lobby: seat a bot; what it says is shown."""
        self.left = False
        self.kit: GameUi | None = None
        """The game's terminal kit, once the game starts (the lobby comes first, and a joiner learns there
        which game it joined)."""
        self._snapshot: Snapshot | None = None
        """The game as last read from the controller; None when it must be read again."""
        self.completer = WordCompleter([], ignore_case=True)
        self.input = Buffer(completer=self.completer, multiline=False)
        self.app: Application[None] = Application(
            layout=Layout(self._root(), focused_element=self.input),
            key_bindings=self._bindings(),
            style=STYLE,
            full_screen=True,
            refresh_interval=0.5,
            input=input,
            output=output,
            color_depth=ColorDepth.DEPTH_1_BIT if ascii_only else None,
            mouse_support=False,
        )

    # --- what the wiring calls ---------------------------------------------------------------------

    def show_lobby(self, lobby: Lobby) -> None:
        self.model.lobby = lobby
        self.redraw()

    def _help_text(self) -> str:
        return KEYS_HELP + ("\n" + self.kit.help if self.kit else "")

    @property
    def _game_kit(self) -> GameUi:
        if self.kit is None:
            raise RuntimeError("the game's screens are drawn only once it has started")
        return self.kit

    def start(self, controller: Controller, kit: GameUi) -> None:
        self.controller = controller
        self.kit = kit
        self.completer.words = kit.words
        self.model.lobby = None
        self._snapshot = None
        self.log("The game starts. Press ? for help.", "announce")

    def log(self, text: str, style: str = "") -> None:
        self.model.log.append((style, printable(text)))
        self._snapshot = None
        self.redraw()

    def announce(self, text: str) -> None:
        self.log(text, "announce")

    def game_over(self, winners: tuple[int, ...], audit: str) -> None:
        self.model.winners, self.model.audit = winners, audit
        self.log("Game over. " + audit, "announce")

    def stopped(self, text: str) -> None:
        self.model.stopped = printable(text)
        self.log(text, "error")

    def redraw(self) -> None:
        self.app.invalidate()

    async def run(self) -> None:
        await self.app.run_async()

    # --- input ---------------------------------------------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        """The game as the screens draw it, read from the controller (one view, one list of legal
        moves) only when a session event or the player's own move came since it was last read."""
        if self._snapshot is None:
            controller = self.controller
            if controller is None:
                raise RuntimeError("there is no game to draw before it has started")
            decision = None if self._over() else controller.decision()
            view, legal = decision if decision is not None else (controller.view(), None)
            self._snapshot = Snapshot(controller.seat, controller.names, view, legal)
        return self._snapshot

    def _legal(self) -> list[Action] | None:
        return None if self.controller is None else self.snapshot.legal

    def _selected(self, legal: list[Action]) -> int:
        return min(self.model.selected, len(legal) - 1)

    def _play(self, action: Action) -> None:
        assert self.controller is not None
        snapshot = self.snapshot
        self.controller.act(action)
        self._snapshot = None
        self.model.selected = 0
        self.model.message = ("", f"You: {self._game_kit.describe(action, snapshot.view, snapshot.names)}")
        self.redraw()

    def _enter(self) -> None:
        text = self.input.text.strip()
        self.input.reset()
        if self.model.lobby is not None:
            self._lobby_command(self.model.lobby, text)
            return
        if self._over():
            if text in ("", "q", "quit"):
                self.app.exit()
            return
        if text:
            self._command(text)
            return
        legal = self._legal()
        if legal is None:
            self.model.message = ("class:error", "It is not your turn yet.")
            return
        self._play(legal[self._selected(legal)])

    def _lobby_command(self, lobby: Lobby, text: str) -> None:
        if text in ("quit", "exit", "leave"):
            self.model.confirm_leave = True
        elif lobby.host and self.on_start is not None and text in ("", "start"):
            self.on_start()
        elif lobby.host and self.on_add_bot is not None and text in ("bot", "+"):
            self.model.message = ("", self.on_add_bot())
        elif text:
            words = "Enter starts, `bot` (or +) seats a bot, quit leaves" if lobby.host else "quit leaves"
            self.model.message = ("class:error", f"Not a lobby command: {printable(text, 30)} ({words}).")

    def _command(self, text: str) -> None:
        verb, _, rest = text.partition(" ")
        if verb in ("say", "/say") and rest.strip() and self.controller is not None:
            sent = self.controller.chat(rest.strip())
            self._snapshot = None
            if sent:
                self.log(f"you: {rest.strip()}", "chat")
            else:
                refusal = "Not sent: chat limit reached (it grows back as the game goes on)."
                self.model.message = ("class:error", refusal)
            return
        if verb in ("help", "?"):
            self.model.help = True
            return
        if verb in ("quit", "exit", "leave"):
            self.model.confirm_leave = True
            return
        legal = self._legal()
        if legal is None:
            self.model.message = ("class:error", "It is not your turn yet (say TEXT to chat, ? for help).")
            return
        snapshot = self.snapshot
        result = self._game_kit.parse(text, snapshot.view, legal, snapshot.names)
        if isinstance(result, str):
            self.model.message = ("class:error", result)
        else:
            self._play(result)

    def _over(self) -> bool:
        return self.model.winners is not None or bool(self.model.stopped)

    def _bindings(self) -> KeyBindings:
        keys = KeyBindings()
        confirming = Condition(lambda: self.model.confirm_leave)

        @keys.add("up", filter=~confirming)
        def _(event: KeyPressEvent) -> None:
            self.model.selected = max(0, self.model.selected - 1)

        @keys.add("down", filter=~confirming)
        def _(event: KeyPressEvent) -> None:
            legal = self._legal()
            if legal is not None:
                self.model.selected = min(len(legal) - 1, self.model.selected + 1)

        @keys.add("enter", filter=~confirming)
        def _(event: KeyPressEvent) -> None:
            self._enter()

        @keys.add("?", filter=Condition(lambda: not self.input.text) & ~confirming)
        def _(event: KeyPressEvent) -> None:
            self.model.help = not self.model.help

        hosting = Condition(lambda: self.model.lobby is not None and self.model.lobby.host and not self.input.text)

        @keys.add("+", filter=hosting & ~confirming)
        def _(event: KeyPressEvent) -> None:
            if self.model.lobby is not None:
                self._lobby_command(self.model.lobby, "+")

        @keys.add("q", filter=Condition(lambda: self._over() and not self.input.text))
        def _(event: KeyPressEvent) -> None:
            self.app.exit()

        @keys.add("escape", eager=True)
        def _(event: KeyPressEvent) -> None:
            self.model.help = False
            self.model.confirm_leave = False

        @keys.add("c-c")
        @keys.add("c-d")
        def _(event: KeyPressEvent) -> None:
            if self._over():
                self.app.exit()
            else:
                self.model.confirm_leave = True

        @keys.add("y", filter=confirming)
        def _(event: KeyPressEvent) -> None:
            self.left = True
            if self.controller is not None:
                self.controller.leave()
            self.app.exit()

        @keys.add("n", filter=confirming)
        def _(event: KeyPressEvent) -> None:
            self.model.confirm_leave = False

        return keys

    # --- layout --------------------------------------------------------------------------------------

    def _root(self) -> FloatContainer:
        too_small = Condition(self._too_small)
        game = HSplit(
            [
                Window(FormattedTextControl(self._title), height=1, style="reverse"),
                VSplit(
                    [
                        HSplit(
                            [
                                Window(FormattedTextControl(self._board), height=15),
                                Window(
                                    FormattedTextControl(self._status),
                                    height=Dimension(min=2, preferred=7, max=7),
                                    wrap_lines=True,
                                ),
                            ],
                            width=BOARD_WIDTH,
                        ),
                        Frame(Window(FormattedTextControl(self._log), wrap_lines=True), title="What happened"),
                    ]
                ),
                Frame(
                    Window(FormattedTextControl(self._choices), height=Dimension(min=1, preferred=5, max=5)),
                    title=self._choices_title,
                ),
                Window(FormattedTextControl(lambda: [self.model.message]), height=1),
                VSplit(
                    [
                        Window(FormattedTextControl(lambda: [("class:title", "> ")]), width=2),
                        Window(BufferControl(self.input), height=1),
                    ]
                ),
            ]
        )
        small = Window(FormattedTextControl(self._small_message), style="class:error")
        return FloatContainer(
            HSplit([ConditionalContainer(game, ~too_small), ConditionalContainer(small, too_small)]),
            floats=[
                Float(ConditionalContainer(Frame(Window(FormattedTextControl(self._help_text)),
                                                 title="Help"),
                                           Condition(lambda: self.model.help))),
                Float(ConditionalContainer(
                    Frame(Window(FormattedTextControl(self._confirm_text), height=3, width=62), title="Leave?"),
                    Condition(lambda: self.model.confirm_leave))),
            ],
        )  # fmt: skip

    def _too_small(self) -> bool:
        size = self.app.output.get_size()
        return size.columns < MIN_COLUMNS or size.rows < MIN_ROWS

    def _small_message(self) -> StyleAndTextTuples:
        size = self.app.output.get_size()
        return [("class:error", f"The terminal is {size.columns}x{size.rows}; p2pfish needs at least "
                                f"{MIN_COLUMNS}x{MIN_ROWS}. Make it larger (Ctrl-C leaves).")]  # fmt: skip

    def _confirm_text(self) -> StyleAndTextTuples:
        if self.model.lobby is not None and self.controller is None:
            seat = "The lobby closes for everyone in it." if self.model.lobby.host else "Your seat is freed."
            return [("", f"Leave the lobby? {seat}\n"), ("", "y = leave, n = stay")]
        return [("", "Leave the game? The others are told; you can come back with\n"),
                ("", "`p2pfish resume`.  y = leave, n = stay")]  # fmt: skip

    def _title(self) -> StyleAndTextTuples:
        if self.controller is None:
            return [("", " p2pfish")]
        seat, names = self.snapshot.seat, self.snapshot.names
        return [("", f" p2pfish - {self._game_kit.title} - you are {names[seat]} (seat {seat})")]

    def _board(self) -> StyleAndTextTuples:
        lobby = self.model.lobby
        if lobby is not None:
            return self._lobby(lobby)
        if self.controller is None:
            return [("class:dim", "Connecting...")]
        snapshot = self.snapshot
        selected = snapshot.legal[self._selected(snapshot.legal)] if snapshot.legal else None
        return self._game_kit.board(snapshot.view, snapshot.names, selected, self.ascii_only)

    def _lobby(self, lobby: Lobby) -> StyleAndTextTuples:
        seats = f"{len(lobby.players)}/{lobby.wanted}" if lobby.wanted else str(len(lobby.players))
        out: StyleAndTextTuples = [
            ("class:title", f"{lobby.title} lobby\n\n" if lobby.title else "Lobby\n\n"),
            ("", f"  address    {lobby.address}\n"),
            *(("class:dim", f"  also at    {address}\n") for address in lobby.more),
            ("class:secret", f"  join code  {lobby.code}\n"),
        ]
        if lobby.join_line:
            out.append(("", f"  to join, type:\n    {lobby.join_line}\n"))
        out.append(("", f"\n  players ({seats}):\n"))
        out += [("", f"    {printable(name, LOBBY_NAME_CHARS)}\n") for name in lobby.players]
        if lobby.host:
            hint = "Enter starts now (or wait until the table is full).\n  `bot` or + seats a bot; quit leaves."
            out.append(("class:turn", f"\n  {hint}\n"))
        else:
            out.append(("class:dim", "\n  Waiting for the host to start; quit leaves.\n"))
        return out

    def _status(self) -> StyleAndTextTuples:
        if self.controller is None:
            return []
        snapshot = self.snapshot
        if self.model.winners is not None:
            scores = self._game_kit.scores(snapshot.view, snapshot.names, self.model.winners)
            return [*scores, ("class:turn", self.model.audit)]
        return self._game_kit.status(snapshot.view, snapshot.names)

    def _log(self) -> StyleAndTextTuples:
        """The newest lines that fit the panel, counting the rows a long line wraps onto."""
        size = self.app.output.get_size()
        room, width = max(3, size.rows - 14), max(10, size.columns - BOARD_WIDTH - 2)
        lines: list[tuple[str, str]] = []
        for style, text in reversed(self.model.log):
            room -= -(-max(1, len(text)) // width)
            if room < 0:
                break
            lines.append((style, text))
        out: StyleAndTextTuples = []
        for style, text in reversed(lines):
            out += [(f"class:{style}" if style else "", text), ("", "\n")]
        return out

    def _choices_title(self) -> str:
        if self._over():
            return "The end - Enter or q to quit"
        return "Your move - Up/Down and Enter, or type a command" if self._legal() is not None else "Waiting"

    def _choices(self) -> StyleAndTextTuples:
        if self._over() or self.controller is None:
            return [("class:error", self.model.stopped)] if self.model.stopped else []
        snapshot = self.snapshot
        if snapshot.legal is None:
            return self._waiting()
        legal = snapshot.legal
        selected = self._selected(legal)
        texts = [f" {self._game_kit.describe(action, snapshot.view, snapshot.names)} " for action in legal]
        width = max(len(text) for text in texts) + 2
        columns = max(1, min(CHOICE_COLUMNS, (self.app.output.get_size().columns - 4) // width))
        shown = CHOICE_ROWS * columns
        first = max(0, selected - shown + 1)
        out: StyleAndTextTuples = []
        for index, text in enumerate(texts[first : first + shown]):
            mark = "class:choice.selected" if first + index == selected else "class:choice"
            end = "\n" if index % columns == columns - 1 else " " * (width - len(text))
            out += [(mark, text), ("", end)]
        if len(legal) > shown:
            out.append(("class:dim", f"  ({len(legal)} moves; Up/Down scrolls)"))
        return out

    def _waiting(self) -> StyleAndTextTuples:
        assert self.controller is not None
        now = time.monotonic()
        seats = self.controller.waiting_for()
        for seat in list(self.model.waiting_since):
            if seat not in seats:
                del self.model.waiting_since[seat]
        parts = []
        for seat in seats:
            since = self.model.waiting_since.setdefault(seat, now)
            parts.append(f"{self.snapshot.names[seat]} ({now - since:.0f} s)")
        text = "Waiting for " + ", ".join(parts) if parts else "Waiting for the other peers"
        step = self.controller.progress()
        return [("class:turn", f"{step} · " if step else ""), ("class:dim", text)]
