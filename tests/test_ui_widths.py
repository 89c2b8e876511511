"""Every game's screens in the width they are given, from 80 to 200 columns: full names wherever the
width allows, two long names alike but for their ends told apart at 80, no row wider than its panel
(nothing cut by the terminal, rows too long cut between words), and an end-of-game recap that lists
every round and states the tie-break, and how it decided a tied game."""

import re
from typing import Any

import pytest
from ui_helpers import Recorder, SizedOutput, draw, drive, table_app, text

from p2pfish.games.registry import get_rules, kit_for
from p2pfish.ui.app import GameApp
from p2pfish.ui.drawing import clip, fit, short_names
from p2pfish.ui.layout import panel_columns

FIRST, SECOND = "Bartholomew Fishington the First", "Bartholomew Fishington the Second"
NAMES = ("you", FIRST, SECOND, "greedy bot 3")
GAMES = ("fishnstones", "kunayala", "fishfish", "kingfish")
SIZES = ((80, 24), (100, 30), (160, 48), (200, 50))
RECORDED = {game: Recorder(get_rules(game), NAMES, ((4, 3),)) for game in GAMES}


def moments(game: str) -> list[Any]:
    """Views of seat 0 at a few decisions of a recorded 4-seat game, from the first to the last."""
    each = RECORDED[game].game(4, 3)
    picked = each.moments[:: max(1, len(each.moments) // 6)]
    return [moment.views[0] for moment in picked]


def final(game: str) -> tuple[Any, tuple[int, ...]]:
    each = RECORDED[game].game(4, 3)
    return each.final[0], each.outcome.winners


def rows_within(parts: Any, width: int) -> list[str]:
    rows = text(parts).rstrip("\n").split("\n")
    assert all(len(row) <= width for row in rows), [row for row in rows if len(row) > width]
    return rows


@pytest.mark.parametrize("game", GAMES)
def test_full_names_at_200_columns_and_two_alike_told_apart_at_80(game: str) -> None:
    kit = kit_for(game)
    for view in moments(game):
        for columns in (80, 200):
            width = panel_columns(columns)
            for ascii_only in (False, True):
                board = "\n".join(rows_within(kit.board(view, NAMES, None, ascii_only, width), width))
                if columns == 200:
                    assert FIRST in board and SECOND in board, board
                else:
                    assert "First" in board and "Second" in board, board
            rows_within(kit.status(view, NAMES, width), width)


@pytest.mark.parametrize("game", GAMES)
def test_the_recap_lists_every_round_states_the_tie_break_and_fits(game: str) -> None:
    view, winners = final(game)
    kit = kit_for(game)
    for columns in (80, 200):
        width = panel_columns(columns)
        recap = "\n".join(rows_within(kit.scores(view, NAMES, winners, width), width))
        assert "a tie goes to" in recap or "ties share the victory" in recap, recap
        count = len(view.round_buckets) if game == "fishnstones" else getattr(view, "rounds", 0)
        assert count >= (0 if game == "kunayala" else 3), count  # Kuna Yala is played in one round
        for number in range(1, count + 1):
            assert re.search(rf"\b(r|round ){number}\b", recap), (number, recap)
        if columns == 200 and game != "fishfish":  # Fish Fish's players are columns: 4 x 34 do not fit 110
            assert FIRST in recap and SECOND in recap, recap
        assert "First" in recap and "Second" in recap, recap


def test_fishnstones_recap_gives_each_rounds_points_and_tells_a_tie_broken_by_stones() -> None:
    view, _ = final("fishnstones")
    assert len(view.round_buckets) == 4 and view.round_buckets[-1] == view.buckets
    assert all(during.round_buckets == () for during in moments("fishnstones"))  # buckets are secret till the end
    buckets = ((5, 1, 0), (6, 2, 1), (2, 0, 3), (0, 0, 0))
    rounds = ((1, 0, 0), (0, 0, 0), (1, 0, 0), (0, 0, 0)), ((3, 1, 0), (6, 2, 1), (2, 0, 3), (0, 0, 0))
    tied = view._replace(buckets=buckets, round_buckets=(*rounds, buckets, buckets))
    recap = text(kit_for("fishnstones").scores(tied, NAMES, (0,), 80)).split("\n")
    assert recap[0].split() == ["Final", "r1", "r2", "r3", "r4", "points", "fish", "stones", "water"]
    mine = next(row for row in recap if row.startswith("you "))
    assert mine.split()[1:] == ["1", "1", "2", "0", "4", "5", "1", "0", "winner"]
    told = " ".join(recap)  # the tie's sentence, broken between words into rows of 80
    assert f"you and {FIRST} tie on 4 points: you wins with fewer stones (1)." in told


def test_a_shared_victory_is_told() -> None:
    view, _ = final("kingfish")
    tied = view._replace(scores=(9, 9, 1, 0))
    recap = text(kit_for("kingfish").scores(tied, NAMES, (0, 1), 80)).replace("\n", " ")
    assert f"you and {FIRST} tie on 9 points: they share the victory." in recap


def test_names_are_shortened_by_a_clear_rule_and_never_alike() -> None:
    assert short_names(NAMES, 4, 40) == NAMES
    assert short_names(NAMES, 4, 24, "…") == (
        "you",
        "Bartholomew Fishin…First",
        "Bartholomew Fishi…Second",
        "greedy bot 3",
    )
    assert short_names(("Anna Maria Lopez", "Bo"), 2, 12) == ("Anna Maria~", "Bo")
    for width in range(4, 34):
        shown = short_names(NAMES, 4, width)
        assert len(set(shown)) == 4 and all(len(name) <= width for name in shown), (width, shown)


def test_a_row_too_long_is_cut_between_words() -> None:
    sentence = "Your turn: cast a line (a hand card, face up) for pond 1"
    assert clip(sentence, 30) == "Your turn: cast a line (a~"
    assert "".join(part for _, part in fit([("", sentence)], 30)).rstrip() == "Your turn: cast a line (a\u2026"
    assert clip(sentence, 80) == sentence


@pytest.mark.parametrize("game", GAMES)
def test_the_app_draws_the_board_in_its_panel_at_every_size(game: str) -> None:
    """At each size the screen's left panel shows the board the game drew in the panel's width, whole;
    the moves are counted; at 200 columns the long names stand whole on the screen."""
    output = SizedOutput(80, 24)
    with table_app(game, NAMES, output=output) as (app, _, _, _):

        async def script() -> None:
            for columns, rows in SIZES:
                output.size = output.size._replace(columns=columns, rows=rows)
                check(app, columns)
            app.app.exit()

        drive(app, script)


def check(app: GameApp, columns: int) -> None:
    screen = draw(app)[0]
    width = panel_columns(columns)
    board = text(app._board()).rstrip("\n").split("\n")
    assert all(len(row) <= width for row in board), board
    shown = [row[:width].rstrip() for row in screen[1 : 1 + len(board)]]
    assert shown == [row.rstrip() for row in board], (shown, board)
    assert all(len(row) <= width for row in text(app._status()).split("\n")), text(app._status())
    cells, cell = app._choice_rows(columns)
    assert cells and cell <= columns
    assert any(re.match(r" Your move: 1 of \d+ ", row) for row in screen), screen
    if columns == 200:
        left = "\n".join(row[:width] for row in screen)
        assert FIRST in left and SECOND in left, screen
