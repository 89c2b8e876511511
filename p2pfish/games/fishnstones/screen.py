"""The Fish'n'Stones board as prompt_toolkit formatted text: the pond seen from the south shore
(a1 is the south-west corner), the players on their shores, and what this seat alone may see."""

from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action
from p2pfish.games.fishnstones.rules import SPOT_NAMES, Bait, Fish, View, column_spots

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

    north = shore("N")
    line(("", " " * 12), north)
    line(("class:dim", "      " + "".join(c.center(CELL + 1) for c in "abc")))
    line(("class:dim", "     " + glyphs.rule(glyphs.top)))
    for y in (2, 1, 0):
        row: StyleAndTextTuples = [("class:dim", f"  {y + 1}  {glyphs.side}")]
        for x in range(3):
            spot = 3 * y + x
            top, height = view.tops[spot], view.heights[spot]
            text = glyphs.empty if top is None else f"{top} {glyphs.times}{height}"
            style = f"class:{top or 'empty'}"
            if spot in mine:
                style += " class:mycolumn"
            if spot in chosen:
                style += " class:selected"
            row += [(style, text.center(CELL)), ("class:dim", glyphs.side)]
        if y == 1:
            row += [("", "   "), shore("E")]
        out.extend(row)
        out.append(("", "\n"))
        if y:
            line(("class:dim", "     " + glyphs.rule(glyphs.middle)))
    line(("class:dim", "     " + glyphs.rule(glyphs.bottom)))
    line(("", " " * 12), shore("S"))
    west = shore("W")
    if west[1]:
        line(("", "  "), west)
    return out


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
    revealed = [f"{names[s]} column {c}" for s, c in enumerate(view.cats) if c is not None]
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
    return out
