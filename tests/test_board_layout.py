"""A board holds its arrays in the kernels' layout from the moment it is built; a batch is their join.

``Board.layout`` (:class:`solver.board.BoardLayout`) is built with the board, read-only, and kept
by the boards derived from it; :func:`solver.kernels.layout.join` concatenates a batch's boards
(same kinds: plain concatenation; different kinds: one remap to the batch's columns), and
:func:`solver.kernels.layout.stack` applies the policy over the joined batch.  A board stacked
in a batch reads exactly as the board stacked alone.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from benchmarks.boards import BoardSpec, generate
from solver import load_board
from solver.board import (
    F_CREATURE,
    F_DESTRUCTIBLE,
    F_PHASED_OUT,
    F_PLAYER,
    F_PRESENT,
    F_SAGA,
    R_FLAGS,
    R_LIFE,
    R_SEAT,
    R_SIDE,
    Board,
)
from solver.kernels.layout import Layout, join, stack
from solver.policy import DEFAULT_POLICY, Policy

_GIANT: dict[str, Any] = {
    "variant": "two_headed_giant",
    "proliferator": "a1",
    "players": [
        {"id": "a1", "team": "A", "counters": {"poison": 4}},
        {"id": "a2", "team": "A", "counters": {"poison": 4}},
        {"id": "b1", "team": "B", "counters": {"poison": 12}},
        {"id": "b2", "team": "B"},
        {"id": "b3", "team": "B"},
    ],
    "permanents": [
        {"id": "bear", "controller": "a1", "types": ["creature"], "power": 2, "toughness": 2,
         "counters": {"+1/+1": 1}, "keywords": ["indestructible"]},
        {"id": "ghost", "controller": "b1", "types": ["creature"], "power": 1, "toughness": 1,
         "counters": {"+1/+1": 1}, "phased_out": True},
        {"id": "saga", "controller": "b2", "types": ["enchantment"], "subtypes": ["Saga"], "chapters": 3,
         "counters": {"lore": 1}, "value": 2.5},
        {"id": "relic", "controller": "a2", "types": ["artifact"], "counters": {"charge": 2},
         "thresholds": [{"kind": "charge", "at": 3, "effect": "win"}], "counter_values": {"charge": 4.0}},
    ],
    "effects": [{"card": "Hardened Scales", "controller": "a1"}],
}  # fmt: skip


def _boards() -> list[Board]:
    variants = ("duel", "free_for_all", "two_headed_giant")
    out = [load_board(generate(BoardSpec(8 + s % 13, variants[s % 3], extras=bool(s % 2), seed=s))) for s in range(40)]
    return [*out, load_board(_GIANT)]


def test_a_loaded_board_holds_its_layout_read_only() -> None:
    board = load_board(_GIANT)
    assert "layout" in board.__dict__  # built with the board, not on first use
    layout = board.layout
    for array in (layout.packed, layout.ints, layout.numbers, layout.thresholds, layout.teams):
        assert not array.flags.writeable
    flags = layout.ints[R_FLAGS].tolist()
    assert flags[:5] == [F_PLAYER] * 5
    assert flags[5] == F_PRESENT | F_CREATURE  # indestructible: not destroyed by lethal damage (702.12b)
    assert flags[6] == F_PHASED_OUT  # treated as though it doesn't exist (702.26b)
    assert flags[7] == F_PRESENT | F_SAGA  # 714.4
    # 810.8a: in Two-Headed Giant a team is the seat; 810.11: 15 poison for two heads, 20 for three
    assert layout.ints[R_SEAT, :5].tolist() == [0, 0, 1, 1, 1]
    assert layout.teams.tolist() == [[15, 20], [1, -1]]
    assert layout.ints[R_SIDE].tolist() == [1, 1, -1, -1, -1, 1, -1, -1, 1]


def test_a_phased_in_creature_without_indestructible_is_destructible() -> None:
    board = load_board(generate(BoardSpec(20, "duel", seed=3)))
    flags = board.layout.ints[R_FLAGS][board.n_players :]
    creature = (flags & F_CREATURE) != 0
    assert creature.any()
    indestructible = board.indestructible[board.n_players :]
    assert (((flags & F_DESTRUCTIBLE) != 0) == (creature & ~indestructible)).all()  # 704.5g


def _by_kind(layout: Layout, b: int, name: str) -> dict[str, np.ndarray]:
    lo, hi = int(layout.obj_off[b]), int(layout.obj_off[b + 1])
    table = getattr(layout, name)[lo:hi]
    return {kind: table[:, k] for k, kind in enumerate(layout.kinds) if table[:, k].any()}


@pytest.mark.parametrize("policy", [DEFAULT_POLICY, DEFAULT_POLICY.with_weights(poison=2.5, charge=-0.75)])
def test_a_board_in_a_batch_reads_as_the_board_alone(policy: Policy) -> None:
    boards = _boards()
    assert len({b.kinds for b in boards}) > 1  # the batch's columns are a remap of the boards' own
    batch = stack(boards, policy)
    rows = ("flags", "toughness", "damage", "chapters", "life", "worth", "side", "seat", "team", "head_gain")
    for b, board in enumerate(boards):
        alone = stack([board], policy)
        assert alone.kinds == board.kinds
        lo, hi = int(batch.obj_off[b]), int(batch.obj_off[b + 1])
        for name in rows:
            assert getattr(batch, name)[lo:hi].tolist() == getattr(alone, name).tolist(), name
        for name in ("counts", "gain", "weights"):
            mine, theirs = _by_kind(batch, b, name), _by_kind(alone, 0, name)
            assert mine.keys() == theirs.keys(), name
            assert all(mine[k].tolist() == theirs[k].tolist() for k in mine), name
        t_lo, t_hi = int(batch.thr_off[b]), int(batch.thr_off[b + 1])
        assert (batch.thr_row[t_lo:t_hi] - lo).tolist() == alone.thr_row.tolist()
        assert [batch.kinds[k] for k in batch.thr_kind[t_lo:t_hi]] == [alone.kinds[k] for k in alone.thr_kind]
        for name in ("thr_at", "thr_code", "thr_amount", "thr_seat"):
            assert getattr(batch, name)[t_lo:t_hi].tolist() == getattr(alone, name).tolist(), name
        m_lo, m_hi = int(batch.team_off[b]), int(batch.team_off[b + 1])
        assert batch.team_threshold[m_lo:m_hi].tolist() == alone.team_threshold.tolist()
        assert batch.team_weight[m_lo:m_hi].tolist() == alone.team_weight.tolist()
        for name in ("n_players", "rounds", "proliferator", "shared", "poison_loses", "n_opponents", "elimination"):
            assert getattr(batch, name)[b] == getattr(alone, name)[0], name


def test_a_shared_head_reads_its_poison_as_the_team_recipient() -> None:
    """701.34b, 810.10: the team's one poison counter goes to the chosen head: head_gain, not gain or weight."""
    layout = stack([load_board(_GIANT)], DEFAULT_POLICY)
    poison = layout.kinds.index("poison")
    assert layout.shared.tolist() == [1]
    assert layout.head_gain[:5].tolist() == [1, 1, 1, 1, 1]
    assert not layout.gain[:5, poison].any() and not layout.weights[:5, poison].any()


def test_a_counter_value_overrides_its_kind_weight() -> None:
    layout = stack([load_board(_GIANT)], DEFAULT_POLICY.with_weights(charge=0.5))
    assert layout.weights[8, layout.kinds.index("charge")] == 4000  # the relic's own value, in milli-points
    assert layout.worth[7] == 2500  # the Saga's own value


def test_boards_of_the_same_kinds_join_by_concatenation() -> None:
    board = load_board(_GIANT)
    boards = [board, board.with_counts(board.counts * 2), board]
    joined = join(boards)
    assert joined.columns is None and joined.kinds == board.kinds
    assert joined.counts.tolist() == np.concatenate([b.counts for b in boards]).tolist()
    assert joined.ints.tolist() == np.concatenate([b.layout.ints for b in boards], axis=1).tolist()
    assert joined.thr_off.tolist() == [0, 1, 2, 3]
    assert joined.thresholds[0].tolist() == [8, 17, 26]  # each board's rows moved to the batch's
    layout = stack(boards, DEFAULT_POLICY)
    for name in ("flags", "counts", "gain", "weights", "worth", "thr_row"):
        assert getattr(layout, name).flags.writeable and getattr(layout, name).flags.c_contiguous, name


def test_an_empty_batch_joins() -> None:
    layout = stack([], DEFAULT_POLICY)
    assert layout.obj_off.tolist() == [0] and layout.counts.shape == (0, 0) and layout.kinds == ()


def test_derived_boards_reuse_the_parent_layout() -> None:
    board = load_board(_GIANT)
    counted = board.with_counts(board.counts + (board.counts > 0))
    assert counted.layout is board.layout  # same objects, same kinds: only the counts change
    lived = board.with_life(board.life - 7)
    assert "layout" in lived.__dict__
    assert lived.layout.ints[R_LIFE].tolist() == [23, 23, 23, 23, 23, 1, 1, 1, 1]
    changed = np.flatnonzero(lived.layout.packed != board.layout.packed)  # a copy, only the lives changed
    assert (changed - changed[0]).tolist() == list(range(5)) and lived.layout.ints[R_LIFE, 0] == 23
    assert stack([lived], DEFAULT_POLICY).life.tolist() == lived.layout.ints[R_LIFE].tolist()
    other = board.with_proliferator(2)
    assert other.layout.ints[R_SIDE].tolist() == [-1, -1, 1, 1, 1, -1, 1, 1, -1]


def _in_row_order(layout: Layout) -> bool:
    """Each board's thresholds come in row order (what :func:`solver.kernels.exact.tabulate_into` reads)."""
    return all(
        bool(np.all(np.diff(layout.thr_row[layout.thr_off[b] : layout.thr_off[b + 1]]) >= 0))
        for b in range(len(layout.rounds))
    )


def test_a_boards_thresholds_are_in_row_order() -> None:
    boards = [load_board(generate(BoardSpec(40, variant, extras=True, seed=s))) for s in range(30)
              for variant in ("duel", "free_for_all", "two_headed_giant")]  # fmt: skip
    assert sum(len(board.thr_object) for board in boards) > 100
    derived = []
    for board in boards[:10]:
        with_thresholds = np.flatnonzero(np.bincount(board.thr_object, minlength=board.n_objects))
        remove = np.zeros(board.n_objects, dtype=np.bool_)
        remove[with_thresholds[with_thresholds >= board.n_players][:1]] = True
        derived.append(board.without(remove))
        with_thr = [p for p in board.permanents if p.thresholds]
        derived.append(board.with_permanent(dataclasses.replace(with_thr[0], id="copy")))
    for board in boards + derived:
        assert bool(np.all(np.diff(board.thr_object) >= 0)), board.ids
    assert _in_row_order(stack(boards + derived, DEFAULT_POLICY))
