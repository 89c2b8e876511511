"""A peer that crashes mid-game is rebuilt from its store with Session.resume and finishes the game with
everyone else, reusing its stored secrets and messages (it never signs a second, different message).

"""

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from session_helpers import (
    Crash,
    CrashingMemoryStore,
    CrashingSqliteStore,
    Net,
    action_tag,
    body_of,
    envelope_of,
    identities,
    random_players,
    replay_outcome,
    snapshot,
)

from p2pfish.core.errors import MalformedInput
from p2pfish.core.player import Decision
from p2pfish.games.fishnstones.rules import RULES, Bait
from p2pfish.games.registry import get_rules
from p2pfish.session import bodies
from p2pfish.session.core import MAX_WAITING
from p2pfish.session.memory_table import MemoryTable
from p2pfish.session.session import Session, stored_setup
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore, SqliteStore, Store


def crash_and_resume(net: Net, seat: int, store: Store | None = None) -> tuple[list[bytes], Session]:
    """Drop `seat`'s session (and every message on its way to it), rebuild it from `store` (default: its
    store as it is), and have everyone resend their own messages. Returns (what it had signed, new)."""
    old = net.sessions[seat]
    signed_before = [envelope.raw for envelope in old.chains[seat].accepted]  # its store may be closed: a crash
    net.in_flight = [message for message in net.in_flight if message[0] != seat]
    store = net.stores[seat] if store is None else store
    net.stores[seat] = store
    session = Session.resume(store, net.ids[seat], rules=get_rules(stored_setup(store)[0].game))
    net.sessions[seat] = session
    net.collect(seat)
    for other in range(net.players):
        if other != seat:
            for raw in net.sessions[other].own_messages():
                net.in_flight.append((seat, other, raw))
    for raw in session.own_messages():
        net.send(seat, raw)
    return signed_before, session


def check_finished(net: Net, resumed: int, signed_before: list[bytes], lost: bytes | None = None) -> None:
    net.run()
    first = net.sessions[0]
    for session in net.sessions:
        assert session.fault is None, session.fault
        assert session.finished
        assert session.outcome() == first.outcome()
        assert session.log == first.log
        assert session.log_hash == first.log_hash
    assert replay_outcome(net.setup, first.log) == first.outcome()
    own = net.sessions[resumed].own_messages()
    # never a second, different message with a seq it had already signed
    assert own[: len(signed_before)] == signed_before
    if lost is not None:
        assert envelope_of(lost).seq == len(signed_before)
        assert own[len(signed_before)] == lost, "after the crash it signed a different message at the same seq"
    # and the others hold exactly its chain
    for session in net.sessions:
        assert session.chains[resumed].accepted[-1].raw == own[-1]


# --- crash between two steps -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_resume_after_a_crash_at_a_random_point(seed: int) -> None:
    players = 3 if seed % 2 else 4
    net = Net(players, 100 + seed, duplicate=0.05)
    net.start()
    for _ in range(net.rng.randrange(10, 200)):
        if not net.step():
            break
    seat = seed % players
    before = snapshot(net.sessions[seat])
    signed_before, session = crash_and_resume(net, seat)
    assert snapshot(session) == before
    assert session.own_messages() == signed_before
    assert session.fault is None
    check_finished(net, seat, signed_before)


def last_own(net: Net, seat: int) -> bytes | None:
    own = net.sessions[seat].own_messages()
    return own[-1] if own else None


MOMENTS: dict[str, Callable[[Net, int], bool]] = {
    # it revealed its contribution to a fill (committing to the next draw's) and waits for the others' reveals
    "mid-chance-turn": lambda net, seat: (
        net.sessions[seat].turn > 0
        and (raw := last_own(net, seat)) is not None
        and body_of(raw)["type"] == "rand-reveal"
        and body_of(raw)["turn"] == net.sessions[seat].turn
    ),
    # it committed to its cat and has not revealed it yet
    "after-cat-commit": lambda net, seat: (raw := last_own(net, seat)) is not None and action_tag(raw) == "commit",
    # it committed and baited (its bait must stay consistent with the column it later reveals)
    "after-bait": lambda net, seat: (raw := last_own(net, seat)) is not None and action_tag(raw) in ("bait", "nobait"),
}


@pytest.mark.parametrize("moment", sorted(MOMENTS))
@pytest.mark.parametrize("seed", range(2))
def test_resume_at_a_chosen_moment(moment: str, seed: int) -> None:
    net = Net(3, 200 + seed)
    net.start()
    seat = 1 + seed
    skip = net.rng.randrange(0, 3)  # not always the first time the moment comes

    def moment_reached(net: Net) -> bool:
        return MOMENTS[moment](net, seat)

    for _ in range(skip + 1):
        assert net.run(until=moment_reached)
        if _ < skip:
            net.run(until=lambda n: not moment_reached(n))
    old = net.sessions[seat]
    before = snapshot(old)
    if moment != "mid-chance-turn":
        assert old.state.cats[seat] is None  # not revealed yet
    signed_before, session = crash_and_resume(net, seat)
    assert snapshot(session) == before
    assert session.known() == old.known()
    check_finished(net, seat, signed_before)


# --- crash between storing a secret and sending the message that commits to it --------------------


@pytest.mark.parametrize("secret", ["secret/cat/", "rand/"])
@pytest.mark.parametrize("seed", range(2))
def test_resume_after_a_crash_between_saving_a_secret_and_sending(secret: str, seed: int) -> None:
    seat = 2
    stores: list[Store] = [MemoryStore(), MemoryStore(), CrashingMemoryStore()]
    net = Net(3, 300 + seed, stores=stores)
    crashing = stores[seat]
    assert isinstance(crashing, CrashingMemoryStore)
    net.start()
    net.run(until=lambda n: n.sessions[seat].turn >= 3 + 9 * seed)
    crashing.armed_prefix = secret
    with pytest.raises(Crash):
        net.run()
    lost = crashing.lost
    assert lost is not None
    assert lost not in crashing.messages
    assert any(name.startswith(secret) for name in crashing.secrets)
    # the peer may have signed a few messages in the same call before the crash: they are in its store
    signed_before = [raw for raw in crashing.messages if envelope_of(raw).seat == seat]
    # a rand secret is the first draw's contribution (its rand-commit) or the next draw's (a reveal carries it)
    assert body_of(lost)["type"] in (("act",) if secret == "secret/cat/" else ("rand-commit", "rand-reveal"))
    crash_and_resume(net, seat)
    check_finished(net, seat, signed_before, lost)


# --- on disk ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_resume_from_sqlite_after_closing_and_reopening(tmp_path: Path, seed: int) -> None:
    seat = 0
    path = tmp_path / "peer.sqlite"
    stores: list[Store] = [SqliteStore(path), MemoryStore(), MemoryStore()]
    net = Net(3, 400 + seed, duplicate=0.1, stores=stores)
    net.start()
    for _ in range(net.rng.randrange(20, 150)):
        net.step()
    before = snapshot(net.sessions[seat])
    store = stores[seat]
    assert isinstance(store, SqliteStore)
    store.close()
    reopened = SqliteStore(path)
    signed_before, session = crash_and_resume(net, seat, reopened)
    assert snapshot(session) == before
    check_finished(net, seat, signed_before)
    # the finished game is on disk too: a second resume finds it finished and sends nothing new
    signed = net.sessions[seat].own_messages()
    reopened.close()
    again = Session.resume(SqliteStore(path), net.ids[seat], rules=get_rules(stored_setup(SqliteStore(path))[0].game))
    assert again.finished
    assert again.outcome() == net.sessions[0].outcome()
    assert again.own_messages() == signed
    assert again.take_outbox() == []


@pytest.mark.parametrize("secret", ["secret/cat/", "rand/"])
def test_sqlite_crash_between_saving_a_secret_and_sending(tmp_path: Path, secret: str) -> None:
    seat = 1
    path = tmp_path / "peer.sqlite"
    crashing = CrashingSqliteStore(path)
    net = Net(3, 500, stores=[MemoryStore(), crashing, MemoryStore()])
    net.start()
    net.run(until=lambda n: n.sessions[seat].turn >= 2)
    crashing.armed_prefix = secret
    with pytest.raises(Crash):
        net.run()
    lost = crashing.lost
    assert lost is not None
    crashing.close()
    reopened = SqliteStore(path)
    assert lost not in reopened.load_messages()
    signed_before = [raw for raw in reopened.load_messages() if envelope_of(raw).seat == seat]
    crash_and_resume(net, seat, reopened)
    check_finished(net, seat, signed_before, lost)


def cut_unsynced_tail(path: Path, seat: int) -> list[bytes]:
    """What a power cut may take from a closed store: the other seats' messages stored after the seat's own
    last message (they were committed without a sync; every batch with an own message was synced). Returns
    the messages it took."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        rows = db.execute("SELECT n, raw FROM messages ORDER BY n").fetchall()
        own = [n for n, raw in rows if envelope_of(bytes(raw)).seat == seat]
        tail = [(n, bytes(raw)) for n, raw in rows if n > max(own, default=0)]
        db.execute("DELETE FROM messages WHERE n > ?", (max(own, default=0),))
    finally:
        db.close()
    return [raw for _, raw in tail]


@pytest.mark.parametrize("seed", range(3))
def test_a_received_tail_lost_to_a_power_cut_is_fetched_again_from_the_others(tmp_path: Path, seed: int) -> None:
    seat = 1
    path = tmp_path / "peer.sqlite"
    stores: list[Store] = [MemoryStore(), SqliteStore(path), MemoryStore()]
    net = Net(3, 450 + seed, duplicate=0.05, stores=stores)
    net.start()
    net.run(
        until=lambda n: (
            len(n.sessions[seat].accepted) >= 30
            and n.sessions[seat].accepted[-1] not in set(n.sessions[seat].own_messages())
        )
    )
    store = stores[seat]
    assert isinstance(store, SqliteStore)
    store.close()
    lost = cut_unsynced_tail(path, seat)
    assert lost, "the peer had received nothing since its own last message"
    reopened = SqliteStore(path)
    assert not set(lost) & set(reopened.load_messages())
    signed_before, session = crash_and_resume(net, seat, reopened)
    assert session.own_messages() == signed_before
    check_finished(net, seat, signed_before)
    assert set(lost) <= set(net.sessions[seat].accepted)
    reopened.close()
    assert set(lost) <= set(SqliteStore(path).load_messages())


def test_a_batch_of_received_messages_is_committed_without_a_sync_and_an_own_write_with_one(tmp_path: Path) -> None:
    """The sync is fixed when a batch begins: an own write into a batch of received ones commits those first,
    and its own batch is synced (a peer's own secret and message are on disk before they leave)."""
    store = SqliteStore(tmp_path / "s.sqlite")
    modes: list[int] = []
    store.save_received(b"theirs")
    modes.append(store._db.execute("PRAGMA synchronous").fetchone()[0])
    store.save_secret("rand/0", {"contribution": "00"})
    modes.append(store._db.execute("PRAGMA synchronous").fetchone()[0])
    store.save_message(b"mine")
    store.commit()
    store.save_received(b"theirs again")
    modes.append(store._db.execute("PRAGMA synchronous").fetchone()[0])
    store.commit()
    assert modes == [1, 2, 1]  # NORMAL, FULL, NORMAL
    store.close()
    assert SqliteStore(tmp_path / "s.sqlite").load_messages() == [b"theirs", b"mine", b"theirs again"]


def committed_messages(path: Path) -> list[bytes]:
    """What another process reading the store sees: committed rows only."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [bytes(row[0]) for row in db.execute("SELECT raw FROM messages ORDER BY n")]
    finally:
        db.close()


def test_every_way_an_own_message_leaves_the_peer_commits_it_first(tmp_path: Path) -> None:
    """The outbox, the resend of the seat's own messages after a (re)connect, and a resend to a lagging peer."""
    ids = identities(2)
    setup = GameSetup.create("fishnstones", {}, tuple(i.public_bytes for i in ids), ("a", "b"))
    ways: list[Callable[[Session], list[bytes]]] = [
        lambda session: session.take_outbox(),
        lambda session: session.own_messages(),
        lambda session: session.chain_messages(0, 0, 64),
    ]
    for number, way in enumerate(ways):
        path = tmp_path / f"{number}.sqlite"
        session = Session(setup, 0, ids[0], SqliteStore(path), rules=get_rules(setup.game))
        session.start()
        assert committed_messages(path) == []  # signed, not yet on its way
        sent = way(session)
        assert sent and set(sent) <= set(committed_messages(path))


class SyncCounting(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.synced_at: list[int] = []

    def sync(self) -> None:
        self.synced_at.append(len(self.messages))


def test_the_store_is_synced_once_when_the_game_finishes() -> None:
    """The others may leave once this peer's heartbeats show it holds everything: what it received last is put on
    disk then, since nobody would be left to send it again."""
    stores = [SyncCounting(), SyncCounting()]
    table = MemoryTable(
        make_setup_of(2), identities(2), random_players(2, random.Random(3)), stores=stores, rules=RULES
    )
    table.run()
    for store, session in zip(stores, table.sessions, strict=True):
        assert session.finished
        assert store.synced_at == [len(session.accepted)]


def make_setup_of(players: int) -> GameSetup:
    ids = identities(players)
    return GameSetup.create(
        "fishnstones", {}, tuple(i.public_bytes for i in ids), tuple(f"p{s}" for s in range(players))
    )


def test_sqlite_store_round_trips_setup_secrets_and_messages(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = SqliteStore(path)
    assert store.load_setup() is None
    store.save_setup({"game": "fishnstones", "n": [1, 2]}, 3)
    store.save_secret("secret/cat/1", {"value": 2, "nonce": "ab"})
    store.save_secret("secret/cat/1", {"value": 3, "nonce": "cd"})
    for raw in (b"one", b"two", b"one"):
        store.save_message(raw)
    store.close()
    store = SqliteStore(path)
    assert store.load_setup() == ({"game": "fishnstones", "n": [1, 2]}, 3)
    assert store.load_secrets() == {"secret/cat/1": {"value": 3, "nonce": "cd"}}
    assert store.load_messages() == [b"one", b"two", b"one"]
    store.close()


def test_a_store_of_another_game_or_seat_is_refused() -> None:
    net = Net(2, 650)
    net.start()
    store = net.stores[0]
    with pytest.raises(MalformedInput):
        Session(net.setup, 1, net.ids[1], store, rules=get_rules(net.setup.game))
    other = Net(2, 651)
    with pytest.raises(MalformedInput):
        Session(other.setup, 0, net.ids[0], store, rules=get_rules(other.setup.game))


def test_resume_of_an_empty_store_is_refused() -> None:
    with pytest.raises(MalformedInput):
        Session.resume(MemoryStore(), None, rules=get_rules(stored_setup(MemoryStore())[0].game))


def test_observer_resumes_too() -> None:
    net = Net(2, 600)
    net.start()
    net.run()
    store = MemoryStore()
    observer = Session(net.setup, None, None, store, rules=get_rules(net.setup.game))
    for raw in net.sessions[0].accepted:
        observer.receive(raw)
    assert observer.finished
    again = Session.resume(store, None, rules=get_rules(stored_setup(store)[0].game))
    assert again.finished
    assert again.log == observer.log


def test_a_peer_that_caught_a_cheater_still_blames_it_after_a_restart() -> None:
    cheater = 1
    net = Net(3, 700)

    def far_bait(net: Net, session: Session, decision: Decision) -> bool:
        if session.state.phase != "bait":
            net.default(cheater, decision)
            return True
        target = 0  # a1: c3 is never next to it
        net.emit_as(cheater, bodies.act(session.turn, Bait(target, 8).to_wire()))
        return True

    net.overrides[cheater] = far_bait
    net.start()
    net.run()
    for seat in (0, 2):
        fault = net.sessions[seat].fault
        assert fault is not None and (fault.seat, fault.kind) == (cheater, "illegal")
        again = Session.resume(net.stores[seat], net.ids[seat], rules=get_rules(stored_setup(net.stores[seat])[0].game))
        assert again.fault is not None
        assert (again.fault.seat, again.fault.kind, again.fault.evidence) == (cheater, "illegal", fault.evidence)
        assert snapshot(again) == snapshot(net.sessions[seat])


def test_a_long_game_resumes_without_calling_anyone_a_flood() -> None:
    """Resuming reads the whole store before the turn machine runs, so every author's messages wait at once:
    far more than an honest seat can have waiting in play. That is no flood (a Kuna Yala game of two holds
    more than 256 messages of a seat with five single-fish cards a colour)."""
    ids = identities(2)
    more_cards = {"singles": "9"}
    setup = GameSetup.create("kunayala", more_cards, tuple(i.public_bytes for i in ids), ("alice", "bob"))
    table = MemoryTable(
        setup, ids, random_players(2, random.Random(2)), rng=random.Random(2), rules=get_rules(setup.game)
    )
    table.run(max_deliveries=200_000)
    first = table.sessions[0]
    assert first.finished and max(len(chain.accepted) for chain in first.chains) > MAX_WAITING
    resumed = Session.resume(table.stores[0], ids[0], rules=get_rules(stored_setup(table.stores[0])[0].game))
    assert resumed.fault is None and resumed.finished


def test_a_store_closed_twice_closes_once(tmp_path: Path) -> None:
    """The game's end closes a finished game's store before removing it, and the run closes it again after."""
    store = SqliteStore(tmp_path / "twice.sqlite", new=True)
    store.save_received(b"a message")
    store.close()
    store.close()
    assert SqliteStore(tmp_path / "twice.sqlite").load_messages() == [b"a message"]
