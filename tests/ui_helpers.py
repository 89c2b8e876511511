"""Driving the terminal app headless: run it, feed it keys, and wait on conditions, never on time;
the app against bots of an in-memory table; and real rules-only games recorded decision by decision,
for the UI tests of each game to look at."""

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, Protocol, TypeVar

from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput

from p2pfish.core.actions import Action
from p2pfish.core.game import GameRules, Known, Outcome
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules, kit_for, make_bot
from p2pfish.selfplay import Step, play_game
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.setup import GameSetup
from p2pfish.ui.app import GameApp
from p2pfish.uiplay import TableController

if TYPE_CHECKING:
    from p2pfish.ui.kit import GameUi


class Phased(Protocol):
    @property
    def phase(self) -> str: ...


S = TypeVar("S")
V = TypeVar("V", bound=Phased)

TIMEOUT_S = 10.0
WIDTH = 66
"""The width of a board: the app's board pane."""


def text(parts: StyleAndTextTuples) -> str:
    return "".join([fragment[1] for fragment in parts])


def styles(parts: StyleAndTextTuples) -> set[str]:
    return {fragment[0] for fragment in parts}


def assert_fits(parts: StyleAndTextTuples, rows: int, width: int = WIDTH) -> None:
    lines = text(parts).split("\n")
    assert len(lines) <= rows, text(parts)
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]


def assert_refusals(found: dict[str, str], expected: dict[str, str]) -> None:
    """Every case of `expected` showed in some position (`found`: case -> the refusal), in those words."""
    for key, words in expected.items():
        assert key in found, f"no position showed the {key} case"
        assert words in found[key], (key, found[key])


async def until(condition: Callable[[], bool], what: str, timeout_s: float = TIMEOUT_S) -> None:
    """Let the loop run (the app reads keys, peers talk between our awaits) until `condition` holds."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def drive(app: GameApp, script: Callable[[], Awaitable[None]]) -> None:
    """Run the app, play `script` against it, and wait for the app to end."""

    async def main() -> None:
        running = asyncio.ensure_future(app.run())
        await until(lambda: app.app.is_running, "the app to start")
        await script()
        await asyncio.wait_for(running, TIMEOUT_S)

    asyncio.run(main())


# --- real games, recorded ------------------------------------------------------------------------


SELECTED_PER_DECISION = 4
"""Moves drawn selected on the acting seat's board at each recorded decision, besides none: a different few at
each decision (a Kuna Yala decision offers hundreds), so that over a game every kind of move is drawn selected."""


def selected_sample(legal: Sequence[Action], decision: int) -> tuple[Action, ...]:
    """SELECTED_PER_DECISION of `legal`, evenly spread, starting further along at each decision."""
    if len(legal) <= SELECTED_PER_DECISION:
        return tuple(legal)
    stride = len(legal) / SELECTED_PER_DECISION
    return tuple(legal[(decision + int(k * stride)) % len(legal)] for k in range(SELECTED_PER_DECISION))


@dataclass(frozen=True)
class Moment(Generic[S, V]):
    """One decision of a real game: every seat's view and knowledge, and the acting seat's choice."""

    state: S
    views: tuple[V, ...]
    known: tuple[Known, ...]
    """Every seat's knowledge at this decision (a copy: the driver's own mappings change later)."""
    seat: int
    legal: tuple[Action, ...]
    choice: Action

    @property
    def view(self) -> V:
        return self.views[self.seat]


@dataclass(frozen=True)
class Game(Generic[S, V]):
    players: int
    names: tuple[str, ...]
    moments: tuple[Moment[S, V], ...]
    events: tuple[tuple[int | None, Action], ...]
    final: tuple[V, ...]
    outcome: Outcome


class Recorder(Generic[S, V]):
    """Rules-only games of `rules` between random bots, recorded decision by decision: the games of
    `seeds` ((players, seed) pairs), seats named by the first names of `names`; each game is played once."""

    def __init__(self, rules: GameRules[S, V], names: Sequence[str], seeds: Sequence[tuple[int, int]]) -> None:
        self.rules = rules
        self.names = tuple(names)
        self.seeds = tuple(seeds)
        self._games: dict[tuple[int, int], Game[S, V]] = {}

    def game(self, players: int, seed: int) -> Game[S, V]:
        if (players, seed) not in self._games:
            self._games[players, seed] = self._play(players, seed)
        return self._games[players, seed]

    def _play(self, players: int, seed: int) -> Game[S, V]:
        rules = self.rules
        moments: list[Moment[S, V]] = []
        events: list[tuple[int | None, Action]] = []

        def hook(step: Step) -> None:
            events.append((step.seat, step.action))
            if step.seat is None:
                return
            state: S = step.before
            known = tuple(dict(seat_known) for seat_known in step.known)
            views = tuple(rules.view(state, seat, known[seat]) for seat in range(players))
            legal = tuple(rules.legal_actions(state, step.seat, known[step.seat]))
            moments.append(Moment(state, views, known, step.seat, legal, step.choice))

        bots = [make_bot("random", rules.id, random.Random(seed * 10 + seat)) for seat in range(players)]
        outcome, state = play_game(rules, players, {}, bots, random.Random(seed), on_step=hook)
        final = tuple(rules.view(state, seat, {}) for seat in range(players))
        return Game(players, self.names[:players], tuple(moments), tuple(events), final, outcome)

    def games(self) -> Iterator[Game[S, V]]:
        for players, seed in self.seeds:
            yield self.game(players, seed)

    def find(
        self, phase: str, check: Callable[[Moment[S, V]], bool] = lambda m: True
    ) -> tuple[Game[S, V], Moment[S, V]]:
        """The first recorded decision in `phase` that passes `check`."""
        return next((g, m) for g, m in self.moments(phase) if check(m))

    def refusal(
        self,
        parse: Callable[[str, V, Sequence[Action], tuple[str, ...]], Action | str],
        moment: Moment[S, V],
        typed: str,
        legal: list[Action] | None = None,
        seat: int | None = None,
    ) -> str:
        """What `parse` says to `typed` at `moment` (by the acting seat unless `seat`): a refusal, or the test fails."""
        view = moment.views[moment.seat if seat is None else seat]
        players = len(moment.views)
        result = parse(typed, view, list(moment.legal) if legal is None else legal, self.names[:players])
        assert isinstance(result, str), f"{typed!r} was read as {result}"
        return result

    def moments(self, phase: str | None = None) -> Iterator[tuple[Game[S, V], Moment[S, V]]]:
        """Every recorded decision, or those whose acting seat's view is in `phase`."""
        for each in self.games():
            for moment in each.moments:
                if phase is None or moment.view.phase == phase:
                    yield each, moment


def assert_start_and_end_boards(
    rules: GameRules[S, V],
    kit: "GameUi",
    each: Game[S, V],
    role: str,
    mark: str,
) -> tuple[str, V]:
    """Before the first draw the board says the first `role` is being drawn and marks nobody with `mark`;
    at the end it names the rounds played and the leaders of `each`, a finished game of at least 3 seats.
    Returns the final board of seat 2 and its view."""
    names = each.names[:3]
    view = rules.view(rules.new_game(3, {}), 1, {})
    drawn = text(kit.board(view, names, None, True, WIDTH))
    assert f"Drawing the first {role}" in drawn and f" {mark} " not in drawn
    assert f"first {role}" in text(kit.status(view, names, WIDTH))
    final: Any = each.final[2]
    assert final.phase == "over"
    drawn = text(kit.board(final, each.names, None, False, WIDTH))
    assert drawn.startswith(f"Game over after {final.rounds} rounds")
    best = max(each.outcome.scores)
    leaders = ", ".join(each.names[seat] for seat in each.outcome.winners)
    assert drawn.split("\n")[1] == f"Highest total, {best} points: {leaders}"
    return drawn, final


# --- the app against bots ------------------------------------------------------------------------


class Harness(NamedTuple):
    app: GameApp
    controller: TableController
    pipe: PipeInput
    table: MemoryTable


@contextmanager
def table_app(
    game: str,
    names: Sequence[str],
    *,
    output: DummyOutput | None = None,
    ascii_only: bool = False,
    bots: Sequence[tuple[str, int]] | None = None,
) -> Iterator[Harness]:
    """The app at seat 0 of an in-memory table of `game` with len(names) seats, started and settled;
    the other seats are bots, `bots` giving each one's (kind, rng seed) — by default seat s is a random
    bot seeded with s."""
    players = len(names)
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]
    setup = GameSetup.create(game, {}, tuple(s.public_bytes for s in signers), tuple(names))
    kinds = [("random", seat) for seat in range(1, players)] if bots is None else bots
    players_bots = [make_bot(kind, game, random.Random(seed)) for kind, seed in kinds]
    table = MemoryTable(setup, signers, [None, *players_bots], rules=get_rules(setup.game))
    with create_pipe_input() as pipe:
        app = GameApp(input=pipe, output=output or DummyOutput(), ascii_only=ascii_only)
        controller = TableController(table, 0, app)
        app.start(controller, kit_for(game))
        table.start()
        controller.settle()
        yield Harness(app, controller, pipe, table)


# --- the screen as drawn -------------------------------------------------------------------------


class SizedOutput(DummyOutput):
    """A dummy terminal of a given size that counts the bells rung and keeps the window title."""

    def __init__(self, columns: int, rows: int) -> None:
        super().__init__()
        self.size = Size(rows=rows, columns=columns)
        self.bells = 0
        self.title = ""

    def get_size(self) -> Size:
        return self.size

    def bell(self) -> None:
        self.bells += 1

    def set_title(self, title: str) -> None:
        self.title = title


def draw(app: GameApp) -> tuple[list[str], MouseHandlers]:
    """The whole app drawn now into a screen of its output's size, row by row, and the mouse handlers
    of that drawing (call it inside the running app, or after `with set_app(app.app)`)."""
    size = app.app.output.get_size()
    app.app.render_counter += 1  # the controls keep what they drew until the counter moves
    screen, mouse = Screen(), MouseHandlers()
    app.app.layout.container.write_to_screen(
        screen, mouse, WritePosition(0, 0, size.columns, size.rows), parent_style="", erase_bg=False, z_index=None
    )
    screen.draw_all_floats()
    rows = ["".join(screen.data_buffer[y][x].char for x in range(size.columns)).rstrip() for y in range(size.rows)]
    return rows, mouse
