"""The code reproduces every value in protocol/vectors/crypto_*.json exactly."""

import json
from pathlib import Path
from typing import Any

from p2pfish.crypto import commitment, deck, encoding, p256, randomness
from p2pfish.crypto.deck_audit import audit_deck
from p2pfish.crypto.identity import Identity, verify

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def key(hex_value: str) -> int:
    return p256.scalar_from_bytes(bytes.fromhex(hex_value))


def hexes(values: list[str]) -> tuple[bytes, ...]:
    return tuple(bytes.fromhex(value) for value in values)


def test_commitment_vectors() -> None:
    vectors = load("crypto_commitment.json")
    assert vectors["tag"].encode() == commitment.TAG_COMMIT
    for case in vectors["length_prefixed"]:
        assert encoding.length_prefixed(*hexes(case["fields"])).hex() == case["encoded"]
    for case in vectors["scalars"]:
        assert encoding.encode_scalar(case["value"]).hex() == case["encoded"]
    assert len(vectors["commitments"]) >= 5
    for case in vectors["commitments"]:
        session, value, nonce = hexes([case["session_id"], case["value"], case["nonce"]])
        digest = commitment.commit(session, case["seat"], case["purpose"], value=value, nonce=nonce)
        assert digest.hex() == case["digest"]


def test_randomness_vectors() -> None:
    vectors = load("crypto_randomness.json")
    assert vectors["seed_tag"].encode() == randomness.TAG_SEED
    assert vectors["stream_tag"].encode() == randomness.TAG_STREAM
    for event in vectors["events"]:
        seed = randomness.joint_seed(
            bytes.fromhex(event["session_id"]), event["purpose"], hexes(event["contributions"])
        )
        assert seed.hex() == event["seed"]
        for draw in event["draw_indices"]:
            assert randomness.draw_indices(seed, draw["pool_size"], draw["count"]) == draw["indices"]
    stream_vectors = vectors["stream"]
    seed = bytes.fromhex(stream_vectors["seed"])
    stream = randomness.Stream(seed)
    assert [f"{stream.next_word():016x}" for _ in stream_vectors["first_words"]] == stream_vectors["first_words"]
    for case in stream_vectors["randbelow_from_a_fresh_stream"]:
        stream = randomness.Stream(seed)
        assert [str(stream.randbelow(int(case["n"]))) for _ in case["draws"]] == case["draws"]


def test_deck_vectors() -> None:
    vectors = load("crypto_deck.json")
    assert vectors["card_point_tag"].encode() == deck.TAG_CARD_POINT
    assert vectors["card_key_tag"].encode() == deck.TAG_CARD_KEY
    assert any(point["counter"] > 0 for point in vectors["card_points"])
    for point in vectors["card_points"]:
        assert deck.card_point(point["label"]).hex() == point["x"]
    cipher = vectors["cipher"]
    x, k1, k2 = bytes.fromhex(cipher["x"]), key(cipher["k1"]), key(cipher["k2"])
    assert p256.scalar_to_bytes(p256.inverse(k1)).hex() == cipher["k1_inverse"]
    assert p256.multiply(k1, x).hex() == cipher["E_k1(x)"]
    assert p256.multiply(k2, p256.multiply(k1, x)).hex() == cipher["E_k2(E_k1(x))"] == cipher["E_k1(E_k2(x))"]
    assert p256.multiply(p256.inverse(k1), bytes.fromhex(cipher["E_k1(x)"])).hex() == cipher["D_k1(E_k1(x))"]
    assert cipher["D_k1(E_k1(x))"] == cipher["x"]


def test_tiny_deck_vectors() -> None:
    tiny = load("crypto_deck.json")["tiny_deck"]
    session = bytes.fromhex(tiny["session_id"])
    table = deck.CardTable(tiny["labels"])
    assert [x.hex() for x in table.points] == tiny["initial_deck"]
    cards = table.points
    locks, rekeys, lock_keys, card_keys = [], [], {}, {}
    for step in tiny["passes"]:
        seat = step["seat"]
        if step["kind"] == "lock":
            lock_keys[seat] = key(step["key"])
            cards = deck.lock_pass(cards, lock_keys[seat], step["permutation"])
            locks.append(deck.LockedDeck(seat, cards))
        else:
            assert key(step["lock_key"]) == lock_keys[seat]
            card_keys[seat] = [key(k) for k in step["card_keys"]]
            scalars = deck.rekey_scalars(lock_keys[seat], card_keys[seat])
            assert [p256.scalar_to_bytes(s).hex() for s in scalars] == step["scalars"]
            cards = deck.rekey_pass(cards, lock_keys[seat], card_keys[seat])
            commitments = deck.card_key_commitments(session, seat, card_keys[seat])
            assert [c.hex() for c in commitments] == step["key_commitments"]
            rekeys.append(deck.RekeyedDeck(seat, cards, commitments))
        assert [c.hex() for c in cards] == step["deck"]
    opened = audit_deck(session, table, locks=locks, rekeys=rekeys, lock_keys=lock_keys, card_keys=card_keys)
    assert list(opened) == tiny["opened_labels"]


def test_signature_vectors() -> None:
    vectors = load("crypto_signature.json")
    for case in vectors["signatures"]:
        signer = Identity.from_seed(bytes.fromhex(case["seed"]))
        message, signature = bytes.fromhex(case["message"]), bytes.fromhex(case["signature"])
        assert signer.public_bytes.hex() == case["public_key"]
        assert signer.fingerprint == case["fingerprint"]
        assert signer.sign(message) == signature
        assert verify(signer.public_bytes, message, signature)
