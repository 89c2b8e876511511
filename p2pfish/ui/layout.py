"""How the app shares the terminal between its panes: the board, the status, the log and the moves, from
the terminal's size and what each pane has to show; and text wrapped at word boundaries and kept to
ASCII, for panes that must never split a word or print a character the terminal cannot show."""

import textwrap
import unicodedata
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples

BOARD_COLUMNS = 66
"""The narrowest left panel beside the log (a board is drawn in the width of its panel)."""
WIDE_FROM = 110
"""From this many columns the log stands beside the board (at least 44 columns wide); below, under it."""
FIXED_ROWS = 4
"""The title, the message, the prompt and the key hints."""
MOVE_ROWS = 5
"""At most this many rows of moves when the terminal is large enough; never fewer than 3 when there are."""

DRAWN = "\u00b7\u2014\u2013\u25b6\u25c0\u00d7\u2026\u2592\u2660\u2665\u2666\u2663\u2500\u2502\u2019"
"""Signs of the screens: middle dot, dashes, turn marks, times, ellipsis, shade, suits, lines, quote."""
ASCII_FOR = str.maketrans(DRAWN, "--->" + "<x~#SHDC-|'")
"""Signs of the screens and their ASCII look-alikes."""


@dataclass(frozen=True)
class Plan:
    """Where each pane goes: `wide` puts the log right of a `left`-column panel (board over status);
    otherwise board, status and log stand one above the other across the whole width."""

    wide: bool
    left: int
    board: int
    status: int
    log: int
    moves: int
    """Rows of moves, under their header row."""


def plan(columns: int, rows: int, *, board: int, status: int, moves: int, status_first: bool = False) -> Plan:
    """Share `columns` x `rows` among a board of `board` rows, a status of `status` rows and `moves`
    rows of moves: every move row fits first (at least 3 when there are 3), then the board, the status,
    and the log takes the rest (at least a row); `status_first` (the final scores) puts the status before
    the board."""
    room = rows - FIXED_ROWS - 1
    shown_moves = min(moves, max(3, min(MOVE_ROWS, room - board - 2)))
    middle = max(1, room - shown_moves)
    wide = columns >= WIDE_FROM
    if status_first:
        status_rows = min(status, max(0, middle - 3))
        board_rows = min(board, middle - status_rows)
    else:
        board_rows = min(board, middle - 1)
        status_rows = min(status, max(0, (middle - board_rows) // 2))
    if wide:
        return Plan(True, panel_columns(columns), board_rows, middle - board_rows, middle, shown_moves)
    return Plan(False, columns, board_rows, status_rows, middle - board_rows - status_rows, shown_moves)


def panel_columns(columns: int) -> int:
    """The width of the board and status in a terminal of `columns`: all of it when the log stands
    under them, else what the log (at least 44 columns) leaves, a little over half."""
    if columns < WIDE_FROM:
        return columns
    return max(BOARD_COLUMNS, min(columns - 44, columns * 11 // 20))


def wrapped(text: str, width: int) -> list[str]:
    """`text` in rows of at most `width` characters, broken between words (a word longer than a row is
    cut), each row of an indented line indented alike; blank lines kept."""
    out: list[str] = []
    for line in text.split("\n"):
        indent = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(line, max(8, width), subsequent_indent=indent) if line.strip() else [""]
    return out


def plain(text: str) -> str:
    """`text` in ASCII: drawing signs as their ASCII look-alikes, letters without their accents, anything
    else as "?"."""
    text = text.translate(ASCII_FOR)
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).encode("ascii", "replace").decode()


def plain_parts(parts: StyleAndTextTuples) -> StyleAndTextTuples:
    """Formatted text with every text in ASCII (`plain`), styles and mouse handlers kept."""
    return [(part[0], plain(part[1]), *part[2:]) for part in parts]
