"""N games of one env configuration in arrays, stepped by one compiled call: the engine behind the v1 envs.

:class:`Engine` owns the state (:class:`~env.kernels.state.GameArrays`), the tables
(:mod:`env.kernels.tables`) and the agent's views (observation slots laid out once per decision),
all allocated once.  :meth:`Engine.reset` and :meth:`Engine.step` take the indices of the games
they act on; the single env is an engine of one game, the vector env one of N: the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core import Board, ChoiceMatrix

from ..config import AgentConfig, EnvConfig
from ..scenarios import ARCHETYPES
from ..spaces import N_GLOBALS, N_KINDS, N_STATS
from . import game as K
from . import handle as H
from .handle import BAD_ACTION, Handle
from .rng import seeded_states
from .state import G_DECISIONS, G_PENDING, G_PROUND, G_PROUNDS, G_PSEAT, MAX_ROUNDS, GameArrays
from .tables import OPPONENTS, Tables, build_tables

__all__ = ["Engine", "view_arrays"]

TEAMS = {"duel": (0, 1), "two_headed_giant": (0, 0, 1, 1), "free_for_all": (0, 1, 2, 3)}


def view_arrays(n: int, slots: int) -> tuple[np.ndarray, ...]:
    """The view arrays of ``n`` games (:func:`~env.kernels.game.build_view` writes them, ``observe`` reads them):
    per observation slot its state slot (-1: empty), counters, kind, relation, stats, present and eligible; the 2HG
    recipient heads and whether each team's recipient bit is open; the seats' globals."""
    s = slots
    return (
        np.full((n, s), -1, dtype=np.int64),
        np.zeros((n, s, N_KINDS), dtype=np.int16),
        np.zeros((n, s), dtype=np.int64),
        np.zeros((n, s), dtype=np.int64),
        np.zeros((n, s, N_STATS), dtype=np.int16),
        np.zeros((n, s), dtype=np.int8),
        np.zeros((n, s), dtype=np.int8),
        np.full((n, 2, 2), -1, dtype=np.int64),
        np.zeros((n, 2), dtype=np.int8),
        np.zeros((n, 12), dtype=np.float32),
    )


class Engine:
    """``n`` games stepped together (see the module docstring)."""

    def __init__(self, config: EnvConfig, agent: AgentConfig, n: int, *, threads: bool | None = None) -> None:
        self.config, self.agent, self.n = config, agent, n
        self.slots = config.slots
        self.arrays = GameArrays(n, config.variant, config.n_seats, config.slots)
        self.python_opponent: Callable[[Board, np.random.Generator], Any] | None = None
        name = next((k for k, v in _named_policies().items() if v is agent.opponent), None)
        self.opponent = OPPONENTS.index(name) if name is not None else OPPONENTS.index("python")
        if name is None:
            self.python_opponent = agent.opponent
        self.pool = np.array([ARCHETYPES.index(a) for a in (config.archetypes or ARCHETYPES)], dtype=np.int64)
        self.teams = np.array(TEAMS[config.variant.value], dtype=np.int64)
        self.threads = n >= 64 if threads is None else threads
        self._build_tables()
        self.views = view_arrays(n, self.slots)
        self.out_f = np.zeros((n, 4), dtype=np.float64)
        self.out_i = np.zeros((n, 4), dtype=np.int64)
        #: Per game: its episode is over (no decision of the agent's to come), and a count bumped per decision.
        self.over = np.zeros(n, dtype=np.bool_)
        self.decision_key = np.zeros(n, dtype=np.int64)
        self.one_hot = np.zeros(3, dtype=np.float32)
        self.one_hot[int(self.tables.ints[28])] = 1.0  # I_VARIANT
        s = self.slots
        #: Each observation key's per-game shape and dtype, in :func:`K.observe`'s order.
        self.obs_layout: dict[str, tuple[tuple[int, ...], np.dtype[Any]]] = {
            "counters": ((s, N_KINDS), np.dtype(np.int16)),
            "kind": ((s,), np.dtype(np.int64)),
            "relation": ((s,), np.dtype(np.int64)),
            "stats": ((s, N_STATS), np.dtype(np.int16)),
            "present": ((s,), np.dtype(np.int8)),
            "eligible": ((s,), np.dtype(np.int8)),
            "times": ((s,), np.dtype(np.int8)),
            "picked": ((s,), np.dtype(np.int8)),
            "action_mask": ((agent.n_bits,), np.dtype(np.int8)),
            "globals": ((N_GLOBALS,), np.dtype(np.float32)),
        }
        #: The observation buffers (a row per game), written by the compiled entries; callers copy rows out.
        self.obs = tuple(np.zeros((n, *shape), dtype=dtype) for shape, dtype in self.obs_layout.values())
        want_value = agent.reward_mode != "terminal" or agent.oracle_in_info
        want_regret = agent.reward_mode == "regret" or agent.oracle_in_info
        sequential = agent.action_mode == "sequential"
        self.flags = np.array([config.horizon, sequential, want_value, want_regret, agent.n_bits], dtype=np.int64)
        self._seat_ids = tuple(f"p{i}" for i in range(config.n_seats))
        self._team_names = tuple("ABCD"[t] for t in sorted(set(self.teams.tolist())))

    def _build_tables(self) -> None:
        self.tables: Tables = build_tables(
            self.config,
            self.arrays.catalogue,
            opponent=self.opponent,
            bandit=self.agent.bandit,
            sequential=self.agent.action_mode == "sequential",
            penalty=self.agent.illegal_penalty,
        )
        self.arrays._widen()
        self.T = self.tables.as_tuple()
        self._state()

    def _state(self) -> None:
        """Gather the state arrays into :attr:`S` (again after :meth:`GameArrays.load` may have widened them)."""
        a = self.arrays
        self.S: tuple[np.ndarray, ...] = tuple(getattr(a, name) for name in K.STATE_ORDER)
        self._handle: Handle | None = None

    @property
    def handle(self) -> Handle:
        """The compiled entries' handle on :attr:`S`, :attr:`T`, the views and the buffers (:mod:`.handle`),
        made again after the state arrays are."""
        if self._handle is None:
            self._handle = H.make_handle(
                self.S, self.T, self.views, self.obs, self.out_f, self.out_i, self.over, self.decision_key,
                self.one_hot, self.flags,
            )  # fmt: skip
        return self._handle

    @property
    def nbytes(self) -> int:
        return self.arrays.nbytes + sum(v.nbytes for v in self.views) + self.out_f.nbytes + self.out_i.nbytes

    # ------------------------------------------------------------------ reset and step
    def reset(
        self, indices: Sequence[int], seeds: Sequence[int], board: Board | None = None, *, observe: bool = False
    ) -> npt.NDArray[np.int64]:
        """Start a game in each of ``indices``, game ``indices[j]`` seeded with ``seeds[j]``; their statuses.

        With ``observe``, their episodes are marked not over and their observations written into :attr:`obs`
        (row ``j``), in the same compiled call."""
        a = self.arrays
        if board is not None:
            known = (len(a.catalogue.cards), len(a.catalogue.kinds))
            for g in indices:
                a.load(g, board)
            if (len(a.catalogue.cards), len(a.catalogue.kinds)) != known:
                self._build_tables()
            self._state()
        status = np.zeros(len(indices), dtype=np.int64)
        if board is None:
            for g in indices:
                a.seat_ids[g], a.team_names[g] = self._seat_ids, self._team_names
        states = seeded_states(seeds)
        games = np.asarray(indices, dtype=np.int64)
        if observe:
            H.reset_observe(self.handle, games, states, self.pool, self.teams, board is not None, status)
        else:
            K.reset_games(self.S, self.T, self.views, games, states, self.pool, self.teams, board is not None, status)
        if self.python_opponent is not None and (status == K.PYTHON).any():  # only a callable opponent hands over
            self._python_decisions(indices, status)
            if observe:
                H.observe_games(self.handle, games)
        return status

    def step_observe(self, indices: npt.NDArray[np.int64], actions: npt.NDArray[np.int64]) -> bool:
        """:meth:`step` then the observations into :attr:`obs` (row ``j``), in one compiled call: each completed
        decision bumps its game's :attr:`decision_key` and sets :attr:`over`; False (nothing changed) if an action
        is not a point of the action space (:func:`env.actions.check_actions` then says why)."""
        kernel = H.step_observe_parallel if self.threads else H.step_observe
        handed = kernel(self.handle, indices, actions)
        if handed == BAD_ACTION:
            return False
        if handed:
            self._hand_over(indices)
            H.observe_games(self.handle, indices)
        return True

    def step_reset_observe(
        self, moving: npt.NDArray[np.int64], actions: npt.NDArray[np.int64], restart: npt.NDArray[np.int64],
        seeds: Sequence[int],
    ) -> tuple[bool, npt.NDArray[np.int64]]:  # fmt: skip
        """A vector step in one compiled call: :meth:`step` of the games ``moving`` (row ``g`` of ``actions`` for
        game ``g``, the outputs' row ``j`` for ``moving[j]``), :meth:`reset` of the games ``restart`` (sampled,
        seeded with ``seeds``), then every game's observation into :attr:`obs` (row ``g``).  False (nothing
        changed) if an action is not a point of the action space; the restarted games' statuses."""
        a = self.arrays
        for g in restart.tolist():
            a.seat_ids[g], a.team_names[g] = self._seat_ids, self._team_names
        states = seeded_states(seeds)
        status = np.zeros(len(restart), dtype=np.int64)
        kernel = H.vector_step_parallel if self.threads else H.vector_step
        handed = kernel(self.handle, moving, actions, restart, states, self.pool, self.teams, status)
        if handed == BAD_ACTION:
            return False, status
        if handed:
            self._hand_over(moving)
        if handed or (status == K.PYTHON).any():
            self._python_decisions(restart, status)
            H.observe_games(self.handle, np.arange(self.n, dtype=np.int64))
        return True, status

    def _hand_over(self, indices: npt.NDArray[np.int64]) -> None:
        """The decisions the compiled step handed to a Python seat (status :data:`K.PYTHON`): made, then the games'
        episode state as :func:`~env.kernels.handle.step_observe` leaves it for the others."""
        k = len(indices)
        out_i = self.out_i[:k]
        status = out_i[:, 2]
        handed_at = np.flatnonzero(status == K.PYTHON)
        self._python_decisions(indices, status)
        a = self.arrays
        for j in handed_at.tolist():
            g = int(indices[j])
            out_i[j, 3] = K.result_of(a.seat[g], a.game[g])
            self.over[g] = status[j] != K.AGENT
            self.decision_key[g] += 1

    def observe(self, indices: npt.NDArray[np.int64]) -> None:
        """The observations of ``indices`` into :attr:`obs` (row ``j``)."""
        H.observe_games(self.handle, indices)

    def step(self, indices: npt.NDArray[np.int64], actions: npt.NDArray[np.int64]) -> tuple[np.ndarray, np.ndarray]:
        """One agent step in each game of ``indices``; per game (illegal, delta, regret, optimum) reward terms and
        (illegal bits, decision done, status, result)."""
        want_value = self.agent.reward_mode != "terminal" or self.agent.oracle_in_info
        want_regret = self.agent.reward_mode == "regret" or self.agent.oracle_in_info
        k = len(indices)
        out_f, out_i = self.out_f[:k], self.out_i[:k]
        kernel = K.step_games_parallel if self.threads else K.step_games
        kernel(self.S, self.T, self.views, indices, actions, out_f, out_i, want_value, want_regret)
        if (out_i[:, 2] == K.PYTHON).any():
            handed = np.flatnonzero(out_i[:, 2] == K.PYTHON)
            status = out_i[:, 2]
            self._python_decisions(indices, status)
            a = self.arrays
            for j in handed.tolist():
                g = int(indices[j])
                out_i[j, 3] = K.result_of(a.seat[g], a.game[g])
        return out_f, out_i

    def play(self, seeds: Sequence[int], policy: str) -> npt.NDArray[np.int64]:
        """Whole games, game ``j``'s stream seeded with ``seeds[j]`` (as :meth:`reset` seeds it), the agent
        deciding by the compiled ``policy`` (a name of :data:`~env.kernels.tables.OPPONENTS`); a row per game
        (:func:`~env.kernels.game.play_games`' ``W_`` columns).  The games run on this engine's slots over numba's
        threads; each game's row depends on its seed alone.  ValueError for a policy or opponent that is not
        compiled (a callable)."""
        if policy not in OPPONENTS or policy == "python":
            raise ValueError(f"policy must be one of {[p for p in OPPONENTS if p != 'python']}, not {policy!r}")
        if self.python_opponent is not None:
            raise ValueError("whole games need a compiled opponent, not a callable")
        states = seeded_states(seeds)
        out = np.zeros((len(states), K.N_W), dtype=np.int64)
        for g in range(self.n):
            self.arrays.seat_ids[g], self.arrays.team_names[g] = self._seat_ids, self._team_names
        K.play_games(self.S, self.T, self.views, states, self.pool, self.teams, OPPONENTS.index(policy), out)
        return out

    def _python_decisions(self, indices: Sequence[int] | np.ndarray, status: np.ndarray) -> None:
        """Hand the decisions of a Python opponent to it, one game at a time, until every game waits on the agent
        or is over (the slower path of a callable opponent)."""
        for j in np.flatnonzero(status == K.PYTHON).tolist():
            g = int(indices[j])
            while status[j] == K.PYTHON:
                status[j] = self._python_decision(g)

    def _python_decision(self, g: int) -> int:
        a = self.arrays
        assert self.python_opponent is not None
        board = self.decision_board(g)
        # A generator of its own for the Python policy, from the game's stream state and decision count: the
        # stream itself is not advanced, so a policy that draws nothing plays as its compiled twin does.
        stream = np.random.default_rng([int(a.rng[g]), int(a.game[g, G_DECISIONS])])
        chosen, recipients = self.python_opponent(board, stream)
        matrix = ChoiceMatrix.from_rows(
            board,
            [np.flatnonzero(chosen[r]).tolist() for r in range(board.rounds)],
            [{int(t): int(h) for t, h in enumerate(recipients[r].tolist()) if h >= 0} for r in range(board.rounds)],
        )
        rows = self.rows_of(g)
        a.chosen[g] = 0
        a.recipients[g] = -1
        team_of = self._state_teams(g, board)
        for r in range(board.rounds):
            for i in np.flatnonzero(matrix.chosen[r]).tolist():
                a.chosen[g, r, rows[i]] = 1
            for t, h in enumerate(matrix.recipients[r].tolist()):
                if h >= 0:
                    a.recipients[g, r, team_of[t]] = rows[h]
        return int(K.resume_one(self.S, self.T, self.views, g))

    def _state_teams(self, g: int, board: Board) -> list[int]:
        names = self.arrays.team_names[g]
        return [names.index(t) for t in board.team_names]

    # ------------------------------------------------------------------ the decision as a Board
    def rows_of(self, g: int) -> list[int]:
        """The slot of each row of :meth:`decision_board` (players in the game, then permanents)."""
        a = self.arrays
        players = [s for s in range(a.seats) if a.player_in[g, s]]
        return players + list(range(a.seats, a.seats + int(a.n_perm[g])))

    def decision_board(self, g: int) -> Board:
        """The board of game ``g``'s pending decision (its proliferator deciding)."""
        return self.arrays.board(g)

    def pending(self, g: int) -> bool:
        return bool(self.arrays.game[g, G_PENDING])

    def optimum(self, g: int) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64], int]:
        """The exact optimum of game ``g``'s decision: chosen (rounds x slots), recipients (rounds x teams), value."""
        chosen = np.zeros((MAX_ROUNDS, self.slots), dtype=np.int8)
        recipients = np.full((MAX_ROUNDS, 2), -1, dtype=np.int64)
        value = K.oracle_choice(self.S, self.T, g, chosen, recipients)
        return chosen, recipients, int(value)

    def round_of(self, g: int) -> tuple[int, int]:
        game = self.arrays.game[g]
        return int(game[G_PROUND]), int(game[G_PROUNDS])

    def deciding_seat(self, g: int) -> int:
        return int(self.arrays.game[g, G_PSEAT])


def _named_policies() -> dict[str, Any]:
    from ..policies import BOARD_POLICIES

    return dict(BOARD_POLICIES)
