"""The Fish Fish pieces of the terminal UI (board, status, scores, move words, typed commands, help,
narration) on views of real rules-only games for 2 to 8 players, and the app itself playing a whole
game headless. The Fisherman's face-down Pêche card must never show on anyone else's screen."""

from collections.abc import Callable

import ui_helpers
from ui_helpers import (
    Recorder,
    assert_fits,
    assert_refusals,
    assert_start_and_end_boards,
    drive,
    styles,
    table_app,
    text,
    until,
)

from p2pfish.core.actions import Action, Chance, Commit, Reveal
from p2pfish.games.fishfish import commands as fishfish_commands
from p2pfish.games.fishfish import rules as fishfish
from p2pfish.games.fishfish import screen as fishfish_screen
from p2pfish.games.fishfish.commands import command, describe, parse
from p2pfish.games.fishfish.kit import KIT as FISHFISH
from p2pfish.games.fishfish.rules import (
    BAIT,
    BET,
    BREDOUILLE,
    BUTIN_SLOTS,
    CAST,
    LINES,
    OVER,
    PRISE,
    REVEAL,
    RULES,
    TILES_PER_FISH,
    State,
    View,
    peche_purpose,
)
from p2pfish.games.fishfish.screen import HEIGHT, board, kinds_text, score_parts, scores, status
from p2pfish.games.fishfish.words import narrate
from p2pfish.games.registry import kit_for
from p2pfish.ui.drawing import short_names

NAMES = ("Ann", "Bob", "Carla", "Dmitri", "Eve", "Fernando", "Gunnhildur", "Hiroshi")
SEEDS = ((2, 1), (3, 2), (4, 3), (5, 4), (6, 5), (7, 6), (8, 7), (8, 8))
"""(players, seed) of the games whose views the tests look at."""
STEMS = {PRISE: "pris", BREDOUILLE: "bred"}
"""What any mention of a Pêche card contains (PRISE, Prise, BRED., Bredouille...), in lower case."""


RECORDED = Recorder(RULES, NAMES, SEEDS)
Moment = ui_helpers.Moment[State, View]
Game = ui_helpers.Game[State, View]
game = RECORDED.game
find = RECORDED.find
games = RECORDED.games
moments = RECORDED.moments


def secret_of(moment: Moment) -> str | None:
    """The Fisherman's face-down card under the current line, while one lies on the water."""
    state = moment.state
    if state.lines and state.lines[-1].committed and not state.lines[-1].checked:
        value = moment.known[state.fisherman][state.purpose]
        assert isinstance(value, str)
        return value
    return None


def mentions(plain: str, kind: str) -> int:
    return plain.lower().count(STEMS[kind])


def test_the_games_cover_every_table_size_and_phase() -> None:
    assert {each.players for each in games()} == set(range(2, 9))
    phases = {moment.view.phase for _, moment in moments()}
    assert {BAIT, CAST, BET, REVEAL} <= phases
    assert all(not each.moments or each.outcome.scores == each.final[0].totals for each in games())


# --- the board -----------------------------------------------------------------------------------


def test_an_eight_player_board_uses_all_15_rows_and_shows_everyone() -> None:
    each = game(8, 7)
    for moment in each.moments[::7]:
        drawn = board(moment.view, each.names, moment.choice, False)
        lines = text(drawn).split("\n")
        assert len(lines) == HEIGHT
        for seat in range(8):
            assert sum(each.names[seat][: fishfish_screen.NAME] in line for line in lines) >= 1


def test_the_board_shows_the_water_the_players_the_order_and_the_turn() -> None:
    each, moment = find(BET, lambda m: len(m.view.lines) >= 3 and m.view.players >= 4)
    view = next(v for v in moment.views if v.seat not in (moment.seat, v.fisherman))
    lines = text(board(view, each.names, None, False)).split("\n")
    fisher = each.names[view.fisherman]
    assert lines[0].startswith(f"Round {view.round} of {view.rounds} · Fisherman {fisher} · bets ")
    assert ("↻ clockwise" if view.clockwise else "↺ anticlockwise") in lines[0]
    assert lines[1] == f"{each.names[moment.seat]} bets on line {len(view.lines)} (bait {view.lines[-1].bait})"
    assert lines[2].startswith(f"Pêche cards: {view.peche_count} face down") and "line │" in lines[2]
    assert lines[3].startswith("baits left: " + " ".join(str(b) for b in view.baits))
    baits = lines[3].split("│")[1].split()
    assert baits == [str(line.bait) for line in view.lines]
    cards = lines[4].split("│")[1].split()
    for token, line in zip(cards, view.lines, strict=True):
        if line.peche is not None:
            assert token == fishfish_screen.KIND_TOKENS[line.peche]
        else:
            assert token == ("(▒)" if line.checked else "▒▒▒")
    rows = lines[6 : 6 + view.players]
    assert rows[0].split()[:2] == ["F", fisher] and f"caught {view.captured}" in rows[0]
    for position, (seat, row) in enumerate(zip(view.order, rows[1:], strict=True), start=1):
        assert row[2:].split()[:2] == [str(position), each.names[seat]]
        assert row.startswith("▶") == (seat == moment.seat)
        hand = row[4 + fishfish_screen.NAME + 1 :][:TILES_PER_FISH]
        assert hand == "●" * view.hands[seat] + "○" * (TILES_PER_FISH - view.hands[seat])
        bets = row.split("│")[1].split()
        waiting = position > view.order.index(moment.seat) + 1 and view.hands[seat] > 0
        assert len(bets) == len(view.lines) - waiting
        assert (bets[-1] == "?") == (seat == moment.seat)
        assert str(view.round_scores[seat]) == row.split("│")[0].split()[-1]
    assert {"class:turn", "class:title", "class:secret"} <= styles(board(view, each.names, None, False))


def test_the_selected_move_is_marked_on_the_board() -> None:
    for phase, kind in ((BAIT, fishfish.Bait), (CAST, fishfish.Cast), (BET, fishfish.Bet)):
        each, moment = find(phase)
        for action in moment.legal:
            assert isinstance(action, kind)
            drawn = board(moment.view, each.names, action, True)
            marked = [fragment[1] for fragment in drawn if "class:selected" in fragment[0]]
            assert len(marked) == 1, (action, marked)
            if isinstance(action, fishfish.Bait):
                assert marked == [str(action.value)]
            elif isinstance(action, fishfish.Cast):
                assert marked == [fishfish_screen.PREVIEW_TOKENS[str(action.value)]]
            else:
                assert marked == [str(action.tiles)]


def test_long_names_are_shortened_but_told_apart() -> None:
    bots = ("root", *(f"{'greedy' if i % 2 else 'random'} bot {i}" for i in range(1, 8)))
    assert short_names(bots, 8, 10, "…")[:3] == ("root", "greedy b…1", "random b…2")
    assert short_names(bots, 8, 6)[1:3] == ("gree~1", "rand~2")
    assert short_names(NAMES, 8, 6)[5:] == ("Ferna~", "Gunnh~", "Hiros~")  # a shortened name says so
    assert short_names(("Ann Smith", "Ann Smythe", "Bo"), 3, 6) == ("Ann~h", "Ann~e", "Bo")
    assert short_names(("Ann", "Ann"), 2, 6) == ("Ann#0", "Ann#1")
    view = game(8, 7).moments[0].view
    drawn = text(board(view, bots, None, True))
    for seat in range(1, 8):  # the board has room for them, the status's 8 columns have not
        assert bots[seat] in drawn and f"~{seat}" in text(status(view, bots))


def test_start_and_end_boards() -> None:
    each = game(5, 4)
    _, final = assert_start_and_end_boards(RULES, FISHFISH, each, "Fisherman", "F")
    assert_fits(board(final, each.names, None, False), HEIGHT)


# --- secrets -------------------------------------------------------------------------------------


def test_only_the_fisherman_sees_his_peche_cards() -> None:
    checked = 0
    for each, moment in moments():
        secret = secret_of(moment)
        if secret is None:
            continue
        other = BREDOUILLE if secret == PRISE else PRISE
        revealed = {kind: sum(line.peche == kind for line in moment.state.lines) for kind in (PRISE, BREDOUILLE)}
        for view in moment.views:
            selections: tuple[Action | None, ...] = (None, *moment.legal) if view.seat == moment.seat else (None,)
            for ascii_only in (False, True):
                for selected in selections:
                    plain = text(board(view, each.names, selected, ascii_only))
                    if view.seat == view.fisherman:
                        assert "Only you see it" in plain and secret.upper() in plain
                        assert kinds_text(view.my_peche or ()) in plain
                        continue
                    assert view.my_cast is None and view.my_peche is None
                    assert "only you" not in plain.lower()
                    assert mentions(plain, secret) == revealed[secret]
                    assert mentions(plain, other) == revealed[other]
            if view.seat == view.fisherman:
                continue
            plain = text(status(view, each.names))
            assert mentions(plain, PRISE) == mentions(plain, BREDOUILLE) == 0
            if view.seat == moment.seat:
                for action in moment.legal:
                    assert mentions(describe(action, view, each.names), secret) == 0
            for typed in ("cast prise", "cast bredouille", "prise", "bredouille", "reveal", "bait 3", "bet 9"):
                refusal = parse(typed, view, list(moment.legal) if view.seat == moment.seat else [], each.names)
                assert isinstance(refusal, str)
                assert mentions(refusal, PRISE) == mentions(refusal, BREDOUILLE) == 0, refusal
            checked += 1
    assert checked > 1000


def test_the_log_never_names_a_card_before_its_reveal() -> None:
    for each in games():
        for seat, action in each.events:
            line = narrate(seat, action, each.names)
            if isinstance(action, Commit):
                assert mentions(line, PRISE) == mentions(line, BREDOUILLE) == 0
        casts = [moment.choice for moment in each.moments if isinstance(moment.choice, fishfish.Cast)]
        for cast in casts:
            assert "lays a Peche card face down" in narrate(0, cast, each.names)
            assert mentions(narrate(0, cast, each.names), str(cast.value)) == 0


# --- status and scores ---------------------------------------------------------------------------


def grid_row(plain: str, label: str) -> list[int]:
    row = next(line for line in plain.split("\n") if line.startswith(label))
    return [int(value) for value in row.split()[1:]]


def test_status_tells_the_round_the_turn_your_holdings_and_the_scores_in_seven_rows() -> None:
    for each, moment in moments():
        for view in moment.views:
            drawn = status(view, each.names)
            assert_fits(drawn, 7, fishfish_screen.STATUS_WIDTH)
            plain = text(drawn)
            assert plain.isascii()
            assert plain.startswith(f"Round {view.round} of {view.rounds}")
            assert grid_row(plain, "round") == list(view.round_scores)
            assert grid_row(plain, "total") == list(view.totals)
            if view.history:
                assert grid_row(plain, "last") == list(view.history[-1])
            if view.seat == view.fisherman:
                assert f"You are the Fisherman: {view.captured} tile" in plain
            else:
                assert f"You hold {view.hands[view.seat]} of 4 tiles" in plain
            to_act = view.to_act[0]
            who = "your turn" if to_act == view.seat else each.names[to_act]
            assert f": {who} to " in plain.split("\n")[0]
            assert ("Next round:" in plain) == (view.round < view.rounds)


def test_scores_match_the_outcome() -> None:
    for each in games():
        for view in each.final:
            drawn = scores(view, each.names, each.outcome.winners)
            rounds = len(view.history)
            assert_fits(drawn, 8 + rounds, fishfish_screen.STATUS_WIDTH)
            plain = text(drawn)
            assert plain.isascii() and plain.endswith("\n")  # the app puts the audit line after it
            assert grid_row(plain, "total") == list(each.outcome.scores)
            fisher, fish = grid_row(plain, "Fisherman"), grid_row(plain, "Fish ")
            assert [a + b for a, b in zip(fisher, fish, strict=True)] == list(each.outcome.scores)
            assert tuple(zip(fisher, fish, strict=True)) == score_parts(view)
            assert [grid_row(plain, f"round {number}")[1:] for number in range(1, rounds + 1)] == [
                list(points) for points in view.history
            ]
            winners = plain.split("\n")[4 + rounds]
            assert winners.count("winner") == len(each.outcome.winners)
            assert "ties share the victory" in plain


# --- describe and parse --------------------------------------------------------------------------


def test_short_forms_of_the_commands() -> None:
    _, moment = find(CAST, lambda m: len(m.legal) == 2)
    view, legal = moment.view, list(moment.legal)
    prise, bredouille = (
        fishfish.Cast(peche_purpose(view.round, len(view.lines)), kind) for kind in (PRISE, BREDOUILLE)
    )
    for typed in ("prise", "PRISE", "cast p", "cast pr", "cast a prise card", "pri", "peche prise"):
        assert parse(typed, view, legal) == prise, typed
    for typed in ("bredouille", "bred", "cast b", "Cast: Bredouille!", "bre"):
        assert parse(typed, view, legal) == bredouille, typed
    _, moment = find(BET, lambda m: m.view.hands[m.seat] >= 2)
    view, legal = moment.view, list(moment.legal)
    held = view.hands[view.seat]
    assert parse("pass", view, legal) == parse("bet 0", view, legal) == fishfish.Bet(0)
    assert parse("bet all", view, legal) == fishfish.Bet(held)
    assert parse("Bet 2 tiles on this line", view, legal) == fishfish.Bet(2)
    assert parse("bet 1 tile", view, legal) == fishfish.Bet(1)


def test_illegal_commands_say_why() -> None:
    found: dict[str, str] = {}
    for _, moment in moments():
        view = moment.view
        phase = view.phase
        if phase == BET:
            bystander = next((s for s in view.order if s != moment.seat), None)
            if bystander is not None:
                found.setdefault("not your turn", RECORDED.refusal(parse, moment, "bet 1", [], bystander))
            found.setdefault("not the Fisherman: bait", RECORDED.refusal(parse, moment, "bait 3"))
            found.setdefault("not the Fisherman: cast", RECORDED.refusal(parse, moment, "cast prise"))
            found.setdefault("not the Fisherman: kind", RECORDED.refusal(parse, moment, "bredouille"))
            found.setdefault("not the Fisherman: reveal", RECORDED.refusal(parse, moment, "reveal"))
            found.setdefault("fisherman waits", RECORDED.refusal(parse, moment, "bait 3", [], view.fisherman))
            held = view.hands[view.seat]
            if held < 4:
                found.setdefault("too many tiles", RECORDED.refusal(parse, moment, f"bet {held + 1}"))
            found.setdefault("negative", RECORDED.refusal(parse, moment, "bet -1"))
        if phase == CAST:
            found.setdefault("fisherman bets", RECORDED.refusal(parse, moment, "bet 1"))
            found.setdefault("bait again", RECORDED.refusal(parse, moment, "bait 3"))
            if len(moment.legal) == 1:
                gone = (
                    BREDOUILLE
                    if isinstance(moment.legal[0], fishfish.Cast) and moment.legal[0].value == PRISE
                    else PRISE
                )
                found.setdefault(f"no {gone} left", RECORDED.refusal(parse, moment, f"cast {gone}"))
        if phase == BAIT:
            found.setdefault("cast first", RECORDED.refusal(parse, moment, "cast prise"))
            found.setdefault("no bait 7", RECORDED.refusal(parse, moment, "bait 7"))
            missing = [v for v in BUTIN_SLOTS if v not in view.baits]
            if missing:
                found.setdefault("bait gone", RECORDED.refusal(parse, moment, f"bait {missing[0]}"))
            found.setdefault("reveal when", RECORDED.refusal(parse, moment, "reveal"))
    expected = {
        "not your turn": "it is not your turn: ",
        "not the Fisherman: bait": "you are not the Fisherman (",
        "not the Fisherman: cast": "you are not the Fisherman (",
        "not the Fisherman: kind": "you are not the Fisherman (",
        "not the Fisherman: reveal": "you are not the Fisherman (",
        "fisherman waits": "it is not your turn: ",
        "too many tiles": "you have only ",
        "negative": "a bet is 0 tiles or more",
        "fisherman bets": "the Fisherman does not bet",
        "bait again": "first lay a Peche card face down under line",
        "no prise left": "you hold no Prise card any more this round (left: ",
        "no bredouille left": "you hold no Bredouille card any more this round (left: ",
        "cast first": "first lay a bait card for the next line",
        "no bait 7": "there is no bait card 7",
        "bait gone": "you no longer hold a bait card",
        "reveal when": "the Peche card is revealed once tiles are bet",
    }
    assert_refusals(found, expected)
    assert "bets on line" in found["not your turn"] and "lays" not in found["fisherman waits"]


def test_malformed_commands() -> None:
    _, moment = find(BET)
    view, legal = moment.view, list(moment.legal)
    assert "unknown command 'jump'" in str(parse("jump 1", view, legal))
    assert "bet takes a number of tiles" in str(parse("bet x", view, legal))
    assert "bet takes a number of tiles" in str(parse("bet", view, legal))
    assert "bait takes a bait card's value" in str(parse("bait", view, legal))
    assert "cast takes a Peche card" in str(parse("cast x", view, legal))
    assert "pass takes nothing more" in str(parse("pass 2", view, legal))
    assert "type a command" in str(parse("  ", view, legal))


def test_words_and_help() -> None:
    assert {"bait", "cast", "prise", "bredouille", "bet", "pass", "say", "help", "quit"} <= set(
        fishfish_commands.words()
    )
    for token in ("bait 3", "cast prise", "bredouille", "bet 2", "pass", "PRISE", "BRED.", "(#)", "butin 2 3 4 5"):
        assert token in FISHFISH.help
    assert FISHFISH.help.isascii() and len(FISHFISH.help.split("\n")) <= 15
    assert all(len(line) <= 80 for line in FISHFISH.help.split("\n"))
    assert kit_for("fishfish") is FISHFISH and FISHFISH.title == "Fish Fish"


# --- narration -----------------------------------------------------------------------------------


def test_narration_gives_one_line_per_event() -> None:
    each = game(4, 3)
    lines = [narrate(seat, action, each.names) for seat, action in each.events]
    assert all(line and "\n" not in line and line.isascii() for line in lines)
    assert lines[0].endswith("is the first Fisherman (drawn by joint randomness).")
    for (seat, action), line in zip(each.events, lines, strict=True):
        who = each.names[seat] if seat is not None else ""
        if isinstance(action, fishfish.Bait):
            assert line == f"{who} casts a new line with bait {action.value}."
        elif isinstance(action, Commit):
            assert line.startswith(f"{who} lays a Peche card face down under the line (round ")
            assert ("Last line" in line) == action.purpose.endswith(f"/{LINES}")
        elif isinstance(action, fishfish.Bet):
            tiles = f"{action.tiles} tile" + ("" if action.tiles == 1 else "s")
            assert line == (f"{who} passes (bets nothing)." if action.tiles == 0 else f"{who} bets {tiles}.")
        elif isinstance(action, Reveal):
            assert f"{who} reveals the Peche card (round " in line
            assert str(action.value).capitalize() in line
        else:
            assert isinstance(action, Chance)
    names = NAMES[:3]
    assert narrate(1, fishfish.Bet(1), names) == "Bob bets 1 tile."
    assert narrate(2, fishfish.Bet(3), names) == "Carla bets 3 tiles."
    assert narrate(0, Commit("peche/2/5", bytes(32)), names).endswith("every Fish player bets all his tiles left.")
    assert narrate(0, Reveal("peche/1/3", PRISE), names) == (
        "Ann reveals the Peche card (round 1, line 3): Prise - the Fisherman catches every tile bet on the line."
    )
    assert narrate(None, Chance((2,)), names) == "Carla is the first Fisherman (drawn by joint randomness)."


# --- the app, headless ---------------------------------------------------------------------------


def test_a_whole_game_played_with_the_enter_key() -> None:
    names = ("you", "Bob", "Carla", "Dmitri")
    hidden_seen = 0
    with table_app("fishfish", names, ascii_only=True) as (app, controller, pipe, table):
        assert app.kit is FISHFISH

        def check_secrecy() -> None:
            """While another seat fishes, our screen holds no more card names than the revealed cards."""
            nonlocal hidden_seen
            state = controller.session.state
            if state.fisherman == 0 or not state.lines or state.phase == OVER:
                return
            line = state.lines[-1]
            if line.committed and not line.checked:
                secret = table.sessions[state.fisherman].known()[state.purpose]
                assert isinstance(secret, str)
                revealed = sum(each.peche == secret for each in state.lines)
                assert mentions(text(app._board()), secret) == revealed
                assert mentions(text(app._status()), secret) == 0
                hidden_seen += 1

        async def script() -> None:
            await until(lambda: controller.decision() is not None, "our first turn")
            decision = controller.decision()
            assert decision is not None
            view, legal = decision
            wrong = "bet 1" if view.seat == view.fisherman else "bait 3"
            refused = parse(wrong, view, legal, names)
            assert isinstance(refused, str) and refused
            pipe.send_text(wrong + "\r")
            await until(lambda: app.model.message[1] == refused, "the refusal")
            turn = controller.session.turn
            pipe.send_text(command(legal[-1], view, names) + "\r")
            await until(lambda: controller.session.turn != turn, "the typed move")
            assert app.model.message[1] == f"You: {FISHFISH.describe(legal[-1], view, names)}"
            moves = 0

            def moved_on(turn: int) -> Callable[[], bool]:
                return lambda: controller.session.turn != turn or app.model.winners is not None

            while app.model.winners is None:
                check_secrecy()
                assert "Your move" in app._choices_title() or controller.decision() is None
                assert_fits(app._board(), HEIGHT)
                waited = moved_on(controller.session.turn)
                pipe.send_text("\x1b[B" if moves % 3 == 1 else "")  # now and then pick the second move
                pipe.send_text("\r")
                moves += 1
                await until(waited, "a move")
            assert moves >= 4  # at least one move a round
            assert "verified" in app.model.audit
            assert text(app._status()).startswith("Final")
            pipe.send_text("q")

        drive(app, script)
    assert controller.session.finished and controller.session.fault is None
    assert hidden_seen > 0
    logged = [line for _, line in app.model.log]  # the newest 200 lines
    assert any(line.endswith("(drawn by joint randomness).") for line in logged)
    assert any(line.startswith("you lays a Peche card face down") for line in logged)
    assert any(" reveals the Peche card (round " in line for line in logged)
    assert any(" bets " in line or " passes " in line for line in logged)
