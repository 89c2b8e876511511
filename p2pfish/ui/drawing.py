"""Small pieces shared by the game screens: lines of styled text cut or padded to a width, players'
names shortened to fit, the seat a draw picked, and a small score table."""

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action, Chance

Line = list[tuple[str, str]]


def fit(parts: Line, width: int) -> Line:
    """Cut or pad a line to exactly `width` characters."""
    out: Line = []
    used = 0
    for style, text in parts:
        if used >= width:
            break
        cut = text[: width - used]
        out.append((style, cut))
        used += len(cut)
    if used < width:
        out.append(("", " " * (width - used)))
    return out


def trimmed(line: Line, keep: str | None = None) -> Line:
    """The line without trailing blanks (so that nothing wraps in a narrower window); a last part
    whose style starts with `keep` keeps its own blanks (a highlight padded to its cell)."""
    parts = [part for part in line if part[1]]
    while parts and not parts[-1][1].strip():
        parts.pop()
    if parts:
        style, text = parts[-1]
        if keep is None or not style.startswith(keep):
            parts[-1] = (style, text.rstrip())
    return parts


def as_text(rows: Sequence[Line], width: int, height: int) -> StyleAndTextTuples:
    """At most `height` rows, each fitted to `width` and trimmed, one below the other."""
    out: StyleAndTextTuples = []
    for index, row in enumerate(rows[:height]):
        if index:
            out.append(("", "\n"))
        out.extend(trimmed(fit(row, width)))
    return out


def round_head(round_now: int | None, rounds: int, detail: str, doing: str, otherwise: str) -> str:
    """The first row of a status of a game of rounds: "Round 2 of 4, <detail>: <doing>" while a round is
    played (`round_now`), "All N rounds played. Game over" at the end (`round_now` None and `otherwise`
    empty), else `otherwise` (the draw before the first round)."""
    if round_now is not None:
        return f"Round {round_now} of {rounds}{detail}: {doing}"
    return otherwise or f"All {rounds} rounds played. Game over"


def name_of(names: tuple[str, ...], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def drawn_seat(action: Action, players: int) -> int | None:
    """The seat a chance draw of one seat picked (who starts, who deals first), None for other actions."""
    if isinstance(action, Chance) and len(action.values) == 1:
        value = action.values[0]
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players:
            return value
    return None


def short_names(names: tuple[str, ...], players: int, width: int, cut: str = "~") -> tuple[str, ...]:
    """Every seat's name in at most `width` characters, still telling the players apart: a long name
    keeps its start and, after `cut`, as much of its end as it takes, at least a number it ends with
    ("greedy b~3" for "greedy bot 3", "Fernan" for "Fernando" in 6)."""
    full = [name_of(names, seat) for seat in range(players)]

    def shorten(name: str, tail: int) -> str:
        if len(name) <= width:
            return name
        tail = max(tail, len(name) - len(name.rstrip("0123456789")))
        if tail == 0 or tail > width - len(cut) - 1:
            return name[:width]
        return name[: width - len(cut) - tail].rstrip() + cut + name[-tail:]

    for tail in range(width - len(cut)):
        shown = [shorten(name, tail) for name in full]
        if len(set(shown)) == players:
            return tuple(shown)
    cut_short = [shorten(name, 0) for name in full]
    return tuple(
        name if cut_short.count(name) == 1 else name[: max(1, width - len(str(seat)) - 1)] + f"#{seat}"
        for seat, name in enumerate(cut_short)
    )


def score_grid(
    seat: int,
    players: int,
    names: tuple[str, ...],
    rows: Sequence[tuple[str, Sequence[int]]],
    *,
    label: int,
    width: int,
) -> Line:
    """A small table in `width` columns: a name per column, then one row per (label, values by seat);
    the column of `seat` stands out."""
    column = max(4, min(12, (width - label) // players))
    out: Line = [("class:dim", " " * label)]
    shown = short_names(names, players, column - 1)
    for other in range(players):
        out.append(("class:title" if other == seat else "", shown[other].rjust(column)))
    for title, values in rows:
        out.append(("", "\n"))
        out.append(("class:dim", title.ljust(label)))
        for other in range(players):
            out.append(("class:title" if other == seat else "", str(values[other]).rjust(column)))
    return out
