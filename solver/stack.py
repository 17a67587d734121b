"""Many boards as one: the disjoint union of their objects, for deciding them in one pass.

A :class:`Stack` has one row per object of any of its boards (each board's rows together,
in board order, players first as on a board), one column per counter kind on any of them,
and ``board_of`` saying whose each row is.  Controllers and threshold objects point at
rows of the stack; protectors are not stacked, since no kernel reads them (each array
joined costs about a tenth of a microsecond per board).  It offers the attributes the rules
read from a board (:class:`solver.rules.ObjectArrays`, :class:`solver.objective.MaterialSource`),
so the state-based actions and the material of ten thousand boards are the same array
operations as for one (:func:`solver.rules.settle`, :func:`solver.objective.material_of`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from operator import attrgetter
from typing import cast

import numpy as np

from . import effects
from .board import Board, BoolArray, CardType, FloatArray, IntArray, SbaMasks, Variant

__all__ = ["Stack"]

#: What :meth:`Stack.of` reads from every board, in one pass.
_GATHERED = (
    "ids",
    "kinds",
    "counts",
    "n_players",
    "team_names",
    "variant",
    "rounds",
    "proliferator",
    "team",
    "life",
    "controller",
    "types",
    "power",
    "toughness",
    "damage",
    "indestructible",
    "chapters",
    "phased_out",
    "value",
    "is_ally",
    "thr_object",
    "thr_kind",
    "thr_at",
    "thr_effect",
    "cv_object",
    "cv_kind",
    "cv_value",
)
_gather = attrgetter(*_GATHERED)


_dtype_of = attrgetter("dtype")


def _joined(arrays: Sequence[np.ndarray], dtype: np.dtype) -> np.ndarray:
    """The arrays' elements one after the other (each flattened row by row), as ``dtype``; read-only.

    When every array already is C-contiguous ``dtype``, their bytes are joined: a tenth of
    what ``np.concatenate`` costs per array (about 0.13 us, paid per board for every array).
    Anything else is concatenated and converted, as the bytes would not mean the values.
    """
    if set(map(_dtype_of, arrays)) == {dtype}:
        try:
            return np.frombuffer(b"".join(cast("Sequence[bytes]", arrays)), dtype=dtype)  # arrays are buffers
        except TypeError:  # an array not C-contiguous (no simple buffer)
            pass
    out = np.concatenate(arrays, axis=None).astype(dtype, copy=False) if arrays else np.zeros(0, dtype=dtype)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class Stack:
    """The disjoint union of boards (see module docstring).  Build one with :meth:`of`.

    Per board: ``offsets[b]:offsets[b + 1]`` are its rows, ``rounds[b]`` its proliferates,
    ``proliferator[b]`` the row of its proliferator.  Per player (``player_rows``, in stack
    order): ``player_board``, ``seat`` (its team in 2HG, else itself, 810.8a), ``team`` (a
    team number unique across the stack) and ``team_offsets`` to map teams back to boards;
    ``has_poison[b]`` whether board ``b`` has a poison column at all.
    """

    boards: tuple[Board, ...]
    offsets: IntArray
    board_of: IntArray
    kinds: tuple[str, ...]
    counts: IntArray
    gain: IntArray
    controller: IntArray
    types: IntArray
    power: IntArray
    toughness: IntArray
    damage: IntArray
    indestructible: BoolArray
    chapters: IntArray
    phased_out: BoolArray
    value: FloatArray
    is_ally: BoolArray
    thr_object: IntArray
    thr_kind: IntArray
    thr_at: IntArray
    thr_effect: tuple[str | float, ...]
    cv_object: IntArray
    cv_kind: IntArray
    cv_value: FloatArray
    rounds: IntArray
    two_headed: BoolArray
    has_poison: BoolArray
    proliferator: IntArray
    player_rows: IntArray
    player_board: IntArray
    life: IntArray
    seat: IntArray
    team: IntArray
    team_offsets: IntArray

    @classmethod
    def of(cls, boards: Sequence[Board], *, with_gain: bool = True) -> Stack:
        """Stack ``boards``: one Python pass over the boards gathering their arrays, none over objects.

        ``with_gain=False`` leaves :attr:`gain` all zero, for settling given counts only (the
        boards' own gains, costly with replacement effects, are then never worked out).
        """
        boards = tuple(boards)
        n_boards = len(boards)
        gathered = dict(zip(_GATHERED, zip(*map(_gather, boards), strict=True), strict=True)) if boards else {}
        if with_gain and boards:
            gathered["gain"] = tuple(map(effects.gain, boards))

        def cat(name: str, dtype: type, total: int | None = None) -> np.ndarray:
            """Every board's array joined (flattened row by row).

            A ``total`` length of 0 gives the empty array at once: most boards have no thresholds
            and no counter values, and joining their empty arrays costs as much as full ones.
            """
            if total == 0:
                return _joined((), np.dtype(dtype))
            return _joined(gathered.get(name, ()), np.dtype(dtype))

        def lengths(name: str) -> IntArray:
            return np.fromiter(map(len, gathered.get(name, ())), dtype=np.int64, count=n_boards)

        sizes = lengths("ids")
        offsets = np.zeros(n_boards + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        board_of = np.repeat(np.arange(n_boards), sizes)
        shift = offsets[:-1][board_of]

        # The union of kinds, in order of first appearance, and every board's columns as union columns.
        all_kinds: tuple[tuple[str, ...], ...] = gathered.get("kinds", ())
        width = lengths("kinds")
        union = {kind: k for k, kind in enumerate(dict.fromkeys(chain.from_iterable(all_kinds)))}
        code = np.fromiter(map(union.__getitem__, chain.from_iterable(all_kinds)), np.int64, int(width.sum()))
        n = int(offsets[-1])
        counts = np.zeros((n, len(union)), dtype=np.int64)
        gain = np.zeros((n, len(union)), dtype=np.int64)
        # Every (row, kind) cell of every board, flattened row by row: its place in the stack's arrays.
        # Each board's union columns padded to the widest board, one line per row, and the padding
        # masked out: the rest, in order, are the cells as each board lays them out.
        first_col = np.cumsum(width) - width
        used = np.arange(int(width.max(initial=0))) < width[:, None]
        padded = np.zeros(used.shape, dtype=np.int64)
        padded[used] = code
        cells = padded[board_of]
        cells += (np.arange(n) * len(union))[:, None]
        where = cells[used[board_of]]
        counts.reshape(-1)[where] = cat("counts", np.int64)
        if with_gain:
            gain.reshape(-1)[where] = cat("gain", np.int64)
        poison = union.get("poison", -1)
        has_poison = np.zeros(n_boards, dtype=bool)
        has_poison[np.repeat(np.arange(n_boards), width)[code == poison]] = True

        n_thr, n_cv = lengths("thr_object"), lengths("cv_object")
        thr_total, cv_total = int(n_thr.sum()), int(n_cv.sum())
        n_players = np.fromiter(gathered.get("n_players", ()), dtype=np.int64, count=n_boards)
        player_rows = np.flatnonzero(np.arange(n) - shift < n_players[board_of])
        player_board = np.repeat(np.arange(n_boards), n_players)
        two_headed = np.array([v is Variant.TWO_HEADED_GIANT for v in gathered.get("variant", ())], dtype=bool)
        local_team = cat("team", np.int64)
        team_offsets = np.zeros(n_boards + 1, dtype=np.int64)
        np.cumsum(lengths("team_names"), out=team_offsets[1:])
        return cls(
            boards=boards,
            offsets=offsets,
            board_of=board_of,
            kinds=tuple(union),
            counts=counts,
            gain=gain,
            controller=cat("controller", np.int64) + shift,
            types=cat("types", np.int64),
            power=cat("power", np.int64),
            toughness=cat("toughness", np.int64),
            damage=cat("damage", np.int64),
            indestructible=cat("indestructible", bool),
            chapters=cat("chapters", np.int64),
            phased_out=cat("phased_out", bool),
            value=cat("value", np.float64),
            is_ally=cat("is_ally", bool),
            thr_object=cat("thr_object", np.int64, thr_total) + np.repeat(offsets[:-1], n_thr),
            thr_kind=code[np.repeat(first_col, n_thr) + cat("thr_kind", np.int64, thr_total)],
            thr_at=cat("thr_at", np.int64, thr_total),
            thr_effect=tuple(chain.from_iterable(gathered.get("thr_effect", ()))),
            cv_object=cat("cv_object", np.int64, cv_total) + np.repeat(offsets[:-1], n_cv),
            cv_kind=code[np.repeat(first_col, n_cv) + cat("cv_kind", np.int64, cv_total)],
            cv_value=cat("cv_value", np.float64, cv_total),
            rounds=np.fromiter(gathered.get("rounds", ()), dtype=np.int64, count=n_boards),
            two_headed=two_headed,
            has_poison=has_poison,
            proliferator=offsets[:-1] + np.fromiter(gathered.get("proliferator", ()), dtype=np.int64, count=n_boards),
            player_rows=player_rows,
            player_board=player_board,
            life=cat("life", np.int64),
            seat=np.where(two_headed[player_board], local_team, player_rows - offsets[:-1][player_board]),
            team=local_team + team_offsets[:-1][player_board],
            team_offsets=team_offsets,
        )

    # ------------------------------------------------------------------ what the rules read
    @property
    def n_boards(self) -> int:
        return len(self.boards)

    @property
    def n_objects(self) -> int:
        return len(self.board_of)

    @cached_property
    def _columns(self) -> dict[str, int]:
        return {kind: k for k, kind in enumerate(self.kinds)}

    def kind_column(self, kind: str) -> int:
        """Column of a kind, or -1 if no object of any board has it."""
        return self._columns.get(kind, -1)

    @cached_property
    def is_player(self) -> BoolArray:
        out = np.zeros(self.n_objects, dtype=bool)
        out[self.player_rows] = True
        return out

    def has_type(self, card_type: CardType) -> BoolArray:
        """Rows with any of the given card types, as :meth:`Board.has_type` for one board."""
        out: BoolArray = (self.types & int(card_type)) != 0
        return out

    @cached_property
    def sba_masks(self) -> SbaMasks:
        """Which objects each state-based action can concern, as :attr:`Board.sba_masks` for one board."""
        return SbaMasks.build(self.is_player, self.phased_out, self.types, self.indestructible, self.chapters)

    @cached_property
    def n_seats(self) -> IntArray:
        """Seats per board: teams in 2HG, else players."""
        out: IntArray = np.bincount(self.player_board, minlength=self.n_boards)
        teams = np.diff(self.team_offsets)
        return np.where(self.two_headed, teams, out).astype(np.int64)
