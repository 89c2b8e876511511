"""The session layer against protocol/vectors/: exact envelope bytes, and a complete transcript."""

import json
from pathlib import Path

from p2pfish.crypto.identity import Identity
from p2pfish.session.audit import audit
from p2pfish.session.envelope import open_envelope, seal
from p2pfish.session.setup import GameSetup

VECTORS = Path(__file__).parent.parent / "protocol" / "vectors"


def test_envelope_vector_is_reproduced_byte_for_byte() -> None:
    vector = json.loads((VECTORS / "envelope.json").read_text())
    setup = GameSetup.from_wire(vector["setup"])
    assert setup.session_id.hex() == vector["session_id"]
    identity = Identity.from_seed(bytes.fromhex(vector["identity_seed"]))
    assert identity.public_bytes.hex() == vector["public_key"]
    envelope = seal(
        identity, setup.session_id, vector["seat"], seq=vector["seq"], prev=bytes.fromhex(vector["prev"]),
        body=vector["body"],
    )  # fmt: skip
    assert envelope.signed_bytes().hex() == vector["signed_bytes"]
    assert envelope.sig.hex() == vector["signature"]
    assert envelope.raw.decode() == vector["wire"]
    assert envelope.hash.hex() == vector["hash"]
    opened = open_envelope(vector["wire"].encode())
    assert opened == envelope
    assert opened.signature_valid(identity.public_bytes)


def test_transcript_vector_verifies_with_its_recorded_outcome() -> None:
    expected = json.loads((VECTORS / "transcript_fishnstones_2p.expected.json").read_text())
    lines = (VECTORS / "transcript_fishnstones_2p.jsonl").read_bytes().splitlines()
    result = audit(lines)
    assert result.fault is None
    assert result.verified
    assert result.outcome is not None and result.outcome.to_wire() == expected["outcome"]
    assert result.messages == expected["messages"]
