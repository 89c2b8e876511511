"""The Kuna Yala pieces of the terminal UI (board, status, scores, move words, typed commands, help,
narration) on views of real rules-only games, and the app itself playing a whole game headless."""

from collections.abc import Callable

import ui_helpers
from ui_helpers import Recorder, assert_fits, assert_refusals, drive, styles, table_app, text, until

from p2pfish.core.actions import Action, Chance, Dealt, RevealCard, Shuffled
from p2pfish.games.kunayala import commands as kunayala_commands
from p2pfish.games.kunayala import screen as kunayala_screen
from p2pfish.games.kunayala.commands import command, describe, parse, placement_error
from p2pfish.games.kunayala.kit import KIT as KUNAYALA
from p2pfish.games.kunayala.rules import (
    BONES,
    CORAL,
    DISCARDS,
    FISH,
    OTHER,
    OWN,
    RULES,
    SHARK,
    Discard,
    PlaceOctopus,
    PlaceOther,
    PlaceOwn,
    SchoolCell,
    State,
    View,
    card,
    cells_for,
    tally,
)
from p2pfish.games.kunayala.screen import HEIGHT, board, score_parts, scores, status
from p2pfish.games.kunayala.words import narrate
from p2pfish.games.registry import kit_for

NAMES = ("Ann", "Bob", "Carla", "Dmitri")
SEEDS = ((2, 1), (2, 5), (3, 2), (3, 8), (4, 3), (4, 7))
"""(players, seed) of the games whose views the tests look at."""


RECORDED = Recorder(RULES, NAMES, SEEDS)
Decision = ui_helpers.Moment[State, View]
Game = ui_helpers.Game[State, View]
game = RECORDED.game
games = RECORDED.games
decisions = RECORDED.moments


def crowded() -> tuple[Game, Decision]:
    """The decision with the most cards in its schools: late in a two-player game."""
    return max(decisions(), key=lambda gd: sum(len(school) for school in gd[1].view.schools))


# --- the board -----------------------------------------------------------------------------------


def test_the_board_of_every_decision_fits_and_marks_the_selected_move() -> None:
    for each, decision in decisions():
        for ascii_only in (False, True):
            drawn = board(decision.view, each.names, decision.choice, ascii_only)
            assert_fits(drawn, HEIGHT)
            if ascii_only:
                assert text(drawn).isascii()
            if isinstance(decision.choice, (PlaceOwn, PlaceOther, PlaceOctopus)):
                assert any("class:selected" in style for style in styles(drawn))
            for seat in range(each.players):
                assert f"{each.names[seat]} (" in text(drawn)


def test_a_crowded_late_game_board_fits_15_rows_of_66_columns_in_both_modes() -> None:
    each, decision = crowded()
    assert sum(len(school) for school in decision.view.schools) >= 40
    for action in decision.legal:
        for ascii_only in (False, True):
            drawn = board(decision.view, each.names, action, ascii_only)
            assert_fits(drawn, HEIGHT)
            assert len(text(drawn).split("\n")) == HEIGHT
            assert text(drawn).isascii() or not ascii_only


def test_the_board_shows_face_up_cards_stacks_owners_and_your_school_first() -> None:
    each, decision = crowded()
    view = decision.view
    drawn = text(board(view, each.names, None, False))
    lines = drawn.split("\n")
    assert lines[0].startswith("Face up") and " ".join(str(size) for size in view.stacks) in lines[0]
    for slot, label in enumerate(view.face_up):
        if label is not None:
            assert f"{slot + 1} {kunayala_screen.token(label)[1]}" in lines[0]
    assert lines[1].startswith(f"{each.names[view.seat]} (you, seat {view.seat})")
    (acting,) = view.to_act
    marked = [line for line in lines if "◀" in line]
    assert len(marked) == 1 and f"{each.names[acting]} (" in marked[0]
    assert {"class:title", "class:turn"} <= styles(board(view, each.names, None, False))


def test_a_wide_school_scrolls_to_the_selected_cell_and_says_there_is_more() -> None:
    _, decision = next(decisions(OWN))
    view = decision.view
    line = tuple(SchoolCell(x, 0, "coral-1" if x == 0 else "fish-red-sand-1", 1) for x in range(-20, 21))
    wide = view._replace(schools=tuple(line if seat == view.seat else s for seat, s in enumerate(view.schools)))
    slot = next(slot for slot, label in enumerate(view.face_up) if label is not None)
    for x in (-21, 21):
        drawn = board(wide, NAMES[: view.players], PlaceOwn(slot, x, 0), True)
        assert_fits(drawn, HEIGHT)
        plain = text(drawn)
        assert str(x) in plain.split("\n")[2].split()
        assert "more" in plain.split("\n")[1]
        selected = [fragment for fragment in drawn if "class:selected" in fragment[0]]
        assert len(selected) == 2  # the face-up slot and the cell
    centred = text(board(wide, NAMES[: view.players], None, True)).split("\n")
    assert "0" in centred[2].split() and "-20" not in centred[2].split() and "more <>" in centred[1]


# --- status and scores ---------------------------------------------------------------------------


def test_status_tells_your_secret_colour_the_stacks_and_every_school_in_seven_rows() -> None:
    for each, decision in decisions():
        view = decision.view
        drawn = text(status(view, each.names))
        assert_fits(status(view, each.names), 7)
        assert f"Your colour (only you see it): {view.my_colour}" in drawn
        assert f"Stacks: {sum(view.stacks)} cards left" in drawn
        for seat in range(each.players):
            counts = tally(view.schools[seat])
            assert f"· {view.corals[seat]} coral · {counts.octopuses} octopus · {counts.sharks} shark" in drawn


def test_status_before_the_deal_and_during_the_reveals() -> None:
    state = RULES.new_game(3, {})
    drawn = text(status(RULES.view(state, 0, {}), NAMES[:3]))
    assert "not dealt yet" in drawn and "Setting up" in drawn
    each = game(3, 2)
    reveals = [d for d in each.moments if isinstance(d.choice, RevealCard)]
    assert reveals
    last = reveals[-1]
    drawn = text(status(last.view, each.names))
    assert "reveals their colour tile" in drawn
    header = text(board(last.view, each.names, None, False))
    for seat, colour in enumerate(last.view.colours):
        if colour is not None:
            assert f"{each.names[seat]} (seat {seat}) {colour}" in header


def test_scores_match_the_outcome_and_name_each_colour() -> None:
    for each in games():
        for view in each.final:
            parts = score_parts(view)
            assert tuple(p.total for p in parts if p is not None) == each.outcome.scores
            drawn = scores(view, each.names, each.outcome.winners)
            assert_fits(drawn, 7)
            assert "a tie goes to the most fish" in text(drawn)
            lines = text(drawn).split("\n")
            assert lines[0].startswith("Final scores")
            for seat, part in enumerate(parts):
                assert part is not None
                row = lines[1 + seat].split()
                assert row[:2] == [each.names[seat], view.colours[seat]] and str(part.total) in row[-2:]
                assert ("winner" in row) == (seat in each.outcome.winners)
            assert text(drawn).endswith("\n")  # the app puts the audit line after it


# --- describe and parse --------------------------------------------------------------------------


def view_with(face_up: tuple[str | None, ...], players: int = 3) -> View:
    state = RULES.new_game(players, {})
    return RULES.view(state, 0, {})._replace(face_up=face_up, phase=OWN, to_act=(0,))


def test_describe_names_the_card_and_the_cell() -> None:
    view = view_with(("coral-9", "fish-red-sand-1", "shark-1", "2fish-blue-deep-1"))
    assert describe(PlaceOwn(1, 1, 0), view) == "own: slot 2 (red fish, sand) to (1, 0)"
    assert describe(PlaceOwn(3, 0, -1), view) == "own: slot 4 (2 blue fish, deep) to (0, -1)"
    assert describe(PlaceOther(2, 1, 0, 1), view, NAMES[:3]) == "give: slot 3 (shark) to Bob at (0, 1)"
    assert describe(PlaceOther(2, 1, 0, 1), view) == "give: slot 3 (shark) to seat 1 at (0, 1)"
    assert describe(PlaceOctopus(0, 0), view) == "octopus: on the coral at (0, 0)"
    assert describe(Discard(0, 2), view) == "discard: slots 1 (coral) and 3 (shark)"
    assert describe(RevealCard("colours", 0, "red"), view) == "reveal your colour (red)"


def test_commands_by_name_number_and_with_one_opponent() -> None:
    _, decision = next((g, d) for g, d in decisions(OTHER) if g.players == 3)
    view, legal = decision.view, list(decision.legal)
    action = next(a for a in legal if isinstance(a, PlaceOther))
    assert isinstance(action, PlaceOther)
    names = ("Ann", "Bob", "Bobby")
    slot, seat, x, y = action.slot + 1, action.seat, action.x, action.y
    for whom in (str(seat), names[seat].upper(), f"to {names[seat].lower()} at", f"seat {seat}"):
        assert parse(f"give {slot} {whom} {x} {y}", view, legal, names) == action
    others = [s for s in range(3) if s != view.seat]
    if "bob" in [names[s].lower() for s in others] and "bobby" in [names[s].lower() for s in others]:
        assert (
            parse(f"give {slot} bo {x} {y}", view, legal, names) == "'bo' could be Bob or Bobby: type more of the name"
        )
    assert "say to whom" in str(parse(f"give {slot} {x} {y}", view, legal, names))
    assert "no player is called 'zed'" in str(parse(f"give {slot} zed {x} {y}", view, legal, names))
    assert "there is no seat 7" in str(parse(f"give {slot} 7 {x} {y}", view, legal, names))
    _, two = next((g, d) for g, d in decisions(OTHER) if g.players == 2)
    only = next(a for a in two.legal if isinstance(a, PlaceOther))
    assert isinstance(only, PlaceOther)
    assert parse(f"give {only.slot + 1} {only.x} {only.y}", two.view, list(two.legal)) == only


def test_the_kit_reads_and_writes_player_names() -> None:
    each, decision = next((g, d) for g, d in decisions(OTHER) if g.players == 4)
    action = next(a for a in decision.legal if isinstance(a, PlaceOther))
    assert isinstance(action, PlaceOther)
    typed = f"give {action.slot + 1} {each.names[action.seat].lower()} {action.x} {action.y}"
    assert KUNAYALA.parse(typed, decision.view, list(decision.legal), each.names) == action
    assert f"to {each.names[action.seat]} at" in KUNAYALA.describe(action, decision.view, each.names)
    assert kit_for("kunayala") is KUNAYALA and KUNAYALA.title == "Kuna Yala"


def test_discard_reads_back_and_is_refused_while_a_pair_can_be_placed() -> None:
    view = view_with(("shark-1", "shark-2", "shark-3", "coral-9"))
    legal: list[Action] = list(DISCARDS.values())
    for action in legal:
        assert parse(describe(action, view), view, legal) == action
        assert parse(command(action, view), view, legal) == action
    assert parse("discard 3 1", view, legal) == Discard(0, 2)
    assert parse("discard 2 2", view, legal) == "discard two different slots, like discard 1 3"
    _, decision = next(decisions(OWN))
    assert "may not discard" in str(parse("discard 1 2", decision.view, list(decision.legal)))


def refusal(decision: Decision, typed: str) -> str:
    result = parse(typed, decision.view, list(decision.legal), NAMES[: decision.view.players])
    assert isinstance(result, str), f"{typed!r} was read as {result}"
    return result


def open_cells(school: tuple[SchoolCell, ...]) -> set[tuple[int, int]]:
    taken = {(c.x, c.y) for c in school}
    return {
        (c.x + dx, c.y + dy) for c in school for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
    } - taken  # fmt: skip


def test_the_view_check_of_a_placement_agrees_with_the_rules() -> None:
    """placement_error, which explains refusals, accepts exactly the cells the rules allow."""
    for _, decision in decisions(OWN):
        for label in {label for label in decision.view.face_up if label is not None}:
            new = card(label)
            if new.kind not in (FISH, CORAL):
                continue
            for seat, school in enumerate(decision.view.schools):
                accepted = {
                    cell for cell in open_cells(school) | {(c.x, c.y) for c in school} | {(99, 99)}
                    if placement_error(school, *cell, new, "there") is None
                }  # fmt: skip
                assert accepted == set(cells_for(new, decision.state.schools[seat]))


def test_illegal_commands_say_why() -> None:
    found: dict[str, str] = {}
    for _, decision in decisions():
        view = decision.view
        me, phase = view.seat, view.phase
        fish = [(s, card(label)) for s, label in enumerate(view.face_up) if label and card(label).kind == FISH]
        sharks = [s for s, label in enumerate(view.face_up) if label and card(label).kind == SHARK]
        empty = [s for s, label in enumerate(view.face_up) if label is None]
        if phase == OWN and any(isinstance(a, PlaceOwn) for a in decision.legal):
            found.setdefault("taken", refusal(decision, "own 1 0 0" if view.face_up[0] else "own 2 0 0"))
            found.setdefault("far", refusal(decision, f"own {1 if view.face_up[0] else 2} 40 40"))
            found.setdefault("give first", refusal(decision, "give 1 1 0 1"))
            found.setdefault("octopus", refusal(decision, "octopus 0 0"))
            found.setdefault("reveal", refusal(decision, "reveal"))
            if sharks:
                found.setdefault("own shark", refusal(decision, f"own {sharks[0] + 1} 1 0"))
            for slot, new in fish:
                for x, y in sorted(open_cells(view.schools[me])):
                    error = placement_error(view.schools[me], x, y, new, "your school")
                    if error and "does not fit" in error:
                        found.setdefault("mismatch", refusal(decision, f"own {slot + 1} {x} {y}"))
                    if error and "bones" in error:
                        found.setdefault("bones", refusal(decision, f"own {slot + 1} {x} {y}"))
        if phase == OTHER:
            found.setdefault("own again", refusal(decision, "own 1 0 1"))
            if empty:
                found.setdefault("empty slot", refusal(decision, f"give {empty[0] + 1} {(me + 1) % 2} 0 1"))
            found.setdefault("to yourself", refusal(decision, f"give {1 + (not view.face_up[0])} {me} 0 1"))
            if sharks:
                slot = sharks[0] + 1
                for seat, school in enumerate(view.schools):
                    if seat == me:
                        continue
                    for cell in school:
                        typed = f"give {slot} {seat} {cell.x} {cell.y}"
                        kind = BONES if cell.top == BONES else card(cell.top).kind
                        key = {SHARK: "two sharks", BONES: "shark on bones", CORAL: "shark on coral"}.get(kind)
                        if key is not None:
                            found.setdefault(key, refusal(decision, typed))
                    found.setdefault("shark on nothing", refusal(decision, f"give {slot} {seat} 50 50"))
    expected = {
        "taken": "is taken: it shows",
        "far": "is not next to any card of your school (no diagonals)",
        "give first": "first a card into your own school",
        "octopus": "there is no octopus for you to place now",
        "reveal": "colours are revealed only at the end",
        "own shark": "a shark never goes into your own school",
        "mismatch": "a fish needs the colour or the background of every fish next to it",
        "bones": "take nothing but coral next to them",
        "own again": "your own card is placed",
        "empty slot": "is empty",
        "to yourself": "that is your own school",
        "two sharks": "two sharks never share a fish",
        "shark on bones": "turned to bones: a shark goes onto a live fish",
        "shark on coral": "a shark goes onto a fish",
        "shark on nothing": "has no card at (50, 50): a shark goes onto a fish",
    }
    assert_refusals(found, expected)


def test_malformed_commands_and_other_turns() -> None:
    _, decision = next(decisions(OWN))
    view, legal = decision.view, list(decision.legal)
    assert "unknown command 'jump'" in str(parse("jump 1", view, legal))
    assert "own takes a slot and a cell" in str(parse("own 1 x 0", view, legal))
    assert "there is no slot 5" in str(parse("own 5 0 1", view, legal))
    assert "give takes a slot, a player and a cell" in str(parse("give 1 bob", view, legal))
    assert "octopus takes the cell" in str(parse("octopus 1", view, legal))
    assert "discard takes two slots" in str(parse("discard 1", view, legal))
    assert "type a command" in str(parse("  ", view, legal))
    assert parse("own 1 0 1", view, []) == "it is not your turn"
    assert parse("Own: SLOT 1, to (0, 1)", view, [PlaceOwn(0, 0, 1)]) == PlaceOwn(0, 0, 1)


def test_words_and_help() -> None:
    assert {"own", "give", "octopus", "discard", "reveal", "say", "help", "quit"} <= set(kunayala_commands.words())
    for token in ("own 2 1 0", "give 3 bob 0 1", "octopus 0 0", "discard 1 3", "reveal", "Rs", "Bd2", "xx", "more"):
        assert token in KUNAYALA.help
    assert KUNAYALA.help.isascii() and len(KUNAYALA.help.split("\n")) <= 15
    assert all(len(line) <= 98 for line in KUNAYALA.help.split("\n"))


# --- narration -----------------------------------------------------------------------------------


def test_narration_gives_one_line_per_event() -> None:
    each = game(4, 3)
    lines = [narrate(seat, action, each.names) for seat, action in each.events]
    assert all(line and "\n" not in line for line in lines)
    assert lines[0] == "The colour tiles are shuffled face down (mental-poker deck)."
    assert lines[1] == "Ann is dealt a colour tile, face down: only they see it."
    assert sum("is dealt a colour tile" in line for line in lines) == 4
    assert sum("starts (drawn by joint randomness)" in line for line in lines) == 1
    assert any(line.endswith("is turned up.") for line in lines)
    for (seat, action), line in zip(each.events, lines, strict=True):
        if isinstance(action, PlaceOwn):
            assert line == f"{each.names[seat or 0]} puts face-up card {action.slot + 1} into their own school at " \
                           f"({action.x}, {action.y})."  # fmt: skip
        elif isinstance(action, PlaceOther):
            assert f"to {each.names[action.seat]}'s school at ({action.x}, {action.y})" in line
        elif isinstance(action, RevealCard):
            assert line.endswith(f"reveals their colour: {action.label}.")
        elif isinstance(action, Chance) and isinstance(action.values[0], str):
            assert ("octopus" in line) == (card(action.values[0]).kind == "octopus")
    names = NAMES[:3]
    assert narrate(1, PlaceOctopus(0, -1), names) == "Bob puts the octopus on their coral at (0, -1)."
    assert narrate(2, Discard(0, 3), names) == "Carla can place no pair and discards face-up cards 1 and 4."
    assert narrate(None, Chance(("2fish-blue-deep-1",)), names) == "Two blue fish on deep is turned up."
    assert narrate(None, Chance(("shark-3",)), names) == "A shark is turned up."
    assert narrate(None, Shuffled("colours", 4), names).startswith("The colour tiles are shuffled")
    assert narrate(None, Dealt("colours", (2,), 2, None), names).startswith("Carla is dealt a colour")


# --- the app, headless ---------------------------------------------------------------------------


def test_a_whole_game_played_with_the_enter_key() -> None:
    names = ("you", "Bob", "Carla")
    with table_app("kunayala", names, ascii_only=True) as (app, controller, pipe, _):
        assert app.kit is KUNAYALA

        async def script() -> None:
            await until(lambda: controller.decision() is not None, "our first turn")
            decision = controller.decision()
            assert decision is not None
            view, legal = decision
            slot = next(s for s, label in enumerate(view.face_up) if label and card(label).kind != SHARK)
            refusal = parse(f"own {slot + 1} 40 40", view, legal, names)
            assert isinstance(refusal, str) and refusal
            pipe.send_text(f"own {slot + 1} 40 40\r")
            await until(lambda: app.model.message[1] == refusal, "the refusal")
            turn = controller.session.turn
            pipe.send_text(command(decision[1][-1], decision[0], names) + "\r")
            await until(lambda: controller.session.turn != turn, "the typed move")
            assert app.model.message[1] == f"You: {KUNAYALA.describe(decision[1][-1], decision[0], names)}"
            moves = 0

            def moved_on(turn: int) -> Callable[[], bool]:
                return lambda: controller.session.turn != turn or app.model.winners is not None

            while app.model.winners is None:
                assert "Your move" in app._choices_title() or controller.decision() is None
                waited = moved_on(controller.session.turn)
                pipe.send_text("\r")
                moves += 1
                await until(waited, "a move")
            assert moves > 10
            assert "verified" in app.model.audit
            assert "Final scores" in text(app._status())
            pipe.send_text("q")

        drive(app, script)
    assert controller.session.finished and controller.session.fault is None
    logged = [line for _, line in app.model.log]  # the newest 200 lines
    assert any(line.endswith(" is turned up.") for line in logged)
    assert any(line.startswith("you puts ") and "into their own school" in line for line in logged)
    assert any(line.startswith("you reveals their colour") for line in logged)


def test_an_absurdly_long_number_is_refused_with_a_reason() -> None:
    for each, decision in decisions():
        for typed in ("own 1 " + "9" * 5000 + " 0", "give 1 " + "9" * 5000 + " 0 0", "9" * 5000):
            assert isinstance(parse(typed, decision.view, list(decision.legal), each.names), str)
