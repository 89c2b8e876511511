"""The terminal app driven headless (pipe input, dummy output) against bot seats of an in-memory
table: a whole game by keys, typed commands legal and illegal, help, leaving, a small terminal."""

import asyncio
import functools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, cast

import pytest
import ui_helpers
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput
from ui_helpers import drive, until

from p2pfish.core.actions import Action
from p2pfish.core.game import AnyRules, Known
from p2pfish.games.fishnstones.rules import Cast, View
from p2pfish.uiplay import TableController


class SmallOutput(DummyOutput):
    def get_size(self) -> Size:
        return Size(rows=20, columns=60)


NAMES = ("you", "b1", "b2", "b3")
BOTS = (("greedy", 0), ("random", 1), ("greedy", 2))
"""The (kind, rng seed) of the bots at seats 1 to 3."""
table_app = functools.partial(ui_helpers.table_app, "fishnstones", NAMES, bots=BOTS)


def my_view(controller: TableController) -> View:
    view = controller.view()
    assert isinstance(view, View)
    return view


def test_a_whole_game_played_with_the_keyboard() -> None:
    with table_app() as (app, controller, pipe, _):

        async def script() -> None:
            moves = 0

            def moved_on(turn: int) -> Callable[[], bool]:
                return lambda: controller.session.turn != turn or app.model.winners is not None

            while app.model.winners is None:
                turn = controller.session.turn
                pipe.send_text("\x1b[B" if moves % 2 else "")  # now and then pick the second move
                pipe.send_text("\r")
                moves += 1
                await until(moved_on(turn), "a move")
            assert "verified" in app.model.audit
            pipe.send_text("q")

        drive(app, script)
    assert controller.session.finished and controller.session.fault is None
    texts = [text for _, text in app.model.log]
    assert any("The pond is filled" in t for t in texts) and any("you casts the cat" in t for t in texts)
    assert my_view(controller).buckets is not None


def test_typed_commands_play_legal_moves_and_explain_illegal_ones() -> None:
    with table_app() as (app, controller, pipe, _):

        async def script() -> None:
            pipe.send_text("cast 2\r")
            await until(lambda: my_view(controller).my_cat == 2, "the cast")
            while my_view(controller).phase != "bait" or controller.decision() is None:
                await until(lambda: controller.decision() is not None, "the bait turn")
            pipe.send_text("bait a1 c3\r")
            await until(lambda: "not next to" in app.model.message[1], "the refusal")
            pipe.send_text("jump b2\r")
            await until(lambda: "unknown command 'jump'" in app.model.message[1], "the unknown command")
            assert "cast, bait, pass, fish" in app.model.message[1]
            pipe.send_text("pass\r")
            await until(lambda: controller.decision() is None or my_view(controller).phase != "bait", "the pass")
            pipe.send_text("\x03")
            await until(lambda: app.model.confirm_leave, "the leave question")
            pipe.send_text("y")

        drive(app, script)
    assert controller.left and app.left


def test_help_opens_on_question_mark_and_leaving_can_be_declined() -> None:
    with table_app() as (app, controller, pipe, _):

        async def script() -> None:
            pipe.send_text("?")
            await until(lambda: app.model.help, "help")
            pipe.send_text("\x1b")
            await until(lambda: not app.model.help, "help to close")
            pipe.send_text("\x03")
            await until(lambda: app.model.confirm_leave, "the leave question")
            pipe.send_text("n")
            await until(lambda: not app.model.confirm_leave, "staying")
            assert not controller.left
            pipe.send_text("quit\r")
            await until(lambda: app.model.confirm_leave, "the leave question again")
            pipe.send_text("y")

        drive(app, script)
    assert controller.left


def test_a_terminal_too_small_says_so() -> None:
    with table_app(output=SmallOutput()) as (app, _, pipe, _):

        async def script() -> None:
            assert app._too_small()
            message = "".join(fragment[1] for fragment in app._small_message())
            assert "60x20" in message and "80x24" in message
            pipe.send_text("\x03")
            await until(lambda: app.model.confirm_leave, "the leave question")
            pipe.send_text("y")

        drive(app, script)


def test_the_cast_choices_name_each_column_by_its_spots() -> None:
    with table_app() as (app, controller, _, _):
        decision = controller.decision()
        assert decision is not None
        assert [type(action) for action in decision[1]] == [Cast, Cast, Cast]
        text = "".join(fragment[1] for fragment in app._choices())
        assert "column 1 (a1 a2 a3)" in text


class CountingRules:
    """A game's rules that count the calls to `view` and `legal_actions` (the rest passes through)."""

    def __init__(self, rules: AnyRules) -> None:
        self.rules = rules
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def view(self, state: Any, seat: int, known: Known) -> Any:
        self.calls["view"] += 1
        return self.rules.view(state, seat, known)

    def legal_actions(self, state: Any, seat: int, known: Known) -> Sequence[Action]:
        self.calls["legal_actions"] += 1
        return self.rules.legal_actions(state, seat, known)


@pytest.mark.parametrize(("game", "players"), [("fishnstones", 3), ("fishfish", 3), ("kingfish", 4), ("kunayala", 3)])
def test_a_frame_reads_the_view_and_the_legal_moves_once_per_event_at_most(game: str, players: int) -> None:
    """The screens draw one snapshot of the game, read again only after a session event: a redraw or
    an arrow key reads nothing, a frame after an event one view and one list of legal moves."""
    names = ("you", "b1", "b2", "b3")[:players]
    with ui_helpers.table_app(game, names) as (app, controller, pipe, _):
        rules = CountingRules(controller.session.rules)
        controller.session.rules = cast(AnyRules, rules)
        drawn = asyncio.Event()
        app.app.after_render += lambda _: drawn.set()

        async def frame_after(poke: Callable[[], object]) -> dict[str, int]:
            await until(drawn.is_set, "a frame")
            rules.calls.clear()
            drawn.clear()
            poke()
            await asyncio.wait_for(drawn.wait(), ui_helpers.TIMEOUT_S)
            return dict(rules.calls)

        async def script() -> None:
            assert controller.decision() is not None
            assert await frame_after(app.redraw) == {}
            assert await frame_after(lambda: pipe.send_text("\x1b[B")) == {}
            assert await frame_after(lambda: app.log("b1: hello", "chat")) == {"view": 1, "legal_actions": 1}
            assert await frame_after(lambda: pipe.send_text("\x1b[A")) == {}
            pipe.send_text("\x03")
            await until(lambda: app.model.confirm_leave, "the leave question")
            pipe.send_text("y")

        drive(app, script)
