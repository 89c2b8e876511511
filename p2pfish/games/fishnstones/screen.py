"""The Fish'n'Stones board as prompt_toolkit formatted text: the pond seen from this seat's own shore
(its shore at the bottom, its column 1 on the left; the edges name the spots, a1 being the south-west
corner), the players on their shores, and what this seat alone may see."""

import itertools
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action
from p2pfish.games.fishnstones.rules import COLUMNS, SPOT_NAMES, Bait, Bucket, Fish, View, column_spots, score
from p2pfish.ui.drawing import clip, name_of, names_room, short_names, tie_rows, tie_text

WIDTH = 66
"""The narrowest board and status (the app draws them in the width of their panel)."""
CELL = 10
GRID = 5 + 3 * (CELL + 1) + 1
"""The pond's grid with its row names."""
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


def board(
    view: View, names: tuple[str, ...], selected: Action | None, ascii_only: bool, width: int = WIDTH
) -> StyleAndTextTuples:
    """The pond from this seat's own shore, the players on their shores (their names whole when `width`
    allows), and this seat's own cat column underlined."""
    glyphs = ASCII if ascii_only else UNICODE
    width = max(WIDTH, width)
    cut = "~" if ascii_only else "\u2026"
    mine = set(column_spots(view.players, view.seat, view.my_cat)) if view.my_cat else set()
    chosen = highlighted(selected)
    by_shore = {shore: seat for seat, shore in enumerate(view.shores)}
    out: StyleAndTextTuples = []

    def line(*parts: tuple[str, str]) -> None:
        out.extend(parts)
        out.append(("", "\n"))

    def shore(name: str, room: int) -> tuple[str, str]:
        """The player on shore `name`, in `room` columns."""
        seat = by_shore.get(name)
        if seat is None:
            return ("", "")
        turn = f" {glyphs.turn}" if seat in view.to_act else ""
        you = " (you)" if seat == view.seat else ""
        shown = short_names(names, view.players, max(8, room - len(name) - 1 - len(you) - len(turn)), cut)
        return ("class:turn" if turn else "class:player", f"{name} {shown[seat]}{you}{turn}")

    own = view.shores[view.seat] if 0 <= view.seat < len(view.shores) else "S"
    far, left, right = SIDES[own]
    tops, sides = edge_labels(own)
    line(("", " " * 12), shore(far, width - 12))
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
            row += [("", "   "), shore(right, width - GRID - 3)]
        out.extend(row)
        out.append(("", "\n"))
        if number < 2:
            line(("class:dim", "     " + glyphs.rule(glyphs.middle)))
    line(("class:dim", "     " + glyphs.rule(glyphs.bottom)))
    line(("", " " * 12), shore(own, width - 12))
    beside = shore(left, width - 16)
    if beside[1]:
        line(("class:dim", "  on your left: "), beside)
    return out


def spots_text(players: int, seat: int, column: int) -> str:
    """A seat's cat column as every reader can find it: its spots (the column number is the seat's own)."""
    return " ".join(SPOT_NAMES[spot] for spot in column_spots(players, seat, column))


def status(view: View, names: tuple[str, ...], width: int = WIDTH) -> StyleAndTextTuples:
    """Round, phase, this seat's cat and bucket, and what is public about the others, in `width` columns
    (the names whole when it allows)."""
    fish, stones, water = view.my_bucket
    others = [seat for seat in range(view.players) if seat != view.seat]
    shown = short_names(names, view.players, names_room(names, view.players, 8, (width - 9) // len(others) - 11))
    head = f" · {PHASES.get(view.phase, view.phase)} · start player {names[view.start]}"
    parts: StyleAndTextTuples = [("class:title", f"Round {view.round}/4"), ("", clip(head, width - 9) + "\n")]
    if view.my_cat is not None:
        spots = " ".join(SPOT_NAMES[s] for s in column_spots(view.players, view.seat, view.my_cat))
        parts += [("class:secret", f"Your cat (only you see it): column {view.my_cat} = {spots}\n")]
    parts += [("", f"Your bucket: {fish} fish, {stones} stones, {water} water\n")]
    sizes = ", ".join(f"{shown[seat]} {view.bucket_sizes[seat]}" for seat in others)
    parts += [("class:dim", clip(f"Cards in the others' buckets: {sizes}", width) + "\n")]
    revealed = [f"{shown[s]} {spots_text(view.players, s, c)}" for s, c in enumerate(view.cats) if c is not None]
    if revealed:
        parts += [("class:dim", clip("Cats revealed: " + ", ".join(revealed), width) + "\n")]
    parts += [("class:dim", f"Cards left in the pile: {view.pile_left}\n")]
    return parts


RECAP_PARTS = 4 * 4 + 8 + 6 + 8 + 7 + len("  winner")
"""The recap's columns after the name: four rounds, the points, fish, stones, water, the winner mark."""


def round_points(round_buckets: tuple[tuple[Bucket, ...], ...], seat: int) -> list[int]:
    """The points `seat` made in each round: its score at the round's end less its score before it."""
    scores = [0, *(score(buckets[seat]) for buckets in round_buckets)]
    return [after - before for before, after in itertools.pairwise(scores)]


def scores(view: View, names: tuple[str, ...], winners: tuple[int, ...], width: int = WIDTH) -> StyleAndTextTuples:
    """The recap that stays on the end screen: a row per player, best first, with the points made in every
    round, the total and the bucket it comes from; then the tie-break, and how it decided this game."""
    assert view.buckets is not None
    buckets = view.buckets
    shown = short_names(names, view.players, names_room(names, view.players, 12, width - RECAP_PARTS - 2))
    label = max(len(name) for name in shown) + 2
    heads = "".join(f"r{number}".rjust(4) for number in range(1, len(view.round_buckets) + 1))
    out: StyleAndTextTuples = [
        ("class:title", "Final".ljust(label)),
        ("class:dim", heads),
        ("class:title", "  points"),
        ("class:dim", "  fish  stones  water"),
    ]
    for seat in sorted(range(view.players), key=lambda seat: (-score(buckets[seat]), buckets[seat][1])):
        style = "class:turn" if seat in winners else ""
        fish, stones, water = buckets[seat]
        out += [("", "\n"), (style or "class:title", shown[seat].ljust(label))]
        out += [("", "".join(str(points).rjust(4) for points in round_points(view.round_buckets, seat)))]
        out += [(style, str(fish - stones).rjust(8)), ("class:dim", f"{fish:>6}{stones:>8}{water:>7}")]
        out.append((style, "  winner" if seat in winners else ""))
    rule = "Highest wins; a tie goes to the fewest stones, then is shared."
    tie = tie_text(names, [score(bucket) for bucket in buckets], winners, _broken(view, names, winners))
    return out + tie_rows(rule, tie, width)


def _broken(view: View, names: tuple[str, ...], winners: tuple[int, ...]) -> str:
    """How the fewest stones broke a tie for the most points."""
    assert view.buckets is not None
    stones = view.buckets[winners[0]][1]
    if len(winners) > 1:
        return f"as few stones each ({stones}), they share the victory"
    return f"{name_of(names, winners[0])} wins with fewer stones ({stones})"
