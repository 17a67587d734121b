"""Load the compiled core into the process: ``import solver`` calls :func:`load` (numba's set-up, then every
compiled entry a decision calls, from numba's on-disk cache), so no first call's time limit pays for it.

:data:`WARM_BOARDS` reach every kernel between them; ``python -m solver.kernels.warm`` (run by the
Makefile's install step) decides them all to fill the cache.  This module is apart from that script so the
package's import does not import the script's own module (``python -m`` would warn that it ran a module
already imported).
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["WARM_BOARDS", "load", "loaded_in"]

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
    with a replacement effect (:func:`~solver.kernels.gains.board_gains_616_1`, 616.1).  With no cache
    yet (an install not warmed), this compiles them: a minute, once.
    """
    global loaded_in
    from .boardjson import load_board
    from .effects import gains
    from .objective import Objective
    from .policy import DEFAULT_POLICY
    from .rules import counters_after

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
