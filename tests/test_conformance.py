"""What every game of the registry must satisfy, checked the same way for each: a game added to
p2pfish.games.registry is covered here without a line more.

The rules contract (p2pfish/core/game.py) on seeded bot games of every table size: a seat to act is
offered moves and no other seat is; apply is pure (it never changes the state it is given, and gives the
same state again); the outcome shows only at the end and stays; every action, and every legal move, reads
back from its wire form; the log of a finished game re-applied from its wire forms gives the same state;
no view shows another seat's unopened secret. The bots (random and greedy, from make_bot) choose only
legal moves. The terminal kit: every legal move reads back from its command and its description; what
cannot be played is refused with a reason (a string), never with an exception; the board and the status
fit their 66-column panes and are ASCII only in ASCII mode.
"""

import functools
import importlib
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from conformance_helpers import Played, play, replay, sent, sizes, snapshot, strings_in, strings_of, through_the_wire
from ui_helpers import Recorder, assert_fits, selected_sample, text

from p2pfish.core.actions import Action, SecretChoice
from p2pfish.core.errors import MalformedInput
from p2pfish.core.game import Known
from p2pfish.games.game import Game
from p2pfish.games.registry import game_of, games, get_rules
from p2pfish.selfplay import Step
from p2pfish.ui.kit import GameUi

GAMES = games()
IDS = [game.id for game in GAMES]
HEIGHT = 15
NAMES = ("Ann", "Bob", "Carla", "Dmitri", "Eve", "Fernando", "Gunnhildur", "Hiroshi")
SEEDS = (1, 2)
OPTIONS: dict[str, tuple[dict[str, str], ...]] = {
    # rarer table set-ups whose moves the default game seldom or never makes
    "fishnstones": ({"start": "1", "pond": "water:4,stone:2,fish:30"},),
    "kunayala": ({"singles": "1", "doubles": "1", "coral": "8", "sharks": "12", "octopuses": "8"},),
}
"""Options played besides the defaults, per game id (a game missing here is played with its defaults)."""


PLAYOUTS = [
    pytest.param(game, players, seed, options, id=f"{game.id}-{players}p-{seed}{'-options' if options else ''}")
    for game in GAMES
    for players in sizes(game)
    for seed, options in [*((seed, {}) for seed in SEEDS), *((3, o) for o in OPTIONS.get(game.id, ()))]
]
BY_GAME = [pytest.param(game, id=game.id) for game in GAMES]


# --- the rules contract --------------------------------------------------------------------------


TITLES_AND_SIZES = {
    "fishnstones": ("Fish'n'Stones", 2, 4),
    "kunayala": ("Kuna Yala", 2, 4),
    "fishfish": ("Fish Fish", 2, 8),
    "kingfish": ("King Fish", 2, 5),
}
"""What the rulebooks say: each game's title and table sizes."""


@pytest.mark.parametrize("game", BY_GAME)
def test_registered_under_its_id_and_refusing_table_sizes_outside_its_range(game: Game) -> None:
    rules = game.rules
    assert game_of(game.id) is game and get_rules(game.id) is rules
    assert (rules.title, rules.min_players, rules.max_players) == TITLES_AND_SIZES[game.id]
    assert game.ui().title == rules.title
    for players in (-1, 0, rules.min_players - 1, rules.max_players + 1, rules.max_players + 4):
        with pytest.raises(MalformedInput):
            rules.new_game(players, {})


@pytest.mark.parametrize("game", BY_GAME)
@pytest.mark.parametrize("options", [{"start": "4"}, {"start": "-1"}, {"start": "x"}, {"rounds": "3"}], ids=str)
def test_a_first_seat_outside_the_table_or_an_unknown_option_is_malformed(game: Game, options: dict[str, str]) -> None:
    with pytest.raises(MalformedInput):
        game.rules.new_game(4, options)


def check_step(game: Game, step: Step, known: Sequence[Known], public: set[str]) -> None:
    """The contract at one step of a game (`known`: every seat's knowledge before it; `public`: every string
    the actions before it showed on the wire)."""
    rules, state, players = game.rules, step.before, len(known)
    assert rules.outcome(state) is None
    request = rules.chance(state)
    to_act = rules.to_act(state)
    if step.seat is None:
        assert request is not None
    else:
        assert request is None and step.seat in to_act
    if request is None:
        assert to_act, "no chance event is due and no seat is to act"
    for seat in range(players):
        legal = rules.legal_actions(state, seat, known[seat])
        if seat in to_act and request is None:
            assert legal, f"seat {seat} is to act but is offered nothing"
            for action in legal:
                if not isinstance(action, SecretChoice):
                    assert through_the_wire(rules, action) == action
        else:
            assert not legal, f"seat {seat} is offered {legal} though it is not to act"
    if step.seat is not None:
        assert step.choice in rules.legal_actions(state, step.seat, known[step.seat])
    # apply is pure: the state given is left as it was, and the same action gives the same state
    frozen = snapshot(state)
    assert rules.apply(state, step.seat, step.action) == step.after
    assert state == frozen
    if sent(step.action):
        assert through_the_wire(rules, step.action) == step.action
    check_views(game, state, known, public)


def public_strings(log: Sequence[tuple[int | None, Action]]) -> set[str]:
    """Every string the actions of `log` showed on the wire."""
    return set().union(*(strings_in(action.to_wire()) for _, action in log))


def check_views(game: Game, state: object, known: Sequence[Known], public: set[str]) -> None:
    """No view shows a card dealt to another seat that no public move has opened, nor changes when handed
    those cards besides the viewer's own knowledge. (Secret choices under commitment, the same few values
    for every seat, are each game's own to check: see its properties tests.)"""
    rules, players = game.rules, len(known)
    for viewer in range(players):
        view = rules.view(state, viewer, known[viewer])
        # the cards dealt to other seats (known by card name, each label once in its deck)
        cards = {
            name: value
            for seat in range(players)
            if seat != viewer
            for name, value in known[seat].items()
            if "#" in name and name not in known[viewer]
        }
        own = {value for value in known[viewer].values() if isinstance(value, str)}
        hidden = {value for value in cards.values() if isinstance(value, str)} - own - public
        leaked = strings_of(view) & hidden
        assert not leaked, f"seat {viewer} sees {leaked} before they are opened"
        assert rules.view(state, viewer, {**cards, **known[viewer]}) == view


@functools.cache
def played(game_id: str, players: int, seed: int, options: tuple[tuple[str, str], ...] = ()) -> Played:
    game = next(g for g in GAMES if g.id == game_id)
    public: set[str] = set()

    def check(step: Step, known: Sequence[Known]) -> None:
        check_step(game, step, known, public)
        public.update(strings_in(step.action.to_wire()))

    return play(game.rules, players, seed, options=dict(options), on_step=check)


@pytest.mark.parametrize(("game", "players", "seed", "options"), PLAYOUTS)
def test_random_games_keep_the_contract_at_every_step(
    game: Game, players: int, seed: int, options: dict[str, str]
) -> None:
    each = played(game.id, players, seed, tuple(sorted(options.items())))
    rules, final = game.rules, each.final
    assert len(each.steps) > players
    assert each.outcome is not None
    # the outcome shows at the end and stays; nothing more is due
    assert rules.outcome(final) == each.outcome == rules.outcome(snapshot(final))
    assert len(each.outcome.scores) == players and each.outcome.winners
    assert set(each.outcome.winners) <= set(range(players))
    assert rules.chance(final) is None and rules.to_act(final) == ()
    assert all(not rules.legal_actions(final, seat, each.known[seat]) for seat in range(players))
    check_views(game, final, each.known, public_strings(each.log))


@pytest.mark.parametrize(("game", "players", "seed", "options"), PLAYOUTS)
def test_the_log_replays_through_its_wire_form(game: Game, players: int, seed: int, options: dict[str, str]) -> None:
    each = played(game.id, players, seed, tuple(sorted(options.items())))
    state = replay(game.rules, players, options, each.log)
    assert state == each.final
    assert game.rules.outcome(state) == each.outcome


# --- the bots ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kinds", [("random",), ("greedy",), ("greedy", "random")], ids="-".join)
@pytest.mark.parametrize(
    ("game", "players"),
    [pytest.param(game, players, id=f"{game.id}-{players}p") for game in GAMES for players in sizes(game)],
)
def test_bots_only_choose_legal_actions(game: Game, players: int, kinds: tuple[str, ...]) -> None:
    rules = game.rules
    offered: Counter[str] = Counter()
    made: Counter[str] = Counter()

    def check(step: Step, known: Sequence[Known]) -> None:
        if step.seat is not None:
            legal = rules.legal_actions(step.before, step.seat, known[step.seat])
            assert step.choice in legal
            offered.update({type(action).__name__ for action in legal})
            made[type(step.choice).__name__] += 1

    for seed in SEEDS:
        play(rules, players, seed, kinds=kinds, on_step=check)
    assert sum(made.values()) >= 4 * players
    # every kind of move a seat was offered again and again, some bot made
    assert {kind for kind, n in offered.items() if n >= 10} <= set(made), (offered, made)


# --- the terminal kit ----------------------------------------------------------------------------


@functools.cache
def recorded(game_id: str) -> Recorder[Any, Any]:
    game = next(g for g in GAMES if g.id == game_id)
    return Recorder(game.rules, NAMES, [(players, players) for players in sizes(game)])


def command_of(game: Game) -> Callable[[Action, object, tuple[str, ...]], str] | None:
    """The game's `command` (the shortest typed form of a move), for the games whose commands module has one."""
    try:
        module = importlib.import_module(f"p2pfish.games.{game.id}.commands")
    except ModuleNotFoundError:
        return None
    command: Callable[[Action, object, tuple[str, ...]], str] | None = getattr(module, "command", None)
    return command


READ_BACK_BUGS: dict[str, str] = {}
"""Games whose kit does not yet read a move back from its description, and why (Fish'n'Stones was one, fixed)."""


@pytest.mark.parametrize(
    "game",
    [
        pytest.param(game, id=game.id, marks=[pytest.mark.xfail(reason=READ_BACK_BUGS[game.id], strict=True)])
        if game.id in READ_BACK_BUGS
        else pytest.param(game, id=game.id)
        for game in GAMES
    ],
)
def test_every_legal_move_reads_back_from_its_command_and_its_description(game: Game) -> None:
    kit, command = game.ui(), command_of(game)
    checked = 0
    for each, moment in recorded(game.id).moments():
        view, legal = moment.view, list(moment.legal)
        for action in legal:
            for names in (each.names, ()):
                assert kit.parse(kit.describe(action, view, names), view, legal, names) == action
                if command is not None:
                    assert kit.parse(command(action, view, names), view, legal, names) == action
            checked += 1
    assert checked > 500


HUGE = "9" * 5000


def absurd(kit: GameUi) -> list[str]:
    """Commands with an absurdly long number after every word of the kit."""
    tried = []
    for word in kit.words:
        tried += [f"{word} {HUGE}", f"{word} 1 {HUGE} 0", f"{word} 1 {HUGE} 0 0"]
    return tried


def attempts(kit: GameUi, typed_moves: Sequence[str]) -> list[str]:
    """Commands to type at any moment: every word of the kit bare and with arguments small, large and
    absurd, things no game knows, and the moves of the acting seat."""
    tried = ["", "  ", "jump 1", HUGE, "x " + HUGE, *absurd(kit), *typed_moves]
    for word in kit.words:
        tried += [word, f"{word} 0", f"{word} 1", f"{word} 99", f"{word} -1", f"{word} x", f"{word} 1 1 1 1"]
    return tried


def refused(kit: GameUi, typed: str, view: object, legal: Sequence[Action], names: tuple[str, ...]) -> bool:
    """Whether the kit reads `typed` as one of `legal` (False) or refuses it with a reason (True)."""
    result = kit.parse(typed, view, legal, names)
    if isinstance(result, str):
        assert result.strip(), f"{typed!r} was refused without a reason"
        return True
    assert result in legal, f"{typed!r} was read as {result}, which is not legal"
    return False


@pytest.mark.parametrize("game", BY_GAME)
def test_illegal_commands_say_why(game: Game) -> None:
    kit = game.ui()
    reasons = 0
    for n, (each, moment) in enumerate(recorded(game.id).moments()):
        legal = list(moment.legal)
        for typed in (HUGE, "x " + HUGE):
            assert isinstance(kit.parse(typed, moment.view, legal, each.names), str)
        for typed in absurd(kit):  # a word may take no number and read the move it names
            refused(kit, typed, moment.view, legal, each.names)
        if n % 5:
            continue
        typed_moves = [kit.describe(action, moment.view, each.names) for action in legal[:5]]
        for seat in seats_drawn(moment.seat, len(moment.views), n):
            view = moment.views[seat]
            mine = legal if seat == moment.seat else []
            for typed in attempts(kit, typed_moves):
                was_refused = refused(kit, typed, view, mine, each.names)
                assert was_refused or seat == moment.seat
                reasons += was_refused
            # the moves of the acting seat, typed by anyone else, are refused
            assert seat == moment.seat or all(refused(kit, t, view, [], each.names) for t in typed_moves)
    assert reasons > 1000


def seats_drawn(acting: int, players: int, decision: int) -> tuple[int, ...]:
    """The seats whose screens are checked at a recorded decision: the acting seat's, and one other's, a different
    one at each decision (so that over a game every seat's is checked at many)."""
    if players == 1:
        return (acting,)
    return (acting, (acting + 1 + decision % (players - 1)) % players)


@pytest.mark.parametrize("game", BY_GAME)
def test_every_board_fits_66_by_15_and_ascii_mode_is_ascii(game: Game) -> None:
    kit = game.ui()
    selected_kinds: set[str] = set()
    for decision, (each, moment) in enumerate(recorded(game.id).moments()):
        sample = selected_sample(moment.legal, decision)
        selected_kinds.update(type(action).__name__ for action in sample)
        for seat in seats_drawn(moment.seat, len(moment.views), decision):
            view = moment.views[seat]
            choices: tuple[Action | None, ...] = (None, *sample) if seat == moment.seat else (None,)
            for selected in choices:
                for ascii_only in (False, True):
                    drawn = kit.board(view, each.names, selected, ascii_only, 66)
                    assert_fits(drawn, HEIGHT)
                    assert text(drawn).isascii() or not ascii_only, text(drawn)
    for each in recorded(game.id).games():
        for view in each.final:
            for ascii_only in (False, True):
                drawn = kit.board(view, each.names, None, ascii_only, 66)
                assert_fits(drawn, HEIGHT)
                assert text(drawn).isascii() or not ascii_only
    offered = {type(action).__name__ for _, moment in recorded(game.id).moments() for action in moment.legal}
    assert selected_kinds == offered
