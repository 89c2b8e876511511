"""The mental-poker deck, every pass proven: SRA-style commutative encryption on secp256k1 points.

1. The initial deck is the card point of each label, in the given order (CardTable).
2. Lock pass of each seat in turn: a secret key k and permutation π, out[i] = k·in[π(i)], published with
   K = k·G and a shuffle proof that out is in, permuted and multiplied by the k of K (ShuffleProof).
3. Re-key pass of each seat in turn: a fresh key k_j per position replaces k, out[j] = (k_j/k)·in[j],
   published with every key point C_j = k_j·G and a proof that k·out[j] = k_j·in[j] for every j (RekeyProof).
4. The card at position j opens with every seat's k_j; a published k_j is checked against C_j at once.
Every peer checks every proof when the pass arrives, so a dishonest pass is blamed before any card of the
deck is dealt. protocol/CRYPTO.md §5 gives the exact bytes and the soundness argument.
"""

import functools
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from p2pfish.core.errors import MalformedInput, ProtocolViolation
from p2pfish.core.wire import Json, as_object, field, hex_bytes
from p2pfish.crypto import secp256k1 as curve
from p2pfish.crypto.encoding import encode_text, encode_u32, tagged_hash
from p2pfish.crypto.secp256k1 import GROUP_ORDER, Point

TAG_CARD_POINT = b"p2pfish/card-point/v2"
TAG_GENERATOR = b"p2pfish/shuffle-generator/v1"
TAG_SHUFFLE = b"p2pfish/shuffle-proof/v1"
TAG_REKEY = b"p2pfish/rekey-proof/v1"
CHALLENGE_BITS = 128
MAX_DECK = 160
"""The largest deck whose lock pass with its proof fits in one message."""
CARD_POINT_CACHE = 4096

Deck = tuple[bytes, ...]
"""A deck on the wire: one 33-byte compressed point per position."""


@functools.lru_cache(maxsize=CARD_POINT_CACHE)
def card_point(label: str) -> bytes:
    """The card's point: hash_to_point(TAG_CARD_POINT, utf8(label)); its discrete log is unknown to all."""
    return curve.point_bytes(curve.hash_to_point(TAG_CARD_POINT, encode_text(label)))


@functools.lru_cache(maxsize=MAX_DECK + 1)
def shuffle_generator(index: int) -> Point:
    """h_index of the permutation commitments (index -1: the product argument's base H)."""
    name = b"H" if index < 0 else encode_u32(index)
    return curve.hash_to_point(TAG_GENERATOR, name)


class CardTable:
    """The labels of a deck, their points in deck order, and the way back from a point to its label."""

    def __init__(self, labels: Sequence[str]) -> None:
        if len(set(labels)) != len(labels):
            raise MalformedInput("card labels must be distinct (number the copies of a card)")
        if not 2 <= len(labels) <= MAX_DECK:
            raise MalformedInput(f"a deck holds 2 to {MAX_DECK} cards, not {len(labels)}")
        self.labels: tuple[str, ...] = tuple(labels)
        self.points: Deck = tuple(card_point(label) for label in labels)
        self._label_of = dict(zip(self.points, self.labels, strict=True))

    def __len__(self) -> int:
        return len(self.labels)

    def label_of(self, point: bytes) -> str | None:
        return self._label_of.get(point)


def new_key() -> int:
    return curve.random_scalar()


def new_card_keys(count: int) -> tuple[int, ...]:
    return tuple(curve.random_scalar() for _ in range(count))


def new_permutation(size: int) -> tuple[int, ...]:
    """A uniform secret permutation of range(size)."""
    order = list(range(size))
    secrets.SystemRandom().shuffle(order)
    return tuple(order)


# --- the proofs ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """Proof that a lock pass is its input permuted and multiplied by the k of K = k·G (CRYPTO.md §5.4)."""

    commitments: Deck
    """c_j = r_j·G + h_{π⁻¹(j)}: a commitment to column j of the permutation matrix, one per input card."""
    chain: Deck
    """ĉ_1 … ĉ_N with ĉ_0 = H and ĉ_{i+1} = r̂_i·G + e'_i·ĉ_i: the product of the permuted challenges."""
    challenge: int
    r_bar: int
    t: int
    r_hat: tuple[int, ...]
    e_prime: tuple[int, ...]
    k: int
    big_r: int

    def to_wire(self) -> dict[str, Json]:
        return {
            "commitments": [c.hex() for c in self.commitments],
            "chain": [c.hex() for c in self.chain],
            "challenge": _scalar_hex(self.challenge),
            "r_bar": _scalar_hex(self.r_bar),
            "t": _scalar_hex(self.t),
            "r_hat": [_scalar_hex(s) for s in self.r_hat],
            "e_prime": [_scalar_hex(s) for s in self.e_prime],
            "k": _scalar_hex(self.k),
            "big_r": _scalar_hex(self.big_r),
        }

    @classmethod
    def from_wire(cls, wire: Json, size: int, seat: int) -> "ShuffleProof":
        obj = as_object(wire, "a shuffle proof")
        _only(obj, {"commitments", "chain", "challenge", "r_bar", "t", "r_hat", "e_prime", "k", "big_r"}, seat)
        return cls(
            _points(field(obj, "commitments"), size, "commitments", seat),
            _points(field(obj, "chain"), size, "chain", seat),
            _scalar(field(obj, "challenge"), seat),
            _scalar(field(obj, "r_bar"), seat),
            _scalar(field(obj, "t"), seat),
            _scalars(field(obj, "r_hat"), size, seat),
            _scalars(field(obj, "e_prime"), size, seat),
            _scalar(field(obj, "k"), seat),
            _scalar(field(obj, "big_r"), seat),
        )


@dataclass(frozen=True, slots=True)
class RekeyProof:
    """Proof that k·out[j] = k_j·in[j] for every j, with K = k·G and C_j = k_j·G (CRYPTO.md §5.5)."""

    challenge: int
    k: int
    keys: tuple[int, ...]

    def to_wire(self) -> dict[str, Json]:
        keys: list[Json] = [_scalar_hex(s) for s in self.keys]
        return {"challenge": _scalar_hex(self.challenge), "k": _scalar_hex(self.k), "keys": keys}

    @classmethod
    def from_wire(cls, wire: Json, size: int, seat: int) -> "RekeyProof":
        obj = as_object(wire, "a re-key proof")
        _only(obj, {"challenge", "k", "keys"}, seat)
        keys = _scalars(field(obj, "keys"), size, seat)
        return cls(_scalar(field(obj, "challenge"), seat), _scalar(field(obj, "k"), seat), keys)


@dataclass(frozen=True, slots=True)
class LockPass:
    """What a seat publishes for its lock-and-shuffle pass."""

    cards: Deck
    lock_point: bytes
    """K = k·G."""
    proof: ShuffleProof

    def to_wire(self) -> dict[str, Json]:
        return {"cards": [c.hex() for c in self.cards], "lock_point": self.lock_point.hex(), **self.proof.to_wire()}

    @classmethod
    def from_wire(cls, wire: Json, size: int, seat: int) -> "LockPass":
        obj = dict(as_object(wire, "a lock pass"))
        cards = _distinct_points(obj.pop("cards", None), size, seat)
        lock_point = _points([obj.pop("lock_point", None)], 1, "lock_point", seat)[0]
        return cls(cards, lock_point, ShuffleProof.from_wire(obj, size, seat))


@dataclass(frozen=True, slots=True)
class RekeyPass:
    """What a seat publishes for its re-key pass."""

    cards: Deck
    key_points: Deck
    """C_j = k_j·G: the public check of the key the seat will publish for position j."""
    proof: RekeyProof

    def to_wire(self) -> dict[str, Json]:
        points: list[Json] = [c.hex() for c in self.key_points]
        return {"cards": [c.hex() for c in self.cards], "key_points": points, **self.proof.to_wire()}

    @classmethod
    def from_wire(cls, wire: Json, size: int, seat: int) -> "RekeyPass":
        obj = dict(as_object(wire, "a re-key pass"))
        cards = _distinct_points(obj.pop("cards", None), size, seat)
        key_points = _points(obj.pop("key_points", None), size, "key_points", seat)
        return cls(cards, key_points, RekeyProof.from_wire(obj, size, seat))


def make_lock_pass(context: bytes, inp: Deck, key: int, permutation: Sequence[int]) -> LockPass:
    """out[i] = key·inp[permutation[i]], with K = key·G and the shuffle proof, bound to `context`."""
    size = len(inp)
    if sorted(permutation) != list(range(size)):
        raise MalformedInput(f"the lock pass needs a permutation of range({size})")
    xs = [curve.point_from_bytes(x) for x in inp]
    ys = [curve.mul(key, xs[source]) for source in permutation]
    cards = tuple(curve.point_bytes(y) for y in ys)
    lock_point = curve.point_bytes(curve.mul_gen(key))
    inverse = [0] * size
    for i, source in enumerate(permutation):
        inverse[source] = i
    r = [curve.random_scalar() for _ in range(size)]
    commitments = tuple(
        curve.point_bytes(curve.add(curve.mul_gen(r[j]), shuffle_generator(inverse[j]))) for j in range(size)
    )
    seed = _shuffle_seed(context, inp, cards, lock_point, commitments)
    e = _challenges(seed, size)
    e_prime = [e[permutation[i]] for i in range(size)]
    r_hat = [curve.random_scalar() for _ in range(size)]
    chain_points: list[Point] = []
    previous, big_r = shuffle_generator(-1), 0
    for i in range(size):
        previous = curve.add(curve.mul_gen(r_hat[i]), curve.mul(e_prime[i], previous))
        chain_points.append(previous)
        big_r = (r_hat[i] + e_prime[i] * big_r) % GROUP_ORDER
    chain = tuple(curve.point_bytes(c) for c in chain_points)
    witness = _ShuffleWitness(
        r_bar=sum(r) % GROUP_ORDER,
        t=sum(ej * rj for ej, rj in zip(e, r, strict=True)) % GROUP_ORDER,
        r_hat=r_hat,
        e_prime=e_prime,
        k=key,
        big_r=big_r,
    )
    x_bar = _weighted_sum(e, xs)
    masks = _ShuffleWitness(
        r_bar=curve.random_scalar(),
        t=curve.random_scalar(),
        r_hat=[curve.random_scalar() for _ in range(size)],
        e_prime=[curve.random_scalar() for _ in range(size)],
        k=curve.random_scalar(),
        big_r=curve.random_scalar(),
    )
    bases = [shuffle_generator(-1), *chain_points[:-1]]
    announcements = [
        curve.mul_gen(masks.r_bar),
        curve.add(curve.mul_gen(masks.t), *(curve.mul(w, shuffle_generator(i)) for i, w in enumerate(masks.e_prime))),
        *(curve.add(curve.mul_gen(masks.r_hat[i]), curve.mul(masks.e_prime[i], bases[i])) for i in range(size)),
        curve.mul_gen(masks.big_r),
        curve.mul_gen(masks.k),
        curve.add(*(curve.mul(w, y) for w, y in zip(masks.e_prime, ys, strict=True)), _neg(curve.mul(masks.k, x_bar))),
    ]
    challenge = _scalar_challenge(seed, chain, announcements)

    def respond(mask: int, secret: int) -> int:
        return (mask + challenge * secret) % GROUP_ORDER

    proof = ShuffleProof(
        commitments,
        chain,
        challenge,
        respond(masks.r_bar, witness.r_bar),
        respond(masks.t, witness.t),
        tuple(respond(m, w) for m, w in zip(masks.r_hat, witness.r_hat, strict=True)),
        tuple(respond(m, w) for m, w in zip(masks.e_prime, witness.e_prime, strict=True)),
        respond(masks.k, witness.k),
        respond(masks.big_r, witness.big_r),
    )
    return LockPass(cards, lock_point, proof)


def verify_lock_pass(context: bytes, inp: Deck, lock: LockPass, seat: int) -> None:
    """Raise ProtocolViolation(seat) unless `lock` is `inp` permuted and multiplied by the k of its K."""
    try:
        valid = _shuffle_valid(context, inp, lock)
    except (ValueError, MalformedInput):
        valid = False
    if not valid:
        raise ProtocolViolation("its lock pass is not the previous deck shuffled under one key (the proof fails)", seat)


def _shuffle_valid(context: bytes, inp: Deck, lock: LockPass) -> bool:
    size, proof = len(inp), lock.proof
    if not len(lock.cards) == len(proof.commitments) == len(proof.chain) == size or len(set(lock.cards)) != size:
        return False
    xs = [curve.point_from_bytes(x) for x in inp]
    ys = [curve.point_from_bytes(y) for y in lock.cards]
    cs = [curve.point_from_bytes(c) for c in proof.commitments]
    chain = [curve.point_from_bytes(c) for c in proof.chain]
    big_k = curve.point_from_bytes(lock.lock_point)
    seed = _shuffle_seed(context, inp, lock.cards, lock.lock_point, proof.commitments)
    e = _challenges(seed, size)
    minus = GROUP_ORDER - proof.challenge
    product = 1
    for ej in e:
        product = product * ej % GROUP_ORDER
    column_sum = curve.add(*cs, _neg(curve.add(*(shuffle_generator(i) for i in range(size)))))
    bases = [shuffle_generator(-1), *chain[:-1]]
    announcements = [
        curve.add(curve.mul_gen(proof.r_bar), curve.mul(minus, column_sum)),
        curve.add(
            curve.mul_gen(proof.t),
            *(curve.mul(s, shuffle_generator(i)) for i, s in enumerate(proof.e_prime)),
            curve.mul(minus, _weighted_sum(e, cs)),
        ),
        *(
            curve.add(curve.mul_gen(proof.r_hat[i]), curve.mul(proof.e_prime[i], bases[i]), curve.mul(minus, chain[i]))
            for i in range(size)
        ),
        curve.add(
            curve.mul_gen(proof.big_r),
            curve.mul(minus, curve.add(chain[-1], _neg(curve.mul(product, shuffle_generator(-1))))),
        ),
        curve.add(curve.mul_gen(proof.k), curve.mul(minus, big_k)),
        curve.add(
            *(curve.mul(s, y) for s, y in zip(proof.e_prime, ys, strict=True)),
            _neg(curve.mul(proof.k, _weighted_sum(e, xs))),
        ),
    ]
    return _scalar_challenge(seed, proof.chain, announcements) == proof.challenge


def make_rekey_pass(context: bytes, inp: Deck, lock_key: int, card_keys: Sequence[int]) -> RekeyPass:
    """out[j] = (card_keys[j]·lock_key⁻¹)·inp[j], with C_j = card_keys[j]·G and the proof, bound to `context`."""
    if len(card_keys) != len(inp):
        raise MalformedInput(f"the re-key pass needs {len(inp)} card keys, not {len(card_keys)}")
    unlock = curve.inverse(lock_key)
    xs = [curve.point_from_bytes(x) for x in inp]
    ys = [curve.mul(k_j * unlock % GROUP_ORDER, x) for k_j, x in zip(card_keys, xs, strict=True)]
    cards = tuple(curve.point_bytes(y) for y in ys)
    key_points = tuple(curve.point_bytes(curve.mul_gen(k_j)) for k_j in card_keys)
    lock_point = curve.point_bytes(curve.mul_gen(lock_key))
    mask_k = curve.random_scalar()
    masks = [curve.random_scalar() for _ in inp]
    announcements = [curve.mul_gen(mask_k)]
    announcements += [curve.mul_gen(m) for m in masks]
    announcements += [
        curve.add(curve.mul(mask_k, y), _neg(curve.mul(m, x))) for m, x, y in zip(masks, xs, ys, strict=True)
    ]
    challenge = _rekey_challenge(
        context, inp, cards, lock_point=lock_point, key_points=key_points, announcements=announcements
    )
    proof = RekeyProof(
        challenge,
        (mask_k + challenge * lock_key) % GROUP_ORDER,
        tuple((m + challenge * k_j) % GROUP_ORDER for m, k_j in zip(masks, card_keys, strict=True)),
    )
    return RekeyPass(cards, key_points, proof)


def verify_rekey_pass(context: bytes, inp: Deck, lock_point: bytes, rekey: RekeyPass, seat: int) -> None:
    """Raise ProtocolViolation(seat) unless every out[j] is in[j] re-keyed from the lock key of K to C_j's key."""
    try:
        valid = _rekey_valid(context, inp, lock_point, rekey)
    except (ValueError, MalformedInput):
        valid = False
    if not valid:
        raise ProtocolViolation("its re-key pass moved or changed a card (the proof fails)", seat)


def _rekey_valid(context: bytes, inp: Deck, lock_point: bytes, rekey: RekeyPass) -> bool:
    size, proof = len(inp), rekey.proof
    if not len(rekey.cards) == len(rekey.key_points) == len(proof.keys) == size or len(set(rekey.cards)) != size:
        return False
    xs = [curve.point_from_bytes(x) for x in inp]
    ys = [curve.point_from_bytes(y) for y in rekey.cards]
    big_k = curve.point_from_bytes(lock_point)
    key_points = [curve.point_from_bytes(c) for c in rekey.key_points]
    minus = GROUP_ORDER - proof.challenge
    announcements = [curve.add(curve.mul_gen(proof.k), curve.mul(minus, big_k))]
    announcements += [
        curve.add(curve.mul_gen(s), curve.mul(minus, c)) for s, c in zip(proof.keys, key_points, strict=True)
    ]
    announcements += [
        curve.add(curve.mul(proof.k, y), _neg(curve.mul(s, x))) for s, x, y in zip(proof.keys, xs, ys, strict=True)
    ]
    expected = _rekey_challenge(
        context, inp, rekey.cards, lock_point=lock_point, key_points=rekey.key_points, announcements=announcements
    )
    return expected == proof.challenge


def verify_card_key(key_point: bytes, position: int, key: int, seat: int) -> None:
    """Raise ProtocolViolation(seat) unless `key` is the key of `key_point` (key·G == C_j)."""
    if not curve.is_scalar(key) or curve.point_bytes(curve.mul_gen(key)) != key_point:
        raise ProtocolViolation(f"the key published for deck position {position} is not the committed one", seat)


def open_card(ciphertext: bytes, keys: Iterable[int], table: CardTable) -> str | None:
    """The label under `ciphertext`, given every seat's key for its position (None: no card)."""
    combined = 1
    for key in keys:
        combined = combined * key % GROUP_ORDER
    try:
        point = curve.mul(curve.inverse(combined), curve.point_from_bytes(ciphertext))
    except (ValueError, MalformedInput):
        return None
    return table.label_of(curve.point_bytes(point))


# --- helpers -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ShuffleWitness:
    r_bar: int
    t: int
    r_hat: list[int]
    e_prime: list[int]
    k: int
    big_r: int


def _shuffle_seed(context: bytes, inp: Deck, out: Deck, lock_point: bytes, commitments: Deck) -> bytes:
    return tagged_hash(
        TAG_SHUFFLE,
        b"seed",
        context,
        encode_u32(len(inp)),
        b"".join(inp),
        b"".join(out),
        lock_point,
        b"".join(commitments),
    )


def _challenges(seed: bytes, size: int) -> list[int]:
    """e_j in [1, 2^128 - 1] for every input position j."""
    span = (1 << CHALLENGE_BITS) - 1
    return [
        1 + int.from_bytes(tagged_hash(TAG_SHUFFLE, b"e", seed, encode_u32(j))[:16], "big") % span for j in range(size)
    ]


def _scalar_challenge(seed: bytes, chain: Deck, announcements: list[Point]) -> int:
    digest = tagged_hash(TAG_SHUFFLE, b"c", seed, b"".join(chain), *(curve.point_bytes(a) for a in announcements))
    return int.from_bytes(digest, "big") % GROUP_ORDER


def _rekey_challenge(
    context: bytes, inp: Deck, out: Deck, *, lock_point: bytes, key_points: Deck, announcements: list[Point]
) -> int:
    digest = tagged_hash(
        TAG_REKEY,
        context,
        encode_u32(len(inp)),
        b"".join(inp),
        b"".join(out),
        lock_point,
        b"".join(key_points),
        b"".join(curve.point_bytes(a) for a in announcements),
    )
    return int.from_bytes(digest, "big") % GROUP_ORDER


def _weighted_sum(weights: Sequence[int], points: Sequence[Point]) -> Point:
    return curve.add(*(curve.mul(w, p) for w, p in zip(weights, points, strict=True)))


def _neg(point: Point) -> Point:
    encoded = curve.point_bytes(point)
    return curve.point_from_bytes(bytes([encoded[0] ^ 1]) + encoded[1:])


def _scalar_hex(value: int) -> str:
    return curve.scalar_to_bytes(value).hex()


def _only(obj: Mapping[str, Json], allowed: set[str], seat: int) -> None:
    unknown = set(obj) - allowed
    if unknown:
        raise MalformedInput(f"a deck pass has unknown field(s) {', '.join(sorted(unknown))}", seat)


def _scalar(value: Json, seat: int) -> int:
    if not isinstance(value, str):
        raise MalformedInput("a proof scalar must be a hex string", seat)
    number = int.from_bytes(hex_bytes(value, "a proof scalar", curve.SCALAR_BYTES), "big")
    if number >= GROUP_ORDER:
        raise MalformedInput("a proof scalar must be below the group order", seat)
    return number


def _scalars(value: Json, size: int, seat: int) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != size:
        raise MalformedInput(f"a proof must hold {size} scalars here", seat)
    return tuple(_scalar(item, seat) for item in value)


def _points(value: Json, size: int, what: str, seat: int) -> Deck:
    if not isinstance(value, list) or len(value) != size:
        raise MalformedInput(f"{what} must hold {size} curve points", seat)
    points = []
    for item in value:
        if not isinstance(item, str):
            raise MalformedInput(f"{what} must hold hex strings", seat)
        encoded = hex_bytes(item, "a curve point", curve.POINT_BYTES)
        curve.point_from_bytes(encoded, seat)
        points.append(encoded)
    return tuple(points)


def _distinct_points(value: Json, size: int, seat: int) -> Deck:
    cards = _points(value, size, "a deck pass", seat)
    if len(set(cards)) != size:
        raise MalformedInput("its deck pass holds the same card twice", seat)
    return cards
