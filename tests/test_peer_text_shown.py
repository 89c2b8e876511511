"""Issue 14, text from other peers on screen: a name, a chat or a reason holding escape sequences,
bidi overrides or other controls is shown as printable text only — in the terminal app, in the
headless peer's log lines and in `p2pfish verify` — so it can neither erase a line, fake a result nor
set the terminal title. What is signed stays as sent."""

import unicodedata
from pathlib import Path

import pytest
import ui_helpers
from conformance_helpers import random_table

from p2pfish.cli import main
from p2pfish.core.text import printable
from p2pfish.crypto.identity import Identity
from p2pfish.net.lobby import PlayerCard, new_lobby_nonce
from p2pfish.net.node import NodeTimers
from p2pfish.netplay import BotFrontend, PeerOptions
from p2pfish.session import bodies
from p2pfish.session.chat_limits import CHAT_BURST
from p2pfish.session.core import Fault
from p2pfish.session.session import REPORT_GRACE_S, Stopped
from p2pfish.ui.app import Lobby

EVIL = "\x1b[2K\rgame over: eve 99\n\x1b]0;pwned\x07eve"
"""The name of issue 14: erases a line, prints a fake result, sets the terminal title."""
BIDI = "\u202eevil\u2066x\u2069\u200b\u2028"


def unprintable(text: str) -> list[str]:
    """Every character of `text` a terminal could obey (line breaks between lines excepted)."""
    bad = {"Cc", "Cf", "Cs", "Zl", "Zp"}
    return [hex(ord(c)) for c in text if c != "\n" and unicodedata.category(c) in bad]


# --- the sanitizer ---------------------------------------------------------------------------------


def test_printable_drops_controls_and_bidi_and_keeps_letters_and_emoji() -> None:
    assert printable(EVIL) == "[2K game over: eve 99 ]0;pwnedeve"
    assert printable(BIDI) == "evilx"
    assert printable("Zoë 🐟 名前\x7f\x9b") == "Zoë 🐟 名前"
    assert printable("abcdef", 4) == "abc…" and printable("abc", 4) == "abc"


# --- the terminal app ------------------------------------------------------------------------------


def test_the_app_shows_no_control_character_of_a_name_a_chat_or_a_report() -> None:
    with ui_helpers.table_app("fishnstones", ("you", EVIL, "b2")) as (app, controller, _, table):
        evil = table.sessions[1]
        assert evil.chat(EVIL + BIDI)
        evil._emit(bodies.stop(2, "violation", EVIL, ()))
        table.collect(evil)
        controller.settle()
        controller.session.tick(0.0)
        controller.session.tick(REPORT_GRACE_S)
        controller.settle()
        assert controller.session.fault is not None and controller.session.fault.kind == "report"
        screens = [app._title(), app._board(), app._status(), app._log(), app._choices()]
        app.show_lobby(Lobby("Fish", "127.0.0.1:1", "abcd", ["you", EVIL], 3, host=True))
        screens.append(app._board())
    shown = "".join(fragment[1] for screen in screens for fragment in screen)
    assert unprintable(shown) == []
    assert "pwnedeve: [2K game over" in shown, "the chat is shown, made printable"
    assert "seat 1 stopped the game" in shown


# --- headless log lines ----------------------------------------------------------------------------


def test_a_headless_peer_prints_no_control_character(capsys: pytest.CaptureFixture[str]) -> None:
    options = PeerOptions("bot", "random", 1, None, None, None, json=False, timers=NodeTimers())
    front = BotFrontend(options)
    identity = Identity.from_seed(bytes([9]) * 32)
    front.lobby_changed([PlayerCard.make(identity, EVIL, "0" * 40, "tcp://127.0.0.1:1", new_lobby_nonce())], 3)
    front.names = ("you", printable(EVIL))
    front.event(Stopped(Fault(1, "malformed", f"a message of type {EVIL!r}: {EVIL}")))
    out = capsys.readouterr().out
    assert unprintable(out) == [] and out.count("\n") == 2
    assert "game over: eve 99" in out


# --- p2pfish verify --------------------------------------------------------------------------------


def evil_game() -> list[bytes]:
    """The transcript of a whole game in which seat 1 is named EVIL."""
    table = random_table("fishnstones", 2, 5, names=("alice", EVIL))
    table.run()
    assert table.sessions[0].finished
    return table.sessions[0].transcript()


def verify(tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[bytes]) -> tuple[int, str]:
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    code = main(["verify", str(path)])
    return code, capsys.readouterr().out


def test_verify_shows_an_escaping_name_as_printable_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = verify(tmp_path, capsys, evil_game())
    assert code == 0
    assert unprintable(out) == []
    assert "[2K game over: eve 99 ]0;pwnedeve" in out


def test_verify_shows_escaping_evidence_as_printable_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = evil_game()
    lines.insert(3, EVIL.encode())
    code, out = verify(tmp_path, capsys, lines)
    assert code == 1 and "FAULT" in out and "evidence:" in out
    assert unprintable(out) == []


def test_the_app_says_so_when_the_chat_budget_is_spent() -> None:
    with ui_helpers.table_app("fishnstones", ("you", "b1")) as (app, _, _, table):
        for _ in range(CHAT_BURST):
            app._command("say hello")
        assert app.model.message == ("", "")
        app._command("say one too many")
    assert "chat limit reached" in app.model.message[1]
    assert [text for _, text in app.model.log].count("you: hello") == CHAT_BURST
    assert "you: one too many" not in [text for _, text in app.model.log]
    assert table.sessions[1].fault is None
