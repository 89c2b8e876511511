"""The King Fish board as prompt_toolkit formatted text: the round, the dealer and the deck on top, whose
turn and what for, the three ponds, then one row per player in playing order (from the dealer clockwise)
with hand size, line, bait, what the reel brought, the fish caught this round and the points so far, and
under the table your own hand, the tackle box and a legend. A 3-player board, seen by Bob while Carl reels:

    Round 1/3 · dealer Ann · excursion 2 · deck 22 left
    Carl reels in a fish of pond 2 (line 9♦, bait 8♦)
    Ponds  1: Q♠ Q♣ 4♥       ▶2: 7♦ 4♦           3: A♦ 8♥ 4♣

      player      hand  line bait  reeled caught this round        pts
      Ann        D   3   8♣   7♠     —    A♠                         1
      Bob            3   Q♥  (10♦)                                   0
    ▶ Carl           3   9♦   8♦     ?                               0

    Your hand: 1 5♠  2 6♠  3 6♥
    Kept from the tackle box: Ann 9♠, Carl 9♣
    ▒▒ face-down bait   (10♦) yours: only you see it   D dealer
    A line catches a fish of its bait's suit below it; J/Q/K: any.

Nothing here names a card another seat holds or a face-down bait of another seat: other hands are sizes
and the cards everyone saw them keep from the tackle box; other baits are ▒▒ until turned up. Your own
face-down bait is shown to you alone, in parentheses.

The status, the final scores and everything outside the board are plain ASCII (cards as "7H"): the app
passes `ascii_only` to the board alone.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action
from p2pfish.games.kingfish import rules
from p2pfish.games.kingfish.rules import (
    BAIT,
    CHOOSE,
    DEAL,
    HAND_SIZE,
    LINE,
    OVER,
    POND_DEAL,
    PONDS,
    REEL,
    SHUFFLE,
    START,
    SUITS,
    TACKLE,
    TACKLE_DEAL,
    View,
    clockwise_from,
    rank,
    round_points,
    suit,
)
from p2pfish.games.kingfish.words import card_style, card_text
from p2pfish.ui.drawing import (
    Line,
    as_text,
    clip,
    fit,
    name_of,
    names_room,
    round_head,
    score_grid,
    short_names,
    tie_rows,
    tie_text,
)

WIDTH, HEIGHT = 66, 15
"""The narrowest board (the app draws it in the width of its panel), and its most rows."""
NAME = 10
"""A name in the table at least (a longer one is shortened only when the width forces it, see
drawing.short_names)."""
HEADLINE_NAME = 16
LEFT = 2 + NAME + 2
"""Turn mark, name, dealer mark (at the least name width)."""
HAND, LINE_CELL, BAIT_CELL, REEL_CELL, POINTS = 5, 5, 6, 7, 5
CAUGHT = WIDTH - LEFT - HAND - LINE_CELL - BAIT_CELL - REEL_CELL - POINTS
"""The fish caught this round, one after the other (a longer list ends in "+N"), at least."""
STATUS_WIDTH = 65
"""The narrowest status."""
ROUND_PHASES = (CHOOSE, LINE, BAIT, REEL, TACKLE_DEAL, TACKLE)
"""The phases of an excursion."""
CHANCE_STEPS = {
    SHUFFLE: "shuffling a fresh deck (mental-poker deck)",
    DEAL: "dealing the hands, face down",
    POND_DEAL: "turning up the ponds",
    TACKLE_DEAL: "turning up the tackle box",
}
"""The steps of the software between the moves, in the status."""


@dataclass(frozen=True)
class Glyphs:
    turn: str
    face_down: str
    """Another seat's bait, face down."""
    dot: str
    nothing: str
    """A reeler who caught nothing."""
    cut: str
    """Where a shortened name lost its middle."""


UNICODE = Glyphs("▶", "▒▒", " · ", "—", "…")
ASCII = Glyphs(">", "##", " - ", "-", "~")


class Table(NamedTuple):
    """The player table's columns in a board `width` wide: the names as shown and the name and caught
    columns' widths (the others are fixed)."""

    names: tuple[str, ...]
    name: int
    caught: int


def table_of(view: View, names: tuple[str, ...], width: int, cut: str) -> Table:
    """Full names when the width allows (the caught column keeps its least width), shortened otherwise."""
    fixed = 2 + 2 + HAND + LINE_CELL + BAIT_CELL + REEL_CELL + POINTS
    name = names_room(names, view.players, NAME, max(NAME, width - fixed - CAUGHT))
    return Table(short_names(names, view.players, name, cut), name, max(CAUGHT, width - fixed - name))


# --- who is who, and what the view says ----------------------------------------------------------


def playing(view: View) -> bool:
    """A round is under way (not the draw of the first dealer, not the end)."""
    return view.phase not in (START, OVER)


def rows_order(view: View) -> list[int]:
    """The table's rows: the playing order, from the dealer clockwise (seat order while he is drawn)."""
    if view.phase == START:
        return list(range(view.players))
    return list(clockwise_from(view.dealer, view.players))


def sorted_hand(view: View) -> list[tuple[int, str]]:
    """My hand as the board shows and numbers it: by suit (S H D C), then rank."""
    return sorted(view.hand, key=lambda card: (SUITS.index(suit(card[1])), rank(card[1])))


def hand_label(view: View, position: int) -> str | None:
    return next((label for p, label in view.hand if p == position), None)


def reel_results(view: View) -> dict[int, str | None]:
    """Seat -> the fish it reeled in this excursion (None: nothing), for the seats that reeled."""
    return dict(view.reel_log)


def turning(view: View) -> bool:
    """In the reel phase: the seat to act turns its bait up (rather than taking a fish)."""
    return view.phase == REEL and bool(view.to_act) and view.baits_down[view.to_act[0]]


def pond_text(view: View) -> str:
    return "" if view.pond is None else f" of pond {view.pond + 1}"


def turn_text(view: View, names: tuple[str, ...], ascii_only: bool = True) -> str:
    """Who does what now, in a sentence (cards as labels unless `ascii_only` is False)."""
    phase = view.phase
    if phase == START:
        return "Drawing the first dealer by joint randomness"
    if phase == OVER:
        return "Game over"
    if phase == SHUFFLE:
        return f"Shuffling a fresh deck for round {view.round}: every seat shuffles it"
    if phase == DEAL:
        return f"Dealing the hands: {HAND_SIZE} cards each, face down"
    if phase == POND_DEAL:
        return "Turning up the three ponds"
    if phase == TACKLE_DEAL:
        return f"Turning up the tackle box: {view.players} cards from the deck"
    if not view.to_act:
        return phase
    seat = view.to_act[0]
    mine = seat == view.seat
    who = "Your turn:" if mine else name_of(names, seat)
    if phase == CHOOSE:
        return f"{who} {'choose' if mine else 'chooses'} the pond for excursion {view.excursion}"
    if phase == LINE:
        return f"{who} {'cast' if mine else 'casts'} a line (a hand card, face up){_on_pond(view)}"
    if phase == BAIT:
        return f"{who} {'put' if mine else 'puts'} a bait face down{_on_pond(view)}"
    if phase == REEL:
        if turning(view):
            owner = "Your" if mine else f"{name_of(names, seat)}'s"
            return f"{owner} bait is turned up (lowest line first)"
        line, bait = view.lines[seat], view.baits[seat]
        gear = f" (line {card_text(line or '?', ascii_only)}, bait {card_text(bait or '?', ascii_only)})"
        return f"{who} {'reel' if mine else 'reels'} in a fish{pond_text(view)}{gear}"
    if phase == TACKLE:
        return f"{who} {'keep' if mine else 'keeps'} a card from the tackle box"
    return phase


def _on_pond(view: View) -> str:
    return "" if view.pond is None else f" for pond {view.pond + 1}"


def short_turn(view: View, names: tuple[str, ...], room: int = HEADLINE_NAME) -> str:
    """Who does what now, in a few words: "Bob to cast a line", "your turn to reel"."""
    verbs = {CHOOSE: "choose a pond", LINE: "cast a line", BAIT: "put a bait down", TACKLE: "keep a tackle card"}
    if view.phase == REEL and view.to_act:
        verbs[REEL] = "turn up the bait" if turning(view) else "reel in a fish"
    if view.phase in CHANCE_STEPS:
        return CHANCE_STEPS[view.phase]
    if view.phase not in verbs or not view.to_act:
        return turn_text(view, names)
    seat = view.to_act[0]
    who = "your turn" if seat == view.seat else short_names(names, view.players, room)[seat]
    return f"{who} to {verbs[view.phase]}"


# --- drawing helpers -----------------------------------------------------------------------------


def _cell(style: str, text: str, width: int) -> Line:
    """One cell, the text centred; only the text takes the style (a selected cell is not a bar)."""
    left = (width - len(text) + 1) // 2
    return [("", " " * left), (style, text), ("", " " * max(0, width - len(text) - left))]


def _card(label: str, ascii_only: bool, style: str | None = None) -> tuple[str, str]:
    return (card_style(label) if style is None else style, card_text(label, ascii_only))


def _cards(labels: Sequence[str], ascii_only: bool, selected: str | None = None, room: int = WIDTH) -> Line:
    """Cards one after the other, `selected` one reversed; past `room` columns the rest is "+N"."""
    out: Line = []
    used = 0
    for index, label in enumerate(labels):
        text = card_text(label, ascii_only)
        left = len(labels) - index
        if used + len(text) + (0 if left == 1 else 4) > room:
            out.append(("class:dim", f"+{left}"))
            break
        if out:
            out.append(("", " "))
            used += 1
        out.append(_card(label, ascii_only, "class:selected" if label == selected else None))
        used += len(text)
    return out


# --- the parts of the board ----------------------------------------------------------------------


def _headline(view: View, names: tuple[str, ...], glyphs: Glyphs, width: int) -> Line:
    if view.phase == START:
        return [("class:title", "King Fish"), ("", f"{glyphs.dot}one round per player, the dealer in turn")]
    if view.phase == OVER:
        return [("class:title", f"Game over after {view.rounds} rounds")]
    dealer = short_names(names, view.players, max(HEADLINE_NAME, width - 50), glyphs.cut)[view.dealer]
    out: Line = [("class:title", f"Round {view.round}/{view.rounds}"), ("", f"{glyphs.dot}dealer "),
                 ("class:title", dealer)]  # fmt: skip
    if view.excursion:
        out.append(("", f"{glyphs.dot}excursion {view.excursion}"))
    out.append(("", f"{glyphs.dot}deck {view.deck_left} left"))
    return out


def _turn_line(view: View, names: tuple[str, ...], ascii_only: bool, width: int, cut: str) -> Line:
    if view.phase == OVER:
        best = max(view.scores)
        leaders = [name_of(names, seat) for seat, points in enumerate(view.scores) if points == best]
        return [("class:turn", f"Highest total, {best} points: {', '.join(leaders)}")]
    shown = short_names(names, view.players, max(HEADLINE_NAME, width - 46), cut)
    return [("class:turn" if playing(view) else "class:dim", turn_text(view, shown, ascii_only))]


def _ponds(view: View, selected: Action | None, glyphs: Glyphs, ascii_only: bool) -> Line:
    if not any(view.ponds) and view.phase in (START, SHUFFLE, DEAL, POND_DEAL):
        return [("class:dim", "Ponds: not turned up yet")]
    chosen = selected.pond if isinstance(selected, rules.ChoosePond) else None
    fish = selected.fish if isinstance(selected, rules.Catch) else None
    out: Line = [("class:dim", "Ponds ")]
    for pond in range(PONDS):
        current = pond == view.pond and view.phase in ROUND_PHASES
        label = ("class:selected" if pond == chosen else "class:turn" if current else "", f"{pond + 1}:")
        out += [("", "   " if pond else ""), ("class:turn", glyphs.turn) if current else ("", " "), label, ("", " ")]
        if view.ponds[pond]:
            out += _cards(view.ponds[pond], ascii_only, fish if current else None)
            out.append(("", " " * (12 - len(" ".join(card_text(f, ascii_only) for f in view.ponds[pond])))))
        else:
            out.append(("class:dim", "empty".ljust(12)))
    return out


def _line_cell(view: View, seat: int, selected: Action | None, ascii_only: bool) -> Line:
    label = view.lines[seat]
    if label is not None:
        return _cell(*_card(label, ascii_only), LINE_CELL)
    if view.phase == LINE and seat in view.to_act:
        if seat == view.seat and isinstance(selected, rules.PlayLine):
            return _cell("class:selected", card_text(selected.label, ascii_only), LINE_CELL)
        return _cell("class:turn", "?", LINE_CELL)
    return _cell("", "", LINE_CELL)


def _bait_cell(view: View, seat: int, selected: Action | None, glyphs: Glyphs, ascii_only: bool) -> Line:
    label = view.baits[seat]
    if label is not None:
        return _cell(*_card(label, ascii_only), BAIT_CELL)
    if view.baits_down[seat]:
        if seat == view.seat and view.my_bait is not None:
            return _cell("class:secret", f"({card_text(view.my_bait, ascii_only)})", BAIT_CELL)
        return _cell("class:dim", glyphs.face_down, BAIT_CELL)
    if view.phase == BAIT and seat in view.to_act:
        mine = (
            hand_label(view, selected.position) if isinstance(selected, rules.PlayBait) and seat == view.seat else None
        )
        if mine is not None:
            return _cell("class:selected", f"({card_text(mine, ascii_only)})", BAIT_CELL)
        return _cell("class:turn", "?", BAIT_CELL)
    return _cell("", "", BAIT_CELL)


def _reel_cell(view: View, seat: int, selected: Action | None, glyphs: Glyphs, ascii_only: bool) -> Line:
    results = reel_results(view)
    if seat in results:
        fish = results[seat]
        return _cell(*_card(fish, ascii_only), REEL_CELL) if fish else _cell("class:dim", glyphs.nothing, REEL_CELL)
    if view.phase == REEL and seat in view.to_act and not turning(view):
        if seat == view.seat and isinstance(selected, rules.Catch):
            return _cell("class:selected", card_text(selected.fish, ascii_only), REEL_CELL)
        return _cell("class:turn", "?", REEL_CELL)
    return _cell("", "", REEL_CELL)


def _caught_cell(view: View, seat: int, ascii_only: bool, caught: int) -> Line:
    if view.phase == OVER:
        return fit([("class:dim", " " + " + ".join(str(scores[seat]) for scores in view.history))], caught)
    if _between_rounds(view):
        return fit([("class:dim", f" {view.history[-1][seat]}")], caught)
    return fit([("", " "), *_cards(view.caught[seat], ascii_only, room=caught - 1)], caught)


def _player_row(
    view: View, table: Table, seat: int, selected: Action | None, *, glyphs: Glyphs, ascii_only: bool
) -> Line:
    me = seat == view.seat
    mark = ("class:turn", glyphs.turn) if seat in view.to_act else ("", " ")
    dealer = "D" if seat == view.dealer and view.phase != START else " "
    held = f"{view.hand_sizes[seat]:>{HAND - 1}} " if playing(view) else " " * HAND
    row: Line = [
        mark,
        ("", " "),
        ("class:title" if me else "", table.names[seat].ljust(table.name)),
        ("", " "),
        ("class:title", dealer),
        ("", held),
        *_line_cell(view, seat, selected, ascii_only),
        *_bait_cell(view, seat, selected, glyphs, ascii_only),
        *_reel_cell(view, seat, selected, glyphs, ascii_only),
        *_caught_cell(view, seat, ascii_only, table.caught),
        ("class:title" if me else "", f"{view.scores[seat]:>{POINTS}}"),
    ]
    return row


def _between_rounds(view: View) -> bool:
    """A new round is being prepared after another one (the last one's points stand in the table)."""
    return view.phase in (SHUFFLE, DEAL, POND_DEAL) and bool(view.history)


def _table_head(view: View, table: Table) -> Line:
    caught = " caught this round"
    if view.phase == OVER:
        caught = " points per round"
    elif _between_rounds(view):
        caught = f" points in round {len(view.history)}"
    text = (
        f"  {'player':<{table.name}}  "
        + "hand".rjust(HAND - 1)
        + " "
        + "line".center(LINE_CELL)
        + "bait".center(BAIT_CELL)
        + "reeled".center(REEL_CELL)
        + caught.ljust(table.caught)
        + "pts".rjust(POINTS)
    )
    return [("class:dim", text)]


def _hand_line(view: View, selected: Action | None, ascii_only: bool) -> Line:
    chosen = selected.position if isinstance(selected, (rules.PlayLine, rules.PlayBait)) else None
    out: Line = [("", "Your hand:")]
    hand = sorted_hand(view)
    if not hand:
        return [*out, ("class:dim", " empty")]
    for number, (position, label) in enumerate(hand, start=1):
        style = "class:selected" if position == chosen else card_style(label)
        out += [("class:dim", f" {number} "), (style, card_text(label, ascii_only)), ("", " ")]
    return out


def _tackle_line(view: View, selected: Action | None, ascii_only: bool) -> Line:
    kept = selected.card if isinstance(selected, rules.Keep) else None
    return [
        ("class:turn", "Tackle box: "),
        *_cards(view.tackle, ascii_only, kept),
        ("class:dim", "  (each keeps one, the dealer first)"),
    ]


def _catchable_line(view: View, ascii_only: bool) -> Line:
    if not view.catchable:
        return []
    return [("class:turn", "You can catch: "), *_cards(view.catchable, ascii_only)]


def _kept_line(view: View, shown: tuple[str, ...], ascii_only: bool) -> Line:
    """The cards other seats were seen keeping from the tackle box and still hold."""
    out: Line = []
    for seat in rows_order(view):
        if seat == view.seat or not view.public_in_hand[seat]:
            continue
        out += [("", ", " if out else ""), ("", shown[seat] + " "), *_cards(view.public_in_hand[seat], ascii_only)]
    return [("class:dim", "Kept from the tackle box: "), *out] if out else []


def _footer(view: View, table: Table, selected: Action | None, glyphs: Glyphs, ascii_only: bool) -> list[Line]:
    """The lines under the table, most useful first (the board keeps as many as fit)."""
    lines: list[Line] = []
    if playing(view) and (view.hand or view.phase in ROUND_PHASES):
        lines.append(_hand_line(view, selected, ascii_only))
    if view.tackle:
        lines.append(_tackle_line(view, selected, ascii_only))
    lines.append(_catchable_line(view, ascii_only))
    if playing(view):
        lines.append(_kept_line(view, table.names, ascii_only))
        mine = f"({card_text(view.my_bait, ascii_only)})" if view.my_bait and view.baits_down[view.seat] else ""
        legend = f"{glyphs.face_down} face-down bait   "
        legend += f"{mine} yours: only you see it   " if mine else ""
        lines.append([("class:dim", legend + "D dealer")])
        lines.append([("class:dim", "A line catches a fish of its bait's suit below it; J/Q/K: any.")])
    return [line for line in lines if line]


def board(
    view: View, names: tuple[str, ...], selected: Action | None, ascii_only: bool, width: int = WIDTH
) -> StyleAndTextTuples:
    """The round, whose turn, the ponds and every player, then your hand: at most `width` x HEIGHT (the
    names whole when `width` allows)."""
    glyphs = ASCII if ascii_only else UNICODE
    width = max(WIDTH, width)
    table = table_of(view, names, width, glyphs.cut)
    rows: list[Line] = [
        _headline(view, names, glyphs, width),
        _turn_line(view, names, ascii_only, width, glyphs.cut),
        _ponds(view, selected, glyphs, ascii_only),
        [],
        _table_head(view, table),
    ]
    rows += [
        _player_row(view, table, seat, selected, glyphs=glyphs, ascii_only=ascii_only) for seat in rows_order(view)
    ]
    footer = _footer(view, table, selected, glyphs, ascii_only)
    if len(rows) + len(footer) < HEIGHT:
        rows.append([])
    rows += footer
    return as_text(rows, width, HEIGHT, glyphs.cut)


# --- status and scores (plain ASCII) -------------------------------------------------------------


def status(view: View, names: tuple[str, ...], width: int = STATUS_WIDTH) -> StyleAndTextTuples:
    """Round r of N and whose turn, then the points: the totals first, this round's so far, then the
    finished rounds newest first (the app shows as many of these 7 rows as fit), in `width` columns."""
    excursion = f", excursion {view.excursion}" if view.excursion and view.phase in ROUND_PHASES else ""
    head = round_head(
        view.round if playing(view) else None, view.rounds, excursion, short_turn(view, names, max(16, width - 45)),
        "" if view.phase == OVER else turn_text(view, names),
    )  # fmt: skip
    out: StyleAndTextTuples = [("class:title", clip(head, width) + "\n")]
    rows: list[tuple[str, Sequence[int]]] = [("total", view.scores)]
    if playing(view):
        rows.append((f"round {view.round}", [round_points(fish) for fish in view.caught]))
    rows += [(f"round {number}", view.history[number - 1]) for number in range(len(view.history), 0, -1)]
    out += score_grid(view.seat, view.players, names, rows[:5], label=8, width=width)
    return out


def scores(
    view: View, names: tuple[str, ...], winners: tuple[int, ...], width: int = STATUS_WIDTH
) -> StyleAndTextTuples:
    """The recap that stays on the end screen: a row per player, highest total first (a 24-row terminal
    shows the top rows only), with the points of every round, the total and the winners; then the
    tie-break, and how it decided this game."""
    room = width - 4 * len(view.history) - 7 - len("  winner") - 2
    shown = short_names(names, view.players, names_room(names, view.players, NAME, room))
    label = max(len(name) for name in shown) + 2
    out: StyleAndTextTuples = [("class:title", "Final".ljust(label))]
    out += [("class:dim", f"r{number}".rjust(4)) for number in range(1, len(view.history) + 1)]
    out.append(("class:title", "total".rjust(7)))
    for seat in sorted(range(view.players), key=lambda seat: -view.scores[seat]):
        style = "class:turn" if seat in winners else ""
        out += [("", "\n"), (style or "class:title", shown[seat].ljust(label))]
        out += [("", str(points[seat]).rjust(4)) for points in view.history]
        out.append((style, str(view.scores[seat]).rjust(7)))
        out.append((style, "  winner" if seat in winners else ""))
    tie = tie_text(names, view.scores, winners, "they share the victory")
    return out + tie_rows("Highest total wins; ties share the victory.", tie, width)
