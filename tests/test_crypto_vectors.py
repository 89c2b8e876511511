"""The code reproduces every value in protocol/vectors/crypto_*.json exactly."""

import json
from pathlib import Path
from typing import Any

from p2pfish.crypto import commitment, encoding, proven_deck, randomness, secp256k1
from p2pfish.crypto.identity import Identity, verify

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def key(hex_value: str) -> int:
    return secp256k1.scalar_from_bytes(bytes.fromhex(hex_value))


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
    assert vectors["card_point_tag"].encode() == proven_deck.TAG_CARD_POINT
    for point in vectors["card_points"]:
        assert proven_deck.card_point(point["label"]).hex() == point["point"]
    generators = [secp256k1.point_bytes(proven_deck.shuffle_generator(i)).hex() for i in (-1, 0, 1, 2, 3)]
    assert generators == vectors["generators"]


def test_tiny_deck_vectors_reproduce_every_deck_and_every_proof_verifies() -> None:
    tiny = load("crypto_deck.json")["tiny_deck"]
    table = proven_deck.CardTable(tiny["labels"])
    assert [x.hex() for x in table.points] == tiny["initial_deck"]
    cards, size = table.points, len(table)
    lock_points: dict[int, bytes] = {}
    card_keys: dict[int, list[int]] = {}
    for step in tiny["passes"]:
        seat, context = step["seat"], bytes.fromhex(step["context"])
        if step["kind"] == "lock":
            lock = proven_deck.LockPass.from_wire(step["pass"], size, seat)
            proven_deck.verify_lock_pass(context, cards, lock, seat)
            relocked = proven_deck.make_lock_pass(context, cards, key(step["key"]), step["permutation"])
            assert (relocked.cards, relocked.lock_point) == (lock.cards, lock.lock_point)
            lock_points[seat], cards = lock.lock_point, lock.cards
        else:
            rekey = proven_deck.RekeyPass.from_wire(step["pass"], size, seat)
            proven_deck.verify_rekey_pass(context, cards, lock_points[seat], rekey, seat)
            card_keys[seat] = [key(k) for k in step["card_keys"]]
            rekeyed = proven_deck.make_rekey_pass(context, cards, key(step["lock_key"]), card_keys[seat])
            assert (rekeyed.cards, rekeyed.key_points) == (rekey.cards, rekey.key_points)
            for position, k in enumerate(card_keys[seat]):
                proven_deck.verify_card_key(rekey.key_points[position], position, k, seat)
            cards = rekey.cards
    opened = [
        proven_deck.open_card(card, [keys[j] for keys in card_keys.values()], table) for j, card in enumerate(cards)
    ]
    assert opened == tiny["opened_labels"]


def test_signature_vectors() -> None:
    vectors = load("crypto_signature.json")
    for case in vectors["signatures"]:
        signer = Identity.from_seed(bytes.fromhex(case["seed"]))
        message, signature = bytes.fromhex(case["message"]), bytes.fromhex(case["signature"])
        assert signer.public_bytes.hex() == case["public_key"]
        assert signer.fingerprint == case["fingerprint"]
        assert signer.sign(message) == signature
        assert verify(signer.public_bytes, message, signature)
