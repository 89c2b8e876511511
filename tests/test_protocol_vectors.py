"""The session layer against protocol/vectors/: exact envelope bytes, and a complete transcript."""

import json
from pathlib import Path

import pytest

from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.session.audit import audit, transcript_setup
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


TRANSCRIPTS = ("fishnstones_2p", "kunayala_2p", "fishfish_3p", "kingfish_2p")
"""One complete game of each game (protocol/GAMES.md), made once by scripts/make_session_vectors.py and kept."""


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_transcript_vector_verifies_with_its_recorded_outcome(name: str) -> None:
    expected = json.loads((VECTORS / f"transcript_{name}.expected.json").read_text())
    lines = (VECTORS / f"transcript_{name}.jsonl").read_bytes().splitlines()
    result = audit(lines, get_rules(transcript_setup(lines).game))
    assert result.fault is None
    assert result.verified
    assert result.setup.game == name.split("_", maxsplit=1)[0]
    assert result.outcome is not None and result.outcome.to_wire() == expected["outcome"]
    assert result.messages == expected["messages"]
    # Verified means every seat's `end` signed the observer's own log hash: so it is the expected one.
    bodies = [json.loads(line)["body"] for line in lines[1:]]
    ends = [body for body in bodies if body["type"] == "end"]
    assert len(ends) == result.setup.players
    assert {end["log"] for end in ends} == {expected["log_hash"]}
    if "turns" in expected:
        assert {end["turn"] for end in ends} == {expected["turns"]}
