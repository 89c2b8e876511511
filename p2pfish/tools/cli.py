"""The test tools' commands, `p2pfish match` and `p2pfish bench`: the player's command line (p2pfish/cli.py)
with these added."""

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from p2pfish.bots.search import DEFAULT_BUDGET
from p2pfish.cli import CommandAdder, _options, comma_list
from p2pfish.cli import main as player_main
from p2pfish.core.errors import UsageError
from p2pfish.core.text import printable

if TYPE_CHECKING:
    from p2pfish.tools.match import MatchResult


EXIT_FIGURE_FAILED = 1
FAILURE_LINES_SHOWN = 20


def cmd_bench(args: argparse.Namespace) -> int:
    """Measure the figures one after another. One that cannot be measured (a peer that failed, a timeout) is
    named on stderr with its reason, left out of the report, and makes the exit status 1; the others still run."""
    from p2pfish.tools import bench

    names = bench.select(comma_list(args.only or ""))
    figures: dict[str, float] = {}
    failed = 0
    for name in names:
        try:
            figures[name] = bench.measure(name)
        except Exception as error:  # any failure of the harness: report it, go on with the other figures
            failed += 1
            first, *more = str(error).splitlines() or [""]
            print(f"p2pfish bench: {name} could not be measured: {type(error).__name__}: {printable(first)}",
                  file=sys.stderr)  # fmt: skip
            for line in more[-FAILURE_LINES_SHOWN:]:  # a peer's log, say: its end tells why
                print(f"  {printable(line)}", file=sys.stderr)
            continue
        if not args.json:
            print(f"{name:<24} {figures[name]}", flush=True)
    if args.json:
        print(json.dumps(figures))
    return EXIT_FIGURE_FAILED if failed else 0


def cmd_match(args: argparse.Namespace) -> int:
    from p2pfish.bots.engine import seat_engine
    from p2pfish.tools.cheats import Cheat
    from p2pfish.tools.match import run_match

    if args.stranger is not None:
        return _match_with_stranger(args)
    cheat = Cheat.parse(args.cheat) if args.cheat else None
    engines = dict(seat_engine(flag) for flag in args.engine)
    try:
        result = run_match(
            args.game, args.players, comma_list(args.bots), args.seed, args.timeout, cheat=cheat, engines=engines
        )
    except TimeoutError as error:
        print(f"p2pfish: the match did not start: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_wire()))
    else:
        _print_match(result)
    return 0 if result.ok else 1


def _print_match(result: "MatchResult") -> None:
    print(f"{result.game}, {result.players} peer processes, {result.wall_s} s, {result.messages} messages")
    print(f"  finished {result.finished}, agree {result.agree}, verified {result.verified}")
    print(f"  outcome {printable(str(result.outcome))}")
    for fault in result.faults:  # reasons hold what other peers sent: one printable line each
        print(f"  fault {printable(str(fault))}")
    if result.cheat is not None:
        verdict = "caught" if result.cheat.caught else "NOT caught: " + "; ".join(result.cheat.problems)
        print(f"  cheat {result.cheat.kind}: {printable(verdict)}, blamed seat {result.cheat.blamed}")


def _match_with_stranger(args: argparse.Namespace) -> int:
    """`match --stranger "TARGET FLAGS"`: the match is played while a stranger attacks it."""
    from p2pfish.tools.match import run_match_with_stranger
    from p2pfish.tools.stranger import plan_for_match

    if args.cheat:
        raise UsageError("--stranger and --cheat are separate matches: give one of them")
    target, plan = plan_for_match(args.stranger)
    try:
        played = run_match_with_stranger(
            args.game, args.players, plan, target, kinds=comma_list(args.bots), seed=args.seed, timeout_s=args.timeout
        )
    except (TimeoutError, RuntimeError) as error:
        print(f"p2pfish: the match with a stranger did not run: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(played.to_wire()))
    else:
        _print_match(played.match)
        print(f"  stranger {json.dumps(played.stranger)}")
    return 0 if played.match.ok else 1


def cmd_ladder(args: argparse.Namespace) -> int:
    from p2pfish.tools.ladder import LadderConfig, format_ladder, run_ladder

    players = args.players or len(comma_list(args.bots))
    config = LadderConfig(
        args.game, players, tuple(comma_list(args.bots)), args.games, args.seed, args.iterations, _options(args.option)
    )
    result = run_ladder(config, workers=args.workers)
    print(json.dumps(result) if args.json else format_ladder(result))
    return 0


def add_tool_commands(command: CommandAdder) -> None:
    match = command("match", cmd_match, "play one networked game of bot peers, one process each, and audit it")
    match.add_argument("game")
    match.add_argument("--players", type=int, default=4)
    match.add_argument("--seed", type=int, default=0, help="seed for the bots' own choices")
    match.add_argument("--bots", default="greedy,random", help="bot kind per seat, comma-separated, cycled")
    match.add_argument("--timeout", type=float, default=120.0, help="seconds before a stuck match is given up")
    match.add_argument("--json", action="store_true", help="print one JSON object")
    match.add_argument(
        "--cheat", metavar="SEAT:KIND", help="one peer cheats this way; exit 0 only if every honest peer blames it"
    )
    match.add_argument(
        "--engine", action="append", default=[], metavar='SEAT:"CMD"',
        help="this peer (0 the host, then the joiners as started) is played by an engine program (protocol/ENGINE.md)",
    )  # fmt: skip
    match.add_argument(
        "--stranger", metavar="'TARGET FLAGS'",
        help="a stranger attacks the match: TARGET lobby, mesh (the host's) or a seat number, then the flags of "
        "scripts/stranger, e.g. 'mesh --connections 300 --duration 5'",
    )  # fmt: skip

    ladder = command("ladder", cmd_ladder, "play bots against each other over many seeded games in memory: win rates")
    ladder.add_argument("game")
    ladder.add_argument(
        "--bots", default="search,greedy", help="the table's bot kinds, seat 0 first, rotated each game"
    )
    ladder.add_argument("--players", type=int, default=0, help="table size (default: one seat per kind named)")
    ladder.add_argument("--games", type=int, default=400)
    ladder.add_argument("--seed", type=int, default=1)
    ladder.add_argument("--iterations", type=int, default=DEFAULT_BUDGET.iterations, help="search playouts a move")
    ladder.add_argument("--workers", type=int, default=2, help="processes playing games at once")
    ladder.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    ladder.add_argument("--json", action="store_true", help="print one JSON object")

    what = "measure the speed and memory figures (judges none; exit status 1 if one cannot be measured)"
    bench = command("bench", cmd_bench, what)
    bench.add_argument("--only", help="comma-separated figure names")
    bench.add_argument("--json", action="store_true", help="print one JSON object of figure -> value")


def main(argv: Sequence[str] | None = None) -> int:
    return player_main(argv, extra=(add_tool_commands,))
