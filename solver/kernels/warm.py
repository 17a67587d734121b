"""Warm numba's on-disk cache of the compiled core: ``python -m solver.kernels.warm`` (run by ``make demo``).

``import solver`` loads the core into the process (:func:`solver.preload.load`, over the same boards).

Compiling the kernels takes seconds to a minute; loading them from numba's cache takes a
fraction of a second.  This decides a handful of boards that reach every kernel (every
variant, 2HG shared poison, thresholds, Sagas, battles, several proliferates), so the first
``proliferate solve`` after installing loads cached code instead of compiling.  The cache
lives in ``__pycache__`` beside the sources when that is writable (an editable install), else
in numba's user-wide cache directory; ``NUMBA_CACHE_DIR`` overrides both.  The line printed
says which, and how long the kernels took.
"""

from __future__ import annotations

import sys
import time

from .. import preload
from ..preload import WARM_BOARDS

__all__ = ["WARM_BOARDS", "main", "warm"]


def warm() -> float:
    """Decide :data:`WARM_BOARDS` (both senses), tabulate their units, score and settle their choices; the
    seconds it took (compiling the kernels, or loading them from the cache).

    That is every compiled entry: the gains under replacement effects
    (:func:`~solver.kernels.gains.gains_616_1`, 616.1, on the board with Hardened Scales), the
    decision (:func:`~solver.kernels.decide`), the units CP-SAT, the pick-limit programme and
    explanations read (:attr:`solver.objective.Objective.units`: the core's row tables, unit split
    and 2HG team options), the state-based actions (:func:`~solver.kernels.settle_layout`) and the
    value of given choices (:func:`~solver.kernels.score_layout`, :func:`~solver.kernels.value_settled`),
    and the counters after given choices on every board of a layout that ``proliferate analyze``'s comments
    read (:func:`~solver.kernels.after.counters_after_layout`).
    """
    import numpy as np

    from ..boardjson import load_board
    from ..effects import gains
    from ..objective import Objective
    from ..policy import DEFAULT_POLICY
    from . import decide, score_layout, settle_layout, value_settled
    from .after import counters_after_layout

    boards = [load_board(b) for b in WARM_BOARDS]
    start = time.perf_counter()
    gains(boards[0])
    layout, best = decide(boards, DEFAULT_POLICY, 1)
    decide(boards, DEFAULT_POLICY, -1)
    for board in boards:
        _ = Objective(board, DEFAULT_POLICY).units
    times = best.chosen.sum(axis=0, dtype=np.int64)[None]
    scored = score_layout(layout, times, best.recipients[None])
    settled = settle_layout(layout, layout.counts.copy()[None])
    value_settled(layout, settled, scored.spans)
    counters_after_layout(layout, times, best.recipients[None])
    return time.perf_counter() - start


def main() -> int:
    import os

    seconds = preload.loaded_in + warm()  # the import loaded (or compiled) most of it already
    where = os.environ.get("NUMBA_CACHE_DIR") or "__pycache__ beside the sources (user-wide if read-only)"
    print(f"compiled core ready in {seconds:.1f} s (numba cache: {where})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
