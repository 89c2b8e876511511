"""Write protocol/vectors/crypto_*.json from fixed inputs: `.venv/bin/python scripts/make_crypto_vectors.py`.

Every input is a constant or derived from a constant by SHA-256, so the output never changes unless the
constructions do; tests/test_crypto_vectors.py checks the code still reproduces every value. The one
exception is the proofs of crypto_deck.json, whose masks are fresh randomness (as in play): that file is
written only when it is missing or with --deck, and the test checks every proof verifies, and that every
deterministic value (card points, decks, lock and key points) is reproduced.
Byte strings, scalars and 64-bit stream words are lowercase hex; randbelow's n and draws are decimal strings,
so no JSON reader loses precision.
"""

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from p2pfish.crypto import commitment, encoding, proven_deck, randomness, secp256k1
from p2pfish.crypto.identity import Identity

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
SESSION_ID = bytes.fromhex("5e55105e55105e55105e55105e55105e")
DECK_LABELS = ("AS", "KH", "QD", "JC")
DECK_SEATS = 2


def fixed_bytes(name: str) -> bytes:
    return hashlib.sha256(b"p2pfish test vector " + name.encode()).digest()


def fixed_key(name: str) -> int:
    return 1 + int.from_bytes(fixed_bytes(name), "big") % (secp256k1.GROUP_ORDER - 1)


def key_hex(k: int) -> str:
    return secp256k1.scalar_to_bytes(k).hex()


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


def deck_vectors() -> dict[str, Any]:
    labels = [*DECK_LABELS, "10S", "fish/red/1", "colour tile: blue"]
    points = [{"label": label, "point": proven_deck.card_point(label).hex()} for label in labels]
    table = proven_deck.CardTable(DECK_LABELS)
    cards = table.points
    passes: list[dict[str, Any]] = []
    lock_keys = {seat: fixed_key(f"lock key seat {seat}") for seat in range(DECK_SEATS)}
    permutations = {0: (2, 0, 3, 1), 1: (3, 2, 1, 0)}
    locks = []
    for seat in range(DECK_SEATS):
        context = f"vector lock seat {seat}".encode()
        lock = proven_deck.make_lock_pass(context, cards, lock_keys[seat], permutations[seat])
        step = {"kind": "lock", "seat": seat, "context": context.hex(), "key": key_hex(lock_keys[seat])}
        step |= {"permutation": list(permutations[seat]), "pass": lock.to_wire()}
        passes.append(step)
        locks.append(lock)
        cards = lock.cards
    card_keys = {
        seat: [fixed_key(f"card key seat {seat} position {j}") for j in range(len(cards))] for seat in range(DECK_SEATS)
    }
    for seat in range(DECK_SEATS):
        context = f"vector rekey seat {seat}".encode()
        rekey = proven_deck.make_rekey_pass(context, cards, lock_keys[seat], card_keys[seat])
        step = {"kind": "rekey", "seat": seat, "context": context.hex(), "lock_key": key_hex(lock_keys[seat])}
        step |= {"card_keys": [key_hex(k) for k in card_keys[seat]], "pass": rekey.to_wire()}
        passes.append(step)
        cards = rekey.cards
    opened = [
        proven_deck.open_card(card, [card_keys[seat][j] for seat in range(DECK_SEATS)], table)
        for j, card in enumerate(cards)
    ]
    return {
        "curve": "secp256k1; points as 33-byte SEC1 compressed, scalars as 32 bytes big-endian",
        "hash_to_point": "x = H('p2pfish/hash-to-point/v1', lp(tag, fields...), u32(counter)); first 02||x on curve",
        "card_point_tag": proven_deck.TAG_CARD_POINT.decode(),
        "card_points": points,
        "generators": [secp256k1.point_bytes(proven_deck.shuffle_generator(i)).hex() for i in (-1, 0, 1, 2, 3)],
        "tiny_deck": {
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
    builds = [
        ("crypto_commitment.json", commitment_vectors),
        ("crypto_randomness.json", randomness_vectors),
        ("crypto_signature.json", signature_vectors),
    ]
    if "--deck" in sys.argv or not (VECTORS / "crypto_deck.json").exists():
        builds.append(("crypto_deck.json", deck_vectors))
    for name, build in builds:
        (VECTORS / name).write_text(json.dumps(build(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {VECTORS / name}")


if __name__ == "__main__":
    main()
