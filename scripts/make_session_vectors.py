"""Writes the session-layer test vectors under protocol/vectors/.

envelope.json is deterministic (Ed25519 signatures are): run this again and it is unchanged.
transcript_fishnstones_2p.jsonl is one complete game with fresh random nonces: it is made once and
kept; run with --transcript to make a new one.

transcript_<game>_<m>p.jsonl for Kuna Yala, Fish Fish and King Fish (GAME_VECTORS) are complete games of
greedy bots, also with fresh random contributions, nonces and deck keys: each is made once and kept (written
only when missing, or with --games). A game is kept only when its log shows every kind of move the game has
(GAME_VECTORS' `shows`), so that a second implementation replaying it meets each rule at least once.
"""

import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from p2pfish.bots.random_bot import RandomBot
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules, make_bot
from p2pfish.session import bodies
from p2pfish.session.envelope import GENESIS, seal
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"


def identities(players: int) -> list[Identity]:
    return [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]


def fixed_setup() -> GameSetup:
    keys = tuple(identity.public_bytes for identity in identities(2))
    contributions = (bytes(range(32)), bytes(range(32, 64)))
    return GameSetup("fishnstones", (("start", "0"),), keys, ("ann", "bob"), contributions)


def envelope_vector() -> dict[str, object]:
    setup = fixed_setup()
    body = bodies.act(3, {"t": "bait", "target": "b2", "source": "b3"})
    envelope = seal(identities(2)[1], setup.session_id, 1, seq=2, prev=bytes([0xAB]) * 32, body=body)
    return {
        "setup": setup.to_wire(),
        "session_id": setup.session_id.hex(),
        "identity_seed": (bytes([2]) * 32).hex(),
        "public_key": identities(2)[1].public_bytes.hex(),
        "seat": 1,
        "seq": 2,
        "prev": envelope.prev.hex(),
        "body": body,
        "signed_bytes": envelope.signed_bytes().hex(),
        "signature": envelope.sig.hex(),
        "wire": envelope.raw.decode("ascii"),
        "hash": envelope.hash.hex(),
        "genesis_prev": GENESIS.hex(),
    }


def write_transcript() -> None:
    keys = tuple(identity.public_bytes for identity in identities(2))
    setup = GameSetup.create("fishnstones", {}, keys, ("ann", "bob"))
    rng = random.Random(1)
    table = MemoryTable(
        setup, identities(2), [RandomBot(rng) for _ in range(2)], rules=get_rules(setup.game), rng=random.Random(2)
    )
    table.run()
    session = table.sessions[0]
    outcome = session.outcome()
    assert outcome is not None and session.fault is None
    (VECTORS / "transcript_fishnstones_2p.jsonl").write_bytes(b"\n".join(session.transcript()) + b"\n")
    expected = {"outcome": outcome.to_wire(), "log_hash": session.log_hash.hex(), "messages": len(session.accepted)}
    (VECTORS / "transcript_fishnstones_2p.expected.json").write_text(json.dumps(expected, indent=1) + "\n")


NAMES = ("ann", "bob", "cyd", "dee", "eve")


def _tags(session: Session) -> set[str]:
    return {str(entry.action.to_wire()["t"]) for entry in session.log}


def _unopened_until_end(session: Session) -> bool:
    """Some commitment is opened only in the `end` messages (a Fish Fish line nobody bet on)."""
    return any(key not in _opened_in_play(session) for key in session.commitments)


def _opened_in_play(session: Session) -> set[tuple[int, str]]:
    return {
        (entry.seat, str(entry.action.to_wire()["purpose"]))
        for entry in session.log
        if entry.seat is not None and entry.action.to_wire()["t"] == "reveal"
    }


def _revealed_values(session: Session) -> set[object]:
    return {entry.action.to_wire().get("value") for entry in session.log if entry.action.to_wire()["t"] == "reveal"}


@dataclass(frozen=True)
class GameVector:
    game: str
    players: int
    options: dict[str, str]
    shows: Callable[[Session], bool]
    """Whether a finished game shows every kind of move this vector is meant to hold."""

    @property
    def stem(self) -> str:
        return f"transcript_{self.game}_{self.players}p"


GAME_VECTORS = (
    # A reduced mix (50 cards instead of 104) keeps the file near 100 KB; it still has every card kind.
    GameVector(
        "kunayala",
        2,
        {"singles": "1", "doubles": "1", "coral": "8", "sharks": "4", "octopuses": "4"},
        lambda s: {"own", "other", "octopus", "reveal-card"} <= _tags(s),
    ),
    GameVector(
        "fishfish",
        3,
        {},
        lambda s: (
            {"bait", "bet", "commit", "reveal"} <= _tags(s)
            and {"prise", "bredouille"} <= _revealed_values(s)
            and _unopened_until_end(s)
        ),
    ),
    GameVector(
        "kingfish",
        2,
        {},
        lambda s: {"shuffled", "dealt", "pond", "line", "bait", "reveal-card", "catch", "keep"} <= _tags(s),
    ),
)


def play_bots(vector: GameVector, seed: int) -> Session:
    """One complete game of greedy bots; the contributions, nonces and deck keys are fresh random ones."""
    signers = identities(vector.players)
    keys = tuple(identity.public_bytes for identity in signers)
    setup = GameSetup.create(vector.game, vector.options, keys, NAMES[: vector.players])
    bots = [make_bot("greedy", vector.game, random.Random(100 * seed + seat)) for seat in range(vector.players)]
    table = MemoryTable(setup, signers, bots, rules=get_rules(setup.game), rng=random.Random(seed))
    table.run()
    session = table.sessions[0]
    assert session.outcome() is not None and session.fault is None
    assert all(other.log_hash == session.log_hash for other in table.sessions)
    return session


def write_game_transcript(vector: GameVector) -> None:
    for seed in range(1, 100):
        session = play_bots(vector, seed)
        if vector.shows(session):
            break
    else:
        raise SystemExit(f"no game of {vector.stem} showed every kind of move")
    outcome = session.outcome()
    assert outcome is not None
    (VECTORS / f"{vector.stem}.jsonl").write_bytes(b"\n".join(session.transcript()) + b"\n")
    expected = {
        "outcome": outcome.to_wire(),
        "log_hash": session.log_hash.hex(),
        "messages": len(session.accepted),
        "turns": session.turn,
    }
    (VECTORS / f"{vector.stem}.expected.json").write_text(json.dumps(expected, indent=1) + "\n")


def main() -> None:
    (VECTORS / "envelope.json").write_text(json.dumps(envelope_vector(), indent=1) + "\n")
    if "--transcript" in sys.argv or not (VECTORS / "transcript_fishnstones_2p.jsonl").exists():
        write_transcript()
    for vector in GAME_VECTORS:
        if "--games" in sys.argv or not (VECTORS / f"{vector.stem}.jsonl").exists():
            write_game_transcript(vector)


if __name__ == "__main__":
    main()
