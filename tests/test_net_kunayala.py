"""Kuna Yala over the network (its matches at every table size: tests/test_net_play.py): no peer able to
learn another seat's colour before the end — checked in each peer's store and in everything it received."""

import json
import sqlite3
from pathlib import Path

from secrecy_helpers import finished_match, strings

from p2pfish.session.envelope import open_envelope


def test_no_peer_holds_another_seats_colour_key_before_the_end(tmp_path: Path) -> None:
    _, results = finished_match("kunayala", 3, ["random"], 5, tmp_path, timeout_s=90)
    owner_keys: dict[int, str] = {}
    for result in results:
        assert result is not None
        with sqlite3.connect(str(result["store"])) as db:
            (record,) = db.execute("SELECT record FROM secrets WHERE name = 'deck/colours'").fetchone()
        seat = int(str(result["seat"]))
        owner_keys[seat] = str(json.loads(record)["card_keys"][seat])
    assert sorted(owner_keys) == [0, 1, 2]
    for result in results:
        assert result is not None and isinstance(result["seat"], int)
        reader = result["seat"]
        with sqlite3.connect(str(result["store"])) as db:
            secrets = {name: json.loads(record) for name, record in db.execute("SELECT name, record FROM secrets")}
            received = [bytes(row[0]) for row in db.execute("SELECT raw FROM messages ORDER BY n")]
        assert {n for n in secrets if n.startswith("card/colours#")} == {f"card/colours#{reader}"}
        held = set(strings(list(secrets.values())))
        for raw in received:
            envelope = open_envelope(raw)
            action = envelope.body.get("action")
            if isinstance(action, dict) and action.get("t") == "reveal-card":
                break  # play is over: the rules now turn every colour up
            held |= set(strings(envelope.body))
        for seat, key in owner_keys.items():
            if seat != reader:
                assert key not in held, f"seat {reader} held seat {seat}'s colour key before the end"
        assert owner_keys[reader] in held, "the check sees a key where it is (the reader's own)"
