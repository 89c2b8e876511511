"""The network bench: the relay game keeps the rules contract, and the fan-out runs measure something."""

import math
import random
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from p2pfish.core.actions import Action
from p2pfish.core.errors import IllegalAction, MalformedInput
from p2pfish.core.wire import Json
from p2pfish.selfplay import Step, play_game
from p2pfish.tools import bench
from p2pfish.tools.bench.deal_game import RULES as DEAL
from p2pfish.tools.bench.inprocess_fanout import run_inprocess_fanout
from p2pfish.tools.bench.net_figures import measure_fanout, measure_fanout_cpu, measure_raw_fanout, run_deal
from p2pfish.tools.bench.relay_game import RULES, Pass, View


class FirstLegal:
    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        return legal[0]


@pytest.mark.parametrize("players", [2, 3, 8])
def test_a_relay_game_ends_after_exactly_the_configured_number_of_actions(players: int) -> None:
    steps: list[Step] = []
    outcome, state = play_game(
        RULES, players, {"actions": "17"}, [FirstLegal()] * players, random.Random(1), on_step=steps.append
    )
    assert len(steps) == 17
    assert [step.seat for step in steps] == [n % players for n in range(17)]
    assert [step.action for step in steps] == [Pass(n) for n in range(17)]
    assert outcome.scores == (0,) * players and outcome.winners == tuple(range(players))
    assert RULES.to_act(state) == () and RULES.chance(state) is None
    assert RULES.view(state, 0, {}) == View(0, None, 17, 17)


def test_the_relay_game_has_200_actions_by_default_and_checks_its_table() -> None:
    steps: list[Step] = []
    play_game(RULES, 4, {}, [FirstLegal()] * 4, random.Random(1), on_step=steps.append)
    assert len(steps) == 200
    for players, options in [(1, {}), (9, {}), (4, {"actions": "0"}), (4, {"actions": "x"}), (4, {"rounds": "3"})]:
        with pytest.raises(MalformedInput):
            RULES.new_game(players, options)


def test_relay_actions_are_checked_and_decoded_strictly() -> None:
    state = RULES.new_game(3, {"actions": "5"})
    assert RULES.legal_actions(state, 0, {}) == (Pass(0),)
    assert RULES.legal_actions(state, 1, {}) == ()
    assert not RULES.reveal_due(state, 0)
    with pytest.raises(IllegalAction):
        RULES.apply(state, 1, Pass(0))
    with pytest.raises(IllegalAction):
        RULES.apply(state, 0, Pass(1))
    assert RULES.decode_action(Pass(7).to_wire()) == Pass(7)
    garbage: list[Json] = [
        "pass", None, [], {}, {"t": "pass"}, {"t": "pass", "n": "1"}, {"t": "pass", "n": True},
        {"t": "pass", "n": -1}, {"t": "pass", "n": 1.0}, {"t": "pass", "n": 1, "x": 0}, {"t": "fish", "n": 1},
    ]  # fmt: skip
    for wire in garbage:
        with pytest.raises(MalformedInput):
            RULES.decode_action(wire)


def test_the_fanout_runs_give_finite_positive_percentiles_and_leave_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for measure in (measure_fanout, measure_raw_fanout):
        p50, p99 = measure(3, 30)
        assert math.isfinite(p50) and math.isfinite(p99)
        assert 0 < p50 <= p99
    for mode in ("session", "raw"):
        cpu_ms = measure_fanout_cpu(mode, 3, 30)
        assert math.isfinite(cpu_ms) and cpu_ms > 0
    assert list(tmp_path.iterdir()) == []


def test_the_in_process_fanout_plays_the_relay_game_to_its_end_and_times_it() -> None:
    cpu_ms = run_inprocess_fanout(3, 30)
    assert math.isfinite(cpu_ms) and cpu_ms > 0


def test_every_network_figure_is_registered() -> None:
    names = ["match_fnst_4_s", "match_kingfish_5_s", "fanout_p50_ms_4", "fanout_p99_ms_4", "fanout_p50_ms_8",
             "fanout_p99_ms_8", "raw_fanout_p50_ms_8", "raw_fanout_p99_ms_8", "fanout_vs_raw_p99_8",
             "frames_per_message_8", "fanout_cpu_ms_8", "raw_fanout_cpu_ms_8", "fanout_inprocess_cpu_ms_8",
             "kingfish_deal_5_s", "peer_rss_mb"]  # fmt: skip
    assert bench.select(names) == names


def test_the_deal_game_is_king_fish_up_to_the_ponds() -> None:
    steps: list[Step] = []
    outcome, state = play_game(DEAL, 3, {}, [FirstLegal()] * 3, random.Random(1), on_step=steps.append)
    assert [type(step.action).__name__ for step in steps] == ["Shuffled"] + ["Dealt"] * 4
    assert state.dealer == 0 and all(len(pond) == 3 for pond in state.ponds)
    assert outcome.scores == (0, 0, 0)
    with pytest.raises(MalformedInput):
        DEAL.new_game(3, {"start": "1"})


def test_the_networked_deal_run_times_a_real_shuffle_and_deal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seconds = run_deal(2)
    assert 0 < seconds < 30
    assert list(tmp_path.iterdir()) == []
