"""Writes the session-layer test vectors under protocol/vectors/.

envelope.json is deterministic (Ed25519 signatures are): run this again and it is unchanged.
transcript_fishnstones_2p.jsonl is one complete game with fresh random nonces: it is made once and
kept; run with --transcript to make a new one.
"""

import json
import random
import sys
from pathlib import Path

from p2pfish.crypto.identity import Identity
from p2pfish.session import bodies
from p2pfish.session.envelope import GENESIS, seal
from p2pfish.session.memory_table import MemoryTable
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
    choosers = [lambda view, legal: rng.choice(legal) for _ in range(2)]
    table = MemoryTable(setup, identities(2), choosers, rng=random.Random(2))
    table.run()
    session = table.sessions[0]
    outcome = session.outcome()
    assert outcome is not None and session.fault is None
    (VECTORS / "transcript_fishnstones_2p.jsonl").write_bytes(b"\n".join(session.transcript()) + b"\n")
    expected = {"outcome": outcome.to_wire(), "log_hash": session.log_hash.hex(), "messages": len(session.accepted)}
    (VECTORS / "transcript_fishnstones_2p.expected.json").write_text(json.dumps(expected, indent=1) + "\n")


def main() -> None:
    (VECTORS / "envelope.json").write_text(json.dumps(envelope_vector(), indent=1) + "\n")
    if "--transcript" in sys.argv or not (VECTORS / "transcript_fishnstones_2p.jsonl").exists():
        write_transcript()


if __name__ == "__main__":
    main()
