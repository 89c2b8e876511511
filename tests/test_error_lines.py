"""Error lines that quote what another peer sent: one printable line each, of a bounded length; and names that
look alike once made printable are told apart by seat (review 14)."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from session_helpers import Net

from p2pfish.cli import main
from p2pfish.core.errors import MAX_REASON_CHARS, MalformedInput
from p2pfish.core.text import REPR_LIMIT, shown_value
from p2pfish.core.wire import Json, as_object
from p2pfish.crypto.identity import Identity
from p2pfish.net.node import NodeTimers
from p2pfish.netplay import BotFrontend, PeerOptions
from p2pfish.session.core import Fault
from p2pfish.session.session import Stopped
from p2pfish.session.setup import PROTOCOL_VERSION, GameSetup
from p2pfish.tools import cli as tools_cli

ROSTER = tuple(Identity.from_seed(bytes([seat + 1]) * 32).public_bytes for seat in range(4))
FORGED = "\n\nverified fishnstones, 2 players, 54 messages\n  seat 0 mallory  99 points  winner\n\x1b[2K"


def setup_wire(options: dict[str, str], names: list[str] | None = None) -> dict[str, object]:
    return {
        "version": PROTOCOL_VERSION,
        "game": "fishnstones",
        "options": options,
        "roster": [key.hex() for key in ROSTER[:2]],
        "names": names or ["mallory", "alice"],
        "contributions": [(bytes([3]) * 32).hex(), (bytes([4]) * 32).hex()],
    }


def verify(tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str) -> tuple[int, str, str]:
    path = tmp_path / "game.jsonl"
    path.write_text(header + "\n")
    code = main(["verify", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_option_name_with_line_breaks_cannot_print_forged_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = json.dumps({"type": "p2pfish-transcript", "setup": setup_wire({"x" + FORGED: "1"})})
    code, out, err = verify(tmp_path, capsys, header)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "\x1b" not in err and err.startswith("p2pfish: error: unknown fishnstones option")
    assert "verified" not in err.split("\n")[0][:40]


def test_many_unknown_options_are_named_in_a_bounded_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = {f"o{n:04d}" + "z" * 30: "1" for n in range(500)}
    header = json.dumps({"type": "p2pfish-transcript", "setup": setup_wire(options)})
    code, _, err = verify(tmp_path, capsys, header)
    assert code == 2 and err.count("\n") == 1 and len(err) < 1000 and "and 490 more" in err, err


def test_a_deeply_nested_header_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = verify(tmp_path, capsys, "[" * 100_000)
    assert code == 2 and out == ""
    assert err == "p2pfish: error: the first line is not a transcript header: its JSON is nested too deep\n"


def test_a_huge_version_is_quoted_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wire = setup_wire({})
    header = json.dumps({"type": "p2pfish-transcript", "setup": wire}).replace(
        f'"version": {PROTOCOL_VERSION}', '"version": ' + "9" * 4000
    )
    code, _, err = verify(tmp_path, capsys, header)
    assert code == 2 and err.count("\n") == 1 and len(err) < 200, err


def test_every_error_reason_is_one_printable_line_and_its_details_follow(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(_timeout: float, _code: str) -> str:
        raise MalformedInput("the lobby refused to let you in: " + FORGED, details=("a\x1b[31m", "b\nc"))

    monkeypatch.setattr("p2pfish.netplay.find_lobby", refuse)
    code = main(["join", "--code", "ABC234", "--bot", "random"])
    _, err = capsys.readouterr()
    lines = err.split("\n")
    assert code == 2 and len(lines) == 4 and lines[3] == "", err
    assert lines[0].startswith("p2pfish: error: the lobby refused to let you in:   verified")
    assert lines[1:3] == ["  a[31m", "  b c"]


def test_a_reason_quotes_at_most_a_few_hundred_characters_of_a_peers_value() -> None:
    huge: list[Json] = [[]] * 21_000
    with pytest.raises(MalformedInput) as caught:
        as_object(huge, "an action")
    assert len(caught.value.reason) < REPR_LIMIT + 50 and caught.value.reason.endswith("…")
    assert shown_value("abc") == "'abc'"
    assert shown_value("x" * 500) == "'" + "x" * (REPR_LIMIT - 2) + "…"


def test_names_that_look_alike_once_printable_are_shown_with_their_seats() -> None:
    def shown(*names: str) -> tuple[str, ...]:
        return GameSetup.create("fishfish", {}, ROSTER[: len(names)], names).shown_names

    assert shown("alice", "bob", "alice\u200b\u2066") == ("alice (seat 0)", "bob", "alice (seat 2)")
    assert shown("alice", "Alice ", "bob") == ("alice (seat 0)", "Alice (seat 1)", "bob")
    assert shown("alice", "bob", "seat 3", "\u200b") == ("alice", "bob", "seat 3 (seat 2)", "seat 3 (seat 3)")
    assert shown("alice", "bob", "carol") == ("alice", "bob", "carol")
    assert shown("seat 0", "bob") == ("seat 0", "bob")


def test_match_prints_a_peers_fault_reason_as_one_printable_line(capsys: pytest.CaptureFixture[str]) -> None:
    result = SimpleNamespace(
        game="fishnstones", players=2, wall_s=1.0, messages=10, finished=False, agree=True, verified=True,
        outcome=None, faults=[{"seat": 1, "reason": "x" + FORGED}], cheat=None,
    )  # fmt: skip
    tools_cli._print_match(result)  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert out.count("\n") == 4 and "\x1b" not in out, out


def test_a_bot_peers_log_line_of_a_stop_is_one_printable_line(capsys: pytest.CaptureFixture[str]) -> None:
    options = PeerOptions("ann", "random", 1, None, None, None, json=False, timers=NodeTimers())
    front = BotFrontend(options)
    front.names = ("ann", "bob")
    front.event(Stopped(Fault(1, "violation", "seat 1 said: " + FORGED)))
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "\x1b" not in out and out.startswith("game stopped: "), out


def test_no_reason_grows_with_the_message_that_caused_it() -> None:
    """Some reasons quote a peer's value without cutting it (an unknown message type, say): all are cut."""
    assert len(MalformedInput("x" * 100_000).reason) == MAX_REASON_CHARS
    net = Net(3, seed=1)
    net.overrides[1] = lambda net, session, decision: False  # seat 1 holds back: the game waits for it
    net.start()
    net.run(max_steps=20_000)
    victim = net.sessions[0]
    assert victim.waiting_for() == (1,)
    victim.receive(net.forge(1, {"type": "x" * 60_000, "turn": victim.turn}), via=1)
    fault = victim.fault
    assert fault is not None and fault.seat == 1 and len(fault.reason) <= MAX_REASON_CHARS, fault
