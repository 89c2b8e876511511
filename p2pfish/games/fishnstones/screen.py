"""The Fish'n'Stones board as prompt_toolkit formatted text: the pond seen from this seat's own shore
(its shore at the bottom, its column 1 on the left; the edges name the spots, a1 being the south-west
corner), the players on their shores, and what this seat alone may see."""

from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action
from p2pfish.games.fishnstones.rules import COLUMNS, SPOT_NAMES, Bait, Fish, View, column_spots

CELL = 10
PHASES = {"start": "choosing the start player", "fill": "filling the pond", "cast": "casting the cats",
          "bait": "baiting", "fish": "fishing", "over": "game over"}  # fmt: skip


@dataclass(frozen=True)
class Glyphs:
    times: str
    empty: str
    top: str
    middle: str
    bottom: str
    side: str
    turn: str

    def rule(self, ends: str) -> str:
        fill = "─" if self.side == "│" else "-"
        return ends[0] + (fill * CELL + ends[1]) * 2 + fill * CELL + ends[2]


SIDES = {"S": ("N", "W", "E"), "N": ("S", "E", "W"), "W": ("E", "N", "S"), "E": ("W", "S", "N")}
"""For the seat on each shore: the shores facing it, on its left and on its right."""


def grid(shore: str) -> list[list[int]]:
    """The pond's spots as the seat on `shore` sees them: rows from the far side to its own, each from
    its left (its column 1) to its right."""
    return [[COLUMNS[shore][column][place] for column in range(3)] for place in (2, 1, 0)]


def edge_labels(shore: str) -> tuple[list[str], list[str]]:
    """The names along the top (one per column) and down the left side (one per row) of `grid(shore)`:
    letters or numbers, whichever stays the same along that line."""
    rows = grid(shore)

    def common(spots: list[int]) -> str:
        names = [SPOT_NAMES[spot] for spot in spots]
        return names[0][0] if len({name[0] for name in names}) == 1 else names[0][1]

    return [common([row[k] for row in rows]) for k in range(3)], [common(row) for row in rows]


UNICODE = Glyphs("\u00d7", "\u00b7", "┌┬┐", "├┼┤", "└┴┘", "│", "◀")
ASCII = Glyphs("x", ".", "+++", "+++", "+++", "|", "<")


def highlighted(action: Action | None) -> set[int]:
    if isinstance(action, Bait):
        return {action.target, action.source}
    if isinstance(action, Fish) and action.spot is not None:
        return {action.spot}
    return set()


def board(view: View, names: tuple[str, ...], selected: Action | None, ascii_only: bool) -> StyleAndTextTuples:
    glyphs = ASCII if ascii_only else UNICODE
    mine = set(column_spots(view.players, view.seat, view.my_cat)) if view.my_cat else set()
    chosen = highlighted(selected)
    by_shore = {shore: seat for seat, shore in enumerate(view.shores)}
    out: StyleAndTextTuples = []

    def line(*parts: tuple[str, str]) -> None:
        out.extend(parts)
        out.append(("", "\n"))

    def shore(name: str) -> tuple[str, str]:
        seat = by_shore.get(name)
        if seat is None:
            return ("", "")
        turn = f" {glyphs.turn}" if seat in view.to_act else ""
        you = " (you)" if seat == view.seat else ""
        return ("class:turn" if turn else "class:player", f"{name} {names[seat]}{you}{turn}")

    own = view.shores[view.seat] if 0 <= view.seat < len(view.shores) else "S"
    far, left, right = SIDES[own]
    tops, sides = edge_labels(own)
    line(("", " " * 12), shore(far))
    line(("class:dim", "      " + "".join(c.center(CELL + 1) for c in tops)))
    line(("class:dim", "     " + glyphs.rule(glyphs.top)))
    for number, spots in enumerate(grid(own)):
        row: StyleAndTextTuples = [("class:dim", f"  {sides[number]}  {glyphs.side}")]
        for spot in spots:
            top, height = view.tops[spot], view.heights[spot]
            text = glyphs.empty if top is None else f"{top} {glyphs.times}{height}"
            style = f"class:{top or 'empty'}"
            if spot in mine:
                style += " class:mycolumn"
            if spot in chosen:
                style += " class:selected"
            row += [(style, text.center(CELL)), ("class:dim", glyphs.side)]
        if number == 1:
            row += [("", "   "), shore(right)]
        out.extend(row)
        out.append(("", "\n"))
        if number < 2:
            line(("class:dim", "     " + glyphs.rule(glyphs.middle)))
    line(("class:dim", "     " + glyphs.rule(glyphs.bottom)))
    line(("", " " * 12), shore(own))
    beside = shore(left)
    if beside[1]:
        line(("class:dim", "  on your left: "), beside)
    return out


def spots_text(players: int, seat: int, column: int) -> str:
    """A seat's cat column as every reader can find it: its spots (the column number is the seat's own)."""
    return " ".join(SPOT_NAMES[spot] for spot in column_spots(players, seat, column))


def status(view: View, names: tuple[str, ...]) -> StyleAndTextTuples:
    """Round, phase, this seat's cat and bucket, and what is public about the others."""
    fish, stones, water = view.my_bucket
    parts: StyleAndTextTuples = [
        ("class:title", f"Round {view.round}/4"),
        ("", f" · {PHASES.get(view.phase, view.phase)} · start player {names[view.start]}\n"),
    ]
    if view.my_cat is not None:
        spots = " ".join(SPOT_NAMES[s] for s in column_spots(view.players, view.seat, view.my_cat))
        parts += [("class:secret", f"Your cat (only you see it): column {view.my_cat} = {spots}\n")]
    parts += [("", f"Your bucket: {fish} fish, {stones} stones, {water} water")]
    others = [f"{names[s]} {n} cards" for s, n in enumerate(view.bucket_sizes) if s != view.seat]
    parts += [("class:dim", "   others: " + ", ".join(others) + "\n")]
    revealed = [f"{names[s]} {spots_text(view.players, s, c)}" for s, c in enumerate(view.cats) if c is not None]
    if revealed:
        parts += [("class:dim", "Cats revealed: " + ", ".join(revealed) + "\n")]
    parts += [("class:dim", f"Cards left in the pile: {view.pile_left}\n")]
    return parts


def scores(view: View, names: tuple[str, ...], winners: tuple[int, ...]) -> StyleAndTextTuples:
    assert view.buckets is not None
    out: StyleAndTextTuples = [("class:title", "Final scores\n")]
    for seat, (fish, stones, water) in enumerate(view.buckets):
        mark = "  winner" if seat in winners else ""
        out.append(("class:turn" if mark else "", f"  {names[seat]:<16} {fish - stones:>3} points"))
        out.append(("class:dim", f"  ({fish} fish, {stones} stones, {water} water){mark}\n"))
    out.append(("class:dim", "Highest wins; a tie goes to the fewest stones, then is shared.\n"))
    return out
