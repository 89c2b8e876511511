"""Typed commands for Fish'n'Stones, read against the legal actions of the moment.

    cast 2            put the cat in your column 2 (columns count from your own left)
    bait b2 b3        bait onto b2 the stack on b3 (also: bait b2 from b3)
    bait 2 1 up       bait onto spot 1 of your column 2 (1 = nearest your shore) the stack just
                      above it, as you see the pond: up, down, left or right
    pass              no bait this round
    fish b2 / fish 3  fish the stack on b2, or on spot 3 of your cat column
A command that is not legal now says why; nothing is sent.
"""

from collections.abc import Sequence

from p2pfish.core.actions import Action
from p2pfish.games.fishnstones.rules import (
    NEIGHBOURS,
    NO_BAIT,
    SPOT_BY_NAME,
    SPOT_NAMES,
    Bait,
    Cast,
    Fish,
    View,
    column_spots,
)
from p2pfish.ui.reading import NO_COMMAND

VERBS = ("cast", "bait", "pass", "fish")
HELP = """Fish'n'Stones commands (typed, then Enter)
  cast 2         put your cat in your column 2 (columns count from your own left)
  bait b2 b3     bait onto b2 the stack on b3          bait 2 1 up   spot 1 of your column 2,
  pass           no bait this round                                  stack just above it
  fish b2        fish the stack on b2 (fish 1..3: places of your cat column, 1 nearest you)

The pond is drawn as seen from your own shore (at the bottom), your column 1 on the left; its edges
name the spots (a1 is the south-west corner). A spot shows its top card and how many cards lie there.
Your cat column is underlined; only you see it until you fish."""
DIRECTIONS = ("up", "down", "left", "right")
FACING: dict[str, dict[str, tuple[int, int]]] = {
    "S": {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)},
    "N": {"up": (0, -1), "down": (0, 1), "left": (1, 0), "right": (-1, 0)},
    "W": {"up": (1, 0), "down": (-1, 0), "left": (0, 1), "right": (0, -1)},
    "E": {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)},
}
"""Directions as the seat on each shore sees the pond, as (dx, dy) on the pond's grid."""


def words() -> list[str]:
    """What completion offers."""
    return [*VERBS, *SPOT_NAMES, *DIRECTIONS, "from", "say", "help", "quit"]


def describe(action: Action, view: View, names: tuple[str, ...] = ()) -> str:
    """An action in the words a player would use."""
    if isinstance(action, Cast):
        column = column_spots(view.players, view.seat, int(action.value))
        return f"cast the cat in column {action.value} ({' '.join(SPOT_NAMES[s] for s in column)})"
    return str(action)


def parse(text: str, view: View, legal: Sequence[Action], names: tuple[str, ...] = ()) -> Action | str:
    """The legal action `text` names (a command, or a move's description typed back), or a message saying
    why it is not one."""
    described = [action for action in legal if describe(action, view, names).lower() == text.strip().lower()]
    if described:
        return described[0]
    parts = text.lower().replace(",", " ").split()
    if not parts:
        return NO_COMMAND
    verb, args = parts[0], [a for a in parts[1:] if a != "from"]
    if verb not in VERBS:
        return f"unknown command {verb!r}: try {', '.join(VERBS)}, say TEXT, help or quit"
    wanted = _read(verb, args, view)
    if isinstance(wanted, str):
        return wanted
    if wanted in legal:
        return wanted
    return _why_not(wanted, view, legal)


def _read(verb: str, args: list[str], view: View) -> Action | str:
    if verb == "pass":
        return NO_BAIT
    if verb == "cast":
        if len(args) != 1 or args[0] not in ("1", "2", "3"):
            return "cast takes a column: cast 1, cast 2 or cast 3 (counted from your left)"
        return Cast(f"cat/{view.round}", int(args[0]))
    if verb == "fish":
        if len(args) != 1:
            return "fish takes a spot, like fish b2, or a place in your column: fish 1 (nearest you) to fish 3"
        spot = _spot_in_column(args[0], view)
        return spot if isinstance(spot, str) else Fish(spot)
    return _read_bait(args, view)


def _read_bait(args: list[str], view: View) -> Action | str:
    if len(args) == 2 and args[0] in SPOT_BY_NAME and args[1] in SPOT_BY_NAME:
        return Bait(SPOT_BY_NAME[args[0]], SPOT_BY_NAME[args[1]])
    if len(args) == 3 and args[0] in ("1", "2", "3") and args[1] in ("1", "2", "3") and args[2] in DIRECTIONS:
        target = column_spots(view.players, view.seat, int(args[0]))[int(args[1]) - 1]
        dx, dy = FACING[view.shores[view.seat]][args[2]]
        x, y = target % 3 + dx, target // 3 + dy
        if not (0 <= x < 3 and 0 <= y < 3):
            return f"there is no spot {args[2]} of {SPOT_NAMES[target]}: that is off the pond"
        return Bait(target, 3 * y + x)
    return "bait takes a target and a source: bait b2 b3, or bait COLUMN PLACE DIRECTION like bait 2 1 up"


def _spot_in_column(arg: str, view: View) -> int | str:
    if arg in SPOT_BY_NAME:
        return SPOT_BY_NAME[arg]
    column = view.my_cat if view.my_cat is not None else view.cats[view.seat]
    if arg in ("1", "2", "3") and column is not None:
        return column_spots(view.players, view.seat, column)[int(arg) - 1]
    return f"{arg!r} is not a spot: use a1..c3, or 1-3 for the places of your cat column"


def _why_not(wanted: Action, view: View, legal: Sequence[Action]) -> str:
    kinds = {type(action) for action in legal}
    if not legal:
        return "it is not your turn"
    if type(wanted) not in kinds and not (isinstance(wanted, Bait) and NO_BAIT in legal):
        return f"not now: this is the {view.phase} phase ({', '.join(sorted({_verb(a) for a in legal}))})"
    if isinstance(wanted, Bait):
        if wanted.source not in NEIGHBOURS[wanted.target]:
            return f"{SPOT_NAMES[wanted.source]} is not next to {SPOT_NAMES[wanted.target]} (no diagonals)"
        if view.heights[wanted.source] == 0:
            return f"there is nothing on {SPOT_NAMES[wanted.source]} to bait with"
        return f"{SPOT_NAMES[wanted.target]} is not in your cat column {view.my_cat}"
    if isinstance(wanted, Fish) and wanted.spot is not None:
        if view.heights[wanted.spot] == 0:
            return f"{SPOT_NAMES[wanted.spot]} is empty"
        return f"{SPOT_NAMES[wanted.spot]} is not in your cat column"
    return "that is not a legal move now"


def _verb(action: Action) -> str:
    if isinstance(action, Cast):
        return "cast"
    if isinstance(action, Bait) or action == NO_BAIT:
        return "bait or pass"
    return "fish"
