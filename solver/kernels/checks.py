"""The loader's checks over a board's arrays, compiled: docs/limits.md's magnitude of every object.

:func:`solver.boardjson.magnitude_rows` is this kernel on a board's arrays; the loader reads
it once per board, on an upper bound of the gains (:func:`solver.effects.gain_bound`) unless
the board is near the limit, where the exact gains decide (``docs/limits.md``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from ..board import T_CHAPTERS, T_POWER, T_TOUGHNESS, T_TYPES

__all__ = ["magnitude_rows_kernel"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@njit(cache=True)
def magnitude_rows_kernel(
    counts: IntArray,
    gain: IntArray,
    bound: float,
    rounds: int,
    creature: int,
    table: IntArray,
    value: FloatArray,
    cv_object: IntArray,
    cv_kind: IntArray,
    cv_value: FloatArray,
    thr_object: IntArray,
    thr_amount: FloatArray,
    out: FloatArray,
) -> float:
    """Per object into ``out``, the most the objective can count on it (points at unit counter weight); the total.

    Counters after the whole resolution if chosen every time (``count + rounds x gain``, 701.34a),
    each at its counter-value override if larger than 1; the permanent's worth (its ``value``,
    else 1 + (|power| + |toughness|) / 2 for a creature); a Saga's worth and 1.5 per chapter
    (714.2d); the amounts of its numeric thresholds (122.7).  ``gain`` is what one proliferate
    adds per object and kind, or empty for ``bound`` on every cell with counters.  Float, so it
    cannot overflow.  ``table``: the board's rows of :data:`solver.board.TABLE_FIELDS` (its types, power,
    toughness and chapters are read; a board's table is one argument where its rows would be four).
    """
    types, power, toughness, chapters = table[T_TYPES], table[T_POWER], table[T_TOUGHNESS], table[T_CHAPTERS]
    n, n_kinds = counts.shape
    exact = gain.shape[0] > 0
    for i in range(n):
        total = 0.0
        for k in range(n_kinds):
            c = counts[i, k]
            total += c
            if exact:
                total += rounds * float(gain[i, k])
            elif c > 0:
                total += rounds * bound
        v = value[i]
        if not np.isnan(v):
            total += abs(v)
        elif types[i] & creature:
            total += 1.0 + (abs(power[i]) + abs(toughness[i])) / 2
        if chapters[i] > 0:
            total += 1.0 + 1.5 * chapters[i]
        out[i] = total
    for j in range(len(cv_object)):
        o, k = cv_object[j], cv_kind[j]
        g = float(gain[o, k]) if exact else (bound if counts[o, k] > 0 else 0.0)
        out[o] += (counts[o, k] + rounds * g) * max(abs(cv_value[j]) - 1.0, 0.0)
    for j in range(len(thr_object)):
        out[thr_object[j]] += thr_amount[j]
    return float(out.sum())
