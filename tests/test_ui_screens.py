"""The app's screens at the sizes people use (80x24, the stated minimum, to 200x50), drawn headless:
every move reachable and counted, a log as wide as the room left, help that fits, full names, a strict
ASCII mode, key hints, a bell and a title when a turn begins, mouse clicks on moves, Tab completion by
position, what Enter alone says, and how waiting for a thinking or a silent player reads."""

import random
import re
from collections.abc import Callable

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.data_structures import Point
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType
from ui_helpers import SizedOutput, draw, drive, table_app, text

from p2pfish.games.registry import get_rules, kit_for, make_bot
from p2pfish.selfplay import play_game
from p2pfish.ui.app import GameApp, Lobby, Wait, clock
from p2pfish.ui.layout import plan, wrapped
from p2pfish.uiplay import TableController

NAMES = ("you", "greedy bot 1", "random bot 2", "greedy bot 3")
GAMES = ("fishnstones", "kunayala", "fishfish", "kingfish")


def screen(app: GameApp) -> list[str]:
    return draw(app)[0]


def drawn_once(app: GameApp) -> list[str]:
    drawn: list[str] = []
    inside(app, lambda: drawn.extend(screen(app)))
    return drawn


def inside(app: GameApp, check: Callable[[], None]) -> None:
    """Run `check` while the app runs (drawing needs its event loop), then close the app."""

    async def script() -> None:
        check()
        app.app.exit()

    drive(app, script)


@pytest.mark.parametrize("game", GAMES)
def test_at_80_by_24_every_move_can_be_reached_and_the_moves_are_counted(game: str) -> None:
    with table_app(game, NAMES, output=SizedOutput(80, 24)) as (app, controller, _, _):
        decision = controller.decision()
        assert decision is not None
        legal = decision[1]

        def check() -> None:
            for index in range(len(legal)):
                reach(index)

        def reach(index: int) -> None:
            app.model.selected = index
            rows = screen(app)
            assert len(rows) == 24
            assert any(f"Your move: {index + 1} of {len(legal)}" in row for row in rows), rows
            wanted = app._game_kit.describe(legal[index], decision[0], controller.names)
            assert any(wanted in row for row in rows), (wanted, rows)

        inside(app, check)


def test_the_move_rows_grow_with_the_terminal_and_the_board_is_never_cut() -> None:
    small, large = plan(80, 24, board=15, status=7, moves=20), plan(160, 48, board=15, status=7, moves=20)
    assert small.moves == 3 and small.board == 15 and small.log >= 1
    assert large.moves == 5 and large.wide and large.board == 15 and large.status >= 7
    assert plan(80, 24, board=11, status=5, moves=1).moves == 1
    end = plan(80, 24, board=12, status=7, moves=0, status_first=True)
    assert (end.board, end.status, end.moves) == (12, 7, 0), end
    end = plan(80, 24, board=15, status=13, moves=0, status_first=True)
    assert (end.board, end.status, end.moves) == (6, 13, 0), end


def test_the_log_is_as_wide_as_the_room_left_and_breaks_between_words() -> None:
    sentence = " ".join(f"zork{number}" for number in range(60))
    for columns, rows, least in ((80, 24, 70), (200, 50, 80)):
        with table_app("kunayala", NAMES, output=SizedOutput(columns, rows)) as (app, _, _, _):
            app.log(sentence)
            drawn = drawn_once(app)
            shown = [" ".join(re.findall(r"zork\S*", row)) for row in drawn]
            shown = [row for row in shown if row]
            shape = app._plan()
            width = columns - shape.left - 2 if shape.wide else columns - 1
            assert width >= least
            assert shown == wrapped(sentence, width)[-len(shown) :], drawn
            if columns == 200:
                assert app._plan().left > 66 and app._plan().wide


def test_help_fits_an_80_by_24_terminal_and_scrolls_to_its_end() -> None:
    with table_app("kunayala", NAMES, output=SizedOutput(80, 24)) as (app, _, _, _):
        app.model.help = True
        seen: list[str] = []

        def check() -> None:
            for _ in range(30):
                drawn = screen(app)
                assert all(len(row) <= 80 for row in drawn)
                seen.extend(drawn)
                app.model.help_top += 1

        inside(app, check)
        everything = " ".join(seen)
        for word in app._help_text().split():
            assert word in everything, word


@pytest.mark.parametrize("game", GAMES)
def test_the_final_scores_give_full_names(game: str) -> None:
    rules = get_rules(game)
    bots = [make_bot("greedy", game, random.Random(seat)) for seat in range(len(NAMES))]
    _, state = play_game(rules, len(NAMES), {}, bots, random.Random(1))
    scores = text(kit_for(game).scores(rules.view(state, 0, {}), NAMES, (0,), 66))
    for name in NAMES:
        assert name in scores, (name, scores)


@pytest.mark.parametrize("game", GAMES)
def test_ascii_mode_draws_nothing_but_ascii(game: str) -> None:
    with table_app(game, ("Zoë", "Bob", "Ana"), output=SizedOutput(80, 24), ascii_only=True) as (app, _, _, _):
        app.log("Ann turned up the bait 4♦ · and more…")

        def check() -> None:
            for opened in (False, True):
                app.model.help = opened
                drawn = screen(app)
                assert all(row.isascii() for row in drawn), [row for row in drawn if not row.isascii()]
                assert not any("??" in row for row in drawn)
            app.model.confirm_leave = True
            assert all(row.isascii() for row in screen(app))

        inside(app, check)


def test_key_hints_stand_in_the_last_row() -> None:
    with table_app("fishnstones", NAMES, output=SizedOutput(80, 24)) as (app, _, _, _):
        inside(app, lambda: check_hints(screen(app)[-1]))


def check_hints(row: str) -> None:
    assert "? help" in row and "Enter play" in row


def test_a_turn_rings_the_bell_once_and_sets_the_title() -> None:
    output = SizedOutput(80, 24)
    with table_app("fishnstones", NAMES, output=output) as (app, _, _, _):
        drawn_once(app)
        drawn_once(app)
        assert output.bells == 1 and "your turn" in output.title


def test_a_click_picks_a_move_and_a_second_click_plays_it() -> None:
    with table_app("fishnstones", NAMES, output=SizedOutput(80, 24)) as (app, controller, _, _):
        decision = controller.decision()
        assert decision is not None
        turn = controller.session.turn

        def check() -> None:
            rows, mouse = draw(app)
            third = app._game_kit.describe(decision[1][2], decision[0], controller.names)
            y = next(row for row, line in enumerate(rows) if third in line)
            x = rows[y].index(third)
            click = MouseEvent(Point(x, y), MouseEventType.MOUSE_UP, MouseButton.LEFT, frozenset())
            mouse.mouse_handlers[y][x](click)
            assert app.model.selected == 2 and controller.session.turn == turn
            rows, mouse = draw(app)
            mouse.mouse_handlers[y][x](click)

        inside(app, check)
        assert controller.session.turn != turn
        assert controller.view().my_cat == 3


def test_tab_offers_command_words_first_then_their_arguments() -> None:
    with table_app("fishnstones", NAMES) as (app, _, _, _):

        def offered(typed: str) -> list[str]:
            document = Document(typed, len(typed))
            return [c.text for c in app.completer.get_completions(document, CompleteEvent(completion_requested=True))]

        assert "cast" in offered("c") and "c1" not in offered("c")
        assert "c1" in offered("fish c") and "cast" not in offered("fish c")
        assert offered("say b") == []


def test_enter_alone_says_what_to_do() -> None:
    with table_app("fishnstones", ("you", "bob")) as (app, controller, _, _):
        app.controller = WaitingController(controller)  # type: ignore[assignment]
        app._snapshot = None
        app._enter()
        assert "not your turn" in app.model.message[1] and "say TEXT" in app.model.message[1]
    with create_pipe_input() as pipe:
        lobby = GameApp(input=pipe, output=SizedOutput(80, 24))
        lobby.show_lobby(Lobby("Kuna Yala", "10.0.0.2:5000", "ABC123", ["ann"], 4, host=False))
        inside(lobby, lobby._enter)
    assert "host starts the game" in lobby.model.message[1]


def test_a_thinking_player_reads_as_thinking_with_the_time_left_and_a_silent_link_as_disconnected() -> None:
    with table_app("fishnstones", NAMES, output=SizedOutput(80, 24)) as (app, controller, _, _):
        app.controller = WaitingController(controller)  # type: ignore[assignment]
        app._snapshot = None
        drawn: list[str] = []
        inside(app, lambda: drawn.extend(screen(app)))
        shown = "\n".join(drawn)
        assert "greedy bot 1, thinking (9:50 left)" in shown
        assert "random bot 2: disconnected" in shown and "0:25" in shown
        assert "no answer for a while" not in shown
    assert clock(7) == "0:07" and clock(600) == "10:00"


class WaitingController:
    """A seat that waits: for a thinking player and for one whose link went silent."""

    def __init__(self, inner: TableController) -> None:
        self.inner = inner
        self.seat, self.names, self.game = inner.seat, inner.names, inner.game

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def decision(self) -> None:
        return None

    def waits(self) -> tuple[Wait, ...]:
        return (Wait(1, True, 590.0), Wait(2, False, 25.0, silent=True))


def test_wrapping_keeps_words_whole_and_indents_alike() -> None:
    rows = wrapped("  a long line of words that goes on and on past the edge", 20)
    assert all(len(row) <= 20 and row.startswith("  ") for row in rows)
    assert " ".join(row.strip() for row in rows) == "a long line of words that goes on and on past the edge"
