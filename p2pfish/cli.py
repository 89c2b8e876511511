"""The player's command line: the one place that plugs the layers together for play.

Heavy modules (crypto, the UI) are imported inside the commands that need them, so that
`p2pfish --help` stays fast. The test tools (`match`, `bench`) add their commands to this parser from
p2pfish/tools/cli.py; nothing here imports them (p2pfish/launcher.py picks which to run).
"""

import argparse
import contextlib
import getpass
import json
import math
import os
import resource
import sqlite3
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from p2pfish import __version__
from p2pfish.bots import LEVELS
from p2pfish.core.errors import P2pfishError, UsageError, usage_errors
from p2pfish.core.text import printable, printable_lines
from p2pfish.games import DEFAULT_GAME

if TYPE_CHECKING:
    from p2pfish.botpeers import BotPeers
    from p2pfish.netplay import Frontend, PeerOptions, PeerVariant

CommandAdder = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]
"""Adds a subcommand (name, what runs it, its help) to the parser and returns the subcommand's parser."""

EXIT_USAGE = 2
MAX_PORT = 65535
MAX_PACE_S = 60.0
"""The longest wait `watch --pace` takes after a move."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _options(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"a game option looks like key=value, not {pair!r}")
        options[key] = value
    return options


def comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def cmd_selfplay(args: argparse.Namespace) -> int:
    from p2pfish.bots import DEFAULT_MOVE_S
    from p2pfish.bots.engine import seat_engine
    from p2pfish.games.registry import get_rules
    from p2pfish.selfplay import selfplay

    options = _options(args.option)
    engines = dict(seat_engine(flag) for flag in args.engine)
    args.engine_time = DEFAULT_MOVE_S if args.engine_time is None else args.engine_time
    if not 0 < args.engine_time < math.inf:
        raise UsageError("--engine-time must be positive: a number of seconds")
    with usage_errors():  # bots playing in this process: only the command line can be malformed
        rules = get_rules(args.game)
        result = selfplay(
            rules, args.players, args.games, seed=args.seed, kinds=comma_list(args.bots), options=options,
            engines=engines, engine_move_s=args.engine_time,
        )  # fmt: skip
    if args.json:
        print(json.dumps(result.to_wire()))
        return 0
    print(f"{rules.title}: {result.games} games, {result.players} players, seed {result.seed}")
    for seat, kind in enumerate(result.bots):
        print(f"  seat {seat} ({kind:<6}) wins {result.wins[seat]:>5}  mean score {result.mean_score[seat]:>7.3f}")
    print(f"  {result.games_per_s} games/s")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from p2pfish.games.registry import get_rules
    from p2pfish.session.audit import audit, transcript_setup

    try:
        with open(args.file, "rb") as transcript:
            lines = transcript.read().splitlines()
    except OSError as error:
        raise UsageError(f"cannot read {args.file}: {error.strerror}") from None
    result = audit(lines, get_rules(transcript_setup(lines).game))
    names = result.setup.shown_names
    if result.fault is not None:
        print(f"FAULT after {result.messages} messages: {result.fault.describe(names)} [{result.fault.kind}]")
        for raw in result.fault.evidence:
            print(f"  evidence: {printable(raw.decode('ascii', 'replace'), 2000)}")
        return 1
    if result.settlement is not None:
        ended = result.settlement
        signers = ", ".join(f"seat {s} ({names[s]})" for s in ended.signers)
        print(
            f"ENDED EARLY without seat {ended.gone} ({names[ended.gone]}) after turn {ended.turn} of "
            f"{result.setup.game}, {result.messages} messages: everything up to there checked; the scores so far "
            f"signed by {signers}"
        )
        for seat, points in enumerate(ended.outcome.scores):
            mark = "  winner" if seat in ended.outcome.winners else ""
            print(f"  seat {seat} {names[seat]:<16} {points:>4} points{mark}")
        if not ended.outcome.winners:
            print("  no winner: at two seats an early end is one seat's word")
        return 0
    if result.outcome is None:
        waiting = ", ".join(f"seat {s} ({names[s]})" for s in result.waiting_for)
        print(f"INCOMPLETE: the transcript stops before the end of the game, waiting for {waiting}")
        return 1
    print(
        f"verified {result.setup.game}, {result.setup.players} players, {result.messages} messages: "
        "every signature, hash chain, commitment opening, random draw and rule checked"
    )
    for seat, points in enumerate(result.outcome.scores):
        mark = "  winner" if seat in result.outcome.winners else ""
        print(f"  seat {seat} {names[seat]:<16} {points:>4} points{mark}")
    return 0


def cmd_identity(args: argparse.Namespace) -> int:
    from p2pfish.crypto.identity import KEY_FILE_NAME, config_dir, load_or_create

    folder = config_dir() if args.dir is None else args.dir
    identity = load_or_create(folder)
    print(f"fingerprint {identity.fingerprint}")
    print(f"public key  {identity.public_bytes.hex()}")
    print(f"key file    {folder}/{KEY_FILE_NAME} (readable by you alone)")
    return 0


def _peer_options(args: argparse.Namespace) -> "PeerOptions":
    from p2pfish.bots import BOT_KINDS
    from p2pfish.net.node import NodeTimers
    from p2pfish.netplay import HONEST, PeerOptions

    if args.bot is not None and args.bot not in BOT_KINDS:
        raise UsageError(f"no {args.bot!r} bot (bots: {', '.join(BOT_KINDS)})")
    if not 0 < args.timeout < math.inf:
        raise UsageError("--timeout must be a positive number of seconds")
    name = default_name() if args.name is None else args.name
    if not name.strip() or not name.isprintable() or len(name) > 40:
        raise UsageError("a name is 1-40 printable characters")
    _check_local_files(args)
    _check_engine(args)
    timers = NodeTimers(silent_after_s=min(2.0, args.timeout / 2), drop_after_s=args.timeout)
    variant: PeerVariant = args.variant or HONEST
    return PeerOptions(
        name, args.bot or "", args.seed, args.identity_dir, getattr(args, "store", None), args.transcript,
        args.json, timers, variant, engine=args.engine, engine_move_s=args.engine_time,
        name_is_default=args.name is None, tethered=args.tethered,
    )  # fmt: skip


def _check_engine(args: argparse.Namespace) -> None:
    """--engine names a program that can be run, with a positive --engine-time; its fallback bot is --bot
    (greedy unless given)."""
    from p2pfish.bots import DEFAULT_MOVE_S

    args.engine_time = DEFAULT_MOVE_S if args.engine_time is None else args.engine_time
    if not 0 < args.engine_time < math.inf:
        raise UsageError("--engine-time must be positive: a number of seconds")
    if args.engine is not None:
        from p2pfish.bots.engine import engine_argv  # loaded only where an engine plays (netplay.py does the same)

        engine_argv(args.engine)
        args.bot = args.bot or "greedy"


def default_name() -> str:
    """This user's login name: the name at a table when --name is not given."""
    return getpass.getuser()[:20] or "player"


def _check_local_files(args: argparse.Namespace) -> None:
    """A transcript or a new store this peer could not write is refused now, before any game is played."""
    from pathlib import Path

    from p2pfish.paths import check_private_file, check_private_folder

    if args.transcript:
        check_private_file(Path(args.transcript), "transcript")
    if args.command in ("host", "join") and args.store:
        check_private_folder(Path(args.store).parent, "store")
        check_private_file(Path(args.store), "store", new=True)


def _front(args: argparse.Namespace, options: "PeerOptions", bots: "BotPeers | None" = None) -> "Frontend":
    if options.bot:
        from p2pfish.netplay import BotFrontend

        return BotFrontend(options)
    from p2pfish.uiplay import UiFrontend

    return UiFrontend(options, ascii_only=args.ascii, bots=bots)


def cmd_host(args: argparse.Namespace) -> int:
    from p2pfish.botpeers import BotPeers
    from p2pfish.games.registry import get_rules, kit_for
    from p2pfish.netplay import host_game, run, zmq_context

    if not 0 <= args.port <= MAX_PORT:
        raise UsageError(f"--port must be 0 (any free port) to {MAX_PORT}, not {args.port}")
    with usage_errors():
        get_rules(args.game)
    if not 0 <= args.bots < args.players:
        raise UsageError(f"--bots must be 0 to {args.players - 1} (the seats besides yours), not {args.bots}")
    options = _peer_options(args)
    if not options.bot:
        with usage_errors():
            kit_for(args.game)
    if args.bots or not options.bot:  # the spawner before any thread, context or loop (forkedpeer.py)
        from p2pfish.forkedpeer import BotSpawner

        bots: BotPeers | None = BotPeers(args.seed, spawner=BotSpawner.start())
    else:
        bots = None
    game_options, front = _options(args.option), _front(args, options, bots)
    with zmq_context() as context:
        return run(host_game(
            args.game, args.players, game_options=game_options, bind_host=args.bind, port=args.port, code=args.code,
            advertise=not args.no_discovery, options=options, front=front, context=context, bots=bots, fill=args.bots,
        ))  # fmt: skip


def cmd_join(args: argparse.Namespace) -> int:
    from p2pfish.net.lobby import normal_code
    from p2pfish.netplay import join_game, run, split_address, zmq_context

    if not 0 < args.wait < math.inf:
        raise UsageError("--wait must be a positive number of seconds")
    with usage_errors():  # before the terminal UI loads: a bad code is its one line, with no warning of the UI's
        normal_code(args.code)
    if args.address is not None:
        split_address(args.address)
    options = _peer_options(args)
    front = _front(args, options)
    with zmq_context() as context:
        return run(join_game(args.address, args.code, options, args.wait, front, context=context))


def cmd_lobbies(args: argparse.Namespace) -> int:
    from p2pfish.netplay import list_lobbies, run

    return run(list_lobbies(args.timeout))


def cmd_resume(args: argparse.Namespace) -> int:
    from p2pfish.netplay import resume_game, run, zmq_context
    from p2pfish.resumable import format_stored, stored_games

    if args.list:
        print(printable_lines(format_stored(stored_games())))
        return 0
    store = args.store
    if store is None:
        games = stored_games()
        if not games:
            raise UsageError(format_stored(games) + " (give a store's path, or see resume --list)")
        store = str(games[0].path)
    options = _peer_options(args)
    from p2pfish.forkedpeer import BotSpawner

    spawner = None if options.bot else BotSpawner.start()  # a player's game may have had bots (forkedpeer.py)
    with zmq_context() as context:
        return run(resume_game(
            store, options, lambda resumed: _front(args, resumed), context=context, spawner=spawner,
        ))  # fmt: skip


LEVEL_HELP = "the bots' strength: easy (random), normal (greedy), hard (search); default a mix of random and greedy"


def cmd_play(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("play needs a terminal (to watch bots play without one: p2pfish watch)")
    _check_table(args.game, args.bots)
    from p2pfish.botpeers import BotPeers
    from p2pfish.net.joincode import new_join_code
    from p2pfish.playstart import LOOPBACK, reserve_port

    reservation = reserve_port()
    port, code = reservation.getsockname()[1], new_join_code()
    from p2pfish.forkedpeer import BotSpawner
    from p2pfish.netplay import run  # before the spawner: each bot is a copy of this process (forkedpeer.py)

    bots = BotPeers(args.seed, spawner=BotSpawner.start())
    bots.open(f"{LOOPBACK}:{port}", code)
    try:
        for _ in range(args.bots):  # then the terminal UI loads here while they join
            bots.add(LEVELS[args.level] if args.level else None)
        from p2pfish.uiplay import play_local

        ascii_only = args.ascii or _plain_terminal()
        return run(play_local(args.game, bots, port, code, ascii_only=ascii_only, name=default_name()))
    except BaseException:
        bots.stop()
        raise
    finally:
        reservation.close()


def _check_table(game: str, bots: int) -> None:
    """A game this program can show, for `bots` bots besides the player."""
    from p2pfish.games.registry import get_rules, kit_for

    with usage_errors():
        rules = get_rules(game)
        kit_for(game)
    if not rules.min_players <= bots + 1 <= rules.max_players:
        raise UsageError(f"{rules.title} needs {rules.min_players - 1}-{rules.max_players - 1} bots, not {bots}")


def _plain_terminal() -> bool:
    """No colours or box glyphs where the terminal says it cannot show them."""
    encoding = (sys.stdout.encoding or "").lower()
    return os.environ.get("TERM") == "dumb" or "utf" not in encoding or "NO_COLOR" in os.environ


def cmd_watch(args: argparse.Namespace) -> int:
    from p2pfish.watch import watch_game

    _check_table(args.game, args.bots)
    if not 0 <= args.pace <= MAX_PACE_S:
        raise UsageError(f"--pace must be 0 to {MAX_PACE_S:.0f} seconds, not {args.pace}")
    return watch_game(args.game, args.bots, args.seed, args.pace, level=args.level)


def build_parser(extra: Sequence[Callable[[CommandAdder], None]] = ()) -> argparse.ArgumentParser:
    """The parser of the player's commands, and of whatever commands `extra` adds."""
    parser = _Parser(
        prog="p2pfish",
        description="Peer-to-peer fishing card games on your LAN, no trusted host.",
        epilog="Test tools: p2pfish match (a networked game of bot processes, audited), p2pfish ladder (bots "
        "against bots: win rates) and p2pfish bench.",
    )
    parser.add_argument("--version", action="version", version=f"p2pfish {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, run: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(run=run)
        return sub

    play = command("play", cmd_play, "play against bot peers on this machine, in the terminal UI")
    play.add_argument("game", nargs="?", default=DEFAULT_GAME, help=f"game id (default {DEFAULT_GAME})")
    play.add_argument("--bots", type=int, default=3, help="number of bot opponents (default 3)")
    play.add_argument("--level", choices=sorted(LEVELS), help=LEVEL_HELP)
    play.add_argument("--seed", type=int, default=None, help="seed for the bots' own choices")
    play.add_argument("--ascii", action="store_true", help="plain ASCII and no colours")

    watch = command("watch", cmd_watch, "watch bots play a game in this process, narrated in words")
    watch.add_argument("game", nargs="?", default=DEFAULT_GAME, help=f"game id (default {DEFAULT_GAME})")
    watch.add_argument("--bots", type=int, default=3, help="number of bots besides the first (default 3)")
    watch.add_argument("--level", choices=sorted(LEVELS), help=LEVEL_HELP)
    watch.add_argument("--seed", type=int, default=None, help="seed for the bots")
    watch.add_argument("--pace", type=float, default=0.0, metavar="SECONDS",
                       help="wait this long after each move, to follow the game (default 0)")  # fmt: skip

    sp = command("selfplay", cmd_selfplay, "play many bot games in-process, rules only, and print the results")
    sp.add_argument("game", help="game id, e.g. fishnstones")
    sp.add_argument("--players", type=int, default=4)
    sp.add_argument("--games", type=int, default=100)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument(
        "--bots", default="random", help="bot kind per seat, comma-separated, cycled (random, greedy, search)"
    )
    sp.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument(
        "--engine", action="append", default=[], metavar='SEAT:"CMD"',
        help="this seat is played by an engine program (protocol/ENGINE.md), its --bots kind its fallback",
    )  # fmt: skip
    sp.add_argument("--engine-time", type=float, metavar="S", help="the engines' seconds per move (default 5)")

    def peer_flags(sub: argparse.ArgumentParser, *, bot_default: str | None = None) -> None:
        sub.add_argument(
            "--name", default=None,
            help="your name at the table (default: your login name, made unique at the table: alice-2...)",
        )  # fmt: skip
        sub.add_argument("--bot", default=bot_default, help="play headless with this bot (random, greedy, search)")
        sub.add_argument("--seed", type=int, default=None, help="seed for the bot's own choices")
        sub.add_argument("--identity-dir", help="keep the player key here instead of $XDG_CONFIG_HOME/p2pfish")
        sub.add_argument("--transcript", help="write the game's signed log to this file at the end")
        sub.add_argument("--timeout", type=float, default=30.0, help="seconds of silence before a peer is dropped")
        sub.add_argument(
            "--json", action="store_true",
            help="stdout holds JSON event lines alone (lobby, started, then the result; README, Events)",
        )  # fmt: skip
        sub.add_argument("--ascii", action="store_true", help="plain ASCII and no colours in the terminal UI")
        sub.add_argument(
            "--engine", metavar="CMD",
            help="play headless with this engine program (protocol/ENGINE.md); --bot is its fallback (greedy)",
        )  # fmt: skip
        sub.add_argument("--engine-time", type=float, metavar="S", help="the engine's seconds per move (default 5)")
        sub.add_argument("--tethered", action="store_true", help=argparse.SUPPRESS)  # bots of play (botpeers.py)

    host = command("host", cmd_host, "open a lobby for GAME, print its address and join code, then play")
    host.add_argument("game")
    host.add_argument("--players", type=int, default=4)
    host.add_argument("--bots", type=int, default=0, help="seat this many bot peers (processes on this machine)")
    host.add_argument("--port", type=int, default=0, help="lobby port (default: any free port)")
    host.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: every interface)")
    host.add_argument("--code", help="use this join code instead of a fresh one")
    host.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    host.add_argument("--store", help="this peer's game store (default: under $XDG_STATE_HOME/p2pfish)")
    host.add_argument("--no-discovery", action="store_true", help="do not advertise the lobby on the LAN")
    peer_flags(host)

    join = command("join", cmd_join, "join a lobby with its join code, then play")
    join.add_argument("address", nargs="?", help="the lobby's HOST:PORT (default: the one open lobby on the LAN)")
    join.add_argument("--code", required=True, help="the join code the host shows")
    join.add_argument("--wait", type=float, default=600.0, help="seconds to wait for the game to start")
    join.add_argument("--store", help="this peer's game store (default: under $XDG_STATE_HOME/p2pfish)")
    peer_flags(join)

    lobbies = command("lobbies", cmd_lobbies, "list the open lobbies on the LAN")
    lobbies.add_argument("--timeout", type=float, default=3.0, help="seconds to listen")

    resume = command("resume", cmd_resume, "rejoin a game this peer left (crashed or stopped) from its store")
    resume.add_argument(
        "store", nargs="?", help="the peer's game store, as printed when the game started (default: the latest)"
    )
    resume.add_argument("--list", action="store_true", help="list the unfinished games this user can resume")
    peer_flags(resume, bot_default=None)

    ident = command("identity", cmd_identity, "show your player key (created on first use), which signs your moves")
    ident.add_argument("--dir", help="keep the key in this folder instead of $XDG_CONFIG_HOME/p2pfish")

    verify = command("verify", cmd_verify, "re-check a game's signed transcript and print its outcome")
    verify.add_argument("file", help="a transcript (JSON lines) written by a peer")
    for add_commands in extra:
        add_commands(command)
    return parser


def raise_open_file_limit() -> None:
    """Lift the soft open-file limit to the hard one: idle connections a stranger opens then cannot use up
    the descriptors the game store needs (the mesh also closes them, net/guard.py)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):  # a system may refuse an unlimited soft limit
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main(
    argv: Sequence[str] | None = None,
    *,
    extra: Sequence[Callable[[CommandAdder], None]] = (),
    variant: "PeerVariant | None" = None,
) -> int:
    """Run one command. `extra`: more commands (the test tools'); `variant`: how a peer differs from an
    honest one (only the tools' hostile peers do)."""
    args = build_parser(extra).parse_args(argv)
    args.variant = variant
    raise_open_file_limit()
    try:
        code: int = args.run(args)
    except P2pfishError as error:
        print(f"p2pfish: error: {printable(error.reason)}", file=sys.stderr)
        for line in error.details:
            print(f"  {printable(line)}", file=sys.stderr)
        return EXIT_USAGE
    except sqlite3.Error as error:
        print(f"p2pfish: error: the game store failed: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        print(f"p2pfish: error: {error.strerror or error}{where}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("p2pfish: interrupted", file=sys.stderr)
        return 130
    return code
