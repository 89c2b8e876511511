"""Helpers for tests/test_fuzz.py: example counts, JSON and byte mutators, and frozen mid-game sessions.

- `fuzz_settings(n)`: hypothesis settings running `n` examples, times the campaign's scale
  (campaign.py; scripts/fuzz runs 40x); `count(target)` tallies the
  cases that really ran, per target, for the report scripts/fuzz prints;
- strategies: JSON values without floats, raw JSON tokens a strict reader must refuse (NaN, 1.5, -0,
  a duplicated key, an escaped letter), structure-aware mutations of a JSON value, byte mutations;
- `Point`: a MemoryTable game stopped mid-way, seen from one seat (the victim), with the honest messages
  still in flight to it, every honest message so far, each seat's own chain head, and the victim's
  honest view before and after those in-flight messages (`honest_view`, `wire_view`);
- `clone`: an independent copy of a live session, so every example starts from the same point.
"""

import copy
import functools
import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from campaign import examples, pick
from conformance_helpers import random_table
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from session_helpers import Snapshot, snapshot

from p2pfish.core.actions import Action, Commit, SecretChoice
from p2pfish.core.wire import Json
from p2pfish.crypto.identity import Identity
from p2pfish.games.registry import get_rules
from p2pfish.session.envelope import MAX_DEPTH, MAX_MESSAGE_BYTES, canonical, open_envelope
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session
from p2pfish.session.setup import GameSetup

# --- example counts ----------------------------------------------------------------------------------

REPORT_VARIABLE = "P2PFISH_FUZZ_REPORT"
"""If set, test_fuzz.py writes the cases it ran, per target, as JSON to this file (scripts/fuzz reads it)."""


def fuzz_settings(examples_count: int) -> settings:
    """`examples_count` cases in the default run, times the campaign's scale (campaign.py) in a campaign."""
    return examples(examples_count, HealthCheck.data_too_large, HealthCheck.filter_too_much)


COUNTS: Counter[str] = Counter()
"""Cases run per target in this process (shrinking and replays of failures included)."""


def count(target: str) -> None:
    COUNTS[target] += 1


# --- JSON values ---------------------------------------------------------------------------------------

INTERESTING_INTS = (0, 1, -1, 2, 3, 5, 8, 9, 51, 52, 255, 256, 2**31, 2**32, 2**63 - 1, 2**63, -(2**63) - 1, 2**64)
HUGE_INTS = (2**256, 2**256 - 1, 10**100, -(10**300), 10**1000)
INTERESTING_TEXT = (
    "",
    "a1",
    "b2",
    "c3",
    "d4",
    "AS",
    "10H",
    "QD",
    "1S",
    "round-1",
    "deck/1",
    "cat/1",
    "rand/0:start",
    "act",
    "end",
    "chat",
    "stop",
    "timeout",
    "violation",
    "00" * 32,
    "ff" * 32,
    "FF" * 32,
    "0" * 63,
    "00" * 64,
    "é",
    "\u00e9\u0301",
    "\U0001f600",
    "\ud800",
    "\udfff\ud800",
    "\x00",
    "\x7f",
    "a/b",
    '"',
    "\\",
    "\u2028",
    "\ufeff",
)
KEYS = st.sampled_from(
    [
        "t",
        "type",
        "turn",
        "action",
        "nonce",
        "card_keys",
        "digest",
        "contribution",
        "cards",
        "commitments",
        "keys",
        "log",
        "outcome",
        "openings",
        "pass",
        "text",
        "seat",
        "kind",
        "reason",
        "evidence",
        "purpose",
        "value",
        "values",
        "spot",
        "target",
        "source",
        "slot",
        "slots",
        "x",
        "y",
        "tiles",
        "pond",
        "deck",
        "position",
        "label",
        "fish",
        "card",
        "session",
        "prev",
        "seq",
        "sig",
        "body",
        "mac",
        "have",
    ]
) | st.text(max_size=6)

INTS = st.sampled_from(INTERESTING_INTS) | st.integers(-3, 60) | st.integers(-(2**70), 2**70)
"""Integers a canonical encoder takes (HUGE_INTS up to 1001 digits come in through mutations)."""
TEXT = st.sampled_from(INTERESTING_TEXT) | st.text(max_size=16)
LEAVES = st.none() | st.booleans() | INTS | TEXT


@functools.cache
def json_values(max_leaves: int = 12) -> st.SearchStrategy[Json]:
    """Any JSON value (no floats: a canonical encoder writes them, a receiver refuses them)."""
    return st.recursive(
        LEAVES,
        lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
        max_leaves=max_leaves,
    )


RAW_MARK = "\x00raw:"
RAW_TOKENS = (
    "NaN",
    "Infinity",
    "-Infinity",
    "1.5",
    "1.0",
    "-0.0",
    "1e2",
    "1E400",
    "-0",
    "01",
    "+1",
    "0x10",
    "1" * 4400,
    '"\\u0041"',
    '"\\/"',
    '"\\u00E9"',
    '"\xe9"',
    '"\\ud800"',
    "[1,]",
    '{"a":1,"a":2}',
    "[ 1]",
    "tru",
    "nul",
    "'a'",
    '"\\x41"',
    '"\t"',
)
"""Spellings a strict canonical reader must refuse or re-encode differently, spliced into a message as
raw text (a JSON string leaf RAW_MARK + index marks the place)."""


@functools.cache
def raw_token() -> st.SearchStrategy[str]:
    return st.integers(0, len(RAW_TOKENS) - 1).map(lambda i: f"{RAW_MARK}{i}\x01")


def splice_raw_tokens(text: str) -> str:
    """Replace every intact raw-token marker (as json.dumps writes it) by its raw text."""

    def token(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return RAW_TOKENS[index] if index < len(RAW_TOKENS) else match.group(0)

    return re.sub(r'"\\u0000raw:(\d+)\\u0001"', token, text)


def subtrees(value: Json) -> list[Json]:
    """Every value inside `value` (itself included), without recursion."""
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        out.append(item)
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def depth(value: Json) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


MUTATIONS = ("delete", "replace", "retype", "tweak", "nest", "add", "swap", "raw", "big")


def _tweak(draw: st.DrawFn, value: Json) -> Json:
    if isinstance(value, bool):
        flipped: list[Json] = [not value, int(value), str(value).lower()]
        return draw(st.sampled_from(flipped))
    if isinstance(value, int):
        return draw(
            st.sampled_from([value + 1, value - 1, -value, -1, 2**32 + value, *HUGE_INTS]) | st.integers(-2, 60)
        )
    if isinstance(value, str):
        ops: list[Callable[[str], str]] = [
            lambda s: s.upper(),
            lambda s: s[:-1],
            lambda s: s + "0",
            lambda s: " " + s,
            lambda s: s + "\ud800",
            lambda s: s[::-1],
            lambda s: s.replace("0", "1", 1) if "0" in s else s + "1",
            lambda s: s.replace("a", "\u0430", 1),
            lambda s: "",
        ]
        return draw(st.sampled_from(ops))(value)
    if isinstance(value, list):
        reverse = bool(value) and draw(st.booleans())
        return value[::-1] if reverse else [*value, *value]
    if isinstance(value, dict):
        return {}
    leaf: Json = draw(LEAVES)
    return leaf


def _retype(draw: st.DrawFn, value: Json) -> Json:
    if isinstance(value, str):
        candidates: list[Json] = [[value], {"t": value}, len(value), value.encode("utf-8", "replace").hex(), None]
    elif isinstance(value, bool):
        candidates = [int(value), str(value), [value]]
    elif isinstance(value, int):
        candidates = [str(value), value > 0, [value], {"value": value}, None, hex(value)]
    elif isinstance(value, list):
        candidates = [{str(i): v for i, v in enumerate(value)}, json.dumps(value), len(value), None]
    elif isinstance(value, dict):
        candidates = [list(value.values()), list(value), json.dumps(value, default=str), None, True]
    else:
        candidates = [0, "", [], {}, False, "null"]
    return draw(st.sampled_from(candidates))


@st.composite
def mutated_json(draw: st.DrawFn, value: Json, pool: tuple[Json, ...] = (), raw: bool = False) -> Json:
    """`value` with 1 to 4 structure-aware mutations at random places: a field dropped, added or
    replaced, a value of another JSON type, off by one, huge, nested deeply, swapped for a real value
    from `pool` (type confusion with plausible values), a very long string, or (`raw`) a raw token."""
    root: list[Json] = [copy.deepcopy(value)]
    for _ in range(draw(st.integers(1, 4))):
        places: list[tuple[Any, Any]] = [(root, 0)]
        stack: list[Json] = [root[0]]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                places.extend((item, key) for key in item)
                stack.extend(item.values())
            elif isinstance(item, list):
                places.extend((item, index) for index in range(len(item)))
                stack.extend(item)
        container, key = pick(draw, places)
        current = container[key]
        kinds = [m for m in MUTATIONS if (raw or m != "raw") and (pool or m != "swap")]
        kind = draw(st.sampled_from(kinds))
        if kind == "delete" and container is not root:
            del container[key]
        elif kind == "replace" or (kind == "delete" and container is root):
            container[key] = draw(json_values(6))
        elif kind == "retype":
            container[key] = _retype(draw, current)
        elif kind == "tweak":
            container[key] = _tweak(draw, current)
        elif kind == "nest":
            nested = current
            for _ in range(draw(st.sampled_from([1, 2, MAX_DEPTH - 3, MAX_DEPTH, MAX_DEPTH + 2, 40]))):
                nested = [nested] if draw(st.booleans()) else {"x": nested}
            container[key] = nested
        elif kind == "add":
            if isinstance(current, dict):
                current[draw(KEYS)] = draw(json_values(4))
            elif isinstance(current, list):
                current.insert(draw(st.integers(0, len(current))), draw(json_values(4)))
            else:
                container[key] = [current, draw(json_values(2))]
        elif kind == "swap":
            container[key] = copy.deepcopy(pick(draw, pool))
        elif kind == "raw":
            container[key] = draw(raw_token())
        else:  # "big": a value that makes the message longer than the size limit
            container[key] = "x" * draw(st.sampled_from([MAX_MESSAGE_BYTES // 2, MAX_MESSAGE_BYTES + 1]))
    return root[0]


def pool_of(messages: list[bytes], limit: int = 400) -> tuple[Json, ...]:
    """Real values (every subtree of every body) to swap in: plausible but misplaced."""
    values: dict[str, Json] = {}
    for raw in messages:
        for item in subtrees(open_envelope(raw).body):
            values.setdefault(canonical(item).decode(), item)
    ordered = sorted(values.items(), key=lambda kv: (len(kv[0]), kv[0]))
    rng = random.Random(len(ordered))
    picked = ordered[:100] + rng.sample(ordered[100:], min(limit - 100, max(0, len(ordered) - 100)))
    return tuple(value for _, value in picked)


# --- serialising JSON, strictly and loosely ------------------------------------------------------------


@st.composite
def serialised(draw: st.DrawFn, value: Json) -> tuple[bytes, bool]:
    """Bytes for `value` and whether they are its canonical form (raw tokens spliced in either way)."""
    style = draw(st.sampled_from(["canonical", "canonical", "canonical", "spaced", "unsorted", "utf8", "dupe"]))
    if style == "canonical":
        text = canonical(value).decode()
    elif style == "spaced":
        text = json.dumps(value, sort_keys=True)
    elif style == "unsorted":
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    elif style == "utf8":
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    else:
        text = canonical(value).decode()
        if text.startswith("{") and len(text) > 2:
            text = '{"seat":0,' + text[1:]
    spliced = splice_raw_tokens(text)
    encoding = draw(st.sampled_from(["utf-8"] * 6 + ["utf-16", "utf-32", "latin-1"]))
    data = spliced.encode(encoding, "surrogatepass" if encoding != "latin-1" else "replace")
    exact = style == "canonical" and spliced == text and encoding == "utf-8"
    return data, exact


# --- byte mutations --------------------------------------------------------------------------------------

STRUCTURAL = b'0123456789abcdef{}[]",:-. \\ntefalsu'


@st.composite
def mutated_bytes(draw: st.DrawFn, raw: bytes, others: tuple[bytes, ...] = ()) -> bytes:
    """`raw` with 1 to 6 byte-level changes: bit flips, insertions, deletions, structural characters,
    truncation, a repeated or reversed slice, a splice with another message."""
    data = bytearray(raw)
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            data.extend(draw(st.binary(min_size=1, max_size=8)))
            continue
        kind = draw(st.sampled_from(["flip", "insert", "delete", "replace", "truncate", "repeat", "reverse", "splice"]))
        index = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[index] ^= 1 << draw(st.integers(0, 7))
        elif kind == "insert":
            data[index:index] = draw(st.binary(min_size=1, max_size=4))
        elif kind == "delete":
            del data[index : index + draw(st.integers(1, 8))]
        elif kind == "replace":
            data[index] = draw(st.sampled_from(STRUCTURAL))
        elif kind == "truncate":
            del data[index:]
        elif kind == "repeat":
            end = min(len(data), index + draw(st.integers(1, 64)))
            data[index:index] = data[index:end] * draw(st.integers(1, 3))
        elif kind == "reverse":
            end = min(len(data), index + draw(st.integers(2, 16)))
            data[index:end] = data[index:end][::-1]
        elif others:
            other = draw(st.sampled_from(others))
            cut = draw(st.integers(0, len(other)))
            data[index:] = other[cut:]
    return bytes(data)


# --- live sessions ---------------------------------------------------------------------------------------

GAMES = {"fishnstones": 3, "kunayala": 2, "fishfish": 3, "kingfish": 2}
"""Each game and the seats it is fuzzed with (small tables keep the mental-poker decks cheap)."""

IN_FLIGHT = 2
"""How many honest messages must be on their way to the victim at a stop."""
MID_TURN = {"fishnstones": 18, "kunayala": 40, "fishfish": 30, "kingfish": 30}


def signers(players: int) -> list[Identity]:
    return [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(players)]


def clone(session: Session) -> Session:
    """A deep copy that shares what is immutable or must stay one object (rules, signer, setup, the
    rules state, the card tables, signed messages, log entries), so the copy behaves exactly as the
    original would, and costs a few milliseconds."""
    shared: list[object] = [session.rules, session._signer, session.setup, session.state, *session.log]
    shared += [deck.table for deck in session.decks.values()]
    for chain in session.chains:
        shared += [*chain.accepted, *chain.ahead.values()]
    return copy.deepcopy(session, {id(obj): obj for obj in shared})


HonestView = Snapshot
"""What a bad message must not change: the game as the victim has applied it."""
honest_view = snapshot


def wire_view(session: Session) -> tuple[Any, ...]:
    """What the victim holds of the other seats' messages and of the turn under way (its own
    messages left out: a clone draws fresh random contributions of its own)."""
    me = session.seat
    chains = tuple(
        (c.seat, c.next_seq, c.head, tuple(sorted(c.ahead)), tuple(e.hash for e in c.ready))
        for c in session.chains
        if c.seat != me
    )
    published = tuple(sorted((name, tuple(sorted(d.published.items()))) for name, d in session.decks.items()))
    return (
        chains,
        tuple(sorted((s, e.hash) for s, e in session._pending.items() if s != me)),
        tuple(sorted((s, v) for s, v in session._rand_commits.items() if s != me)),
        tuple(sorted((s, v) for s, v in session._rand_reveals.items() if s != me)),
        tuple(sorted((s, e.hash) for s, e in session._ends.items() if s != me)),
        published,
        tuple(sorted(session._sent)),
        len(session._reports),
    )


def consistent(session: Session, before: HonestView) -> None:
    """The victim's game went on only by the rules: its log extends the one it had, and replaying the
    whole log through the rules gives its state."""
    assert tuple(session.log[: len(before.log)]) == before.log, "an applied action was undone or rewritten"
    rules = get_rules(session.setup.game)
    state = rules.new_game(session.setup.players, session.setup.option_map)
    for entry in session.log:
        state = rules.apply(state, entry.seat, entry.action)
    assert state == session.state
    assert session.turn >= before.turn


@dataclass(frozen=True, repr=False, eq=False)
class Point:
    """A game stopped mid-way, seen by `seat`. `base` is never touched: each example clones it."""

    game: str
    label: str
    setup: GameSetup
    signers: tuple[Identity, ...]
    seat: int
    base: Session
    in_flight: tuple[tuple[int, bytes], ...]
    """(via, message) of every honest message still on its way to the victim, in send order."""
    honest: frozenset[bytes]
    """Every message any seat has signed so far."""
    heads: tuple[tuple[int, bytes], ...]
    """Each seat's own (next seq, chain head): where its next honest message would go."""
    before: HonestView
    wire_before: tuple[Any, ...]
    after: HonestView
    """The victim's honest view once the in-flight messages are in (an untouched twin)."""
    wire_after: tuple[Any, ...]
    moves: dict[int, tuple[dict[str, Json], ...]]
    """The wire forms of the moves open to each other seat the victim awaits at its turn, if that seat
    is due to decide and has not yet (a secret choice as a commitment to it)."""

    def __repr__(self) -> str:
        return f"Point({self.game}, {self.label}, seat {self.seat}, turn {self.base.turn})"

    @property
    def players(self) -> int:
        return self.setup.players

    def others(self) -> list[int]:
        return [s for s in range(self.players) if s != self.seat]

    @functools.cached_property
    def awaited(self) -> list[int]:
        """The other seats whose messages the victim's current turn waits for."""
        return [s for s in self.base.waiting_for() if s != self.seat]

    @functools.cached_property
    def accepted(self) -> list[bytes]:
        """The messages the victim holds (of every seat, its own included)."""
        return list(self.base.accepted)

    @functools.cached_property
    def coming(self) -> list[bytes]:
        """The messages in flight to the victim."""
        return [raw for _, raw in self.in_flight]

    @functools.cached_property
    def corpus(self) -> list[bytes]:
        return sorted(self.honest)

    @functools.cached_property
    def by_author(self) -> dict[int, list[bytes]]:
        out: dict[int, list[bytes]] = {seat: [] for seat in range(self.players)}
        for raw in self.corpus:
            out[open_envelope(raw).seat].append(raw)
        return out

    @functools.cached_property
    def pool(self) -> tuple[Json, ...]:
        return pool_of(self.corpus)


def deliver_all(session: Session, in_flight: tuple[tuple[int, bytes], ...]) -> None:
    for via, raw in in_flight:
        session.receive(raw, via)


def _freeze(game: str, label: str, table: MemoryTable, ids: list[Identity], seat: int) -> Point:
    base = clone(table.sessions[seat])
    in_flight = tuple((via, raw) for to, via, raw in table.in_flight if to == seat)
    honest = {raw for session in table.sessions for raw in session.accepted} | {raw for _, _, raw in table.in_flight}
    heads = tuple((s.chains[i].next_seq, s.chains[i].head) for i, s in enumerate(table.sessions))
    moves: dict[int, tuple[dict[str, Json], ...]] = {}
    for other in table.sessions:
        decision = other.decision()
        awaited = other.seat in base.waiting_for() and other.turn == base.turn
        if other.seat is not None and other.seat != seat and decision is not None and awaited:
            moves[other.seat] = tuple(_wire_form(action) for action in decision[1])
    twin = clone(base)
    deliver_all(twin, in_flight)
    assert base.fault is None and twin.fault is None, (base.fault, twin.fault)
    return Point(
        game,
        label,
        table.setup,
        tuple(ids),
        seat,
        base,
        in_flight,
        frozenset(honest),
        heads,
        honest_view(base),
        wire_view(base),
        honest_view(twin),
        wire_view(twin),
        moves,
    )


def _wire_form(action: Action) -> dict[str, Json]:
    if isinstance(action, SecretChoice):
        return Commit(action.purpose, hashlib.sha256(repr(action).encode()).digest()).to_wire()
    return action.to_wire()


@functools.cache
def points(game: str) -> tuple[Point, ...]:
    for seed in range(7, 17):
        found = _points(game, seed)
        if found is not None:
            return found
    raise AssertionError(f"{game}: no game had every stop with messages in flight")


def _points(game: str, seed: int) -> tuple[Point, ...] | None:
    """Four stops of one honest game of `game`, each with messages in flight to the seat it is seen by:
    early (the first draws or the shuffle, seen by seat 0), mid-game (seen by seat 1), a decision (the
    victim awaits the move of another seat that has yet to make it), and the end turn (every seat
    signing the log, seen by the first seat to get there)."""
    players = GAMES[game]
    ids = signers(players)
    table = random_table(game, players, seed)
    rules = get_rules(game)
    everyone = tuple(range(players))

    def deciding(victim: Session) -> bool:
        """Another seat is due to decide the move the victim waits for, and has not yet."""
        return any(
            other.seat != victim.seat and other.decision() is not None and other.turn == victim.turn
            for other in table.sessions
            if other.seat in victim.waiting_for()
        )

    wanted: list[tuple[str, tuple[int, ...], Callable[[Session], bool], int]] = [
        ("early", (0,), lambda s: s.turn >= 1, IN_FLIGHT),
        ("mid", (1,), lambda s: s.turn >= MID_TURN[game], IN_FLIGHT),
        ("decision", everyone, lambda s: s.turn >= MID_TURN[game] // 2 and deciding(s), 1),
        ("end", everyone, lambda s: rules.outcome(s.state) is not None and not s.finished, IN_FLIGHT),
    ]
    found: list[Point] = []
    table.start()
    while wanted and table.step():
        label, seats, ready, in_flight = wanted[0]
        for seat in seats:
            if sum(to == seat for to, _, _ in table.in_flight) >= in_flight and ready(table.sessions[seat]):
                found.append(_freeze(game, label, table, ids, seat))
                wanted.pop(0)
                break
    return None if wanted else tuple(found)


# --- action wire forms -----------------------------------------------------------------------------------

SAMPLE_ACTIONS: dict[str, tuple[dict[str, Json], ...]] = {
    "fishnstones": (
        {"t": "bait", "target": "a1", "source": "a2"},
        {"t": "nobait"},
        {"t": "fish", "spot": "b2"},
        {"t": "fish", "spot": None},
    ),
    "kunayala": (
        {"t": "own", "slot": 0, "x": 0, "y": 0},
        {"t": "other", "slot": 1, "seat": 1, "x": -1, "y": 2},
        {"t": "octopus", "x": 0, "y": 1},
        {"t": "discard", "slots": [0, 3]},
    ),
    "fishfish": ({"t": "bait", "value": 2}, {"t": "bait", "value": 5}, {"t": "bet", "tiles": 0}),
    "kingfish": (
        {"t": "pond", "pond": 0},
        {"t": "line", "deck": "round-1", "position": 3, "label": "AS"},
        {"t": "bait", "position": 4},
        {"t": "catch", "fish": "QH"},
        {"t": "keep", "card": "10D"},
    ),
}
CORE_ACTIONS: tuple[dict[str, Json], ...] = (
    {"t": "chance", "values": [0, "a1", 3]},
    {"t": "commit", "purpose": "cat/1", "digest": "ab" * 32},
    {"t": "reveal", "purpose": "cat/1", "value": 2},
    {"t": "reveal", "purpose": "peche/1", "value": "prise"},
    {"t": "reveal-card", "deck": "round-1", "position": 7, "label": "KS"},
)


@functools.cache
def action_corpus(game: str) -> tuple[dict[str, Json], ...]:
    """Valid wire forms of `game`: samples of every tag, and every action applied in its fuzz games."""
    seen: dict[bytes, dict[str, Json]] = {}
    for wire in (*SAMPLE_ACTIONS[game], *CORE_ACTIONS):
        seen.setdefault(canonical(wire), wire)
    for point in points(game):
        for raw in point.corpus:
            body = open_envelope(raw).body
            action = body.get("action")
            if body.get("type") == "act" and isinstance(action, dict):
                seen.setdefault(canonical(action), action)
    return tuple(seen[key] for key in sorted(seen))


@functools.cache
def action_pool(game: str) -> tuple[Json, ...]:
    """Every value inside the valid wire forms of `game`."""
    return tuple(value for wire in action_corpus(game) for value in subtrees(wire))
