"""`p2pfish bench`: every speed and memory figure the project promises, measured, never asserted.

Each figure is a function returning one number; modules are imported only when their figure runs.
"""

import importlib
from collections.abc import Sequence

from p2pfish.core.errors import UsageError

FIGURES: dict[str, str] = {
    "rules_games_per_s": "p2pfish.tools.bench.rules_figures:rules_games_per_s",
    "rules_apply_us": "p2pfish.tools.bench.rules_figures:rules_apply_us",
    "deck_52x5_s": "p2pfish.tools.bench.crypto_figures:deck_52x5_s",
    "deck_unproven_52x5_s": "p2pfish.tools.bench.crypto_figures:deck_unproven_52x5_s",
    "deck_proof_overhead_x": "p2pfish.tools.bench.crypto_figures:deck_proof_overhead_x",
    "lock_pass_kb_52": "p2pfish.tools.bench.crypto_figures:lock_pass_kb_52",
    "rekey_pass_kb_52": "p2pfish.tools.bench.crypto_figures:rekey_pass_kb_52",
    "deck_op_ms": "p2pfish.tools.bench.crypto_figures:deck_op_ms",
    "apply_signed_ms": "p2pfish.tools.bench.session_figures:apply_signed_ms",
    "ed25519_verify_ms": "p2pfish.tools.bench.session_figures:ed25519_verify_ms",
    "match_fnst_4_s": "p2pfish.tools.bench.net_figures:match_fnst_4_s",
    "match_kingfish_5_s": "p2pfish.tools.bench.net_figures:match_kingfish_5_s",
    "fanout_p50_ms_4": "p2pfish.tools.bench.net_figures:fanout_p50_ms_4",
    "fanout_p99_ms_4": "p2pfish.tools.bench.net_figures:fanout_p99_ms_4",
    "fanout_p50_ms_8": "p2pfish.tools.bench.net_figures:fanout_p50_ms_8",
    "fanout_p99_ms_8": "p2pfish.tools.bench.net_figures:fanout_p99_ms_8",
    "raw_fanout_p50_ms_8": "p2pfish.tools.bench.net_figures:raw_fanout_p50_ms_8",
    "raw_fanout_p99_ms_8": "p2pfish.tools.bench.net_figures:raw_fanout_p99_ms_8",
    "fanout_vs_raw_p99_8": "p2pfish.tools.bench.net_figures:fanout_vs_raw_p99_8",
    "frames_per_message_8": "p2pfish.tools.bench.net_figures:frames_per_message_8",
    "fanout_cpu_ms_8": "p2pfish.tools.bench.net_figures:fanout_cpu_ms_8",
    "raw_fanout_cpu_ms_8": "p2pfish.tools.bench.net_figures:raw_fanout_cpu_ms_8",
    "fanout_inprocess_cpu_ms_8": "p2pfish.tools.bench.inprocess_fanout:fanout_inprocess_cpu_ms_8",
    "kingfish_deal_5_s": "p2pfish.tools.bench.net_figures:kingfish_deal_5_s",
    "peer_rss_mb": "p2pfish.tools.bench.net_figures:peer_rss_mb",
    "engine_move_p50_ms": "p2pfish.tools.bench.engine_figures:engine_move_p50_ms",
    "engine_move_p99_ms": "p2pfish.tools.bench.engine_figures:engine_move_p99_ms",
    "engine_move_vs_encode_x": "p2pfish.tools.bench.engine_figures:engine_move_vs_encode_x",
    "kingfish_playout_ms": "p2pfish.tools.bench.search_figures:kingfish_playout_ms",
    "kingfish_playout_vs_engine_x": "p2pfish.tools.bench.search_figures:kingfish_playout_vs_engine_x",
    "keypress_ms": "p2pfish.tools.bench.ui_figures:keypress_ms",
    "help_s": "p2pfish.tools.bench.ui_figures:help_s",
    "play_first_board_s": "p2pfish.tools.bench.start_figures:play_first_board_s",
    "play_first_board_cpu_s": "p2pfish.tools.bench.start_figures:play_first_board_cpu_s",
}
"""Figure name -> "module:function" of a zero-argument function returning the figure."""


def select(only: Sequence[str]) -> list[str]:
    unknown = [name for name in only if name not in FIGURES]
    if unknown:
        raise UsageError(f"unknown figure(s) {', '.join(unknown)} (known: {', '.join(FIGURES)})")
    return list(only) if only else list(FIGURES)


def measure(name: str) -> float:
    module_name, _, function_name = FIGURES[name].partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    return float(function())
