"""The audit `p2pfish match` makes while a game is played (p2pfish/tools/live_audit.py): it follows the host's
store as it grows, and its verdict is the whole transcript's audit, or nothing where the two could differ."""

import os
import random
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from conformance_helpers import wait_for

from p2pfish.bots.random_bot import RandomBot
from p2pfish.crypto.identity import Identity
from p2pfish.games.fishnstones.rules import RULES
from p2pfish.session.audit import audit
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore, SqliteStore, Store
from p2pfish.tools.live_audit import LiveAudit
from p2pfish.tools.match import all_verified

WAIT_S = 20.0


def host_store(folder: Path, name: str = "0123456789abcdef-seat0.sqlite") -> SqliteStore:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return SqliteStore(folder / name, new=True)


def table_of(store: Store, seed: int = 5) -> MemoryTable:
    signers = [Identity.from_seed(bytes([seat + 1]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("ann", "bob"))
    rng = random.Random(seed)
    return MemoryTable(setup, signers, [RandomBot(rng), RandomBot(rng)], rules=RULES, stores=[store, MemoryStore()])


def test_it_follows_the_store_while_the_game_is_played_and_gives_the_transcripts_audit(tmp_path: Path) -> None:
    folder = tmp_path / "p2pfish"
    store = host_store(folder)
    table = table_of(store)
    live = LiveAudit(folder, RULES)
    live.start()
    try:
        table.start()
        followed_midway = False
        while table.step():
            store.commit()
            if len(table.sessions[0].accepted) >= 30 and not followed_midway:
                wait_for(lambda: len(live.fed) >= 30, WAIT_S, "the live audit to read the store")
                followed_midway = True
        assert followed_midway and table.sessions[0].finished
        store.sync()
        lines = table.sessions[0].transcript()
        assert live.finish(lines) == audit(lines, RULES)
        assert audit(lines, RULES).verified
        assert 30 <= len(live.fed) <= len(lines) - 1
    finally:
        live.stop()
        store.close()


def finished_game(tmp_path: Path) -> tuple[LiveAudit, list[bytes]]:
    """A live audit that read a whole finished game's store, and the host's transcript of it."""
    folder = tmp_path / "p2pfish"
    store = host_store(folder)
    table = table_of(store)
    table.run()
    store.close()
    lines = table.sessions[0].transcript()
    return read_whole(folder, len(lines) - 1), lines


def read_whole(folder: Path, messages: int) -> LiveAudit:
    """A live audit started on the store under `folder`, once it has read its `messages` messages."""
    live = LiveAudit(folder, RULES)
    live.start()
    wait_for(lambda: len(live.fed) == messages, WAIT_S, "the live audit to read the store")
    return live


def swapped(lines: list[bytes]) -> list[bytes]:
    return [lines[0], lines[2], lines[1], *lines[3:]]


def shortened(lines: list[bytes]) -> list[bytes]:
    return lines[:-1]  # shorter than what the store showed


def reheaded(lines: list[bytes]) -> list[bytes]:
    header = lines[0].replace(b'"bob"', b'"cy"')  # another game's header
    assert header != lines[0]
    return [header, *lines[1:]]


@pytest.mark.parametrize("change", [swapped, shortened, reheaded], ids=lambda change: change.__name__)
def test_a_transcript_that_does_not_begin_with_what_was_read_is_left_to_the_whole_audit(
    tmp_path: Path, change: Callable[[list[bytes]], list[bytes]]
) -> None:
    live, lines = finished_game(tmp_path)
    assert live.finish(change(lines)) is None


def test_a_tampered_tail_is_caught_as_the_whole_audit_catches_it(tmp_path: Path) -> None:
    folder = tmp_path / "p2pfish"
    store = host_store(folder)
    table = table_of(store)
    table.start()
    while len(table.sessions[0].accepted) < 30 and table.step():
        store.commit()
    live = LiveAudit(folder, RULES)
    live.start()
    wait_for(lambda: len(live.fed) >= 30, WAIT_S, "the live audit to read the store")
    live.stop()  # the rest of the game comes from the transcript alone
    table.settle()
    store.close()
    lines = table.sessions[0].transcript()
    tampered = [*lines[:-1], lines[-1].replace(b'"seq":', b'"seq": ', 1)]
    whole = audit(tampered, RULES)
    assert not whole.verified
    assert live.finish(tampered) == whole


@pytest.mark.parametrize("stores", [0, 2])
def test_no_store_or_two_candidate_stores_give_nothing_and_the_thread_ends(tmp_path: Path, stores: int) -> None:
    folder = tmp_path / "p2pfish"
    folder.mkdir(mode=0o700)
    for number in range(stores):
        host_store(folder, f"{number:016x}-seat0.sqlite").close()
    live = LiveAudit(folder, RULES)
    live.start()
    table = table_of(MemoryStore())
    table.run()
    assert live.finish(table.sessions[0].transcript()) is None
    assert not live.following


@pytest.mark.parametrize("setup_text", ['{"game": 1}', "[" * 100_000, "not json"])
def test_a_store_whose_setup_cannot_be_read_gives_nothing_without_a_traceback(
    tmp_path: Path, setup_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "p2pfish"
    path = folder / "0123456789abcdef-seat0.sqlite"
    host_store(folder).close()
    with sqlite3.connect(path) as database:
        database.execute("INSERT OR REPLACE INTO setup VALUES (0, ?, 0)", (setup_text,))
    uncaught: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", uncaught.append)
    live = LiveAudit(folder, RULES)
    live.start()
    wait_for(lambda: live.failed, WAIT_S, "the live audit to give up")
    table = table_of(MemoryStore())
    table.run()
    assert live.finish(table.sessions[0].transcript()) is None
    assert not uncaught


def test_a_store_that_is_not_a_regular_file_is_not_opened(tmp_path: Path) -> None:
    folder = tmp_path / "p2pfish"
    folder.mkdir(mode=0o700)
    os.mkfifo(folder / "0123456789abcdef-seat0.sqlite")  # opening it would block for ever
    live = LiveAudit(folder, RULES)
    live.start()
    wait_for(lambda: not live.following, WAIT_S, "the live audit to give up")
    assert live.failed and live.finish([b"{}"]) is None


def test_a_row_no_honest_peer_stores_ends_the_head_start(tmp_path: Path) -> None:
    folder = tmp_path / "p2pfish"
    store = host_store(folder)
    table = table_of(store)
    table.run()
    store.close()
    with sqlite3.connect(folder / "0123456789abcdef-seat0.sqlite") as database:
        database.execute("INSERT INTO messages (raw) VALUES (?)", (10**9,))  # bytes(10**9) would be a gigabyte
    live = LiveAudit(folder, RULES)
    live.start()
    wait_for(lambda: not live.following, WAIT_S, "the live audit to give up")
    assert live.failed and live.finish(table.sessions[0].transcript()) is None


def test_a_second_store_appearing_while_it_follows_ends_the_head_start(tmp_path: Path) -> None:
    live, lines = finished_game(tmp_path)
    host_store(tmp_path / "p2pfish", "fedcba9876543210-seat0.sqlite").close()  # an earlier or a later game's?
    wait_for(lambda: not live.following, WAIT_S, "the live audit to give up")
    assert live.failed and live.finish(lines) is None


def test_the_audit_is_finished_once_and_judges_every_transcript_with_the_others(tmp_path: Path) -> None:
    live, lines = finished_game(tmp_path)
    host, other = tmp_path / "seat0.jsonl", tmp_path / "seat1.jsonl"
    host.write_bytes(b"\n".join(lines))
    other.write_bytes(b"\n".join([lines[0], *reversed(lines[1:])]))  # the same messages: one verdict for both
    assert all_verified([str(host), str(other)], RULES, live)
    assert live.finish(lines) is None  # finished once, by all_verified
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(b"\n".join([*lines[:-1], lines[-1].replace(b'"seq":', b'"seq": ', 1)]))
    live = read_whole(tmp_path / "p2pfish", len(lines) - 1)  # the same game's store, followed again
    assert not all_verified([str(host), str(tampered)], RULES, live)
    assert live.finish(lines) is None  # the host's transcript was judged by it
