"""The layout's per-kind and per-policy tables (solver.kernels.layout) and the tables decide_arrays reads whole.

A kinds tuple's entries are read from tables over every kind the process has laid out, numbered
once; the policy keeps its weights by kind number and its scores per number of opponents.  Each
entry must be what the rule or the policy says of that kind or count, however the tables grew.
"""

from __future__ import annotations

import numpy as np

from benchmarks.boards import BoardSpec, generate
from solver import load_board
from solver.board import N_PLAYERS, N_ROUNDS, R_FLAGS, R_SIDE, R_TEAM, Board, pt_table
from solver.catalogue import default_spec
from solver.kernels import decide_layout, stack
from solver.kernels.layout import SPECIAL, _kind_milli, _kind_numbers, _per_opponents, join
from solver.policy import DEFAULT_POLICY, Policy


def _fresh_kinds(tag: str, n: int) -> tuple[str, ...]:
    """``n`` kinds no other test lays out, with P/T kinds (122.1a), presence-only kinds and the special ones."""
    own = [f"{tag}:k{i}" for i in range(n)]
    pt = [f"+{i % 5}/-{i % 7 + 1}" for i in range(7)] + ["-2/-0", "+0/+3"]
    return (*own[: n // 2], *pt, "flying", "shield", "lore", *own[n // 2 :], "+1/+1", "-1/-1", "poison")


def _board_with(kinds: tuple[str, ...], spread: int = 7) -> Board:
    """A duel whose permanents hold one counter of each of ``kinds``, ``spread`` kinds a permanent."""
    permanents = [
        {"id": f"p{i}", "controller": "a", "types": ["artifact"], "counters": dict.fromkeys(kinds[i : i + spread], 1)}
        for i in range(0, len(kinds), spread)
    ]
    players = [{"id": "a"}, {"id": "b"}]
    return load_board({"variant": "duel", "proliferator": "a", "players": players, "permanents": permanents})


def test_kind_tables_give_each_kinds_toughness_presence_and_special_columns_122_1a() -> None:
    """122.1a: toughness per counter, the catalogue's presence-only flag, the SPECIAL columns, past the tables'
    first size (64 kinds) so they grow while being read; one board and boards joined."""
    boards = [_board_with(_fresh_kinds(tag, n)) for tag, n in (("tablesa", 10), ("tablesb", 150), ("tablesc", 3))]
    reordered = _board_with(_fresh_kinds("tablesb", 150)[::-1], spread=11)  # kinds numbered already, another order
    for group in ([boards[0]], [boards[1]], [boards[2]], boards, [reordered, boards[0]]):
        layout = stack(group, DEFAULT_POLICY)
        kinds = layout.kinds
        assert kinds == tuple(dict.fromkeys(k for b in group for k in b.kinds))  # in order of first appearance
        assert layout.tough_delta.tolist() == pt_table(kinds)[:, 1].tolist()
        assert layout.presence.tolist() == [int(default_spec(k).presence_only) for k in kinds]
        assert layout.special.tolist() == [kinds.index(k) if k in kinds else -1 for k in SPECIAL]
        assert join(group).poison == (kinds.index("poison") if "poison" in kinds else -1)


def test_kind_weights_in_milli_points_are_the_policys_for_kinds_it_has_not_seen() -> None:
    policy = Policy.from_dict({"weights": {"weightsa:k1": 2.5, "+1/+1": 1.25, "weightsb:k3": -0.125}})
    for kinds in (_fresh_kinds("weightsa", 4), _fresh_kinds("weightsb", 120), _fresh_kinds("weightsa", 4)):
        numbers = _kind_numbers(kinds)
        expected = [round(1000.0 * policy.weight(k)) for k in kinds]
        assert _kind_milli(policy, numbers).tolist() == expected
        assert _kind_milli(DEFAULT_POLICY, numbers).tolist() == [
            round(1000.0 * DEFAULT_POLICY.weight(k)) for k in kinds
        ]
    board = _board_with(_fresh_kinds("weightsc", 9))
    weights = stack([board], policy).weights
    for k, kind in enumerate(board.kinds):  # each row's own kinds at the policy's weight, none elsewhere
        held = board.counts[:, k] > 0
        assert (weights[held, k] == round(1000.0 * policy.weight(kind))).all()


def test_per_opponent_scores_are_the_policys_as_the_table_grows() -> None:
    """The elimination score and the score gap per number of opponents (docs/objective.md), first for a few
    counts, then for counts past the table's first size."""
    policy = Policy.from_dict({"game": {"elimination": 0.3}})
    for counts in ([1, 3, 1, 2], [40, 1, 9], [5]):
        values = np.array(counts, dtype=np.int64)
        elimination, gap = _per_opponents(policy, values)
        assert elimination.tolist() == [policy.elimination_score(k) for k in counts]
        assert gap.tolist() == [policy.score_gap(k) for k in counts]


def test_a_layouts_fields_are_rows_of_the_tables_decide_arrays_reads() -> None:
    """decide_arrays reads the per-board, per-row and per-threshold tables whole; the named fields are their rows."""
    boards = [
        load_board(generate(BoardSpec(12, variant, extras=True, seed=3))) for variant in ("duel", "two_headed_giant")
    ]
    layout = stack(boards, DEFAULT_POLICY)
    for field, table, row in (
        ("rounds", layout.numbers, N_ROUNDS),
        ("n_players", layout.numbers, N_PLAYERS),
        ("flags", layout.ints, R_FLAGS),
        ("side", layout.ints, R_SIDE),
        ("team", layout.ints, R_TEAM),
        ("thr_row", layout.thresholds, 0),
        ("thr_seat", layout.thresholds, 5),
    ):
        assert np.array_equal(getattr(layout, field), table[row]), field
        assert np.shares_memory(getattr(layout, field), table), field
    together = decide_layout(layout)
    for b, board in enumerate(boards):
        alone = decide_layout(stack([board], DEFAULT_POLICY))
        assert int(alone.values[0]) == int(together.values[b])
        assert alone.results[0] == together.results[b]
