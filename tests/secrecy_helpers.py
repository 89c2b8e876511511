"""Checks that no peer could open another seat's commitment before its reveal, by following in
order everything the peer holds: its own secrets and every message it received."""

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from p2pfish.core.wire import Json, Scalar
from p2pfish.crypto.commitment import check_opening
from p2pfish.crypto.encoding import encode_scalar
from p2pfish.session.envelope import open_envelope
from p2pfish.tools.match import MatchTable


class CommitmentWatch:
    """Fails as soon as the peer `reader` holds a 32-byte string that, with one of the possible
    `values`, opens a commitment of another seat that is not yet revealed."""

    def __init__(self, session_id: bytes, reader: int, values: Sequence[Scalar]) -> None:
        self.session_id, self.reader = session_id, reader
        self.values = [encode_scalar(value) for value in values]
        self.nonces: set[bytes] = set()
        self.open: dict[tuple[int, str], bytes] = {}
        self.commitments_seen = 0

    def read(self, raw: bytes) -> None:
        envelope = open_envelope(raw)
        action = envelope.body.get("action")
        if envelope.seat != self.reader and isinstance(action, dict):
            key = (envelope.seat, str(action.get("purpose")))
            if action.get("t") == "commit":
                self.open[key] = bytes.fromhex(str(action["digest"]))
                self.commitments_seen += 1
                for nonce in self.nonces:
                    self.check(key, nonce)
            elif action.get("t") == "reveal":
                self.open.pop(key, None)
        self.learn(envelope.body)

    def learn(self, value: object) -> None:
        for text in strings(value):
            if len(text) == 64 and (nonce := bytes.fromhex(text)) not in self.nonces:
                self.nonces.add(nonce)
                for key in self.open:
                    self.check(key, nonce)

    def check(self, key: tuple[int, str], nonce: bytes) -> None:
        seat, purpose = key
        for value in self.values:
            opens = check_opening(self.open[key], self.session_id, seat, purpose, value=value, nonce=nonce)
            assert not opens, f"seat {self.reader} could open seat {seat}'s {purpose} before its reveal"


def watch_store(path: str, session_id: bytes, reader: int, values: Sequence[Scalar], *, until_end: bool) -> int:
    """Replay one peer's store through a CommitmentWatch (up to the first end message if
    `until_end`: there every secret is opened on purpose); returns the commitments seen."""
    with sqlite3.connect(path) as db:
        secrets = [(name, json.loads(record)) for name, record in db.execute("SELECT name, record FROM secrets")]
        received = [bytes(row[0]) for row in db.execute("SELECT raw FROM messages ORDER BY n")]
    assert all(name.startswith(("secret/", "rand/", "net/", "deck/", "card/")) for name, _ in secrets)
    watch = CommitmentWatch(session_id, reader, values)
    for _, record in secrets:
        watch.learn(record)
    for raw in received:
        if until_end and open_envelope(raw).body.get("type") == "end":
            break
        watch.read(raw)
    return watch.commitments_seen


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def finished_match(
    game: str, players: int, kinds: Sequence[str], seed: int, folder: Path, *, timeout_s: float
) -> tuple[MatchTable, list[dict[str, Json]]]:
    """A match of real peer processes played to its end in `folder`, and every peer's result."""
    table = MatchTable(game, players, list(kinds), seed, folder)
    table.start()
    try:
        results = table.results(timeout_s)
    finally:
        table.stop_all()
    finished = [r for r in results if r is not None and r["finished"]]
    assert len(finished) == players, results
    return table, finished
