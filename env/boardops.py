"""Small changes to a solver board between decisions that are bookkeeping, not rules.

Permanents leave or enter, life changes, counters are put by the event model, another
player proliferates.  The rules that follow (state-based actions, who loses) always come
from :mod:`solver.rules`; these helpers only keep the board consistent: a replacement
effect leaves with the last permanent that generates it, and a Two-Headed Giant team's
shared life and poison (810.4, 810.10) show on both heads, as :class:`solver.Board`
stores them.

They are also where the env's speed is won or lost: a :class:`solver.Board` caches what it
derives from its objects (row index, type masks, what one proliferate adds ...), and a
board made with ``dataclasses.replace`` starts with none of it.  :func:`retarget`,
:func:`with_counts` and :func:`with_life` use the Board's own ``with_*`` derivations, which
carry those caches over (:func:`with_counts` keeps the very board when the counts are its
own), and :meth:`solver.Board.with_permanent` adds a permanent without rebuilding every object.
"""

from __future__ import annotations

import numpy as np

from solver.core import Board, BoolArray, IntArray, Variant

__all__ = [
    "add_counters",
    "drop_orphan_effects",
    "lose_life",
    "lose_lives",
    "remove",
    "remove_ids",
    "retarget",
    "with_counts",
    "with_life",
]


def retarget(board: Board, proliferator: int, proliferates: int) -> Board:
    """``board`` with another player proliferating (or the same one, another number of times)."""
    if proliferator == board.proliferator and proliferates == board.proliferates:
        return board
    return board.with_proliferator(proliferator, proliferates)


def with_counts(board: Board, counts: IntArray) -> Board:
    """``board`` with ``counts``; the board itself when they are its own (most state-based checks change none)."""
    own = board.counts
    if counts.shape == own.shape and counts.dtype == own.dtype and counts.tobytes() == own.tobytes():
        return board
    return board.with_counts(counts)


def with_life(board: Board, life: IntArray) -> Board:
    """``board`` with other life totals."""
    return board.with_life(life)


def remove(board: Board, gone: BoolArray) -> Board:
    """``board`` without the permanents in ``gone``, and without effects nobody generates any more."""
    if not np.count_nonzero(gone):
        return board
    return drop_orphan_effects(board.without(gone))


def drop_orphan_effects(board: Board) -> Board:
    """Remove the replacement effects whose permanent has left the battlefield."""
    if not board.effects:
        return board
    first, ids = board.n_players, board.ids
    present = {
        (str(name), ids[controller])
        for name, controller in zip(board.names[first:].tolist(), board.controller[first:].tolist(), strict=True)
    }
    effects = tuple(e for e in board.effects if (e.card, e.controller) in present)
    return board if len(effects) == len(board.effects) else board.with_effects(effects)


def remove_ids(board: Board, ids: list[str]) -> Board:
    gone = np.zeros(board.n_objects, dtype=bool)
    for obj_id in ids:
        row = board.index.get(obj_id)
        if row is not None and row >= board.n_players:
            gone[row] = True
    return remove(board, gone)


def _heads(board: Board, player: int) -> BoolArray:
    if board.variant is Variant.TWO_HEADED_GIANT:
        out: BoolArray = board.team[: board.n_players] == board.team[player]
        return out
    mine: BoolArray = np.arange(board.n_players) == player
    return mine


def lose_life(board: Board, player: int, amount: int) -> Board:
    """``player`` loses life; a 2HG team's life total is shared (810.4)."""
    lost = np.zeros(board.n_players, dtype=np.int64)
    lost[player] = amount
    return lose_lives(board, lost)


def lose_lives(board: Board, lost: IntArray) -> Board:
    """Every player loses ``lost[player]`` life at once (one new board, however many players)."""
    if not np.count_nonzero(lost):
        return board
    if board.variant is not Variant.TWO_HEADED_GIANT:  # every player's own life: one subtraction
        return with_life(board, board.life - lost)
    life = board.life.copy()
    for player in np.flatnonzero(lost):
        life[_heads(board, int(player))] -= lost[player]
    return with_life(board, life)


def add_counters(board: Board, counts: IntArray, row: int, kind: str, amount: int) -> None:
    """Put ``amount`` counters of ``kind`` on ``row`` in ``counts`` (a 2HG team's poison is shared, 810.10)."""
    col = board.kind_column(kind)
    if col < 0:
        raise ValueError(f"the board has no {kind!r} column (generated boards carry every BASE_KINDS column)")
    if kind == "poison" and row < board.n_players:
        counts[: board.n_players, col][_heads(board, row)] += amount
    else:
        counts[row, col] = max(counts[row, col] + amount, 0)
