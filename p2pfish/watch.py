"""Watch one game played by bots, narrated in words (with the board drawn as text where the game's kit
can draw it) and audited at the end.

Every bot is a full peer with its own session, identity and secrets, joined by an in-memory network: every
draw is by joint randomness, every secret committed and later opened, and the signed transcript is audited
at the end.
"""

import random
import tempfile
import time
from pathlib import Path

from p2pfish.bots import LEVELS
from p2pfish.core.errors import UsageError
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules, kit_for, make_bot
from p2pfish.paths import write_private_file
from p2pfish.session.audit import audit
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Applied, Session
from p2pfish.session.setup import GameSetup
from p2pfish.ui.kit import GameUi
from p2pfish.ui.narrator import Narrator


def watch_game(game_id: str, bots: int, seed: int | None, pace: float = 0.0, *, level: str | None = None) -> int:
    """Play and narrate one game; `pace`: seconds to wait after each move's line, so that a person can
    follow (0: as fast as the bots go); `level` (a key of bots.LEVELS) picks the bots' kind."""
    rules = get_rules(game_id)
    players = bots + 1
    if not rules.min_players <= players <= rules.max_players:
        raise UsageError(f"{rules.title} needs {rules.min_players - 1}-{rules.max_players - 1} bots, not {bots}")
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    rng = random.Random(seed)
    kinds = ["greedy"] + [LEVELS[level] if level else "greedy" if seat % 2 else "random" for seat in range(1, players)]
    names = tuple(f"{kind} bot {seat}" for seat, kind in enumerate(kinds))
    bots_by_seat = [make_bot(kind, rules.id, random.Random(rng.getrandbits(64))) for kind in kinds]
    signers = [Identity.generate() for _ in range(players)]
    setup = GameSetup.create(rules.id, {}, tuple(s.public_bytes for s in signers), names)
    table = MemoryTable(setup, signers, bots_by_seat, rules=rules, rng=rng)
    print(f"{rules.title}, {players} peers in this process, seed {seed}, session {setup.session_id.hex()[:16]}")
    narrator = _Narrator(table.sessions[0], names, kit_for(rules.id), pace)
    table.start()
    while table.step():
        narrator.tell()
    narrator.tell()
    return _finish(table.sessions[0], names)


class _Narrator:
    """Tells seat 0's events in words, and draws the board as everyone sees it whenever chance changed it."""

    def __init__(self, session: Session, names: tuple[str, ...], kit: GameUi, pace: float) -> None:
        self.session = session
        self.names = names
        self.kit = kit
        self.pace = pace
        self.words = Narrator(session.rules, session.setup.option_map, kit, seat=0, names=names)
        self.board = self._board()

    def _board(self) -> str:
        if self.kit.text_board is None:
            return ""
        return self.kit.text_board(self.session.rules.view(self.session.state, 0, {}), self.names)

    def tell(self) -> None:
        if not any(isinstance(event, Applied) for event in self.session.take_events()):
            return
        log = [(entry.seat, entry.action) for entry in self.session.log]
        first = self.words.told
        for (seat, _), line in zip(log[first:], self.words.lines(log, self.session.known()), strict=True):
            print(("" if seat is None else "  ") + line, flush=True)
            if seat is None and (board := self._board()) != self.board:
                self.board = board
                print(board)
            if seat is not None and self.pace > 0:
                time.sleep(self.pace)


def _finish(session: Session, names: tuple[str, ...]) -> int:
    if session.fault is not None:
        print(f"\nThe game stopped: {session.fault.describe(names)}")
        return 1
    outcome = session.outcome()
    assert outcome is not None
    print("\n— Final scores —")
    for name, points in zip(names, outcome.scores, strict=True):
        print(f"  {name:<16} {points:>3} points")
    print("Winner: " + " and ".join(names[s] for s in outcome.winners))
    path = Path(tempfile.gettempdir()) / f"p2pfish-{session.session_id.hex()[:16]}.jsonl"
    write_private_file(path, b"\n".join(session.transcript()) + b"\n", "transcript")
    result = audit(session.transcript(), session.rules)
    verdict = "every signature, commitment and draw verified" if result.verified else "AUDIT FAILED"
    print(f"Audit: {verdict}. Transcript: {path} (check it with: p2pfish verify {path})")
    return 0 if result.verified else 1
