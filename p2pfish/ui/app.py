"""The full-screen terminal app: lobby, game and end screens for one seat.

It sees only what a `Controller` gives it — this seat's view, its legal moves, whom the game waits
for — and hands back the player's choices. Network and session events reach it as plain calls
(`log`, `announce`, `game_over`, `stopped`), each followed by a redraw. The screens draw a `Snapshot`
of the game, read from the controller once after such calls (and after the player's own move or
chat), not once per panel and frame.
"""

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, Dimension, Float, FloatContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from p2pfish.core.actions import Action
from p2pfish.core.player import Decision
from p2pfish.core.text import printable
from p2pfish.ui.drawing import clip
from p2pfish.ui.kit import GameUi
from p2pfish.ui.layout import Plan, panel_columns, plain_parts, plan, wrapped

MIN_COLUMNS, MIN_ROWS = 80, 24
CHOICE_COLUMNS = 3
LOG_LINES = 200
LOBBY_NAME_CHARS = 40
CUT = "\u2026"
"""Ends a move too long for the terminal, cut between words (`--ascii` shows it as "~")."""

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
        "header": "reverse",
        "hints": "#888888",
        "popup": "bg:#303030 #ffffff",
    }
)

KEYS_HELP = """Keys (Esc closes this help; Up/Down scroll it)
  Up / Down   pick one of your legal moves; a click picks one, a second click plays it
  Enter       play the picked move, or the command typed
  Tab         complete a command word, then its arguments
  Ctrl-C      leave the game (asks first; `p2pfish resume` brings you back)
  say TEXT    chat with the table;  quit  leave the game
"""
SIDE_COMMANDS = ("say", "help", "quit")
"""Command words of every game, besides its own."""
HINTS = {
    "lobby": "Enter start (host)  Ctrl-C leave",
    "turn": "Up/Down pick  Enter play  Tab complete  ? help  Ctrl-C leave",
    "wait": "say TEXT chat  ? help  Ctrl-C leave",
    "over": "Enter or q: leave, the result is printed",
}


@dataclass(frozen=True)
class Wait:
    """A seat the game waits for, as the screen tells it."""

    seat: int
    thinking: bool
    """Its player has a decision to make (else its software owes a protocol step)."""
    left_s: float | None
    """How long before the table's timeout stops the game (None: no limit known)."""
    silent: bool = False
    """Its link has been silent: shown as disconnected."""
    away: bool = False
    """Its player left meaning to resume."""


def scores_so_far(names: tuple[str, ...], scores: tuple[int, ...], winners: tuple[int, ...]) -> StyleAndTextTuples:
    """The table of an early end: each seat's points so far, best first."""
    out: StyleAndTextTuples = [("class:title", "Scores so far\n")]
    width = max(len(name) for name in names)
    for seat in sorted(range(len(names)), key=lambda seat: -scores[seat]):
        mark = "  winner" if seat in winners else ""
        out.append(("class:turn" if mark else "", f"  {names[seat]:<{width}} {scores[seat]:>4} points{mark}\n"))
    return out


class Controller(Protocol):
    """What the app may ask of the game: one seat's view and moves, never anything else."""

    seat: int
    names: tuple[str, ...]
    game: str

    def view(self) -> Any: ...
    def decision(self) -> Decision | None: ...
    def waiting_for(self) -> tuple[int, ...]: ...
    def waits(self) -> tuple[Wait, ...]: ...
    def progress(self) -> str: ...
    def act(self, action: Action) -> None: ...
    def chat(self, text: str) -> bool: ...
    def leave(self) -> None: ...
    def end_offer(self) -> int | None: ...
    def end_now(self) -> None: ...
    def close(self) -> None: ...


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
    scores_so_far: tuple[int, ...] | None = None
    """An early end's scores (PROTOCOL §10.8), which the game's own final table cannot show."""
    stopped: str = ""
    help_top: int = 0
    """The first row of the help shown (it scrolls)."""


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
        self.rematch_offer = ""
        """What a rematch does, shown on the end screen (empty: this seat cannot offer one here)."""
        self.rematch = False
        """The player asked for a rematch on the end screen (the app then ends)."""
        self.kit: GameUi | None = None
        """The game's terminal kit, once the game starts (the lobby comes first, and a joiner learns there
        which game it joined)."""
        self._snapshot: Snapshot | None = None
        """The game as last read from the controller; None when it must be read again."""
        self.completer = CommandCompleter()
        self.input = Buffer(completer=self.completer, multiline=False)
        self._version = 0
        """Counts what may change the panes (a new snapshot, a call of the wiring): their plan is kept till it moves."""
        self._plan_key: tuple[int, ...] | None = None
        self._planned = Plan(False, MIN_COLUMNS, 0, 0, 0, 0)
        self._drawn: tuple[StyleAndTextTuples, StyleAndTextTuples] = ([], [])
        self._my_turn = False
        """Whether the last snapshot read was this seat's turn (a new turn rings the bell)."""
        self.app: Application[None] = Application(
            layout=Layout(self._root(), focused_element=self.input),
            key_bindings=self._bindings(),
            style=STYLE,
            full_screen=True,
            refresh_interval=0.5,
            input=input,
            output=output,
            color_depth=ColorDepth.DEPTH_1_BIT if ascii_only else None,
            mouse_support=True,
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
        self.completer.verbs = (*kit.verbs, *SIDE_COMMANDS)
        self.completer.words = tuple(word for word in kit.words if word not in self.completer.verbs)
        self.model.lobby = None
        self._snapshot = None
        self.log("The game starts. Press ? for help.", "announce")

    def log(self, text: str, style: str = "") -> None:
        self.model.log.append((style, printable(text)))
        self._snapshot = None
        self.redraw()

    def announce(self, text: str) -> None:
        self.log(text, "announce")

    def game_over(self, winners: tuple[int, ...], audit: str, scores_so_far: tuple[int, ...] | None = None) -> None:
        self.model.winners, self.model.audit, self.model.scores_so_far = winners, audit, scores_so_far
        self.log("Game over. " + audit, "announce")

    def stopped(self, text: str) -> None:
        self.model.stopped = printable(text)
        self.log(text, "error")

    def redraw(self) -> None:
        self._version += 1
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
            self._version += 1
            self._signal_turn(legal is not None)
        return self._snapshot

    def _signal_turn(self, mine: bool) -> None:
        """A turn of this seat begins: the terminal's bell, and the window title says so until it ends."""
        if mine == self._my_turn:
            return
        self._my_turn = mine
        title = f"p2pfish - {self.kit.title if self.kit else 'game'}"
        if mine:
            self.app.output.bell()
            title = "(your turn) " + title
        self.app.output.set_title(title)
        self.app.output.flush()

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
            elif text in ("r", "rematch"):
                self._ask_rematch()
            return
        if text:
            self._command(text)
            return
        legal = self._legal()
        if legal is None:
            self.model.message = ("class:error", "It is not your turn yet: type say TEXT to chat, ? for help.")
            return
        self._play(legal[self._selected(legal)])

    def _ask_rematch(self) -> None:
        if self.rematch_offer:
            self.rematch = True
            self.app.exit()

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
        else:
            self.model.message = ("class:dim", "The host starts the game when the table is full; quit leaves.")

    def _click(self, index: int) -> Callable[[MouseEvent], None]:
        """A click on move `index`: picks it, and a click on the picked move plays it."""

        def handler(event: MouseEvent) -> None:
            if event.event_type != MouseEventType.MOUSE_UP:
                return
            legal = self._legal()
            if legal is None or index >= len(legal):
                return
            if self._selected(legal) == index:
                self._play(legal[index])
            else:
                self.model.selected = index
                self.redraw()

        return handler

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
            self.model.help, self.model.help_top = True, 0
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

    def _close(self) -> None:
        if self.controller is not None:
            self.controller.close()
        self.app.exit()

    def _end_offer(self) -> int | None:
        """The seat the table may end the game without now (PROTOCOL §10.8), while no result is in."""
        if self.controller is None or self.model.lobby is not None or self.model.winners is not None:
            return None
        return self.controller.end_offer()

    def _bindings(self) -> KeyBindings:
        keys = KeyBindings()
        confirming = Condition(lambda: self.model.confirm_leave)

        helping = Condition(lambda: self.model.help)

        @keys.add("up", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.model.help_top = max(0, self.model.help_top - 1)

        @keys.add("down", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.model.help_top += 1

        @keys.add("up", filter=~confirming & ~helping)
        def _(event: KeyPressEvent) -> None:
            self.model.selected = max(0, self.model.selected - 1)

        @keys.add("down", filter=~confirming & ~helping)
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
            self.model.help_top = 0

        hosting = Condition(lambda: self.model.lobby is not None and self.model.lobby.host and not self.input.text)

        @keys.add("+", filter=hosting & ~confirming)
        def _(event: KeyPressEvent) -> None:
            if self.model.lobby is not None:
                self._lobby_command(self.model.lobby, "+")

        @keys.add("q", filter=Condition(lambda: self._over() and not self.input.text))
        def _(event: KeyPressEvent) -> None:
            self._close()

        ending = Condition(lambda: not self.input.text and self._legal() is None and self._end_offer() is not None)

        @keys.add("e", filter=ending & ~confirming)
        def _(event: KeyPressEvent) -> None:
            if self.controller is not None:
                self.controller.end_now()
                self.announce("You agreed to end the game now with the scores so far; waiting for the others.")

        @keys.add("r", filter=Condition(lambda: self._over() and not self.input.text and bool(self.rematch_offer)))
        def _(event: KeyPressEvent) -> None:
            self._ask_rematch()

        @keys.add("escape", eager=True)
        def _(event: KeyPressEvent) -> None:
            self.model.help = False
            self.model.confirm_leave = False

        @keys.add("c-c")
        @keys.add("c-d")
        def _(event: KeyPressEvent) -> None:
            if self._over():
                self._close()
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

    def _shown(self, draw: Callable[[], StyleAndTextTuples]) -> Callable[[], StyleAndTextTuples]:
        """`draw`, in plain ASCII when the app was asked for it (`--ascii`, or a terminal that cannot show more)."""
        return (lambda: plain_parts(draw())) if self.ascii_only else draw

    def _text(self, draw: Callable[[], StyleAndTextTuples], **window: Any) -> Window:
        return Window(FormattedTextControl(self._shown(draw)), **window)

    def _root(self) -> FloatContainer:
        too_small = Condition(self._too_small)
        wide = Condition(lambda: self._plan().wide)

        def rows(pane: str) -> Callable[[], Dimension]:
            return lambda: Dimension.exact(getattr(self._plan(), pane))

        def log_rows() -> Dimension:
            return Dimension.exact(max(0, self._plan().log - 1))

        beside = VSplit(
            [
                HSplit(
                    [self._text(self._board, height=rows("board")), self._text(self._status, height=rows("status"))],
                    width=lambda: Dimension.exact(self._plan().left),
                ),
                Window(width=1),
                HSplit([self._text(self._log_title, height=1, style="class:header"),
                        self._text(self._log, height=log_rows)]),
            ]
        )  # fmt: skip
        stacked = HSplit(
            [
                self._text(self._board, height=rows("board")),
                self._text(self._status, height=rows("status")),
                self._text(self._log, height=rows("log")),
            ]
        )
        game = HSplit(
            [
                self._text(self._title, height=1, style="class:header"),
                ConditionalContainer(beside, wide),
                ConditionalContainer(stacked, ~wide),
                self._text(lambda: [("", self._choices_title())], height=1, style="class:header"),
                self._text(self._choices, height=rows("moves")),
                self._text(lambda: [self.model.message], height=1),
                VSplit(
                    [
                        self._text(lambda: [("class:title", "> ")], width=2),
                        Window(BufferControl(self.input), height=1),
                    ]
                ),
                self._text(self._hints, height=1, style="class:hints"),
            ]
        )
        small = self._text(self._small_message, style="class:error", wrap_lines=True)
        help_rows = lambda: Dimension.exact(min(len(self._help_lines()) + 1, self.app.output.get_size().rows - 2))  # noqa: E731
        help_window = self._text(
            self._help_rows,
            style="class:popup",
            width=lambda: Dimension.exact(self._popup_width(100)),
            height=help_rows,
        )
        confirm = self._text(
            self._confirm_text, style="class:popup", wrap_lines=True,
            width=lambda: Dimension.exact(self._popup_width(62)), height=4,
        )  # fmt: skip
        return FloatContainer(
            HSplit([ConditionalContainer(game, ~too_small), ConditionalContainer(small, too_small)]),
            floats=[
                Float(ConditionalContainer(help_window, Condition(lambda: self.model.help))),
                Float(ConditionalContainer(confirm, Condition(lambda: self.model.confirm_leave))),
            ],
        )  # fmt: skip

    def _popup_width(self, most: int) -> int:
        return max(20, min(most, self.app.output.get_size().columns - 4))

    def _plan(self) -> Plan:
        """The panes' places for this frame (worked out once per frame: every pane asks)."""
        size = self.app.output.get_size()
        key = (size.columns, size.rows, self._version, self.model.selected, self._over())
        if self._plan_key != key or self._snapshot is None:
            board = self._board_text()
            status = self._status_text()
            moves = len(self._choice_rows(size.columns)[0]) if self._legal() is not None else self._waiting_rows()
            self._planned = plan(
                size.columns, size.rows, board=_rows(board), status=_rows(status), moves=moves,
                status_first=self.model.winners is not None,
            )  # fmt: skip
            self._drawn = (board, status)
            self._plan_key = key
        return self._planned

    def _waiting_rows(self) -> int:
        if self.model.lobby is not None or self.controller is None:
            return 0
        if self._over():
            return 1 if self.model.stopped else 0
        return len(self._waiting_lines())

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
            return [("class:title", " Leave the lobby?\n"), ("", f" {seat}\n"), ("class:title", " y = leave, n = stay")]
        return [("class:title", " Leave the game?\n"), ("", " The others are told; the log says how to come back.\n"),
                ("class:title", " y = leave, n = stay")]  # fmt: skip

    def _help_lines(self) -> list[str]:
        return wrapped(self._help_text(), self._popup_width(100) - 2)

    def _help_rows(self) -> StyleAndTextTuples:
        lines = self._help_lines()
        room = self.app.output.get_size().rows - 3
        self.model.help_top = max(0, min(self.model.help_top, len(lines) - room))
        shown = lines[self.model.help_top : self.model.help_top + room]
        more = len(lines) - self.model.help_top - len(shown)
        head = " Help" + (f"  ({more} more rows: Down)" if more > 0 else "")
        return [("class:title", head + "\n"), ("", "\n".join(" " + line for line in shown))]

    def _title(self) -> StyleAndTextTuples:
        if self.controller is None:
            return [("", " p2pfish")]
        seat, names = self.snapshot.seat, self.snapshot.names
        return [("", f" p2pfish - {self._game_kit.title} - you are {names[seat]} (seat {seat})")]

    def _board(self) -> StyleAndTextTuples:
        self._plan()
        return self._drawn[0]

    def _board_text(self) -> StyleAndTextTuples:
        lobby = self.model.lobby
        if lobby is not None:
            return self._lobby(lobby)
        if self.controller is None:
            return [("class:dim", "Connecting...")]
        snapshot = self.snapshot
        selected = snapshot.legal[self._selected(snapshot.legal)] if snapshot.legal else None
        return self._game_kit.board(snapshot.view, snapshot.names, selected, self.ascii_only, self._panel_width())

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
        self._plan()
        return self._drawn[1]

    def _status_text(self) -> StyleAndTextTuples:
        if self.controller is None or self.model.lobby is not None:
            return []
        snapshot = self.snapshot
        if self.model.winners is not None and self.model.scores_so_far is not None:
            return [*scores_so_far(snapshot.names, self.model.scores_so_far, self.model.winners),
                    ("class:turn", self.model.audit)]  # fmt: skip
        if self.model.winners is not None:
            scores = self._game_kit.scores(snapshot.view, snapshot.names, self.model.winners, self._panel_width())
            return [*scores, ("class:turn", self.model.audit)]
        return self._game_kit.status(snapshot.view, snapshot.names, self._panel_width())

    def _panel_width(self) -> int:
        """The columns the board and the status are drawn in: their panel's (the terminal's, read at each frame)."""
        return panel_columns(self.app.output.get_size().columns)

    def _log_title(self) -> StyleAndTextTuples:
        return [("", " What happened")]

    def _log(self) -> StyleAndTextTuples:
        """The newest lines that fit the log, broken between words at its width."""
        size, shape = self.app.output.get_size(), self._plan()
        room = shape.log - 1 if shape.wide else shape.log
        width = size.columns - shape.left - 1 if shape.wide else size.columns
        rows: list[tuple[str, str]] = []
        for style, text in reversed(self.model.log):
            if len(rows) >= room:
                break
            rows[:0] = [(f"class:{style}" if style else "", row) for row in wrapped(text, width - 1)]
        out: StyleAndTextTuples = []
        for index, (style, row) in enumerate(rows[-room:] if room > 0 else []):
            out += [("", "\n")] if index else []
            out.append((style, row))
        return out

    def _hints(self) -> StyleAndTextTuples:
        if self.model.lobby is not None:
            hint = HINTS["lobby"]
        elif self._legal() is None and (gone := self._end_offer()) is not None:
            name = self.controller.names[gone] if self.controller is not None else "them"
            hint = f"e: end the game now without {name}, with the scores so far (all the others must agree)"
        elif self._over():
            hint = HINTS["over"] + (f"  r {self.rematch_offer}" if self.rematch_offer else "")
        else:
            hint = HINTS["turn"] if self.controller is not None and self._legal() is not None else HINTS["wait"]
        return [("", " " + hint)]

    def _choices_title(self) -> str:
        if self.model.lobby is not None:
            return " Lobby: waiting for players"
        if self._over():
            if self.rematch_offer:
                return " The end - Enter or q leaves (the result stays printed); r: a rematch"
            return " The end - Enter or q leaves; the result stays printed in the terminal"
        legal = self._legal() if self.controller is not None else None
        if legal is None:
            return " Waiting"
        selected = self._selected(legal)
        return f" Your move: {selected + 1} of {len(legal)} - Up/Down or click, Enter plays; or type a command"

    def _choice_rows(self, columns: int) -> tuple[list[list[tuple[int, str]]], int]:
        """The legal moves in rows of up to CHOICE_COLUMNS cells: (index, text) each, and the cell width."""
        snapshot = self.snapshot
        legal = snapshot.legal or []
        texts = [f" {clip(self._game_kit.describe(action, snapshot.view, snapshot.names), columns - 4, CUT)} "
                 for action in legal]  # fmt: skip
        width = max((len(text) for text in texts), default=1) + 2
        per_row = max(1, min(CHOICE_COLUMNS, (columns - 2) // width))
        cells = list(enumerate(texts))
        return [cells[start : start + per_row] for start in range(0, len(cells), per_row)], width

    def _choices(self) -> StyleAndTextTuples:
        if self._over() or self.controller is None or self.model.lobby is not None:
            return [("class:error", self.model.stopped)] if self.model.stopped else []
        snapshot = self.snapshot
        if snapshot.legal is None:
            return self._waiting()
        selected = self._selected(snapshot.legal)
        rows, width = self._choice_rows(self.app.output.get_size().columns)
        room = max(1, self._plan().moves)
        here = next(number for number, row in enumerate(rows) if any(index == selected for index, _ in row))
        first = max(0, min(here - room // 2, len(rows) - room))
        out: StyleAndTextTuples = []
        for number, row in enumerate(rows[first : first + room]):
            out += [("", "\n")] if number else []
            for index, text in row:
                mark = "class:choice.selected" if index == selected else "class:choice"
                out += [(mark, text, self._click(index)), ("", " " * (width - len(text)))]
        return out

    def _waiting(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for number, (style, line) in enumerate(self._waiting_lines()):
            out += [("", "\n")] if number else []
            out.append((style, line))
        return out

    def _waiting_lines(self) -> list[tuple[str, str]]:
        """The protocol step under way, then one row per seat waited for."""
        assert self.controller is not None
        step = self.controller.progress()
        waits = [self._wait_text(wait) for wait in self.controller.waits()]
        rows = [
            ("class:dim", ("Waiting for " if number == 0 else "  and ") + text) for number, text in enumerate(waits)
        ]
        return ([("class:turn", step)] if step else []) + (rows or [("class:dim", "Waiting for the other peers")])

    def _wait_text(self, wait: Wait) -> str:
        name = self.snapshot.names[wait.seat]
        left = "" if wait.left_s is None else clock(wait.left_s)
        if wait.silent:
            return f"{name}: disconnected, nothing heard" + (f" (the game stops in {left})" if left else "")
        if wait.away:
            return f"{name}, who left to come back" + (f" ({left} left)" if left else "")
        if wait.thinking:
            return f"{name}, thinking" + (f" ({left} left)" if left else "")
        return f"{name}'s software" + (f" ({left} left)" if left else "")


def clock(seconds: float) -> str:
    """A time left as the screen shows it: "9:58", "0:07"."""
    whole = int(seconds + 0.5)
    return f"{whole // 60}:{whole % 60:02d}"


def _rows(parts: StyleAndTextTuples) -> int:
    text = "".join(part[1] for part in parts).rstrip("\n")
    return text.count("\n") + 1 if text else 0


class CommandCompleter(Completer):
    """Command words at the start of the line, then the words a command takes (nothing after `say`)."""

    def __init__(self) -> None:
        self.verbs: Sequence[str] = ()
        self.words: Sequence[str] = ()

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        typed = before.split(" ")[-1].lower()
        first = " " not in before.lstrip()
        if not first and before.split()[0].lower() in ("say", "/say"):
            return
        for word in self.verbs if first else self.words:
            if word.lower().startswith(typed):
                yield Completion(word, -len(typed))
