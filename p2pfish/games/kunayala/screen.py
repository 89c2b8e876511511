"""The Kuna Yala board as prompt_toolkit formatted text: the four face-up cards and the stacks on top,
then every school as a small grid (x grows east, y north; your own school first), and what this seat
alone may see below it.

A cell shows its visible card as one short token (see TOKEN_HELP). A school's grid has no bounds, so
each one is drawn as its bounding box plus a margin of one free cell; when that does not fit its panel,
the panel shows the part around the selected move's target, or around the school's centre.
"""

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action
from p2pfish.core.errors import MalformedInput
from p2pfish.games.kunayala.rules import (
    BONES,
    CORAL,
    FISH,
    FISH_COLOURS,
    MAJORITY_BONUS,
    OCTOPUS,
    OTHER,
    OVER,
    OWN,
    PLACE_OCTOPUS,
    REVEAL,
    SHARK,
    TURN_UP,
    Discard,
    PlaceOctopus,
    PlaceOther,
    PlaceOwn,
    SchoolCell,
    Score,
    View,
    card,
    score,
    tally,
)
from p2pfish.ui.drawing import Line, clip, fit, name_of, names_room, short_names, tie_rows, tie_text, trimmed

WIDTH, HEIGHT = 66, 15
"""The narrowest board (the app draws it in the width of its panel: wider, the schools show more
columns), and its rows."""
CELL = 4
"""A cell: a token of up to 3 characters and a space."""
LABEL = 4
"""The y labels at the left of a school."""
GAP = 2
"""Between two schools side by side."""

COLOUR_LETTERS = {"red": "R", "yellow": "Y", "green": "G", "blue": "B"}
BACKGROUND_LETTERS = {"sand": "s", "rock": "r", "kelp": "k", "deep": "d"}
TOKEN_HELP = """Cells: Rs = red fish on sand, Bd2 = two blue fish on deep (R Y G B = red yellow green blue,
  s r k d = sand rock kelp deep); co coral, oc octopus on coral (oc2: two), sh shark, xx bones.
  "more" and arrows after a name: the school goes on that way (it scrolls to the picked move)."""
PHASES = {
    "shuffle": "shuffling the colour tiles",
    "deal": "dealing the colour tiles",
    "start": "drawing the start player",
    TURN_UP: "turning up cards",
    PLACE_OCTOPUS: "placing an octopus",
    OWN: "a card into the own school",
    OTHER: "a card for an opponent",
    REVEAL: "revealing the colours",
    OVER: "game over",
}


@dataclass(frozen=True)
class Glyphs:
    turn: str
    empty: str
    more: tuple[str, str, str, str]
    """West, east, north, south: there are cards beyond the part shown."""
    dot: str
    cut: str
    """Where a name or a row too long was shortened."""


UNICODE = Glyphs("◀", "·", ("←", "→", "↑", "↓"), "·", "…")
ASCII = Glyphs("<", ".", ("<", ">", "^", "v"), "-", "~")


# --- cards and counts ----------------------------------------------------------------------------


def token(label: str, height: int = 1) -> tuple[str, str]:
    """(style, text) of a visible card: the text is at most 3 characters."""
    if label == BONES:
        return "class:bones", "xx"
    try:
        kind = card(label)
    except MalformedInput:
        return "", "??"
    if kind.kind == FISH and kind.colour is not None and kind.background is not None:
        text = COLOUR_LETTERS[kind.colour] + BACKGROUND_LETTERS[kind.background] + ("2" if kind.fish == 2 else "")
        return f"class:{kind.colour}", text
    if kind.kind == OCTOPUS:
        octopuses = max(1, height - 1)
        return "class:octopus", "oc" if octopuses == 1 else f"oc{min(octopuses, 9)}"
    return f"class:{kind.kind}", {CORAL: "co", SHARK: "sh"}.get(kind.kind, "??")


def seat_colour(view: View, seat: int) -> str | None:
    """The colour `seat` scores, if this view knows it (its own, or one revealed)."""
    return view.colours[seat] or (view.my_colour if seat == view.seat else None)


def score_parts(view: View) -> tuple[Score | None, ...]:
    """Each seat's points so far as the view shows them; None for a seat whose colour is not known here."""
    tallies = [tally(school) for school in view.schools]
    colours = [seat_colour(view, seat) for seat in range(view.players)]
    return tuple(None if colour is None else score(tallies, seat, colour) for seat, colour in enumerate(colours))


def seat_order(view: View) -> list[int]:
    """Your own seat first, then the others clockwise."""
    return [(view.seat + step) % view.players for step in range(view.players)]


# --- the selected move ---------------------------------------------------------------------------


class Target(NamedTuple):
    seat: int
    x: int
    y: int
    preview: tuple[str, str]
    """The token the cell would show after the move."""


def selection(view: View, action: Action | None) -> tuple[Target | None, set[int]]:
    """The cell a move changes (with what it would show) and the face-up slots it uses."""
    if isinstance(action, (PlaceOwn, PlaceOther)):
        label = view.face_up[action.slot] if 0 <= action.slot < len(view.face_up) else None
        preview = ("", "??") if label is None else token(label)
        seat = view.seat if isinstance(action, PlaceOwn) else action.seat
        return Target(seat, action.x, action.y, preview), {action.slot}
    if isinstance(action, PlaceOctopus):
        height = next((c.height for c in view.schools[view.seat] if (c.x, c.y) == (action.x, action.y)), 1)
        return Target(view.seat, action.x, action.y, token(view.octopus or "octopus-1", height + 1)), set()
    if isinstance(action, Discard):
        return None, {action.first, action.second}
    return None, set()


# --- layout --------------------------------------------------------------------------------------


class Panel(NamedTuple):
    top: int
    left: int
    height: int
    width: int

    @property
    def rows(self) -> int:
        return max(1, self.height - 2)

    @property
    def columns(self) -> int:
        return max(1, (self.width - LABEL) // CELL)


AREA = HEIGHT - 1
"""Rows for the schools, under the face-up line."""
TOP_HALF = AREA // 2


@functools.cache
def layouts(width: int) -> dict[int, tuple[tuple[Panel, ...], ...]]:
    """Candidate places for the schools in a board `width` wide, in the order of seat_order, by table
    size; the one that hides the fewest cards wins."""
    half = (width - GAP) // 2
    right = half + GAP
    low = AREA - TOP_HALF
    return {
        2: (
            (Panel(0, 0, AREA, half), Panel(0, right, AREA, half)),
            (Panel(0, 0, TOP_HALF, width), Panel(TOP_HALF, 0, low, width)),
        ),
        3: (
            (Panel(0, 0, TOP_HALF, width), Panel(TOP_HALF, 0, low, half), Panel(TOP_HALF, right, low, half)),
            (Panel(0, 0, AREA, half), Panel(0, right, TOP_HALF, half), Panel(TOP_HALF, right, low, half)),
        ),
        4: (
            (Panel(0, 0, TOP_HALF, half), Panel(0, right, TOP_HALF, half),
             Panel(TOP_HALF, 0, low, half), Panel(TOP_HALF, right, low, half)),
        ),
    }  # fmt: skip


class Frame(NamedTuple):
    """The part of a school a panel shows: x0..x1, y0..y1 inclusive."""

    x0: int
    x1: int
    y0: int
    y1: int

    def shows(self, x: int, y: int) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1


def span(low: int, high: int, room: int, focus: int | None) -> tuple[int, int]:
    """The shown part of one axis: the occupied range low..high with a free cell on each side if there
    is room, else `room` values around its centre, moved just enough to show `focus`."""
    first, last = low - 1, high + 1
    if focus is not None:
        first, last = min(first, focus), max(last, focus)
    if last - first + 1 <= room:
        return first, last
    start = low + (high - low + 1 - room) // 2
    if focus is not None:
        if focus < start:
            start = focus
        elif focus > start + room - 1:
            start = focus - room + 1
    start = max(first, min(start, last - room + 1))
    return start, start + room - 1


def frame(school: Sequence[SchoolCell], panel: Panel, focus: tuple[int, int] | None) -> Frame:
    xs = [c.x for c in school] or [0]
    ys = [c.y for c in school] or [0]
    x0, x1 = span(min(xs), max(xs), panel.columns, None if focus is None else focus[0])
    y0, y1 = span(min(ys), max(ys), panel.rows, None if focus is None else focus[1])
    return Frame(x0, x1, y0, y1)


def hidden(school: Sequence[SchoolCell], shown: Frame) -> tuple[int, int]:
    """(cards not shown, free margin cells not shown): what a layout costs."""
    cards = sum(1 for c in school if not shown.shows(c.x, c.y))
    xs = [c.x for c in school] or [0]
    ys = [c.y for c in school] or [0]
    wide, tall = max(xs) - min(xs) + 3, max(ys) - min(ys) + 3
    return cards, max(0, wide - (shown.x1 - shown.x0 + 1)) + max(0, tall - (shown.y1 - shown.y0 + 1))


def layout(view: View, width: int = WIDTH) -> tuple[Panel, ...]:
    order = seat_order(view)
    candidates = layouts(width).get(view.players) or (_grid_layout(view.players, width),)
    best: tuple[Panel, ...] = candidates[0]
    best_cost: tuple[int, int] | None = None
    for panels in candidates:
        cards = margin = 0
        for seat, panel in zip(order, panels, strict=True):
            school = view.schools[seat]
            c, m = hidden(school, frame(school, panel, None))
            cards, margin = cards + c, margin + m
        if best_cost is None or (cards, margin) < best_cost:
            best, best_cost = panels, (cards, margin)
    return best


def _grid_layout(players: int, width: int) -> tuple[Panel, ...]:
    """Two schools a row, for a table size without a chosen layout."""
    rows = (players + 1) // 2
    height = max(3, AREA // rows)
    half = (width - GAP) // 2
    return tuple(Panel((i // 2) * height, (i % 2) * (half + GAP), height, half) for i in range(players))


# --- drawing -------------------------------------------------------------------------------------


def _header(view: View, names: tuple[str, ...], seat: int, shown: Frame, glyphs: Glyphs, *, width: int) -> Line:
    """The school's owner (the name whole if the panel's `width` allows), its colour once revealed, a
    turn mark, and the ways the school goes on beyond the part shown."""
    school = view.schools[seat]
    parts: Line = [("class:title", f" (you, seat {seat})") if seat == view.seat else ("", f" (seat {seat})")]
    colour = view.colours[seat]
    if colour is not None:
        parts.append((f"class:{colour}", f" {colour}"))
    if seat in view.to_act:
        parts.append(("class:turn", f" {glyphs.turn}"))
    west, east, north, south = glyphs.more
    beyond = "".join(
        arrow
        for arrow, outside in (
            (west, any(c.x < shown.x0 for c in school)),
            (east, any(c.x > shown.x1 for c in school)),
            (north, any(c.y > shown.y1 for c in school)),
            (south, any(c.y < shown.y0 for c in school)),
        )
        if outside
    )
    if beyond:
        parts.append(("class:dim", f" more {beyond}"))
    room = max(4, width - sum(len(text) for _, text in parts))
    name = short_names(names, view.players, room, glyphs.cut)[seat]
    style, owner = parts[0]
    return [(style, name + owner), *parts[1:]]


def _school(
    view: View, names: tuple[str, ...], seat: int, panel: Panel, *, target: Target | None, glyphs: Glyphs
) -> list[Line]:
    school = view.schools[seat]
    here = target if target is not None and target.seat == seat else None
    shown = frame(school, panel, None if here is None else (here.x, here.y))
    cells = {(c.x, c.y): c for c in school}
    lines = [fit(_header(view, names, seat, shown, glyphs, width=panel.width), panel.width, glyphs.cut)]
    axis = "".join(f"{x:>3} " for x in range(shown.x0, shown.x1 + 1))
    lines.append(fit([("class:dim", " " * LABEL + axis)], panel.width, glyphs.cut))
    for y in range(shown.y1, shown.y0 - 1, -1):
        row: Line = [("class:dim", f"{y:>3} ")]
        for x in range(shown.x0, shown.x1 + 1):
            cell = cells.get((x, y))
            if here is not None and (here.x, here.y) == (x, y):
                style, text = here.preview
                row.append((f"class:selected {style}".strip(), text.ljust(3)))
            elif cell is not None:
                style, text = token(cell.top, cell.height)
                row.append((style, text.ljust(3)))
            else:
                row.append(("class:dim", glyphs.empty.ljust(3)))
            row.append(("", " "))
        lines.append(fit(row, panel.width, glyphs.cut))
    while len(lines) < panel.height:
        lines.append(fit([], panel.width))
    return lines[: panel.height]


def _face_up(view: View, slots: set[int], glyphs: Glyphs) -> Line:
    parts: Line = [("class:title", "Face up")]
    for slot, label in enumerate(view.face_up):
        style, text = ("class:dim", glyphs.dot * 2) if label is None else token(label)
        if slot in slots:
            style = f"class:selected {style}"
        parts += [("class:dim", f"  {slot + 1} "), (style, text.ljust(3))]
    parts += [("class:dim", "   stacks "), ("", " ".join(str(size) for size in view.stacks))]
    if view.octopus is not None:
        parts += [("class:octopus", "  octopus")]
    return parts


def board(
    view: View, names: tuple[str, ...], selected: Action | None, ascii_only: bool, width: int = WIDTH
) -> StyleAndTextTuples:
    """The face-up cards and stacks on one line, then every school: at most `width` x HEIGHT characters."""
    glyphs = ASCII if ascii_only else UNICODE
    width = max(WIDTH, width)
    target, slots = selection(view, selected)
    canvas: list[Line] = [[] for _ in range(AREA)]
    filled = [0] * AREA  # columns taken in each canvas row: every line of a school is fitted to its panel's width
    for seat, panel in sorted(zip(seat_order(view), layout(view, width), strict=True), key=lambda sp: sp[1].left):
        for offset, line in enumerate(_school(view, names, seat, panel, target=target, glyphs=glyphs)):
            row = panel.top + offset
            canvas[row].append(("", " " * (panel.left - filled[row])))
            canvas[row].extend(line)
            filled[row] = max(filled[row], panel.left) + panel.width
    out: StyleAndTextTuples = []
    for index, line in enumerate([fit(_face_up(view, slots, glyphs), width, glyphs.cut), *canvas]):
        out.extend(trimmed(line, keep="class:selected"))
        if index < AREA:
            out.append(("", "\n"))
    return out


# --- status and scores ---------------------------------------------------------------------------


def _turn_line(view: View, names: tuple[str, ...], width: int) -> str:
    me = view.seat
    names = short_names(names, view.players, max(16, width - 50))
    turn = f"Turn {view.turns + 1} · "
    if view.phase in (OWN, OTHER):
        mine = view.current == me
        who = "You" if mine else names[view.current]
        if view.phase == OWN:
            return turn + f"{who}: a face-up card into {'your' if mine else 'their'} own school"
        return turn + f"{who}: a face-up card into an opponent's school"
    if view.phase == PLACE_OCTOPUS and view.to_act:
        leader = view.to_act[0]
        if leader == me:
            return turn + "Most corals: put the octopus on one of your corals"
        return turn + f"{names[leader]} has the most corals and places the octopus"
    if view.phase == REVEAL:
        next_up = f" ({names[view.to_act[0]]} next)" if view.to_act else ""
        return f"The game ends: everyone reveals their colour tile{next_up}"
    if view.phase == OVER:
        return "Game over: every colour is revealed"
    if view.phase == TURN_UP:
        return turn + "turning up cards"
    return "Setting up: " + PHASES.get(view.phase, view.phase)


def _fish_counts(fish: dict[str, int]) -> Line:
    parts: Line = []
    for colour in FISH_COLOURS:
        parts += [(f"class:{colour}", f"{COLOUR_LETTERS[colour]}{fish[colour]}"), ("", " ")]
    return parts[:-1]


NAME_WIDTH = 10
"""Of a name in the status lines at least (whole when the width allows)."""
COUNTS_WIDTH = 51
"""A school's counts after the name: " fish R1 Y2 G0 B3 · 2 coral · 1 octopus · 0 shark"."""
STATUS_WIDTH = 65
"""The narrowest status."""


def status(view: View, names: tuple[str, ...], width: int = STATUS_WIDTH) -> StyleAndTextTuples:
    """Turn and phase, your secret colour, the stacks and discards, and each school's counts, in `width` columns."""
    out: StyleAndTextTuples = [("class:title", clip(_turn_line(view, names, width), width) + "\n")]
    tallies = [tally(school) for school in view.schools]
    colour = view.my_colour
    if colour is None:
        out.append(("class:secret", "Your colour tile: not dealt yet\n"))
    else:
        parts = score_parts(view)[view.seat]
        showing = sum(t.fish[colour] for t in tallies)
        bonus = f" · majority +{MAJORITY_BONUS}" if parts is not None and parts.majority else ""
        out += [
            ("class:secret", "Your colour (only you see it): "),
            (f"class:secret class:{colour}", colour),
            ("class:secret", f" · {showing} showing{bonus}\n"),
        ]
    left = sum(view.stacks)
    kinds = {OCTOPUS: 0, SHARK: 0}
    for label in view.discards:
        kind = card(label).kind
        if kind in kinds:
            kinds[kind] += 1
    others = len(view.discards) - sum(kinds.values())
    out.append(
        ("class:dim", f"Stacks: {left} cards left · discards: {kinds[OCTOPUS]} octopus, {kinds[SHARK]} shark, "
                      f"{others} other\n")
    )  # fmt: skip
    room = names_room(names, view.players, NAME_WIDTH, max(NAME_WIDTH, width - COUNTS_WIDTH))
    shown = short_names(names, view.players, room)
    column = max(len(name) for name in shown)
    for seat in seat_order(view):
        counts = tallies[seat]
        style = "class:title" if seat == view.seat else ""
        out.append((style, f"{shown[seat]:<{column}} fish "))
        out += _fish_counts(counts.fish)
        out.append(("", f" · {view.corals[seat]} coral · {counts.octopuses} octopus · {counts.sharks} shark\n"))
    out[-1] = (out[-1][0], out[-1][1].removesuffix("\n"))
    return out


SCORE_ROW = "{:<{}}{:<7}{:>5}{:>9}{:>8}{:>7}{:>6}"
SCORE_NAME = 13
"""A name in the final table at least: indented by 2, one blank after it (whole when the width allows)."""
SCORE_PARTS = 7 + 5 + 9 + 8 + 7 + 6 + len("  winner")


def scores(
    view: View, names: tuple[str, ...], winners: tuple[int, ...], width: int = STATUS_WIDTH
) -> StyleAndTextTuples:
    """The recap that stays on the end screen (a game of one round): each seat's colour (revealed at the
    end) and the parts of its points; then the tie-break, and how it decided this game."""
    shown = short_names(names, view.players, names_room(names, view.players, SCORE_NAME, width - SCORE_PARTS - 3))
    label = max(16, max(len(name) for name in shown) + 3)
    head = SCORE_ROW.format("Final scores", label, "colour", "fish", "majority", "octopus", "sharks", "total")
    out: StyleAndTextTuples = [("class:title", head), ("", "\n")]
    for seat, parts in enumerate(score_parts(view)):
        mark = "  winner" if seat in winners else ""
        name = "  " + shown[seat]
        colour = seat_colour(view, seat)
        if parts is None or colour is None:
            out.append(("class:dim", f"{name:<{label}}colour not revealed\n"))
            continue
        row = SCORE_ROW.format(
            name,
            label,
            colour,
            parts.colour_fish,
            f"+{parts.majority}",
            f"+{parts.octopuses}",
            f"+{parts.sharks}",
            parts.total,
        )
        out += [("class:turn" if mark else "", row), ("class:turn", mark), ("", "\n")]
    tie = tie_text(names, _totals(view), winners, _broken(view, names, winners))
    out[-1] = (out[-1][0], out[-1][1].removesuffix("\n"))  # tie_rows starts a row of its own
    return out + tie_rows("Highest wins; a tie goes to the most fish in one's own school.", tie, width)


def _totals(view: View) -> list[int]:
    return [0 if parts is None else parts.total for parts in score_parts(view)]


def _broken(view: View, names: tuple[str, ...], winners: tuple[int, ...]) -> str:
    """How the most fish in one's own school broke a tie for the most points."""
    fish = [sum(tally(school).fish.values()) for school in view.schools]
    if len(winners) > 1:
        return f"as many fish in their own schools ({fish[winners[0]]}), they share the victory"
    return f"{name_of(names, winners[0])} wins with the most fish in one's own school ({fish[winners[0]]})"
