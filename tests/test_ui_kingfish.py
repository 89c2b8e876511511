"""The King Fish pieces of the terminal UI (board, status, scores, move words, typed commands, help,
narration) on views of real rules-only games for 2 to 5 players, and the app itself playing a whole
game headless. No screen may name a card of another seat's hand or another seat's face-down bait:
every check of that is made against the true state and every seat's own knowledge."""

import re
from collections.abc import Callable

import ui_helpers
from prompt_toolkit.data_structures import Size
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput
from ui_helpers import (
    Recorder,
    assert_fits,
    assert_refusals,
    assert_start_and_end_boards,
    drive,
    selected_sample,
    styles,
    table_app,
    text,
    until,
)

from p2pfish.core.actions import Action, Chance, Dealt, RevealCard, Shuffled
from p2pfish.core.game import Known
from p2pfish.games.kingfish import commands as kingfish_commands
from p2pfish.games.kingfish import rules as kingfish
from p2pfish.games.kingfish import screen as kingfish_screen
from p2pfish.games.kingfish.commands import command, describe, parse, read_card
from p2pfish.games.kingfish.kit import KIT as KINGFISH
from p2pfish.games.kingfish.rules import (
    BAIT,
    CHOOSE,
    DEAL,
    LINE,
    POND_DEAL,
    REEL,
    RULES,
    SHUFFLE,
    TACKLE,
    TACKLE_DEAL,
    State,
    View,
    label_at,
    round_points,
)
from p2pfish.games.kingfish.screen import STATUS_WIDTH, WIDTH, board, scores, sorted_hand, status
from p2pfish.games.kingfish.words import card_text, narrate
from p2pfish.games.registry import kit_for
from p2pfish.ui.app import GameApp

NAMES = ("Ann", "Bob", "Carla", "Dmitri", "Eve")
SEEDS = ((2, 1), (3, 2), (4, 3), (5, 4), (5, 5), (3, 6))
"""(players, seed) of the games whose views the tests look at."""


RECORDED = Recorder(RULES, NAMES, SEEDS)
Moment = ui_helpers.Moment[State, View]
Game = ui_helpers.Game[State, View]
game = RECORDED.game
find = RECORDED.find
games = RECORDED.games
moments = RECORDED.moments


def hidden_from(state: State, known: tuple[Known, ...], viewer: int) -> set[str]:
    """The labels `viewer` may not see: other seats' hand cards and face-down baits not turned up."""
    hidden = set()
    for seat in range(state.players):
        if seat == viewer:
            continue
        bait = state.baits[seat]
        for position in (*state.hands[seat], *(() if bait is None else (bait,))):
            if state.shown[position] is None:
                label = label_at(state, known[seat], position)
                assert label is not None
                hidden.add(label)
    return hidden


CARD_NAMES = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([SHDC♠♥♦♣])(?![0-9A-Za-z])")
SIGN_LETTERS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def named_cards(plain: str) -> set[str]:
    """Every card a text names, with its suit sign or as a label ("7♥" or "7H", not inside "17H")."""
    return {value + SIGN_LETTERS.get(sign, sign) for value, sign in CARD_NAMES.findall(plain)}


def assert_hidden(plain: str, hidden: set[str]) -> None:
    leaked = named_cards(plain) & hidden
    assert not leaked, (leaked, plain)


def test_the_games_cover_every_table_size_and_phase() -> None:
    assert {each.players for each in games()} == {2, 3, 4, 5}
    phases = {moment.view.phase for _, moment in moments()}
    assert {CHOOSE, LINE, BAIT, REEL, TACKLE} <= phases
    assert any(isinstance(moment.choice, RevealCard) for _, moment in moments())
    assert any(len(moment.legal) > 1 for _, moment in moments(REEL))
    assert all(each.outcome.scores == each.final[0].scores for each in games())


# --- the board -----------------------------------------------------------------------------------


def test_the_headline_and_the_turn_line_are_never_cut() -> None:
    """Fit cuts a long row: the two rows that say where the game stands must not need it, with the
    longest names a table shows (16 characters) and in every phase, the software's steps included."""
    longest = tuple(f"{'x' * 14}{seat:>2}" for seat in range(5))
    for _, moment in moments():
        views = [moment.view, moment.views[(moment.seat + 1) % len(moment.views)]]  # "Your turn" and a name
        if moment.view.phase == CHOOSE:
            views += [moment.view._replace(phase=phase) for phase in (SHUFFLE, DEAL, POND_DEAL, TACKLE_DEAL)]
        for view in views:
            for names in (NAMES, longest):
                lines = text(board(view, names, None, False)).split("\n")  # cards as long as in ASCII
                expected = kingfish_screen.turn_text(view, names, False)
                assert lines[1] == expected and len(expected) <= WIDTH, expected
                assert "deck" in lines[0] and lines[0].endswith(" left"), lines[0]


def table_rows(lines: list[str], view: View) -> list[str]:
    head = next(index for index, line in enumerate(lines) if line.strip().startswith("player"))
    return lines[head + 1 : head + 1 + view.players]


def test_the_board_shows_the_round_the_ponds_the_players_and_your_hand() -> None:
    each, moment = find(REEL, lambda m: m.view.players >= 4 and any(m.view.baits_down) and any(m.view.caught))
    for view in moment.views:
        lines = text(board(view, each.names, None, False)).split("\n")
        dealer = each.names[view.dealer]
        assert lines[0] == (
            f"Round {view.round}/{view.rounds} · dealer {dealer} · excursion {view.excursion} · "
            f"deck {view.deck_left} left"
        )
        assert lines[2].startswith("Ponds ")
        assert view.pond is not None and f"▶{view.pond + 1}:" in lines[2]
        for pond, in_pond in enumerate(view.ponds):
            shown = " ".join(card_text(label, False) for label in in_pond) or "empty"
            assert f"{pond + 1}: {shown}" in lines[2]
        rows = table_rows(lines, view)
        order = [(view.dealer + k) % view.players for k in range(view.players)]
        for seat, row in zip(order, rows, strict=True):
            assert row[2:].split()[0] == each.names[seat]
            assert row.startswith("▶") == (seat in view.to_act)
            assert (row[kingfish_screen.LEFT - 1] == "D") == (seat == view.dealer)
            cells = row[kingfish_screen.LEFT :]
            assert cells[: kingfish_screen.HAND].strip() == str(view.hand_sizes[seat])
            line = view.lines[seat]
            assert line is not None and card_text(line, False) in cells.split()
            assert row.split()[-1] == str(view.scores[seat])
            bait = view.baits[seat]
            if bait is not None:
                assert card_text(bait, False) in cells.split()
            elif seat == view.seat:
                assert view.my_bait is not None and f"({card_text(view.my_bait, False)})" in cells
            else:
                assert "▒▒" in cells
            for fish in view.caught[seat]:
                assert card_text(fish, False) in cells
        hand = next(line for line in lines if line.startswith("Your hand:"))
        assert hand.split()[2:] == [
            part
            for number, (_, label) in enumerate(sorted_hand(view), 1)
            for part in (str(number), card_text(label, False))
        ]
    assert {"class:turn", "class:title", "class:secret", "class:red"} <= styles(
        board(moment.view, each.names, None, False)
    )


def test_the_reel_and_the_tackle_box_are_shown() -> None:
    each, moment = find(TACKLE, lambda m: any(fish for _, fish in m.view.reel_log) and len(m.view.tackle) >= 2)
    view = moment.view
    for ascii_only in (False, True):
        lines = text(board(view, each.names, None, ascii_only)).split("\n")
        tackle = next(line for line in lines if line.startswith("Tackle box: "))
        assert tackle.split("  ")[0] == "Tackle box: " + " ".join(card_text(c, ascii_only) for c in view.tackle)
        rows = table_rows(lines, view)
        order = [(view.dealer + k) % view.players for k in range(view.players)]
        nothing = "-" if ascii_only else "—"
        for seat, fish in view.reel_log:
            reeled = rows[order.index(seat)][kingfish_screen.LEFT + kingfish_screen.HAND :].split()
            assert (card_text(fish, ascii_only) if fish else nothing) in reeled
    each, moment = find(CHOOSE, lambda m: any(m.view.public_in_hand[s] for s in range(m.view.players) if s != m.seat))
    plain = text(board(moment.view, each.names, None, True))
    kept = next(line for line in plain.split("\n") if line.startswith("Kept from the tackle box: "))
    for seat, cards in enumerate(moment.view.public_in_hand):
        if seat != moment.seat and cards:
            assert f"{each.names[seat]} {' '.join(cards)}" in kept


def test_the_selected_move_is_marked_on_the_board() -> None:
    for phase, kind in (
        (CHOOSE, kingfish.ChoosePond),
        (LINE, kingfish.PlayLine),
        (BAIT, kingfish.PlayBait),
        (TACKLE, kingfish.Keep),
    ):
        each, moment = find(phase, lambda m: len(m.legal) > 1)
        for action in moment.legal:
            assert isinstance(action, kind)
            drawn = board(moment.view, each.names, action, True)
            marked = [fragment[1] for fragment in drawn if "class:selected" in fragment[0]]
            if isinstance(action, kingfish.ChoosePond):
                assert marked == [f"{action.pond + 1}:"]
            elif isinstance(action, kingfish.PlayLine):
                assert marked == [action.label, action.label]  # as the line, and in the hand
            elif isinstance(action, kingfish.PlayBait):
                label = kingfish_screen.hand_label(moment.view, action.position)
                assert marked == [f"({label})", label]  # as the bait, and in the hand
            elif isinstance(action, kingfish.Keep):
                assert marked == [action.card]
    each, moment = find(REEL, lambda m: len(m.legal) > 1)
    for action in moment.legal:
        assert isinstance(action, kingfish.Catch)
        drawn = board(moment.view, each.names, action, True)
        assert [fragment[1] for fragment in drawn if "class:selected" in fragment[0]] == [action.fish, action.fish]


def test_long_names_are_shortened_and_start_and_end_boards() -> None:
    each = game(5, 4)
    drawn, final = assert_start_and_end_boards(RULES, KINGFISH, each, "dealer", "D")
    for seat, row in enumerate(table_rows(drawn.split("\n"), final)):
        assert " + ".join(str(points[(final.dealer + seat) % 5]) for points in final.history) in row
    bots = ("you", "greedy bot 1", "random bot 2", "greedy bot 3", "random bot 4")
    plain = text(board(each.moments[40].view, bots, None, True)) + text(status(each.moments[40].view, bots))
    for seat in range(1, 5):
        assert f"~{seat}" in plain


def test_the_shuffle_and_the_deal_between_rounds() -> None:
    each = game(3, 2)
    state = next(m.state for m in each.moments if m.state.round == 2)
    views = [RULES.view(state._replace(phase=phase), 0, {}) for phase in (SHUFFLE, DEAL)]
    shuffle, deal = (text(board(view, each.names, None, False)).split("\n") for view in views)
    assert shuffle[1] == "Shuffling a fresh deck for round 2: every seat shuffles it"
    assert deal[1].startswith("Dealing the hands: 6 cards each, face down")
    assert "points in round 1" in shuffle[4]
    for seat, row in enumerate(table_rows(shuffle, views[0])):
        assert row.split()[-2] == str(state.history[0][(views[0].dealer + seat) % 3])
    assert text(status(views[0], each.names)).startswith("Round 2 of 3: shuffling a fresh deck (mental-poker")


# --- secrets -------------------------------------------------------------------------------------


def test_no_screen_names_another_seats_hand_or_face_down_bait() -> None:
    checked = 0
    typed = ("pond 2", "turn", "line 9", "bait 1", "catch 2", "keep 3", "jump")
    """Commands that name no card (a refusal may echo a card typed, see below)."""
    for decision, (each, moment) in enumerate(moments()):
        for view in moment.views:
            hidden = hidden_from(moment.state, moment.known, view.seat)
            mine = {label for _, label in view.hand} | ({view.my_bait} if view.my_bait else set())
            assert not hidden & mine
            sample = selected_sample(moment.legal, decision) if view.seat == moment.seat else ()
            selections: tuple[Action | None, ...] = (None, *sample)
            for ascii_only in (False, True):
                for selected in selections:
                    drawn = text(board(view, each.names, selected, ascii_only))
                    assert_hidden(drawn, hidden)
                    assert mine <= named_cards(drawn)  # the check does see cards, in both forms
            assert_hidden(text(status(view, each.names)), hidden)
            legal = list(moment.legal) if view.seat == moment.seat else []
            for action in legal:
                assert_hidden(describe(action, view, each.names), hidden)
            for line in typed:
                assert_hidden(str(parse(line, view, legal, each.names)), hidden)
            if view.phase in (LINE, BAIT):
                for label in sorted(hidden)[:3]:
                    refusal = parse(f"{view.phase} {label}", view, legal, each.names)
                    assert isinstance(refusal, str)
                    assert_hidden(refusal.replace(label, "", 1), hidden)  # it echoes what was typed, no more
            checked += 1
    assert checked > 1000


def test_the_log_never_names_a_face_down_bait() -> None:
    for each in games():
        for seat, action in each.events:
            line = narrate(seat, action, each.names)
            if isinstance(action, kingfish.PlayBait):
                assert seat is not None and line == f"{each.names[seat]} put a bait face down."
            if isinstance(action, Dealt) and action.to is not None:
                assert action.labels is None and line.endswith("cards, face down.")


# --- status and scores ---------------------------------------------------------------------------


def grid_row(plain: str, label: str) -> list[int]:
    row = next(line for line in plain.split("\n") if line.startswith(label))
    return [int(value) for value in row[len(label) :].split()]


def test_status_tells_the_round_the_turn_and_the_points_in_seven_rows() -> None:
    for each, moment in moments():
        for view in moment.views:
            drawn = status(view, each.names)
            assert_fits(drawn, 7, STATUS_WIDTH)
            plain = text(drawn)
            assert plain.isascii()
            head, names = plain.split("\n")[:2]
            assert head.startswith(f"Round {view.round} of {view.rounds}, excursion {view.excursion}: ")
            to_act = view.to_act[0]
            who = "your turn" if to_act == view.seat else each.names[to_act]
            assert f": {who} to " in head
            assert names.split() == list(each.names)
            assert plain.split("\n")[2].startswith("total")  # third: what a 24-row terminal still shows
            assert grid_row(plain, "total") == list(view.scores)
            assert grid_row(plain, f"round {view.round}") == [round_points(fish) for fish in view.caught]
            for number in range(max(1, len(view.history) - 2), len(view.history) + 1):  # the 3 newest fit
                assert grid_row(plain, f"round {number}") == list(view.history[number - 1])


def test_scores_match_the_outcome() -> None:
    for each in games():
        for view in each.final:
            drawn = scores(view, each.names, each.outcome.winners)
            assert_fits(drawn, 9 if len(each.outcome.winners) > 1 else 8, STATUS_WIDTH)  # a tie: how it ended
            assert "ties share the victory" in text(drawn)
            plain = text(drawn)
            assert plain.isascii() and plain.endswith("\n")  # the app puts the audit line on the 7th row
            lines = plain.split("\n")
            assert lines[0].split() == ["Final", *(f"r{n}" for n in range(1, view.rounds + 1)), "total"]
            ranking = sorted(range(view.players), key=lambda seat: (-each.outcome.scores[seat], seat))
            for seat, line in zip(ranking, lines[1 : 1 + view.players], strict=True):
                values = line.split()
                assert values[0] == each.names[seat]
                assert [int(v) for v in values[1 : 2 + view.rounds]] == [
                    *(points[seat] for points in view.history),
                    each.outcome.scores[seat],
                ]
                assert ("winner" in line) == (seat in each.outcome.winners)


# --- describe and parse --------------------------------------------------------------------------


def test_descriptions_are_ascii_and_at_most_24_characters() -> None:
    """(That every move reads back from its command and its description: tests/test_conformance.py.)"""
    for each, moment in moments():
        for action in moment.legal:
            described = describe(action, moment.view, each.names)
            assert described.isascii() and len(described) <= 24


def test_short_forms_of_the_commands() -> None:
    assert [read_card(t) for t in ("7h", "7♥", "q♠", "QS", "10d", "TD", "ac", "11h", "7x", "7")] == [
        "7H", "7H", "QS", "QS", "10D", "10D", "AC", None, None, None,
    ]  # fmt: skip
    _, moment = find(LINE, lambda m: len(m.legal) >= 3)
    view, legal = moment.view, list(moment.legal)
    hand = sorted_hand(view)
    third = next(a for a in legal if isinstance(a, kingfish.PlayLine) and a.position == hand[2][0])
    label = hand[2][1]
    for typed in ("line 3", "3", f"line {label.lower()}", f"cast {card_text(label, False)}", label, f"Line: {label}!"):
        assert parse(typed, view, legal) == third, typed
    _, moment = find(BAIT, lambda m: len(m.legal) >= 2)
    view, legal = moment.view, list(moment.legal)
    second = next(a for a in legal if isinstance(a, kingfish.PlayBait) and a.position == sorted_hand(view)[1][0])
    assert parse("bait 2", view, legal) == parse(sorted_hand(view)[1][1].lower(), view, legal) == second
    _, moment = find(CHOOSE, lambda m: len(m.legal) == 3)
    view, legal = moment.view, list(moment.legal)
    assert parse("pond 2", view, legal) == parse("choose pond 2", view, legal) == parse("2", view, legal) == legal[1]
    _, moment = find(REEL, lambda m: len(m.legal) > 1)
    view, legal = moment.view, list(moment.legal)
    assert view.pond is not None
    fish = view.ponds[view.pond]
    target = legal[-1]
    assert isinstance(target, kingfish.Catch)
    number = fish.index(target.fish) + 1
    for typed in (f"catch {number}", f"reel {target.fish.lower()}", f"take {target.fish}", target.fish.lower()):
        assert parse(typed, view, legal) == target, typed
    _, moment = find(TACKLE, lambda m: len(m.legal) > 1)
    view, legal = moment.view, list(moment.legal)
    assert parse("keep 1", view, legal) == parse(f"keep {view.tackle[0].lower()}", view, legal) == legal[0]


def test_illegal_commands_say_why() -> None:
    found: dict[str, str] = {}
    for _, moment in moments():
        view = moment.view
        phase = view.phase
        bystander = next(s for s in range(view.players) if s != moment.seat)
        found.setdefault(f"not your turn {phase}", RECORDED.refusal(parse, moment, "line 7H", [], bystander))
        hand = sorted_hand(view)
        elsewhere = next(label for pond in view.ponds for label in pond) if any(view.ponds) else None
        if phase == CHOOSE:
            found.setdefault("line before pond", RECORDED.refusal(parse, moment, "line 1"))
            found.setdefault("pond 4", RECORDED.refusal(parse, moment, "pond 4"))
            empty = [pond for pond in range(3) if not view.ponds[pond]]
            if empty:
                found.setdefault("empty pond", RECORDED.refusal(parse, moment, f"pond {empty[0] + 1}"))
        if phase == LINE:
            found.setdefault("bait before line", RECORDED.refusal(parse, moment, "bait 1"))
            found.setdefault("line 9", RECORDED.refusal(parse, moment, "line 9"))
            if elsewhere is not None:
                found.setdefault("a fish as line", RECORDED.refusal(parse, moment, f"line {elsewhere}"))
        if phase == BAIT:
            found.setdefault("catch now", RECORDED.refusal(parse, moment, "catch 1"))
            found.setdefault("bait 0", RECORDED.refusal(parse, moment, "bait 0"))
            found.setdefault("turn now", RECORDED.refusal(parse, moment, "turn"))
        if phase == REEL and isinstance(moment.choice, kingfish.Catch):
            found.setdefault("keep now", RECORDED.refusal(parse, moment, "keep 1"))
            assert view.pond is not None
            other = next((f for p in range(3) if p != view.pond for f in view.ponds[p]), None)
            if other is not None:
                found.setdefault("not in the pond", RECORDED.refusal(parse, moment, f"catch {other}"))
            found.setdefault("turned already", RECORDED.refusal(parse, moment, "turn"))
            found.setdefault("catch 9", RECORDED.refusal(parse, moment, "catch 9"))
        if phase == TACKLE:
            found.setdefault("pond now", RECORDED.refusal(parse, moment, "pond 1"))
            found.setdefault("keep 9", RECORDED.refusal(parse, moment, "keep 9"))
            if hand:
                found.setdefault("keep own card", RECORDED.refusal(parse, moment, f"keep {hand[0][1]}"))
    expected = {
        "not your turn choose": "it is not your turn: ",
        "not your turn line": "it is not your turn: ",
        "not your turn bait": " puts a bait face down",
        "not your turn tackle": " keeps a card from the tackle box",
        "line before pond": "not now: choose a pond first: pond N (",
        "pond 4": "there are ponds 1 to 3: choose one with fish (",
        "empty pond": " is empty: choose a pond with fish (",
        "bait before line": "not now: cast your line first: line CARD",
        "line 9": "your hand has ",
        "a fish as line": ": it is a fish in a pond (your hand: ",
        "catch now": "not now: your line is out; now your bait, face down",
        "bait 0": "your hand has ",
        "turn now": "your bait is turned up when your line is the lowest left",
        "keep now": "not now: reel in a fish: catch CARD (",
        "not in the pond": " is not in pond ",
        "turned already": "your bait is turned up already",
        "catch 9": " fish: catch 1 to catch ",
        "pond now": "not now: keep a card of the tackle box: keep CARD (",
        "keep 9": "the tackle box holds ",
        "keep own card": " is not in the tackle box (",
    }
    assert_refusals(found, expected)


def test_a_fish_the_line_and_bait_do_not_catch_says_why() -> None:
    _, moment = find(REEL, lambda m: len(m.legal) > 1)
    base, legal = moment.view, list(moment.legal)
    assert base.pond is not None
    seat = base.seat

    def reel(line: str, bait: str, pond: tuple[str, ...], catchable: tuple[str, ...]) -> View:
        ponds = tuple(pond if index == base.pond else fish for index, fish in enumerate(base.ponds))
        lines = tuple(line if s == seat else label for s, label in enumerate(base.lines))
        baits = tuple(bait if s == seat else label for s, label in enumerate(base.baits))
        return base._replace(ponds=ponds, lines=lines, baits=baits, catchable=catchable)

    view = reel("7H", "QS", ("5S", "9S", "4H", "KS"), ("5S",))
    moves: list[Action] = [kingfish.Catch("5S")]
    assert parse("catch 5s", view, moves) == kingfish.Catch("5S")
    assert parse("catch 4H", view, moves) == "your bait QS catches spades only, not 4H: you can catch 5S"
    assert parse("catch 9S", view, moves) == "your line 7H catches only fish below 7, not 9S: you can catch 5S"
    assert parse("catch KS", view, moves) == (
        "only a J/Q/K line catches the court fish KS, and your line is 7H: you can catch 5S"
    )
    assert parse("catch 2C", view, moves) == f"2C is not in pond {base.pond + 1} (5S 9S 4H KS)"
    assert parse("catch 4", view, moves) == parse("catch KS", view, moves)
    assert isinstance(legal[0], kingfish.Catch)


def test_unknown_and_malformed_commands_list_what_is_possible() -> None:
    _, moment = find(LINE, lambda m: len(m.legal) >= 2)
    view, legal = moment.view, list(moment.legal)
    unknown = str(parse("jump 1", view, legal))
    assert unknown.startswith("unknown command 'jump': now you can type line ")
    assert all(command(action, view) in unknown for action in legal[:5])
    waiting = str(parse("jump", view, [], NAMES))
    assert "pond N, line CARD, bait CARD, catch CARD, keep CARD, say TEXT or help" in waiting
    assert str(parse("line", view, legal)) == "line takes a card of your hand: line 7H, or line 3 (its 3rd card)"
    assert str(parse("line 7H 8H", view, legal)).startswith("line takes a card of your hand")
    assert str(parse("line xyz", view, legal)).endswith("(not 'xyz')")
    assert str(parse("pond 7h", view, legal)).startswith("pond takes a pond number: pond 2")
    assert str(parse("turn 9", view, legal)) == "turn takes nothing more: '9'?"
    assert "type a command" in str(parse("  ", view, legal))


def test_words_and_help() -> None:
    assert {"pond", "line", "bait", "catch", "keep", "say", "help", "quit"} <= set(kingfish_commands.words())
    for token in ("pond 2", "line 7H", "line 3", "bait QS", "catch KH", "keep 4D", "(QS)", "J/Q/K"):
        assert token in KINGFISH.help
    assert KINGFISH.help.isascii() and len(KINGFISH.help.split("\n")) <= 15
    assert all(len(line) <= 78 for line in KINGFISH.help.split("\n"))  # inside the help's frame
    assert kit_for("kingfish") is KINGFISH and KINGFISH.title == "King Fish"


# --- narration -----------------------------------------------------------------------------------


def test_narration_gives_one_line_per_event() -> None:
    each = game(4, 3)
    lines = [narrate(seat, action, each.names) for seat, action in each.events]
    assert all(line and "\n" not in line and line.isprintable() for line in lines)
    assert lines[0].endswith("deals first (drawn by joint randomness).")
    kinds = set()
    for (seat, action), line in zip(each.events, lines, strict=True):
        who = each.names[seat] if seat is not None else ""
        kinds.add(type(action).__name__)
        if isinstance(action, kingfish.ChoosePond):
            assert line == f"{who} chose pond {action.pond + 1}."
        elif isinstance(action, kingfish.PlayLine):
            assert line == f"{who} cast a line of {card_text(action.label, False)}."
        elif isinstance(action, kingfish.PlayBait):
            assert line == f"{who} put a bait face down."
        elif isinstance(action, RevealCard):
            assert line.startswith(f"{who} turned up the bait {card_text(action.label, False)}.")
        elif isinstance(action, kingfish.Catch):
            assert line.startswith(f"{who} caught {card_text(action.fish, False)} (")
        elif isinstance(action, kingfish.Keep):
            assert line.startswith(f"{who} kept {card_text(action.card, False)} from the tackle box.")
        elif isinstance(action, Shuffled):
            assert line == f"Round {action.deck.split('-')[1]}: a fresh deck, shuffled by every seat."
        elif isinstance(action, Dealt):
            if action.to is not None:
                assert line == f"{each.names[action.to]} is dealt 6 cards, face down."
            elif len(action.positions) == 9:
                assert action.labels is not None and line.startswith(
                    "Ponds: " + " ".join(card_text(c, False) for c in action.labels[:3]) + " | "
                )
            else:
                assert action.labels is not None
                assert line == f"Tackle box: {' '.join(card_text(c, False) for c in action.labels)}"
        else:
            assert isinstance(action, Chance)
    assert {"ChoosePond", "PlayLine", "PlayBait", "RevealCard", "Keep", "Shuffled", "Dealt"} <= kinds
    names = NAMES[:3]
    assert narrate(1, kingfish.PlayLine("round-1", 4, "9C"), names) == "Bob cast a line of 9♣."
    assert narrate(0, kingfish.Catch("KS"), names) == "Ann caught K♠ (2 points)."
    assert narrate(2, kingfish.Keep("4D"), names) == "Carla kept 4♦ from the tackle box."
    assert narrate(None, Chance((2,)), names) == "Carla deals first (drawn by joint randomness)."


# --- the app, headless ---------------------------------------------------------------------------


class ScreenOutput(DummyOutput):
    """A dummy terminal of the smallest size the app accepts."""

    def get_size(self) -> Size:
        return Size(rows=24, columns=80)


async def screen_lines(app: GameApp) -> list[str]:
    """The whole app as the next redraw draws it into an 80x24 screen, row by row (the controls keep
    what they drew until the next redraw, so this waits for one)."""
    drawn = app.app.render_counter
    app.app.invalidate()
    await until(lambda: app.app.render_counter > drawn, "a redraw")
    screen = Screen()
    app.app.layout.container.write_to_screen(
        screen, MouseHandlers(), WritePosition(0, 0, 80, 24), parent_style="", erase_bg=False, z_index=None
    )
    screen.draw_all_floats()
    return ["".join(screen.data_buffer[y][x].char for x in range(80)).rstrip() for y in range(24)]


def test_a_whole_game_played_by_keys_on_an_80_by_24_screen() -> None:
    names = ("you", "Bob", "Carla")
    screens = 0
    with table_app("kingfish", names, output=ScreenOutput()) as (app, controller, pipe, table):
        assert app.kit is KINGFISH

        async def check_screen() -> None:
            """Nothing of the others' hands and face-down baits anywhere on the screen; the board whole."""
            nonlocal screens
            state = controller.session.state
            known = tuple(session.known() for session in table.sessions)
            lines = await screen_lines(app)
            drawn = text(app._board()).rstrip("\n").split("\n")
            assert drawn == [line.rstrip() for line in lines[1 : 1 + len(drawn)]]  # the board takes all 80 columns
            # the board and the moves (the log and the last message may name cards of a past round, whose
            # labels come back in the next round's deck)
            heads = (" Your move", " Waiting", " The end")
            header = next(row for row, line in enumerate(lines) if line.startswith(heads))
            tables = lines[1 : 1 + len(drawn)] + lines[header : header + 1 + app._plan().moves]
            assert_hidden("\n".join(tables), hidden_from(state, known, 0))
            if controller.decision() is not None:
                legal = controller.decision()[1]  # type: ignore[index]
                assert f" of {len(legal)} " in lines[header]
            screens += 1

        async def script() -> None:
            await until(lambda: controller.decision() is not None, "our first turn")
            decision = controller.decision()
            assert decision is not None
            view, legal = decision
            wrong = "pond 1" if view.phase == TACKLE else "keep 1"
            refused = parse(wrong, view, legal, names)
            assert isinstance(refused, str) and refused.startswith("not now: ")
            pipe.send_text(wrong + "\r")
            await until(lambda: app.model.message[1] == refused, "the refusal")
            turn = controller.session.turn
            pipe.send_text(command(legal[-1], view, names) + "\r")
            await until(lambda: controller.session.turn != turn, "the typed move")
            assert app.model.message[1] == f"You: {KINGFISH.describe(legal[-1], view, names)}"
            moves = 0

            def moved_on(turn: int) -> Callable[[], bool]:
                return lambda: controller.session.turn != turn or app.model.winners is not None

            while app.model.winners is None:
                await check_screen()
                assert "Your move" in app._choices_title() or controller.decision() is None
                waited = moved_on(controller.session.turn)
                pipe.send_text("\x1b[B" if moves % 3 == 1 else "")  # now and then pick the second move
                pipe.send_text("\r")
                moves += 1
                await until(waited, "a move")
            await check_screen()
            assert moves >= 9
            assert "verified" in app.model.audit
            assert text(app._status()).startswith("Final")
            pipe.send_text("q")

        drive(app, script)
    assert controller.session.finished and controller.session.fault is None
    assert screens > 9
    logged = [line for _, line in app.model.log]
    assert any(line.endswith("deals first (drawn by joint randomness).") for line in logged)
    assert any(line.startswith("you cast a line of ") for line in logged)
    assert any(line.startswith("Bob put a bait face down") for line in logged)
    assert any(" turned up the bait " in line for line in logged)
    assert any(line.startswith("Ponds: ") for line in logged)
