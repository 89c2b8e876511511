"""`p2pfish verify`: a good transcript prints its outcome; any tampering names the seat and exits 1."""

import json
from pathlib import Path

import pytest

from p2pfish.cli import main
from p2pfish.session.envelope import canonical

TRANSCRIPT = Path(__file__).parent.parent / "protocol" / "vectors" / "transcript_fishnstones_2p.jsonl"


def verify(tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[bytes]) -> tuple[int, str]:
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    code = main(["verify", str(path)])
    return code, capsys.readouterr().out


def lines() -> list[bytes]:
    return TRANSCRIPT.read_bytes().splitlines()


def test_a_good_transcript_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = verify(tmp_path, capsys, lines())
    assert code == 0
    assert out.startswith("verified fishnstones, 2 players")
    assert "winner" in out


def test_a_changed_move_is_caught_but_blames_no_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tampered = lines()
    for index, raw in enumerate(tampered[1:], start=1):
        message = json.loads(raw)
        if message["body"].get("action", {}).get("t") == "fish" and message["body"]["action"]["spot"]:
            message["body"]["action"]["spot"] = "a1" if message["body"]["action"]["spot"] != "a1" else "c3"
            tampered[index] = canonical(message)
            seat = message["seat"]
            break
    code, out = verify(tmp_path, capsys, tampered)
    assert code == 1
    assert f"FAULT after {len(tampered) - 1} messages: unknown peer: a message signed as seat {seat}" in out
    assert "bad signature" in out
    assert "evidence:" in out


def test_a_dropped_message_breaks_the_chain_or_stops_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    truncated = lines()[:-3]
    code, out = verify(tmp_path, capsys, truncated)
    assert code == 1
    assert out.startswith("INCOMPLETE") and "waiting for seat" in out


def test_an_altered_header_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    altered = lines()
    header = json.loads(altered[0])
    header["setup"]["names"] = ["mallory", "bob"]
    altered[0] = json.dumps(header).encode()
    code, out = verify(tmp_path, capsys, altered)
    assert code == 1
    assert "header does not match" in out


def test_an_unreadable_file_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "junk.jsonl").write_text("hello\n")
    assert main(["verify", str(tmp_path / "junk.jsonl")]) == 2
    assert "transcript header" in capsys.readouterr().err
