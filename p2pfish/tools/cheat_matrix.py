"""The hostile-peer matrix: `p2pfish match GAME --cheat SEAT:KIND` for every kind in every game where it
applies, over the network (peer processes on loopback). One line per match, then a summary; exits 1
unless every cheat was caught. Run by scripts/cheat-matrix (it takes a few minutes)."""

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence

from p2pfish.core.errors import P2pfishError
from p2pfish.core.text import printable
from p2pfish.games.registry import GAME_IDS, get_rules
from p2pfish.tools.cheats import HOST_KINDS, KINDS, Cheat
from p2pfish.tools.match import run_match

GAMES = GAME_IDS
PLAYERS = 3
MATCH_TIMEOUT_S = 90.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/cheat-matrix", description=__doc__)
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated game ids")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated cheat kinds")
    parser.add_argument("--seat", type=int, default=1, help="the cheating seat (default 1)")
    parser.add_argument("--json", action="store_true", help="one JSON object per match")
    args = parser.parse_args(argv)
    try:
        cases = [
            (game, cheat)
            for game in args.games.split(",")
            if get_rules(game)
            for kind in args.kinds.split(",")
            if (cheat := Cheat.parse(f"{0 if kind in HOST_KINDS else args.seat}:{kind}")).applies_to(game)
        ]
        for game, cheat in cases:
            cheat.check(game, PLAYERS)
    except P2pfishError as error:
        parser.error(error.reason)
    started = time.monotonic()
    caught, tried = 0, 0
    for game, cheat in cases:
        kind = cheat.kind
        scratch = tempfile.mkdtemp(prefix="p2pfish-cheat-")
        saved, tempfile.tempdir = tempfile.tempdir, scratch
        try:
            result = run_match(game, PLAYERS, ["greedy", "random"], tried, MATCH_TIMEOUT_S, cheat=cheat)
        finally:
            tempfile.tempdir = saved
        tried += 1
        verdict = result.cheat
        assert verdict is not None
        caught += verdict.caught
        if verdict.caught:
            shutil.rmtree(scratch, ignore_errors=True)
        else:
            print(f"  (its peers' logs and stores are kept in {scratch})")
        if args.json:
            print(json.dumps({"game": game, **verdict.to_wire(), "wall_s": result.wall_s}), flush=True)
        else:
            faults = {str(f.get("reason"))[:70] for f in result.faults if isinstance(f, dict)}
            line = "caught" if verdict.caught else "MISSED " + "; ".join(verdict.problems)
            print(printable(f"{game:12} {kind:18} {line:8} blamed {verdict.blamed}  {result.wall_s:5.1f} s  {faults}"))
    print(f"{caught}/{tried} cheats caught by every honest peer in {time.monotonic() - started:.0f} s")
    return 0 if caught == tried else 1


if __name__ == "__main__":
    sys.exit(main())
