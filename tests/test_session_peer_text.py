"""Issue 14, a hostile peer's text: a chat flood or an over-long chat is blamed on its author before
it can grow the stores, and a stop report fits the message limit whatever message it reports, so an
honest reporter is never blamed for the size of a cheat's message."""

import hashlib
from collections.abc import Callable

import pytest
from session_helpers import Net, body_of, forge, snapshot

from p2pfish.core.wire import Json
from p2pfish.session import bodies
from p2pfish.session.chat_limits import CHAT_BURST, CHAT_REFILL
from p2pfish.session.core import MAX_WAITING
from p2pfish.session.envelope import MAX_MESSAGE_BYTES, open_envelope
from p2pfish.session.session import REPORT_GRACE_S
from p2pfish.session.store import MemoryStore

CHEATER = 1
LONGEST_CHAT = "\U0001f600" * bodies.MAX_CHAT_CHARS
"""The chat of most bytes an honest seat can send: each emoji is 12 bytes once escaped."""


def midgame(seed: int) -> Net:
    net = Net(3, seed)
    net.start()
    assert net.run(until=lambda n: all(s.turn >= 4 for s in n.sessions))
    net.frozen.add(CHEATER)
    net.run()  # everything in flight arrives; the table then waits for the frozen seat
    return net


def chats_of(net: Net, seat: int, texts: list[str]) -> list[bytes]:
    """Valid chats signed by `seat`, chained one after the other from the end of its chain."""
    chain = net.sessions[seat].chains[seat]
    seq, prev, out = chain.next_seq, chain.head, []
    for text in texts:
        raw = forge(net.ids[seat], net.session_id, seat, seq=seq, prev=prev, body={"type": "chat", "text": text})
        seq, prev = seq + 1, open_envelope(raw).hash
        out.append(raw)
    return out


def stored_bytes(net: Net, seat: int) -> int:
    store = net.stores[seat]
    assert isinstance(store, MemoryStore)
    return sum(len(raw) for raw in store.messages)


# --- chat limits -----------------------------------------------------------------------------------


def test_a_chat_flood_is_blamed_on_its_author_and_the_stores_stay_bounded() -> None:
    net = midgame(140)
    before = stored_bytes(net, 0)
    flood = chats_of(net, CHEATER, [LONGEST_CHAT] * 5000)
    delivered = 0
    for raw in flood:
        if net.sessions[0].fault is not None:
            break
        net.deliver(0, raw, CHEATER)
        delivered += 1
    fault = net.sessions[0].fault
    assert fault is not None and (fault.seat, fault.kind) == (CHEATER, "malformed"), fault
    assert "chat flood" in fault.reason and fault.evidence == (flood[delivered - 1],)
    assert delivered <= CHAT_BURST + 1
    own_report = MAX_MESSAGE_BYTES
    assert stored_bytes(net, 0) - before <= (CHAT_BURST + 1) * len(flood[0]) + own_report
    net.run()
    other = net.sessions[2].fault
    assert other is not None and (other.seat, other.kind) == (CHEATER, "malformed"), other


def test_a_chat_over_the_length_limit_is_blamed_on_its_author() -> None:
    net = midgame(141)
    (raw,) = chats_of(net, CHEATER, ["x" * (bodies.MAX_CHAT_CHARS + 1)])
    net.deliver(0, raw, CHEATER)
    fault = net.sessions[0].fault
    assert fault is not None and (fault.seat, fault.kind, fault.evidence) == (CHEATER, "malformed", (raw,))
    assert "character limit" in fault.reason


@pytest.mark.parametrize("body", [{"type": "chat"}, {"type": "chat", "text": ["hi"]}])
def test_a_chat_without_text_is_malformed(body: dict[str, Json]) -> None:
    net = midgame(142)
    raw = net.forge(CHEATER, body)
    net.deliver(0, raw, CHEATER)
    fault = net.sessions[0].fault
    assert fault is not None and (fault.seat, fault.kind) == (CHEATER, "malformed")


def test_an_honest_seat_keeps_to_its_chat_budget_and_its_turn_messages_refill_it() -> None:
    net = Net(2, 143)
    net.start()
    talker = net.sessions[0]
    sent = [talker.chat(f"line {n}") for n in range(CHAT_BURST + 5)]
    assert sent == [True] * CHAT_BURST + [False] * 5
    net.collect(0)
    net.run()
    assert net.sessions[1].fault is None
    turn_messages = [raw for raw in talker.own_messages() if body_of(raw)["type"] in bodies.TURN_KINDS]
    assert len(turn_messages) * CHAT_REFILL > CHAT_BURST, "the game refilled the budget"
    assert talker.chat("good game") is True


# --- stop reports fit the message limit ------------------------------------------------------------


def malformed_bytes(byte: int, size: int) -> Callable[[Net], list[bytes]]:
    return lambda net: [bytes([byte]) * size]


def equivocation(net: Net) -> list[bytes]:
    """Two different signed messages with the same seq, each as close to 64 KiB as a message gets."""
    messages = []
    for filler in "ab":
        body: dict[str, Json] = {"type": "act", "turn": 10**6, "action": {"t": ""}}
        short = len(net.forge(CHEATER, body))
        body["action"] = {"t": filler * (MAX_MESSAGE_BYTES - short)}
        messages.append(net.forge(CHEATER, body))
    assert all(len(raw) == MAX_MESSAGE_BYTES for raw in messages)
    return messages


OFFENCES = {
    "16 KB of control bytes": malformed_bytes(0x01, 16_000),
    "64 KiB of control bytes": malformed_bytes(0x01, MAX_MESSAGE_BYTES),
    "64 KiB of high bytes": malformed_bytes(0xFF, MAX_MESSAGE_BYTES),
    "two 64 KiB signed messages (equivocation)": equivocation,
}


@pytest.mark.parametrize("offence", OFFENCES)
def test_an_honest_report_fits_the_limit_and_its_reporter_is_not_blamed(offence: str) -> None:
    net = midgame(144)
    reporter, other = 0, 2
    for raw in OFFENCES[offence](net):
        net.deliver(reporter, raw, CHEATER)
    fault = net.sessions[reporter].fault
    assert fault is not None and fault.seat == CHEATER, fault
    (report,) = [raw for raw in net.sessions[reporter].own_messages() if body_of(raw)["type"] == "stop"]
    assert len(report) <= MAX_MESSAGE_BYTES
    assert report in net.sessions[reporter].accepted, "the reporter's own session takes its report"
    assert body_of(report)["evidence"], "the report names what it stopped on"
    before = snapshot(net.sessions[other])
    net.sessions[other].receive(report, reporter)
    assert report in net.sessions[other].accepted, "the report is not refused"
    net.run()
    net.sessions[other].tick(0.0)
    net.sessions[other].tick(REPORT_GRACE_S)
    blamed = net.sessions[other].fault
    assert blamed is not None and blamed.seat != reporter, blamed
    assert snapshot(net.sessions[other]) == before


def test_evidence_too_long_to_quote_is_carried_as_its_hash() -> None:
    big, small = b"\x01" * MAX_MESSAGE_BYTES, b"{}"
    body = bodies.stop(1, "malformed", "reason", (big, small))
    evidence = body["evidence"]
    assert isinstance(evidence, list)
    hashed, whole = evidence
    assert whole == "{}"
    assert isinstance(hashed, dict) and hashed["size"] == MAX_MESSAGE_BYTES
    assert hashed["sha256"] == hashlib.sha256(big).hexdigest()
    assert len(str(hashed["excerpt"])) == bodies.EXCERPT_BYTES
    assert bodies.read_evidence(body) == [small], "a hashed item proves nothing to a receiver"


def test_a_flood_of_messages_for_turns_to_come_is_blamed_and_bounded() -> None:
    """Turn messages for turns far ahead wait for their turn and refill the chat budget: a seat sending them
    without end is named once more than MAX_WAITING of them wait."""
    net = Net(3, 142)
    net.start()
    assert net.run(until=lambda n: all(s.turn >= 4 for s in n.sessions))
    net.frozen.add(2)
    net.run()
    assert net.sessions[0].waiting_for() == (2,), "the table waits for seat 2, not for the flooding seat"
    before = stored_bytes(net, 0)
    chain = net.sessions[CHEATER].chains[CHEATER]
    seq, prev, turn = chain.next_seq, chain.head, net.sessions[0].turn
    delivered = 0
    for ahead in range(1, 2000):
        body = bodies.act(turn + ahead, {"t": "pass", "pad": "x" * 1000})
        raw = forge(net.ids[CHEATER], net.session_id, CHEATER, seq=seq, prev=prev, body=body)
        seq, prev = seq + 1, open_envelope(raw).hash
        net.deliver(0, raw, CHEATER)
        delivered += 1
        if net.sessions[0].fault is not None:
            break
    fault = net.sessions[0].fault
    assert fault is not None and fault.seat == CHEATER and "ahead of the game" in fault.reason, fault
    assert delivered == MAX_WAITING + 1, delivered
    assert stored_bytes(net, 0) - before <= (MAX_WAITING + 2) * 1400 + MAX_MESSAGE_BYTES
