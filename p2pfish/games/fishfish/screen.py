"""The Fish Fish board as prompt_toolkit formatted text: the round, the Fisherman and whose turn on top,
then one table whose rows are the players (the Fisherman first, then the Fish players in this round's
betting order) and whose right-hand columns are the lines on the water: line number, bait, Pêche card,
then each player's bet. A 4-player board, seen by Dmitri while Ann bets:

    Round 2 of 4 · Fisherman Carla · bets ↺ anticlockwise
    Ann bets on line 2 (bait 2)
    Pêche cards: 3 face down   line │   1     2     3     4     5
    baits left: 3 3 5          bait │   4     2
                        butin  card │ PRISE  ▒▒▒
      # player     hand 2 3 4 5 pts │ bets on each line
      F Carla          caught 4  16 │  +4
      1 Bob        ●●○○ · · · ·   0 │   1     1
    ▶ 2 Ann        ●●○○ · · · ·   0 │   2     ?
      3 Dmitri     ●●●○ · · · ·   0 │   1
    ▒▒▒ face down  (▒) closed: nobody bet  ● tile in hand  ○ played
    A Butin tile scores its slot; a caught tile 4 to the Fisherman.

Under the table: for the Fisherman alone, his own Pêche cards left and the one under the current line
(class secret, "only you see it"); for everyone else a legend. No other seat's view holds the
Fisherman's cards, and nothing here names a face-down card: a revealed card shows PRISE or BRED.

The status, the final scores and everything outside the board are plain ASCII ("Peche"): the app
passes `ascii_only` to the board alone.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action, Reveal
from p2pfish.games.fishfish import rules
from p2pfish.games.fishfish.rules import (
    BAIT,
    BET,
    BREDOUILLE,
    BUTIN_SLOTS,
    CAST,
    CATCH_POINTS,
    LINES,
    OVER,
    PECHE_KINDS,
    PRISE,
    REVEAL,
    START,
    TILES_PER_FISH,
    View,
    butin_points,
    fisherman_of,
)
from p2pfish.games.fishfish.words import kind_text, tiles_text
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
BUTIN = len(BUTIN_SLOTS) * 2 - 1
"""The Butin board's slots, "1 · 2 ·"."""
FIXED = 2 + 2 + 1 + TILES_PER_FISH + 1 + BUTIN + 1 + 3 + 1
"""The left part of the table but the name: turn mark, order, hand, Butin board, points (and a space)."""
CELL = 6
"""One line on the water, in each row of the table."""
KIND_TOKENS = {PRISE: "PRISE", BREDOUILLE: "BRED."}
"""A revealed Pêche card, in one CELL."""
PREVIEW_TOKENS = {PRISE: "prise", BREDOUILLE: "bred."}
"""The Fisherman's own card under the line as the selected move would lay it (his screen alone)."""
STATUS_WIDTH = 65
"""The narrowest status."""


@dataclass(frozen=True)
class Glyphs:
    turn: str
    tile: str
    """A tile still in hand."""
    gone: str
    """A tile no longer in hand (bet, caught or on the Butin board)."""
    zero: str
    face_down: str
    closed: str
    """A card nobody bet on: it stays face down."""
    choosing: str
    sep: str
    dot: str
    clockwise: str
    anticlockwise: str
    peche: str
    cut: str
    """Where a shortened name lost its middle."""


UNICODE = Glyphs("▶", "●", "○", "·", "▒▒▒", "(▒)", "…", "│", " · ", "↻ ", "↺ ", "Pêche", "…")
ASCII = Glyphs(">", "o", ".", ".", "###", "(#)", "...", "|", " - ", "", "", "Peche", "~")


class Table(NamedTuple):
    """The table's left part in a board `width` wide: the names as shown, the name column's width and
    the whole left part's (the lines on the water take the rest)."""

    names: tuple[str, ...]
    name: int
    left: int


def table_of(view: View, names: tuple[str, ...], width: int, cut: str) -> Table:
    """Full names when the width allows, shortened otherwise."""
    name = names_room(names, view.players, NAME, max(NAME, width - FIXED - 1 - LINES * CELL))
    return Table(short_names(names, view.players, name, cut), name, FIXED + name)


# --- who is who ----------------------------------------------------------------------------------


def playing(view: View) -> bool:
    """A round is under way (not the draw of the first Fisherman, not the end)."""
    return view.phase not in (START, OVER)


def rows_order(view: View) -> list[int]:
    """The table's rows: the Fisherman, then the Fish players in this round's betting order (seat order
    while the first Fisherman is drawn)."""
    if view.phase == START:
        return list(range(view.players))
    return [view.fisherman, *view.order]


def current_line(view: View) -> int | None:
    """Index of the line still on the water (baited, not yet checked), if any."""
    if view.lines and not view.lines[-1].checked and playing(view):
        return len(view.lines) - 1
    return None


def has_bet(view: View, seat: int) -> bool:
    """Whether `seat` has had its say on the current line (a seat with no tile left is skipped)."""
    if view.phase == CAST:
        return False
    if view.phase == BET and view.bettor is not None:
        return view.order.index(seat) < view.order.index(view.bettor) or view.hands[seat] == 0
    return True


def turn_text(view: View, names: tuple[str, ...], peche: str = "Peche", *, where: bool = True) -> str:
    """Who does what now, in a sentence (plain ASCII unless `peche` is not); `where` names the line."""
    line = len(view.lines)
    mine = view.seat in view.to_act
    fisher = "Your turn:" if mine else name_of(names, view.fisherman)
    if view.phase == START:
        return "Drawing the first Fisherman by joint randomness"
    if view.phase == OVER:
        return "Game over"
    if view.phase == BAIT:
        return f"{fisher} {'lay' if mine else 'lays'} a bait card" + (f" for line {line + 1}" if where else "")
    on = f" line {line} (bait {view.lines[-1].bait})" if where else ""
    if view.phase == CAST:
        return f"{fisher} {'lay' if mine else 'lays'} a {peche} card face down" + (f" under{on}" if where else "")
    if view.phase == BET and view.bettor is not None:
        if mine:
            return f"Your turn: bet 0 to {view.hands[view.seat]} tiles" + (f" on{on}" if where else "")
        return f"{name_of(names, view.bettor)} bets" + (f" on{on}" if where else "")
    if view.phase == REVEAL:
        return f"{fisher} {'reveal' if mine else 'reveals'} the {peche} card" + (f" of{on}" if where else "")
    return view.phase


# --- drawing helpers -----------------------------------------------------------------------------


def _cell(style: str, text: str) -> Line:
    """One CELL, the text centred; only the text takes the style (a selected cell is not a bar)."""
    left = (CELL - len(text) + 1) // 2
    return [("", " " * left), (style, text), ("", " " * (CELL - len(text) - left))]


# --- the parts of the board ----------------------------------------------------------------------


def _headline(view: View, names: tuple[str, ...], glyphs: Glyphs, width: int) -> Line:
    if view.phase == START:
        return [("class:title", "Fish Fish"), ("", f"{glyphs.dot}each player is the Fisherman in turn")]
    if view.phase == OVER:
        return [("class:title", f"Game over after {view.rounds} rounds"), ("", f"{glyphs.dot}the last round:")]
    arrow = glyphs.clockwise if view.clockwise else glyphs.anticlockwise
    return [
        ("class:title", f"Round {view.round} of {view.rounds}"),
        ("", f"{glyphs.dot}Fisherman "),
        ("class:title", short_names(names, view.players, max(HEADLINE_NAME, width - 50), glyphs.cut)[view.fisherman]),
        ("", f"{glyphs.dot}bets {arrow}{'clockwise' if view.clockwise else 'anticlockwise'}"),
    ]


def _turn_line(view: View, names: tuple[str, ...], glyphs: Glyphs, width: int) -> Line:
    if view.phase == OVER:
        best = max(view.totals)
        leaders = [name_of(names, seat) for seat, points in enumerate(view.totals) if points == best]
        return [("class:turn", f"Highest total, {best} points: {', '.join(leaders)}")]
    shown = short_names(names, view.players, max(HEADLINE_NAME, width - 46), glyphs.cut)
    return [("class:turn" if playing(view) else "class:dim", turn_text(view, shown, glyphs.peche))]


def _card_cell(view: View, index: int, selected: Action | None, glyphs: Glyphs) -> Line:
    """What the card row shows for line `index`: nothing yet, face down, closed, or revealed."""
    if index >= len(view.lines):
        return _cell("", "")
    line = view.lines[index]
    if index == current_line(view) and isinstance(selected, (rules.Cast, Reveal)) and view.seat == view.fisherman:
        return _cell("class:selected", PREVIEW_TOKENS.get(str(selected.value), "?"))
    if line.peche is not None:
        return _cell("class:turn" if line.peche == PRISE else "class:water", KIND_TOKENS.get(line.peche, "?"))
    if not line.committed:
        return _cell("class:dim", glyphs.choosing)
    if line.checked:
        return _cell("class:dim", glyphs.closed)
    return _cell("class:secret", glyphs.face_down)


def _water_heads(view: View, selected: Action | None, glyphs: Glyphs) -> tuple[Line, Line, Line]:
    """The line numbers, the baits and the Pêche cards, one CELL per line."""
    numbers: Line = []
    baits: Line = []
    cards: Line = []
    chosen = selected.value if isinstance(selected, rules.Bait) and view.phase == BAIT else None
    current = current_line(view)
    for index in range(LINES):
        numbers += _cell("class:turn" if index == current else "class:dim", str(index + 1))
        if index < len(view.lines):
            baits += _cell("class:title", str(view.lines[index].bait))
        elif index == len(view.lines) and chosen is not None:
            baits += _cell("class:selected", str(chosen))
        else:
            baits += _cell("", "")
        cards += _card_cell(view, index, selected, glyphs)
    return numbers, baits, cards


def _bet_cell(view: View, seat: int, index: int, selected: Action | None, glyphs: Glyphs) -> Line:
    if index >= len(view.lines):
        return _cell("", "")
    line = view.lines[index]
    if seat == view.fisherman:
        caught = sum(line.bets) if line.peche == PRISE else 0
        return _cell("class:turn", f"+{caught}") if caught else _cell("", "")
    if index == current_line(view) and not has_bet(view, seat):
        if seat != view.bettor:
            return _cell("", "")
        if isinstance(selected, rules.Bet) and seat == view.seat:
            return _cell("class:selected", str(selected.tiles))
        return _cell("class:turn", "?")
    tiles = line.bets[seat]
    return _cell("", str(tiles)) if tiles else _cell("class:dim", glyphs.zero)


def _holdings(view: View, seat: int, glyphs: Glyphs) -> Line:
    """Hand and Butin board (a Fish player), or the tiles caught (the Fisherman)."""
    span = TILES_PER_FISH + 1 + BUTIN
    if seat == view.fisherman and view.phase != START:
        return [("class:turn", f"caught {view.captured}".rjust(span))]
    if playing(view):
        held = view.hands[seat]
        out: Line = [("class:fish", glyphs.tile * held), ("class:dim", glyphs.gone * (TILES_PER_FISH - held))]
    else:
        out = [("", " " * TILES_PER_FISH)]
    for tiles in view.butins[seat]:
        out += [("", " "), ("", str(tiles)) if tiles else ("class:dim", glyphs.zero)]
    return fit(out, span)


def _player_row(view: View, table: Table, seat: int, selected: Action | None, glyphs: Glyphs) -> Line:
    me = seat == view.seat
    mark = ("class:turn", glyphs.turn) if seat in view.to_act else ("", " ")
    role = "F" if seat == view.fisherman else str(view.order.index(seat) + 1)
    if view.phase == START:
        role = " "
    left: Line = [
        mark,
        ("", " "),
        ("class:title" if seat == view.fisherman else "class:dim", role),
        ("", " "),
        ("class:title" if me else "", table.names[seat].ljust(table.name)),
        ("", " "),
        *_holdings(view, seat, glyphs),
        ("", " "),
        ("class:title" if me else "", f"{view.round_scores[seat]:>3}"),
    ]
    right: Line = [("", glyphs.sep)]
    for index in range(LINES):
        right += _bet_cell(view, seat, index, selected, glyphs)
    return [*fit(left, table.left), *right]


def _labelled(left: str, label: str, table: Table) -> Line:
    return [("class:dim", left.ljust(table.left - 1 - len(label))), ("class:dim", label), ("", " ")]


def _table_heads(view: View, selected: Action | None, glyphs: Glyphs, table: Table) -> list[Line]:
    numbers, baits, cards = _water_heads(view, selected, glyphs)
    count = f"{glyphs.peche} cards: {view.peche_count} face down" if playing(view) else ""
    held = f"baits left: {' '.join(str(b) for b in view.baits) or 'none'}" if playing(view) else ""
    slots = " ".join(str(slot) for slot in BUTIN_SLOTS)
    butin = " " * (4 + table.name + 1 + TILES_PER_FISH + 1) + "butin"
    columns = f"  # {'player':<{table.name}} {'hand':<{TILES_PER_FISH}} {slots} pts"
    return [
        [*fit(_labelled(count, "line", table), table.left), ("", glyphs.sep), *numbers],
        [*fit(_labelled(held, "bait", table), table.left), ("", glyphs.sep), *baits],
        [*fit(_labelled(butin, "card", table), table.left), ("", glyphs.sep), *cards],
        [("class:dim", columns.ljust(table.left)), ("", glyphs.sep), ("class:dim", " bets on each line")],
    ]


def kinds_text(kinds: Sequence[str]) -> str:
    counts = Counter(kinds)
    return ", ".join(f"{counts[kind]} {kind_text(kind)}" for kind in PECHE_KINDS if counts[kind]) or "none"


def _footer(view: View, glyphs: Glyphs, rows: int) -> list[Line]:
    """At most `rows` lines under the table: the Fisherman's own cards, or a legend."""
    if rows <= 0:
        return []
    if view.my_peche is not None and playing(view):
        line = len(view.lines)
        left = kinds_text(view.my_peche)
        if view.my_cast is not None:
            card = kind_text(view.my_cast).upper()
            long = [
                f"Only you see it: the card under line {line} is a {card}.",
                f"Your {glyphs.peche} cards left: {left}.",
            ]
            short = f"Only you see it: line {line} is {card}; left {left}"
        else:
            long = [f"Your {glyphs.peche} cards left (only you see them): {left}."]
            short = long[0]
        texts = long if rows >= len(long) else [short]
        return [[("class:secret", text)] for text in texts]
    legend = [
        f"{glyphs.face_down} face down  {glyphs.closed} closed: nobody bet  {glyphs.tile} tile in hand  "
        f"{glyphs.gone} played",
        f"A Butin tile scores its slot; a caught tile {CATCH_POINTS} to the Fisherman.",
    ]
    return [[("class:dim", text)] for text in legend[:rows]]


def board(
    view: View, names: tuple[str, ...], selected: Action | None, ascii_only: bool, width: int = WIDTH
) -> StyleAndTextTuples:
    """The round, whose turn, the lines on the water and every player: at most `width` x HEIGHT (the
    names whole when `width` allows)."""
    glyphs = ASCII if ascii_only else UNICODE
    width = max(WIDTH, width)
    table = table_of(view, names, width, glyphs.cut)
    rows: list[Line] = [_headline(view, names, glyphs, width), _turn_line(view, names, glyphs, width)]
    rows += _table_heads(view, selected, glyphs, table)
    rows += [_player_row(view, table, seat, selected, glyphs) for seat in rows_order(view)]
    rows += _footer(view, glyphs, HEIGHT - len(rows))
    return as_text(rows, width, HEIGHT, glyphs.cut)


# --- status and scores (plain ASCII) -------------------------------------------------------------


def _you_line(view: View) -> str:
    me = view.seat
    if not playing(view):
        return ""
    if me == view.fisherman:
        return f"You are the Fisherman: {tiles_text(view.captured)} caught ({CATCH_POINTS} points each)"
    butin = " ".join(f"{slot}:{tiles}" for slot, tiles in zip(BUTIN_SLOTS, view.butins[me], strict=True))
    points = butin_points(view.butins[me])
    return f"You hold {view.hands[me]} of {TILES_PER_FISH} tiles; Butin {butin} = {points} points"


def short_turn(view: View, names: tuple[str, ...], room: int = NAME) -> str:
    """Who does what now, in three words: "Bob to bet", "your turn to cast"."""
    verbs = {BAIT: "bait", CAST: "cast", BET: "bet", REVEAL: "reveal"}
    if view.phase not in verbs or not view.to_act:
        return turn_text(view, names)
    seat = view.to_act[0]
    who = "your turn" if seat == view.seat else short_names(names, view.players, room)[seat]
    return f"{who} to {verbs[view.phase]}"


def status(view: View, names: tuple[str, ...], width: int = STATUS_WIDTH) -> StyleAndTextTuples:
    """Round x of y and whose turn, where you stand, this round's running score, the last round's
    (there is no log line for the end of a round) and the totals: 7 rows at most, `width` columns."""
    line = f", line {len(view.lines)} of {LINES} (bait {view.lines[-1].bait})" if view.lines else ""
    head = round_head(
        view.round if playing(view) else None, view.rounds, line, short_turn(view, names, max(NAME, width - 50)),
        "" if view.phase == OVER else turn_text(view, names),
    )  # fmt: skip
    out: StyleAndTextTuples = [("class:title", clip(head, width) + "\n")]
    you = _you_line(view)
    if you:
        out.append(("", clip(you, width) + "\n"))
    rows: list[tuple[str, Sequence[int]]] = [("round", view.round_scores)]
    if playing(view) and view.history:
        rows.append(("last", view.history[-1]))
    rows.append(("total", view.totals))
    out += score_grid(view.seat, view.players, names, rows, label=6, width=width)
    if playing(view) and view.round < view.rounds:
        following = short_names(names, view.players, max(HEADLINE_NAME, width - 40))[
            fisherman_of(view.players, view.first, view.round + 1)
        ]
        turn = "anticlockwise" if view.clockwise else "clockwise"
        out.append(("class:dim", "\n" + clip(f"Next round: {following} fishes; bets go {turn}.", width)))
    return out


def score_parts(view: View) -> tuple[tuple[int, int], ...]:
    """Each seat's (points as the Fisherman, points as a Fish player) over the finished rounds."""
    fisher = [0] * view.players
    for number, scores in enumerate(view.history, start=1):
        seat = fisherman_of(view.players, view.first, number)
        fisher[seat] += scores[seat]
    return tuple((fisher[seat], view.totals[seat] - fisher[seat]) for seat in range(view.players))


def scores(
    view: View, names: tuple[str, ...], winners: tuple[int, ...], width: int = STATUS_WIDTH
) -> StyleAndTextTuples:
    """The recap that stays on the end screen: a column per player, the points of every round, as
    Fisherman and as Fish, the total, the winners; then the tie-break, and how it decided this game."""
    parts = score_parts(view)
    label = len("Fisherman")
    longest = max(len(name_of(names, seat)) for seat in range(view.players))
    column = max(4, min(longest + 1, (width - label) // view.players))
    out: StyleAndTextTuples = [("class:title", "Final".ljust(label))]
    shown = short_names(names, view.players, column - 1)
    for seat in range(view.players):
        out.append(("class:turn" if seat in winners else "class:title", shown[seat].rjust(column)))
    rows = (
        *((f"round {number}", list(points)) for number, points in enumerate(view.history, start=1)),
        ("Fisherman", [fisher for fisher, _ in parts]),
        ("Fish", [fish for _, fish in parts]),
        ("total", list(view.totals)),
    )
    for title, values in rows:
        out.append(("", "\n"))
        out.append(("class:title" if title == "total" else "class:dim", title.ljust(label)))
        for seat in range(view.players):
            style = "class:turn" if seat in winners and title == "total" else ""
            out.append((style, str(values[seat]).rjust(column)))
    out.append(("", "\n" + " " * label))
    for seat in range(view.players):
        out.append(("class:turn", ("winner" if seat in winners else "").rjust(column)))
    tie = tie_text(names, view.totals, winners, "they share the victory")
    return out + tie_rows("Highest total wins; ties share the victory.", tie, width)
