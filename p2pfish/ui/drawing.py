"""Small pieces shared by the game screens: lines of styled text padded to a width or cut between words,
players' names shortened only as far as the width forces (never two alike), the seat a draw picked, a
small score table, and the tie-break rows that end every recap."""

import functools
from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pfish.core.actions import Action, Chance
from p2pfish.ui.layout import wrapped

Line = list[tuple[str, str]]
SHORT_NAMES_CACHE = 256
"""Tables' names shortened to a width (a screen asks for the same few at every drawing)."""


def fit(parts: Line, width: int, cut: str = "\u2026") -> Line:
    """A line padded to exactly `width` characters, or cut to it between words: a line too long keeps the
    words that fit and ends in `cut` (a word longer than half the width is cut inside)."""
    flat = _flat(parts)
    length = len(flat)
    if length > width:
        keep = width - len(cut)
        space = flat.rfind(" ", 0, keep + 1)
        end = len(flat[:space].rstrip()) if space > width // 2 else keep
        return fit([*_first(parts, end), ("class:dim", cut)] if end > 0 else _first(parts, width), width, cut)
    return [*parts, ("", " " * (width - length))] if length < width else list(parts)


def _flat(parts: Line) -> str:
    """The line's text, its styles dropped."""
    return "".join([text for _, text in parts])


def _first(parts: Line, count: int) -> Line:
    """The first `count` characters of a line, styles kept."""
    out: Line = []
    for style, text in parts:
        if count <= 0:
            break
        out.append((style, text[:count]))
        count -= len(text[:count])
    return out


def clip(text: str, width: int, cut: str = "~") -> str:
    """`text` whole if it fits in `width` characters, else cut between words and ended with `cut`."""
    return "".join(part for _, part in fit([("", text)], width, cut)).rstrip() if len(text) > width else text


def trimmed(line: Line, keep: str | None = None) -> Line:
    """The line without trailing blanks (so that nothing wraps in a narrower window); a last part
    whose style starts with `keep` keeps its own blanks (a highlight padded to its cell)."""
    parts = [part for part in line if part[1]]
    while parts and parts[-1][1].isspace():
        parts.pop()
    if parts:
        style, text = parts[-1]
        if keep is None or not style.startswith(keep):
            parts[-1] = (style, text.rstrip())
    return parts


def as_text(rows: Sequence[Line], width: int, height: int, cut: str = "\u2026") -> StyleAndTextTuples:
    """At most `height` rows, each fitted to `width` (a longer one cut between words, ending in `cut`) and
    trimmed, one below the other."""
    out: StyleAndTextTuples = []
    for index, row in enumerate(rows[:height]):
        if index:
            out.append(("", "\n"))
        out.extend(trimmed(row if len(_flat(row)) <= width else fit(row, width, cut)))
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


@functools.lru_cache(maxsize=SHORT_NAMES_CACHE)
def short_names(names: tuple[str, ...], players: int, width: int, cut: str = "~") -> tuple[str, ...]:
    """Every seat's name in at most `width` characters, still telling the players apart. A name that fits
    is shown whole; a longer one keeps its start, its whole words if they fill half the width, and ends in
    `cut` ("Fernan~" for "Fernando" in 7, "Anna Maria~" for "Anna Maria Lopez" in 12); when
    that would show two names alike, each of those keeps after `cut` as much of its end as it takes to
    tell them apart, whole words first ("Bart~First", "Bar~Second"); a name ending in a number always keeps
    it ("greedy b~3" for "greedy bot 3" in 10); failing all that, "#seat" ends it."""
    full = [name_of(names, seat) for seat in range(players)]

    def shorten(name: str, tail: int) -> str:
        if len(name) <= width:
            return name
        tail = max(tail, len(name) - len(name.rstrip("0123456789")))
        if tail == 0:
            start = name[: max(1, width - len(cut))]
            space = len(start) if name[len(start)] == " " else start.rfind(" ")
            return (start[:space] if space >= width // 2 else start).rstrip() + cut
        if tail > width - len(cut) - 1:
            return name[:width]
        return name[: width - len(cut) - tail].rstrip() + cut + name[-tail:]

    def tails(name: str) -> list[int]:
        """The ends a name may keep, shortest first: its last word, its last two words..., then any length."""
        words = [len(name) - index - 1 for index, char in enumerate(name) if char == " "][::-1]
        room = width - len(cut) - 1
        return [tail for tail in words if tail <= room] + list(range(1, room + 1))

    step = [0] * players
    shown = [shorten(name, 0) for name in full]
    while alike := [seat for seat in range(players) if shown.count(shown[seat]) > 1 and len(full[seat]) > width]:
        ends = [tails(full[seat]) for seat in alike]
        if any(step[seat] >= len(end) for seat, end in zip(alike, ends, strict=True)):
            break
        for seat, end in zip(alike, ends, strict=True):
            shown[seat] = shorten(full[seat], end[step[seat]])
            step[seat] += 1
    if len(set(shown)) == players:
        return tuple(shown)
    cut_short = [name[:width] for name in full]
    return tuple(
        name if cut_short.count(name) == 1 else name[: max(1, width - len(str(seat)) - 1)] + f"#{seat}"
        for seat, name in enumerate(cut_short)
    )


def names_room(names: tuple[str, ...], players: int, least: int, most: int) -> int:
    """The width of a column of names: the longest name's, but at least `least` and at most `most`."""
    return max(least, min(most, max((len(name_of(names, seat)) for seat in range(players)), default=least)))


def tie_text(names: tuple[str, ...], scores: Sequence[int], winners: Sequence[int], broken: str) -> str:
    """How the tie-break decided this game: empty without a tie for first place, else the seats tied on
    the most points and what `broken` says of them ("they share the victory", "Ann wins with ...")."""
    best = max(scores)
    tied = [seat for seat, points in enumerate(scores) if points == best]
    if len(tied) < 2:
        return ""
    who = ", ".join(name_of(names, seat) for seat in tied[:-1]) + " and " + name_of(names, tied[-1])
    return f"{who} tie on {best} points: {broken}."


def tie_rows(rule: str, tie: str, width: int) -> StyleAndTextTuples:
    """The last rows of a recap: the tie-break `rule`, then how it decided this game (`tie_text`) if there
    was a tie, each broken between words into rows of `width`."""
    out: StyleAndTextTuples = [("class:dim", "\n" + "\n".join(wrapped(rule, width)))]
    if tie:
        out.append(("class:turn", "\n" + "\n".join(wrapped(tie, width))))
    return [*out, ("", "\n")]


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
    column = max(4, min(names_room(names, players, 11, 40) + 1, (width - label) // players))
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
