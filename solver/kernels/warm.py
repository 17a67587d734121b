"""Warm numba's on-disk cache of the compiled core: ``python -m solver.kernels.warm`` (run by ``make demo``);
and :func:`load`, which ``import solver`` calls to load the core into the process.

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
from typing import Any

__all__ = ["WARM_BOARDS", "load", "main", "warm"]

#: Boards that between them reach every kernel.
WARM_BOARDS: tuple[dict[str, Any], ...] = (
    {
        "variant": "duel",
        "proliferator": "alice",
        "proliferates": 2,
        "players": [
            {"id": "alice", "team": "alice", "counters": {"energy": 1}},
            {"id": "bob", "team": "bob", "counters": {"poison": 8}},
        ],
        "permanents": [
            {"id": "bear", "controller": "alice", "types": ["creature"], "power": 2, "toughness": 2,
             "damage": 1, "counters": {"+1/+1": 1, "-1/-1": 1, "shield": 1}},
            {"id": "saga", "controller": "alice", "types": ["enchantment"], "subtypes": ["Saga"], "chapters": 3,
             "counters": {"lore": 2}},
            {"id": "siege", "controller": "bob", "types": ["battle"], "subtypes": ["Siege"], "protector": "alice",
             "counters": {"defense": 1}},
            {"id": "walker", "controller": "alice", "types": ["planeswalker"], "counters": {"loyalty": 3},
             "thresholds": [{"kind": "loyalty", "at": 5, "effect": 4.0, "label": "ult"}]},
            {"id": "ascendancy", "controller": "alice", "types": ["enchantment"], "counters": {"growth": 19},
             "thresholds": [{"kind": "growth", "at": 20, "effect": "win", "label": "win"}]},
        ],
        "effects": [{"card": "Hardened Scales", "controller": "alice"}],
    },
    {
        "variant": "two_headed_giant",
        "proliferator": "alice",
        "players": [
            {"id": "alice", "team": "A", "counters": {"poison": 3}},
            {"id": "ally", "team": "A", "counters": {"poison": 3}},
            {"id": "bob", "team": "B", "counters": {"poison": 13}},
            {"id": "carol", "team": "B", "counters": {"poison": 13, "energy": 2}},
        ],
        "permanents": [
            {"id": "elf", "controller": "bob", "types": ["creature"], "power": 1, "toughness": 1,
             "counters": {"+1/+1": 1}},
        ],
    },
)  # fmt: skip


#: Seconds :func:`load` took in this process (numba's set-up and loading or compiling the core).
loaded_in = 0.0


def load() -> None:
    """Load the compiled core into this process, as eager compilation would: ``import solver`` calls it.

    The first call of a compiled function in a process pays numba's one-time set-up (its
    typing and target contexts: 0.3-0.6 s here) and the loading of that function from the
    cache (10-50 ms each); paid by the first decision, they would exceed its time limit many
    times over (a constrained ``solve`` with ``time_limit=0.05``, tests/test_cpsat_loading.py).
    So the library's import pays them, deciding one small 2HG board whose objective reaches
    every entry point a decision calls (the optimum, the row tables, the unit split, the team
    options, the value of a given choice, the game result of an events mask and the game weight,
    the counters after a choice, the material of a settled resolution), and the gains of the board
    with a replacement effect (:func:`~solver.kernels.gains.gains_616_1`, 616.1).  With no cache
    yet (an install not warmed), this compiles them: a minute, once.
    """
    global loaded_in
    from ..boardjson import load_board
    from ..effects import gains
    from ..objective import Objective
    from ..policy import DEFAULT_POLICY
    from ..rules import counters_after

    start = time.perf_counter()
    gains(load_board(WARM_BOARDS[0]))
    objective = Objective(load_board(WARM_BOARDS[1]), DEFAULT_POLICY)
    best = objective.best()
    _ = objective.units
    objective.score_matrix(best.chosen, best.recipients)
    objective.game_milli(best.events | 1)  # the game kernel, and the game weight
    counters_after(objective.board, best.chosen, best.recipients)
    objective.material(objective.settled_nothing)
    loaded_in = time.perf_counter() - start


def warm() -> float:
    """Decide :data:`WARM_BOARDS` (both senses), tabulate their units, score and settle their choices; the
    seconds it took (compiling the kernels, or loading them from the cache).

    That is every compiled entry: the gains under replacement effects
    (:func:`~solver.kernels.gains.gains_616_1`, 616.1, on the board with Hardened Scales), the
    decision (:func:`~solver.kernels.decide`), the units CP-SAT, the pick-limit programme and
    explanations read (:attr:`solver.objective.Objective.units`: the core's row tables, unit split
    and 2HG team options), the state-based actions (:func:`~solver.kernels.settle_layout`) and the
    value of given choices (:func:`~solver.kernels.score_layout`, :func:`~solver.kernels.value_settled`).
    """
    import numpy as np

    from ..boardjson import load_board
    from ..effects import gains
    from ..objective import Objective
    from ..policy import DEFAULT_POLICY
    from . import decide, score_layout, settle_layout, value_settled

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
    return time.perf_counter() - start


def main() -> int:
    import os

    seconds = loaded_in + warm()  # the import loaded (or compiled) most of it already
    where = os.environ.get("NUMBA_CACHE_DIR") or "__pycache__ beside the sources (user-wide if read-only)"
    print(f"compiled core ready in {seconds:.1f} s (numba cache: {where})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
