"""Write protocol/vectors/crypto_*.json from fixed inputs: `.venv/bin/python scripts/make_crypto_vectors.py`.

Every input is a constant or derived from a constant by SHA-256, so the output never changes unless the
constructions do; tests/test_crypto_vectors.py checks the code still reproduces every value.
Byte strings, scalars and 64-bit stream words are lowercase hex; randbelow's n and draws are decimal strings,
so no JSON reader loses precision.
"""

import hashlib
import json
from pathlib import Path
from typing import Any

from p2pfish.crypto import commitment, deck, encoding, p256, randomness
from p2pfish.crypto.identity import Identity

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
SESSION_ID = bytes.fromhex("5e55105e55105e55105e55105e55105e")
DECK_LABELS = ("AS", "KH", "QD", "JC")
DECK_SEATS = 2


def fixed_bytes(name: str) -> bytes:
    return hashlib.sha256(b"p2pfish test vector " + name.encode()).digest()


def fixed_key(name: str) -> int:
    return 1 + int.from_bytes(fixed_bytes(name), "big") % (p256.GROUP_ORDER - 1)


def key_hex(k: int) -> str:
    return p256.scalar_to_bytes(k).hex()


def commitment_vectors() -> dict[str, Any]:
    cases: list[tuple[bytes, int, str, bytes, bytes]] = [
        (SESSION_ID, 0, "round1/cat", encoding.encode_scalar(3), bytes(range(32))),
        (SESSION_ID, 1, "round1/cat", encoding.encode_scalar(3), bytes(range(32))),
        (SESSION_ID, 2, "line3/peche", encoding.encode_scalar("prise"), fixed_bytes("nonce a")),
        (b"", 0, "", b"", bytes(32)),
        (SESSION_ID, 3, "rand/start", fixed_bytes("contribution"), fixed_bytes("nonce b")),
        (SESSION_ID, 4, "colour/ü", encoding.encode_scalar(-1), fixed_bytes("nonce c")),
    ]
    return {
        "construction": "SHA-256(lp(tag, session_id, u64(seat), utf8(purpose), value, nonce))",
        "tag": commitment.TAG_COMMIT.decode(),
        "length_prefixed": [
            {"fields": [f.hex() for f in fields], "encoded": encoding.length_prefixed(*fields).hex()}
            for fields in ((b"ab", b"c"), (b"a", b"bc"), (b"",), ())
        ],
        "scalars": [
            {"value": value, "encoded": encoding.encode_scalar(value).hex()}
            for value in (0, 3, -1, 2**63 - 1, "", "prise", "ü")
        ],
        "commitments": [
            {
                "session_id": session.hex(),
                "seat": seat,
                "purpose": purpose,
                "value": value.hex(),
                "nonce": nonce.hex(),
                "digest": commitment.commit(session, seat, purpose, value=value, nonce=nonce).hex(),
            }
            for session, seat, purpose, value, nonce in cases
        ],
    }


def randomness_vectors() -> dict[str, Any]:
    events = []
    for event, seats in (("start", 2), ("pond/round1", 4), ("stacks", 5)):
        purpose = randomness.contribution_purpose(event)
        contributions = [fixed_bytes(f"{event} seat {seat}") for seat in range(seats)]
        seed = randomness.joint_seed(SESSION_ID, purpose, contributions)
        events.append(
            {
                "session_id": SESSION_ID.hex(),
                "purpose": purpose,
                "contributions": [c.hex() for c in contributions],
                "seed": seed.hex(),
                "draw_indices": [
                    {"pool_size": size, "count": count, "indices": randomness.draw_indices(seed, size, count)}
                    for size, count in ((1, 1), (4, 4), (36, 9), (52, 52), (104, 5))
                ],
            }
        )
    stream_seed = fixed_bytes("stream seed")
    stream = randomness.Stream(stream_seed)
    words = [f"{stream.next_word():016x}" for _ in range(6)]
    randbelow = []
    for n in (1, 3, 52, 2**63 + 1, 2**64):
        stream = randomness.Stream(stream_seed)
        randbelow.append({"n": str(n), "draws": [str(stream.randbelow(n)) for _ in range(8)]})
    return {
        "seed_construction": "SHA-256(lp(seed_tag, session_id, utf8(purpose), c_0, ..., c_{m-1}))",
        "seed_tag": randomness.TAG_SEED.decode(),
        "stream_construction": "block_i = SHA-256(lp(stream_tag, seed, u64(i))), four big-endian u64 words each",
        "stream_tag": randomness.TAG_STREAM.decode(),
        "events": events,
        "stream": {"seed": stream_seed.hex(), "first_words": words, "randbelow_from_a_fresh_stream": randbelow},
    }


def hash_to_curve_counter(label: str) -> int:
    prefix = encoding.length_prefixed(deck.TAG_CARD_POINT, encoding.encode_text(label))
    counter = 0
    while not p256.is_x_coordinate(
        int.from_bytes(hashlib.sha256(prefix + encoding.length_prefixed(encoding.encode_u32(counter))).digest(), "big")
    ):
        counter += 1
    return counter


def deck_vectors() -> dict[str, Any]:
    labels = [*DECK_LABELS, "10S", "fish/red/1", "colour tile: blue"]
    points = [
        {"label": label, "counter": hash_to_curve_counter(label), "x": deck.card_point(label).hex()} for label in labels
    ]
    x = deck.card_point("AS")
    k1, k2 = fixed_key("cipher key 1"), fixed_key("cipher key 2")
    e1 = p256.multiply(k1, x)
    cipher = {
        "x": x.hex(),
        "k1": key_hex(k1),
        "k2": key_hex(k2),
        "k1_inverse": key_hex(p256.inverse(k1)),
        "E_k1(x)": e1.hex(),
        "E_k2(E_k1(x))": p256.multiply(k2, e1).hex(),
        "E_k1(E_k2(x))": p256.multiply(k1, p256.multiply(k2, x)).hex(),
        "D_k1(E_k1(x))": p256.multiply(p256.inverse(k1), e1).hex(),
    }
    table = deck.CardTable(DECK_LABELS)
    cards = table.points
    passes: list[dict[str, Any]] = []
    lock_keys = {seat: fixed_key(f"lock key seat {seat}") for seat in range(DECK_SEATS)}
    permutations = {0: (2, 0, 3, 1), 1: (3, 2, 1, 0)}
    for seat in range(DECK_SEATS):
        cards = deck.lock_pass(cards, lock_keys[seat], permutations[seat])
        passes.append(
            {
                "kind": "lock",
                "seat": seat,
                "key": key_hex(lock_keys[seat]),
                "permutation": list(permutations[seat]),
                "deck": [c.hex() for c in cards],
            }
        )
    card_keys = {
        seat: [fixed_key(f"card key seat {seat} position {j}") for j in range(len(cards))] for seat in range(DECK_SEATS)
    }
    for seat in range(DECK_SEATS):
        cards = deck.rekey_pass(cards, lock_keys[seat], card_keys[seat])
        passes.append(
            {
                "kind": "rekey",
                "seat": seat,
                "lock_key": key_hex(lock_keys[seat]),
                "card_keys": [key_hex(k) for k in card_keys[seat]],
                "scalars": [key_hex(s) for s in deck.rekey_scalars(lock_keys[seat], card_keys[seat])],
                "key_commitments": [c.hex() for c in deck.card_key_commitments(SESSION_ID, seat, card_keys[seat])],
                "deck": [c.hex() for c in cards],
            }
        )
    opened = [
        deck.open_card(card, [card_keys[seat][j] for seat in range(DECK_SEATS)], table) for j, card in enumerate(cards)
    ]
    return {
        "card_point_construction": "x = SHA-256(lp(tag, utf8(label), u32(counter))), first counter giving a curve x",
        "card_point_tag": deck.TAG_CARD_POINT.decode(),
        "card_key_construction": "SHA-256(lp(tag, session_id, u64(seat), u64(position), key as 32 bytes))",
        "card_key_tag": deck.TAG_CARD_KEY.decode(),
        "card_points": points,
        "cipher": cipher,
        "tiny_deck": {
            "session_id": SESSION_ID.hex(),
            "labels": list(DECK_LABELS),
            "initial_deck": [c.hex() for c in table.points],
            "passes": passes,
            "opened_labels": opened,
        },
    }


def signature_vectors() -> dict[str, Any]:
    cases = [
        # RFC 8032 section 7.1, TEST 1 and TEST 2: checks this Ed25519 is the standard one.
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", b""),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb", b"\x72"),
        (bytes(range(32)).hex(), b"p2pfish signed message v1"),
        (fixed_bytes("identity seed").hex(), encoding.length_prefixed(b"p2pfish/msg/v1", SESSION_ID)),
    ]
    vectors = []
    for seed_hex, message in cases:
        identity = Identity.from_seed(bytes.fromhex(seed_hex))
        vectors.append(
            {
                "seed": seed_hex,
                "public_key": identity.public_bytes.hex(),
                "fingerprint": identity.fingerprint,
                "message": message.hex(),
                "signature": identity.sign(message).hex(),
            }
        )
    return {
        "algorithm": "Ed25519 (RFC 8032), raw 32-byte keys",
        "fingerprint": "hex(SHA-256(public_key)[:8])",
        "signatures": vectors,
    }


def main() -> None:
    VECTORS.mkdir(parents=True, exist_ok=True)
    for name, build in (
        ("crypto_commitment.json", commitment_vectors),
        ("crypto_randomness.json", randomness_vectors),
        ("crypto_deck.json", deck_vectors),
        ("crypto_signature.json", signature_vectors),
    ):
        (VECTORS / name).write_text(json.dumps(build(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {VECTORS / name}")


if __name__ == "__main__":
    main()
