"""Boards shared by the contract tests: one large enough that CP-SAT needs seconds on it."""

from __future__ import annotations

from functools import cache

import solver
from benchmarks.boards import BoardSpec, generate

#: The board of issue 11: 2,000 objects, free-for-all, two proliferates, thresholds and effects.
BIG = BoardSpec(size=2000, variant="free_for_all", proliferates=2, extras=True, seed=1)
#: Slack for what cannot be interrupted (building one model, scoring the answer) on a shared, busy machine.
MARGIN = 0.4
#: How soon a request must be answered after a cancel; the cancelled work alone would take many seconds.
AFTER_CANCEL = 1.0


@cache
def big_board() -> solver.Board:
    return solver.load_board(generate(BIG))
