"""Fish Fish over the network (its matches at every table size: tests/test_net_play.py): no peer able
to learn an unopened Pêche card before the end — checked in each peer's store and everything it received."""

from pathlib import Path

from secrecy_helpers import finished_match, watch_store

from p2pfish.core.wire import str_field
from p2pfish.session.audit import read_setup
from p2pfish.session.envelope import open_envelope


def test_no_peer_can_open_a_closed_peche_card_before_the_end(tmp_path: Path) -> None:
    table, results = finished_match("fishfish", 2, ["random"], 4, tmp_path, timeout_s=90)
    lines = table.transcripts[0].read_bytes().splitlines()
    setup = read_setup(lines[0])
    committed: set[str] = set()
    revealed: set[str] = set()
    for raw in lines[1:]:
        action = open_envelope(raw).body.get("action")
        if isinstance(action, dict) and action.get("t") in ("commit", "reveal"):
            (committed if action["t"] == "commit" else revealed).add(str_field(action, "purpose"))
    assert committed - revealed, "some Pêche cards stayed closed until the end (nobody bet on their line)"
    for result in results:
        assert result is not None and isinstance(result["seat"], int)
        seen = watch_store(
            str(result["store"]), setup.session_id, result["seat"], ("prise", "bredouille"), until_end=True
        )
        assert seen > 0, "each seat saw the other seat commit as Fisherman"
