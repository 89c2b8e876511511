"""Fish Fish in words: the names of the cards, and one line per move or chance event for the log.

The log only gets the action, not the table around it. A commitment or a reveal names its round and
line (from its purpose, ``peche/<round>/<line>``); a bait names its value. Nothing here ever names the
Fisherman's Pêche card before its Reveal: a Commit (or, should one ever reach the log, the secret choice
itself) is only "a Peche card face down".

Given the reader's views before and after an action, a line also tells what it changed on the scores:
who won or lost how many points (a revealed Peche card settles a line's bets).

Everything here is plain ASCII ("Peche").
"""

from p2pfish.core.actions import Action, Commit, Reveal, SecretChoice
from p2pfish.core.options import is_number
from p2pfish.games.fishfish.rules import BREDOUILLE, LINES, PRISE, Bait, Bet, View
from p2pfish.ui.drawing import drawn_seat, name_of

KIND_NAMES = {PRISE: "Prise", BREDOUILLE: "Bredouille"}
KIND_MEANINGS = {
    PRISE: "the Fisherman catches every tile bet on the line",
    BREDOUILLE: "each bettor puts his tiles on his Butin slot of the bait",
}


def kind_text(kind: object) -> str:
    """A Pêche card as a player says it: "Prise", "Bredouille"."""
    return KIND_NAMES.get(str(kind), str(kind))


def tiles_text(tiles: int) -> str:
    return f"{tiles} tile{'' if tiles == 1 else 's'}"


def round_and_line(purpose: str) -> tuple[int, int] | None:
    """(round, line) of a Pêche purpose ``peche/<round>/<line>``, None for anything else."""
    parts = purpose.split("/")
    if len(parts) != 3 or parts[0] != "peche" or not all(is_number(p) for p in parts[1:]):
        return None
    return int(parts[1]), int(parts[2])


def _where(purpose: str) -> str:
    found = round_and_line(purpose)
    return "" if found is None else f" (round {found[0]}, line {found[1]})"


def narrate(
    seat: int | None, action: Action, names: tuple[str, ...], before: View | None = None, after: View | None = None
) -> str:
    line = _chance(action, names) if seat is None else _move(seat, action, names)
    if before is not None and after is not None:
        changes = [
            f"{name_of(names, other)} {new - old:+d}"
            for other, (old, new) in enumerate(zip(before.totals, after.totals, strict=False))
            if new != old
        ]
        if changes:
            line += " Points: " + ", ".join(changes) + "."
    return line


def _move(seat: int, action: Action, names: tuple[str, ...]) -> str:
    who = name_of(names, seat)
    if isinstance(action, Bait):
        return f"{who} casts a new line with bait {action.value}."
    if isinstance(action, (Commit, SecretChoice)):
        found = round_and_line(action.purpose)
        line = f"{who} lays a Peche card face down under the line{_where(action.purpose)}."
        if found is not None and found[1] == LINES:
            line += " Last line: every Fish player bets all his tiles left."
        return line
    if isinstance(action, Bet):
        if action.tiles == 0:
            return f"{who} passes (bets nothing)."
        return f"{who} bets {tiles_text(action.tiles)}."
    if isinstance(action, Reveal):
        meaning = KIND_MEANINGS.get(str(action.value), "")
        return f"{who} reveals the Peche card{_where(action.purpose)}: {kind_text(action.value)}" + (
            f" - {meaning}." if meaning else "."
        )
    return f"{who}: {action}"


def _chance(action: Action, names: tuple[str, ...]) -> str:
    seat = drawn_seat(action, len(names))
    if seat is not None:
        return f"{names[seat]} is the first Fisherman (drawn by joint randomness)."
    return f"Chance: {action}."
