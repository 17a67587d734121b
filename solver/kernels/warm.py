"""Warm numba's on-disk cache of the compiled core: ``python -m solver.kernels.warm`` (run by ``make demo``).

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

__all__ = ["WARM_BOARDS", "main", "warm"]

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


def warm() -> float:
    """Decide :data:`WARM_BOARDS` (both senses), score and settle their choices; the seconds it took.

    That is compiling the kernels, or loading them from the cache: the decision
    (:func:`~solver.kernels.decide`), the state-based actions (:func:`~solver.kernels.settle_layout`)
    and the value of given choices (:func:`~solver.kernels.score_layout`, :func:`~solver.kernels.value_settled`).
    """
    import numpy as np

    from .. import load_board
    from ..policy import DEFAULT_POLICY
    from . import decide, score_layout, settle_layout, value_settled

    boards = [load_board(b) for b in WARM_BOARDS]
    start = time.perf_counter()
    layout, best = decide(boards, DEFAULT_POLICY, 1)
    decide(boards, DEFAULT_POLICY, -1)
    times = best.chosen.sum(axis=0, dtype=np.int64)[None]
    scored = score_layout(layout, times, best.recipients[None])
    settled = settle_layout(layout, layout.counts.copy()[None])
    value_settled(layout, settled, scored.spans)
    return time.perf_counter() - start


def main() -> int:
    import os

    seconds = warm()
    where = os.environ.get("NUMBA_CACHE_DIR") or "__pycache__ beside the sources (user-wide if read-only)"
    print(f"compiled core ready in {seconds:.1f} s (numba cache: {where})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
