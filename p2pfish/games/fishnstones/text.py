"""Plain-text rendering of a Fish'n'Stones view: the pond as seen from the south shore."""

from p2pfish.games.fishnstones.rules import View

CELL = 9


def _cell(top: str | None, height: int) -> str:
    return "·".center(CELL) if top is None else f"{top}x{height}".center(CELL)


def render_pond(view: View, names: tuple[str, ...]) -> str:
    by_shore = {shore: f"{shore}: {names[seat]}" for seat, shore in enumerate(view.shores)}
    lines = [by_shore.get("N", "").center(4 + 3 * CELL), "    " + "".join(c.center(CELL) for c in "abc")]
    for y in (2, 1, 0):
        row = "".join(_cell(view.tops[3 * y + x], view.heights[3 * y + x]) for x in range(3))
        lines.append(f" {y + 1}  {row}")
    lines.append(by_shore["S"].center(4 + 3 * CELL))
    sides = [by_shore[s] for s in ("W", "E") if s in by_shore]
    if sides:
        lines.append("  (west " + by_shore.get("W", "-") + "; east " + by_shore.get("E", "-") + ")")
    return "\n".join(lines)
