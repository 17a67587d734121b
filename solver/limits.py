"""The limits on a board, as named constants: every one is documented in ``docs/limits.md``.

They exist so that one request cannot exhaust memory or time, and so that the objective's
integer milli-point arithmetic (:mod:`solver.objective`) cannot overflow int64.  The board
loader refuses a board past any of them with a :class:`~solver.errors.BoardError` naming the
limit and the JSON path of the first field past it, and checks the sizes of lists before
walking them, so a board far past a limit is refused cheaply.

The arithmetic budget.  A board's *magnitude* (:func:`solver.boardjson.magnitude_rows`) bounds, in points
at unit counter weight, everything the objective can add up on it: every counter it can
have after the resolution (``count + rounds x gain`` per object and kind, at the
permanent's ``counter_values`` override where there is one), every permanent's worth, Saga
chapters and threshold amounts.  With counter weights of at most :data:`ASSUMED_WEIGHT`
(the policy's bound), a material total is at most ``1000 x ASSUMED_WEIGHT x MAX_MAGNITUDE``
= 1e16 milli-points, a span between two choices at most twice that, and the game result
term (the span raised by the policy's ``max |score| / smallest gap``, at most
:data:`ASSUMED_SCORE_RATIO`) keeps the total below ``2**62``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ASSUMED_SCORE_RATIO",
    "ASSUMED_WEIGHT",
    "MAX_BOARD_BYTES",
    "MAX_CELLS",
    "MAX_COUNT",
    "MAX_EFFECTS",
    "MAX_KINDS",
    "MAX_LINE_BYTES",
    "MAX_MAGNITUDE",
    "MAX_OBJECTS",
    "MAX_PLAYERS",
    "MAX_POINTS",
    "MAX_POLICY_BYTES",
    "MAX_PROLIFERATES",
    "MAX_ROUNDS",
    "MAX_SEATS",
    "MAX_SIGNED",
]

#: Players and permanents on one board (about 1.5 kB each while loading and solving, JSON included).
MAX_OBJECTS: Final = 250_000
#: Distinct counter kinds on one board (after normalisation).
MAX_KINDS: Final = 1_000
#: Cells of the dense counts matrix: objects x distinct kinds (about 90 bytes each while solving).
MAX_CELLS: Final = 4_000_000
#: Players on one board: the objective packs a bit per player in an int64.
MAX_PLAYERS: Final = 62
#: Seats (players, or teams in Two-Headed Giant): events use three bits per seat in an int64
#: (``solver.rules.MAX_SEATS``), and the fast path's table has 2**seats entries
#: (``solver.kernels.exact.MAX_FREE_SEATS``).
MAX_SEATS: Final = 20
#: Replacement-effect and proliferate-changing cards in play on one board.
MAX_EFFECTS: Final = 62
#: ``proliferates`` (a "proliferate N times" instruction).
MAX_PROLIFERATES: Final = 16
#: Proliferates performed: ``proliferates`` x 2 per Tekuthal its controller has (every solver loops over them).
MAX_ROUNDS: Final = 64
#: Counts, damage, chapters and threshold ``at``: 0 (or 1) .. this.
MAX_COUNT: Final = 10**9
#: Life, power and toughness: -this .. this.
MAX_SIGNED: Final = 10**9
#: ``value``, ``counter_values`` and numeric threshold effects, in points: -this .. this.
MAX_POINTS: Final = 10**9
#: The board's magnitude (see the module docstring), in points.
MAX_MAGNITUDE: Final = 10**7
#: Largest |counter weight| a policy may give (the policy's own bound; an assumption here).
ASSUMED_WEIGHT: Final = 10**6
#: Largest ``max |game score| / smallest gap between game scores`` the budget leaves room for.
ASSUMED_SCORE_RATIO: Final = 200

#: Size of a board file read whole (``load_board(path)``, ``proliferate solve BOARD``; ``--max-board-bytes``
#: changes it for the command): the objects limit at about 110 bytes of JSON each, with room to spare.
MAX_BOARD_BYTES: Final = 64 << 20
#: Size of a policy TOML file (a few dozen weights in practice).
MAX_POLICY_BYTES: Final = 1 << 20
#: One line of a game-records file or an MTG Arena log (``proliferate analyze`` and ``import-arena``;
#: ``--max-line-bytes`` changes it): a record holds one board, and Arena's largest messages are a few MB.
MAX_LINE_BYTES: Final = 64 << 20

# The budget, checked once at import so that changing a limit cannot silently break it.
assert 1000 * ASSUMED_WEIGHT * MAX_MAGNITUDE * 2 * (1 + ASSUMED_SCORE_RATIO) < 2**62
assert MAX_SEATS <= 20 and MAX_PLAYERS <= 62 and MAX_PROLIFERATES <= MAX_ROUNDS
