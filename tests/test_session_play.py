"""Whole games through the session layer: every peer (and an observer) reaches the same log and outcome,
chance comes from the joint randomness, a cat column stays secret until its reveal, chat passes through.

"""

import json
import random
from typing import Any

import pytest
from session_helpers import (
    Net,
    action_tag,
    body_of,
    envelope_of,
    pause_at_bait,
    replay,
    replay_outcome,
    run_table,
    snapshot,
)

from p2pfish.core.actions import Chance, Commit, Reveal
from p2pfish.core.wire import Json, Scalar, str_field
from p2pfish.crypto.commitment import check_opening
from p2pfish.crypto.identity import Identity
from p2pfish.crypto.randomness import contribution_purpose, draw, joint_seed, next_draw_purpose
from p2pfish.games.fishnstones.rules import RULES
from p2pfish.games.registry import get_rules
from p2pfish.session.bodies import hex_field, turn_of
from p2pfish.session.session import ChatReceived, Finished, Session
from p2pfish.session.setup import GameSetup
from p2pfish.session.store import MemoryStore

SEEDS = (0, 1, 2)


def check_agreement(sessions: list[Session]) -> None:
    first = sessions[0]
    for session in sessions:
        assert session.fault is None, session.fault
        assert session.finished
        assert session.outcome() is not None
        assert session.outcome() == first.outcome()
        assert session.log_hash == first.log_hash
        assert session.log == first.log
        assert set(session.accepted) == set(first.accepted)


# --- whole games -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", SEEDS)
def test_full_game_every_peer_agrees(players: int, seed: int) -> None:
    table = run_table(players, seed, duplicate=0.1)
    check_agreement(table.sessions)
    session = table.sessions[0]
    assert replay_outcome(table.setup, session.log) == session.outcome()
    # every peer signed the same log hash and outcome in its end message
    ends = [body_of(raw) for raw in session.accepted if body_of(raw)["type"] == "end"]
    assert len(ends) == players
    assert {end["log"] for end in ends} == {session.log_hash.hex()}
    outcome = session.outcome()
    assert outcome is not None and all(end["outcome"] == outcome.to_wire() for end in ends)
    # every seat revealed four cats, one per round
    reveals = [entry for entry in session.log if isinstance(entry.action, Reveal)]
    assert len(reveals) == 4 * players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_finished_peers_state_is_the_replay_of_the_log(players: int) -> None:
    table = run_table(players, 10 + players)
    for session in table.sessions:
        assert replay(table.setup, session.log) == session.state
        outcome = session.outcome()
        assert outcome is not None and session.take_events()[-1] == Finished(outcome)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", SEEDS)
def test_observer_of_shuffled_transcript_reaches_same_outcome(players: int, seed: int) -> None:
    table = run_table(players, 20 + seed)
    peer = table.sessions[seed % players]
    header, *lines = peer.transcript()
    assert json.loads(header)["setup"] == table.setup.to_wire()
    random.Random(seed).shuffle(lines)
    observer = Session(table.setup, None, None, MemoryStore(), rules=get_rules(table.setup.game))
    for line in lines:
        observer.receive(line)
    assert observer.fault is None, observer.fault
    assert observer.finished
    assert observer.outcome() == peer.outcome()
    assert observer.log == peer.log
    assert observer.log_hash == peer.log_hash
    assert observer.take_outbox() == []


def test_observer_does_not_finish_on_a_partial_transcript() -> None:
    table = run_table(3, 40)
    lines = table.sessions[0].transcript()[1:]
    ends = [line for line in lines if body_of(line)["type"] == "end"]
    observer = Session(table.setup, None, None, MemoryStore(), rules=get_rules(table.setup.game))
    for line in lines:
        if line != ends[-1]:
            observer.receive(line)
    assert observer.fault is None
    assert not observer.finished
    assert observer.outcome() is None
    observer.receive(ends[-1])
    assert observer.finished


# --- chance ----------------------------------------------------------------------------------------


def chance_checks(table_seed: int, players: int) -> list[tuple[str, tuple[Scalar, ...]]]:
    """Check every chance entry against the rand-commit/rand-reveal messages (CRYPTO.md §4, PROTOCOL §10.2):
    the first draw's reveals open the rand-commit commitments of purpose "rand/<event>"; each later draw's
    open the commitments carried (`next`) by the same seat's reveal of the draw before, purpose
    "rand/after/<turn of that draw>"; the draw is the one of seed = H(rand-seed, session_id, "rand/<event>",
    c_0..c_m-1). Returns (request purpose, values)."""
    table = run_table(players, table_seed)
    session = table.sessions[0]
    commits: dict[int, dict[int, bytes]] = {}
    reveals: dict[int, dict[int, tuple[bytes, bytes, bytes]]] = {}
    for raw in session.accepted:
        envelope = envelope_of(raw)
        body = envelope.body
        if body["type"] == "rand-commit":
            commits.setdefault(turn_of(body), {})[envelope.seat] = hex_field(body, "digest")
        elif body["type"] == "rand-reveal":
            reveals.setdefault(turn_of(body), {})[envelope.seat] = (
                hex_field(body, "contribution"),
                hex_field(body, "nonce"),
                hex_field(body, "next"),
            )
    draws = []
    state = RULES.new_game(players, table.setup.option_map)
    previous: int | None = None
    for entry in session.log:
        if entry.seat is None:
            request = RULES.chance(state)
            assert request is not None
            assert isinstance(entry.action, Chance)
            purpose = contribution_purpose(f"{entry.turn}:{request.purpose}")
            assert (entry.turn in commits) == (previous is None), "only the first draw has a commit phase"
            contributions = []
            for seat in range(players):
                contribution, nonce, _ = reveals[entry.turn][seat]
                if previous is None:
                    digest, committed_as = commits[entry.turn][seat], purpose
                else:
                    digest, committed_as = reveals[previous][seat][2], next_draw_purpose(previous)
                assert check_opening(digest, session.session_id, seat, committed_as, value=contribution, nonce=nonce)
                contributions.append(contribution)
            seed = joint_seed(session.session_id, purpose, contributions)
            assert tuple(draw(seed, request.pool, request.count)) == entry.action.values, (
                f"turn {entry.turn}: the draw is not the one of the joint seed of purpose {purpose!r}"
            )
            draws.append((request.purpose, entry.action.values))
            previous = entry.turn
        state = RULES.apply(state, entry.seat, entry.action)
    return draws


# CRYPTO.md §4: the seed's purpose is "rand/<turn>:<purpose>", the first draw's commitments' too.
def test_chance_draws_are_the_joint_randomness_of_the_reveals() -> None:
    draws = chance_checks(50, 3)
    assert [purpose for purpose, _ in draws] == ["start", "fill/1", "fill/2", "fill/3", "fill/4"]


def test_only_the_first_chance_turn_has_a_commit_phase_and_every_turn_one_reveal_per_seat() -> None:
    table = run_table(4, 51)
    session = table.sessions[0]
    chance_turns = [entry.turn for entry in session.log if entry.seat is None]
    assert len(chance_turns) == 5
    for kind, turns in (("rand-commit", chance_turns[:1]), ("rand-reveal", chance_turns)):
        seen = sorted(
            (body_of(raw)["turn"], envelope_of(raw).seat) for raw in session.accepted if body_of(raw)["type"] == kind
        )
        assert seen == sorted((turn, seat) for turn in turns for seat in range(4))


def test_pond_fills_differ_between_games() -> None:
    fills = []
    for seed in range(4):
        session = run_table(2, 60 + seed).sessions[0]
        chances = [entry.action.values for entry in session.log if isinstance(entry.action, Chance)]
        assert len(chances) == 5  # start + four fills
        fills.append(chances[1])
        assert len(set(chances[1:])) == 4, "the four fills of one game must be fresh draws"
    assert len(set(fills)) == len(fills), "two games (different nonces) drew the same first fill"


def test_start_player_is_drawn_by_chance() -> None:
    starts = []
    for seed in range(12):
        table = run_table(3, 70 + seed)
        session = table.sessions[0]
        first = session.log[0]
        assert first.seat is None and first.turn == 0
        assert isinstance(first.action, Chance) and len(first.action.values) == 1
        start = first.action.values[0]
        assert start in range(3)
        assert replay(table.setup, session.log[:1]).start == start
        starts.append(start)
    assert len(set(starts)) > 1, f"twelve games all started with seat {starts[0]}"


def test_fixed_start_option_skips_the_start_draw() -> None:
    table = run_table(3, 80, options={"start": "2"})
    check_agreement(table.sessions)
    session = table.sessions[0]
    chances = [entry for entry in session.log if entry.seat is None]
    assert len(chances) == 4
    assert replay(table.setup, session.log[:1]).start == 2


# --- the cat column stays secret -------------------------------------------------------------------


def action_of(raw: bytes) -> dict[str, Json]:
    """The action object of an act message."""
    action = body_of(raw)["action"]
    assert isinstance(action, dict)
    return action


def unrevealed_cat_nonces(net: Net, owner: int) -> set[str]:
    """The nonces of `owner`'s cat commitments that it has not revealed on the network yet."""
    revealed = {str_field(action_of(raw), "purpose") for raw in net.wire[owner] if action_tag(raw) == "reveal"}
    nonces = set()
    for name, record in net.stores[owner].load_secrets().items():
        if name.startswith("secret/cat/") and name.removeprefix("secret/") not in revealed:
            assert isinstance(record, dict)
            nonces.add(str_field(record, "nonce"))
    return nonces


def test_cat_column_is_secret_until_its_reveal() -> None:
    players = 3
    net = Net(players, 90, duplicate=0.1)
    net.start()
    checked = 0
    seen: list[set[bytes]] = [set() for _ in range(players)]
    """Per peer: the messages stored or on their way to it that were checked already."""
    while net.step():
        for owner in range(players):
            nonces = unrevealed_cat_nonces(net, owner)
            if not nonces:
                continue
            for peer in net.honest(owner):
                store = net.stores[peer]
                # no record of another seat's secret in this peer's store
                assert not nonces & set(json.dumps(store.load_secrets()).split('"'))
                incoming = [*store.load_messages(), *(raw for to, _, raw in net.in_flight if to == peer)]
                for raw in incoming:
                    if raw not in seen[peer]:
                        assert not any(nonce.encode() in raw for nonce in nonces)
                for raw in incoming:
                    seen[peer].add(raw)
                assert net.sessions[peer].view().cats[owner] is None
                checked += 1
    # every peer's stored secrets are its own: each cat record opens that peer's own commitment
    for seat in range(players):
        session = net.sessions[seat]
        store = net.stores[seat]
        cats = {n: r for n, r in store.load_secrets().items() if n.startswith("secret/cat/")}
        assert len(cats) == 4
        for name, record in cats.items():
            purpose = name.removeprefix("secret/")
            assert isinstance(record, dict) and session.opened[(seat, purpose)] == record["value"]
    assert checked > 100
    # the commitments carry only a digest: no value, no nonce
    for raw in net.sessions[0].accepted:
        if action_tag(raw) == "commit":
            body = body_of(raw)
            assert set(body) == {"type", "turn", "action"}
            action = action_of(raw)
            assert set(action) == {"t", "purpose", "digest"}
            digest = action["digest"]
            assert isinstance(digest, str) and len(bytes.fromhex(digest)) == 32
    check_agreement(net.sessions)


def test_commit_entries_in_the_log_hold_only_digests() -> None:
    table = run_table(2, 91)
    commits = [entry.action for entry in table.sessions[0].log if isinstance(entry.action, Commit)]
    assert len(commits) == 8
    assert all(set(commit.to_wire()) == {"t", "purpose", "digest"} for commit in commits)


# --- chat --------------------------------------------------------------------------------------------


def test_chat_reaches_the_others_and_does_not_disturb_the_game() -> None:
    net = Net(3, 100, duplicate=0.1)
    net.start()
    for _ in range(60):
        net.step()
    net.sessions[0].chat("hello from seat 0")
    net.collect(0)
    net.run()
    check_agreement(net.sessions)
    for seat in (1, 2):
        assert ChatReceived(0, "hello from seat 0") in net.events[seat]
    chats = [raw for raw in net.sessions[1].accepted if body_of(raw)["type"] == "chat"]
    assert len(chats) == 1
    # the chat is one more message in seat 0's chain, and nothing in the log
    assert len(net.sessions[1].chains[0].accepted) == len(net.sessions[1].chains[1].accepted) + 1
    assert replay_outcome(net.setup, net.sessions[1].log) == net.sessions[1].outcome()


def test_chat_text_is_truncated_and_only_text_chats_are_shown() -> None:
    net = Net(2, 101)
    net.start()
    net.run(until=lambda n: n.sessions[1].turn >= 1)
    net.sessions[0].chat("x" * 2000)
    net.collect(0)
    net.run()
    texts = [event.text for event in net.events[1] if isinstance(event, ChatReceived)]
    assert texts == ["x" * 500]
    check_agreement(net.sessions)


def paused_at_bait(seed: int) -> tuple[Net, int, int]:
    """A 3-player net paused at the first bait turn: (net, the seat to bait, another seat)."""
    net = Net(3, seed)
    hold = pause_at_bait(net)
    net.start()
    net.run()
    baiter = net.sessions[0].state.current
    for session in net.sessions:
        assert session.state.phase == "bait" and session.waiting_for() == (baiter,)
    hold["on"] = False
    return net, baiter, (baiter + 1) % 3


# A chat from a seat the turn does not await is shown at once, not when the author's next move is taken.
def test_chat_from_a_seat_not_awaited_is_delivered_at_once() -> None:
    net, baiter, other = paused_at_bait(102)
    chatter = (baiter + 2) % 3
    net.sessions[chatter].chat("hurry up")
    net.collect(chatter)
    before = snapshot(net.sessions[other])
    for to, via, raw in [m for m in net.in_flight if m[0] == other]:
        net.in_flight.remove((to, via, raw))
        net.deliver(to, raw, via)
    assert snapshot(net.sessions[other]) == before
    assert net.sessions[other].fault is None
    assert net.sessions[chatter].own_messages()[-1] in net.sessions[other].accepted  # it did arrive
    assert ChatReceived(chatter, "hurry up") in net.events[other]


# A chat sent after the game ("gg") is still shown.
def test_chat_after_the_end_is_delivered() -> None:
    net = Net(2, 103)
    net.start()
    net.run()
    check_agreement(net.sessions)
    net.sessions[0].chat("gg")
    net.collect(0)
    net.run()
    assert net.sessions[1].fault is None
    assert net.sessions[0].own_messages()[-1] in net.sessions[1].accepted  # it did arrive
    assert ChatReceived(0, "gg") in net.events[1]


# --- relays ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_every_peer_relays_so_a_dead_link_does_not_stop_the_game(seed: int) -> None:
    net = Net(3, 110 + seed, duplicate=0.05)
    net.down = {(0, 2), (2, 0)}  # seats 0 and 2 never hear each other directly
    net.start()
    net.run()
    check_agreement(net.sessions)
    # every message of seat 0 that seat 2 holds came through seat 1
    assert set(net.sessions[0].own_messages()) <= set(net.sessions[2].accepted)


def test_an_observer_does_not_relay() -> None:
    table = run_table(2, 112)
    observer = Session(table.setup, None, None, MemoryStore(), rules=get_rules(table.setup.game))
    for line in table.sessions[0].transcript()[1:]:
        observer.receive(line)
    assert observer.finished
    assert observer.take_outbox() == []


class CountingRules:
    """The rules of a game, counting how often the session asks whose move it is."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.asked = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def to_act(self, state: Any) -> Any:
        self.asked += 1
        return self.rules.to_act(state)

    def chance(self, state: Any) -> Any:
        self.asked += 1
        return self.rules.chance(state)


def test_a_seat_asked_again_in_an_unchanged_state_is_answered_without_asking_the_rules() -> None:
    signers = [Identity.from_seed(bytes([seat + 21]) * 32) for seat in range(2)]
    setup = GameSetup.create("fishnstones", {}, tuple(s.public_bytes for s in signers), ("a", "b"))
    rules = CountingRules(get_rules("fishnstones"))
    session = Session(setup, 1, signers[1], MemoryStore(), rules=rules)
    session.start()
    assert session.decision() is None  # the game opens with a draw: nobody decides yet
    asked = rules.asked
    assert [session.decision() for _ in range(5)] == [None] * 5
    assert rules.asked == asked
