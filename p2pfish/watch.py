"""Watch one game played by bots, narrated in words, with the pond drawn after each fill.

Every bot is a full peer with its own session, identity and secrets, joined by an in-memory network:
the pond is drawn by joint randomness, each cat column is committed and later opened, and the
signed transcript is audited at the end. This is `p2pfish play` until networked play and the
terminal UI exist.
"""

import random
import tempfile
from pathlib import Path

from p2pfish.bots import make_bot
from p2pfish.core.actions import Chance, Commit, Reveal
from p2pfish.core.errors import MalformedInput
from p2pfish.crypto.identity import Identity
from p2pfish.games import get_rules
from p2pfish.games.fishnstones import RULES
from p2pfish.paths import write_private_file
from p2pfish.session.audit import audit
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Applied, Session
from p2pfish.session.setup import GameSetup
from p2pfish.ui.fishnstones_text import render_pond, render_scores


def watch_game(game_id: str, bots: int, seed: int | None) -> int:
    rules = get_rules(game_id)
    if rules is not RULES:
        raise MalformedInput(
            f"watch narrates Fish'n'Stones only; to see {rules.title} bots play: p2pfish match {rules.id} "
            f"(or play against them: p2pfish play {rules.id})"
        )
    players = bots + 1
    if not rules.min_players <= players <= rules.max_players:
        raise MalformedInput(f"{rules.title} needs {rules.min_players - 1}-{rules.max_players - 1} bots, not {bots}")
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    rng = random.Random(seed)
    kinds = ["greedy"] + ["greedy" if seat % 2 else "random" for seat in range(1, players)]
    names = tuple(f"{kind} bot {seat}" for seat, kind in enumerate(kinds))
    bots_by_seat = [make_bot(kind, rules.id, random.Random(rng.getrandbits(64))) for kind in kinds]
    signers = [Identity.generate() for _ in range(players)]
    setup = GameSetup.create(rules.id, {}, tuple(s.public_bytes for s in signers), names)
    table = MemoryTable(setup, signers, [bot.choose for bot in bots_by_seat], rng=rng)
    print(f"{rules.title}, {players} peers in this process, seed {seed}, session {setup.session_id.hex()[:16]}")
    narrator = _Narrator(table.sessions[0], names)
    table.start()
    while table.step():
        narrator.tell()
    narrator.tell()
    return _finish(table.sessions[0], names)


class _Narrator:
    """Tells seat 0's events in words, replaying them on a rules state of its own to draw the pond."""

    def __init__(self, session: Session, names: tuple[str, ...]) -> None:
        self.session = session
        self.names = names
        self.state = session.rules.new_game(session.setup.players, session.setup.option_map)

    def tell(self) -> None:
        for event in self.session.take_events():
            if isinstance(event, Applied):
                self._tell_applied(event)

    def _tell_applied(self, event: Applied) -> None:
        rules, before = self.session.rules, self.state
        self.state = rules.apply(before, event.seat, event.action)
        if event.seat is None:
            assert isinstance(event.action, Chance)
            if before.phase == "start":
                print(f"{self.names[int(event.action.values[0])]} starts (drawn by joint randomness).")
            else:
                print(f"\n— Round {self.state.round}: the pond is filled by joint randomness —")
                print(render_pond(rules.view(self.state, 0, {}), self.names))
            return
        who = f"{self.names[event.seat]} ({before.shores[event.seat]})"
        if isinstance(event.action, Commit):
            print(f"  {who} casts the cat face down (commitment {event.action.digest.hex()[:12]}…).")
        elif isinstance(event.action, Reveal):
            print(f"  {who} reveals the cat in column {event.action.value}: the commitment opens.")
        else:
            print(f"  {who}: {event.action}")


def _finish(session: Session, names: tuple[str, ...]) -> int:
    if session.fault is not None:
        print(f"\nThe game stopped: {session.fault.describe(names)}")
        return 1
    outcome = session.outcome()
    assert outcome is not None
    print("\n— Final scores —")
    print(render_scores(session.rules.view(session.state, 0, {}), names))
    print("Winner: " + " and ".join(names[s] for s in outcome.winners))
    path = Path(tempfile.gettempdir()) / f"p2pfish-{session.session_id.hex()[:16]}.jsonl"
    write_private_file(path, b"\n".join(session.transcript()) + b"\n", "transcript")
    result = audit(session.transcript())
    verdict = "every signature, commitment and draw verified" if result.verified else "AUDIT FAILED"
    print(f"Audit: {verdict}. Transcript: {path} (check it with: p2pfish verify {path})")
    return 0 if result.verified else 1
