"""N games kept as arrays and stepped by one compiled call: the one core of the single and the vector env.

The single env (:class:`env.core.ProliferateEnv`) is :class:`LockstepV1` with ``n = 1`` and the
native vector env (:class:`env.vector.ProliferateVectorEnv`) the same code with ``n = num_envs``:
one engine (:class:`env.kernels.engine.Engine`), no second game model.  Each game's random stream is
seeded by one draw from the generator Gymnasium gives that game (the env's ``np_random``, or
the vector env's generator of sub-env ``i`` seeded with ``seed + i``), so sub-env ``i`` plays
what a single env reset with ``seed + i`` plays, and a game's play depends on nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core import MILLI, Board, BoardError, as_board

from .config import AgentConfig, EnvConfig
from .decide import Plan
from .infos import add_info, info_array
from .kernels import game as K
from .kernels.engine import Engine
from .kernels.gains import UNTABLED
from .kernels.rng import stream_seed
from .kernels.state import G_OVER, G_PROUND, G_PSAC, G_PSEAT, G_PSRC, G_PTARGET, G_STEPS, G_TRUNC
from .kernels.tables import SOURCES
from .opportunities import Opportunity
from .scenarios import start_life
from .spaces import MAX_ROUNDS, View

__all__ = ["EpisodeV1", "Info", "LockstepV1", "Obs", "given_board"]

Obs = dict[str, npt.NDArray[Any]]
Info = dict[str, Any]

_TERMINAL = {1: 1.0, 2: -1.0, 3: 0.0}
_RESULTS = {1: "win", 2: "loss", 3: "draw"}


def given_board(given: Any, config: EnvConfig) -> Board:
    """The board of ``reset(options={"board": ...})``, checked against the env's variant, seats and rounds.

    Any form :func:`solver.as_board` takes; a bad board or one this env cannot play is a ``ValueError``.
    """
    try:
        board = as_board(given)
    except BoardError as exc:
        raise ValueError(f"options['board'] is not a valid board:\n{exc}") from exc
    if board.variant is not config.variant:
        raise ValueError(
            f"options['board'].variant is {board.variant.value!r}; this env plays {config.variant.value!r}"
        )
    if board.n_players > config.n_seats:
        raise ValueError(f"options['board'].players has {board.n_players} players; at most {config.n_seats} here")
    if board.rounds > MAX_ROUNDS:
        raise ValueError(f"options['board'].proliferates gives {board.rounds} rounds; at most {MAX_ROUNDS}")
    return board


def unmodelled(board: Board) -> None:
    """ValueError naming what of ``board`` the v1 arrays do not carry yet (a permanent that can't have counters,
    2HG poison written per head, an effect naming its source permanent or this turn's poison), rather than
    playing it by another rule."""
    if str(getattr(board, "team_poison", "shared")).lower().endswith("per_head"):
        raise ValueError("options['board'].team_poison: 'per_head' is not modelled by the v1 envs yet")
    for effect in board.effects:
        if getattr(effect, "source", None) is not None or effect.poisoned_this_turn:
            raise ValueError(f"options['board'].effects: {effect.card!r} names its source or this turn, not in v1 yet")
    for perm in board.permanents:
        if getattr(perm, "no_counters", False):
            raise ValueError(f"options['board'].permanents: {perm.id!r} has no_counters, not modelled by v1 yet")


_TERMINAL_OF = np.array([0.0, 1.0, -1.0, 0.0])  # by result code: undecided, win, loss, draw


@dataclass
class Terms:
    """The reward terms of a step's games, as arrays (``info["reward_terms"]``)."""

    illegal: npt.NDArray[np.float64]
    finished: npt.NDArray[np.bool_]
    terminal: npt.NDArray[np.float64]
    has_delta: npt.NDArray[np.bool_]
    delta: npt.NDArray[np.float64]
    has_regret: npt.NDArray[np.bool_]
    regret: npt.NDArray[np.float64]

    @classmethod
    def of(cls, k: int) -> Terms:
        zeros, no = np.zeros(k, dtype=np.float64), np.zeros(k, dtype=np.bool_)
        return cls(zeros, no, zeros.copy(), no.copy(), zeros.copy(), no.copy(), zeros.copy())

    def arrays(self) -> list[tuple[str, npt.NDArray[np.float64], npt.NDArray[np.bool_] | None]]:
        """(key, values, present or None for all) in the order a game's dict has them."""
        return [
            ("illegal", self.illegal, None),
            ("delta", self.delta, self.has_delta),
            ("regret", self.regret, self.has_regret),
            ("terminal", self.terminal, self.finished),
        ]

    def columns(self) -> list[tuple[str, list[Any], list[bool] | None]]:
        """:meth:`arrays` as lists (Python numbers, as a game's dict holds them)."""
        return [
            (key, values.tolist(), None if present is None else present.tolist())
            for key, values, present in self.arrays()
        ]


@dataclass
class Columns:
    """The infos of a group of games, kept by key: :meth:`infos` gives one dict per game (the single env's),
    :meth:`write` puts them into a vector env's batched infos as Gymnasium's ``VectorEnv._add_info`` does."""

    illegal_bits: list[int]
    terms: Terms | None
    decision_done: list[bool]
    masks: npt.NDArray[np.int8]
    opportunity: list[dict[str, Any] | None]
    round: list[int]
    result: list[int]
    oracle: list[tuple[Any, float] | None] | None = None

    def infos(self) -> list[Info]:
        terms = self.terms.columns() if self.terms is not None else []
        out: list[Info] = []
        for j, bits in enumerate(self.illegal_bits):
            reward_terms = {key: values[j] for key, values, present in terms if present is None or present[j]}
            info: Info = {
                "illegal_bits": bits,
                "reward_terms": reward_terms,
                "decision_done": self.decision_done[j],
                "action_mask": self.masks[j].copy(),
            }
            opportunity = self.opportunity[j]
            if opportunity is not None:
                info["opportunity"] = dict(opportunity)
                info["round"] = self.round[j]
                oracle = self.oracle[j] if self.oracle is not None else None
                if oracle is not None:
                    info["oracle_action"], info["oracle_value"] = oracle
            if self.result[j]:
                info["game_result"] = _RESULTS[self.result[j]]
            out.append(info)
        return out

    def write(self, batched: dict[str, Any], at: list[int], n: int) -> None:
        """Put these games' infos at sub-envs ``at`` of ``batched`` (a vector env of ``n``), one dict at a time."""
        for i, info in zip(at, self.infos(), strict=True):
            add_info(batched, info, i, n)


#: Distinct opportunities (seat ids, seat, source, target, sacrifice) an env keeps the infos of before it forgets
#: them all and finds them again (at least one per game; a few hundred in practice: the ids and sources are few).
_OPPORTUNITY_CODES = 4096

#: What :meth:`LockstepV1.step_reset` returns: every game's observation, reward, terminated and truncated, and the
#: infos batched as Gymnasium batches them.
VectorStep = tuple[Obs, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]

#: ``info["game_result"]`` by result code (0: none), for the batched infos.
_RESULT_NAMES = np.array([None, *(_RESULTS[r] for r in (1, 2, 3))], dtype=object)


def _scattered(values: npt.NDArray[Any], at: npt.NDArray[np.int64], n: int) -> npt.NDArray[Any]:
    """A new array of ``n`` zeros (of ``values``' dtype) holding ``values`` at ``at``."""
    out = np.zeros(n, dtype=values.dtype)
    out[at] = values
    return out


class PendingV1:
    """The agent's decision in progress, read from the arrays (the board and the optimum are built on demand)."""

    def __init__(self, core: LockstepV1, g: int) -> None:
        self.core, self.g = core, g

    @property
    def round(self) -> int:
        return self.core.engine.round_of(self.g)[0]

    @property
    def rounds(self) -> int:
        return self.core.engine.round_of(self.g)[1]

    @property
    def seat(self) -> str:
        return self.core.engine.arrays.seat_ids[self.g][self.core.engine.deciding_seat(self.g)]

    @cached_property
    def board(self) -> Board:
        return self.core.engine.decision_board(self.g)

    @property
    def opportunity(self) -> Opportunity:
        return self.core.opportunity(self.g)

    @cached_property
    def optimum(self) -> Plan:
        """The exact optimum as solver matrices over :attr:`board`'s rows."""
        chosen, recipients, value = self.core.engine.optimum(self.g)
        rows = self.core.engine.rows_of(self.g)
        board = self.board
        r = board.rounds
        out_c = np.zeros((r, board.n_objects), dtype=bool)
        out_r = np.full((r, board.n_teams), -1, dtype=np.int64)
        team_names = self.core.engine.arrays.team_names[self.g]
        row_of = {s: i for i, s in enumerate(rows)}
        for k in range(r):
            out_c[k] = chosen[k, rows] != 0
            for t, name in enumerate(board.team_names):
                at = team_names.index(name)
                h = int(recipients[k, at]) if at < recipients.shape[1] else -1
                if h >= 0:
                    out_r[k, t] = row_of[h]
        return Plan(value, out_c, out_r)


class _GameView:
    """What the envs read of ``episode.game``: the pending decision or None."""

    def __init__(self, core: LockstepV1, g: int) -> None:
        self.core, self.g = core, g
        self._pending: PendingV1 | None = None
        self._key = -1

    @property
    def pending(self) -> PendingV1 | None:
        if not self.core.engine.pending(self.g) or self.core.over[self.g]:
            return None
        key = self.core.decision_key[self.g]
        if self._pending is None or key != self._key:
            self._pending, self._key = PendingV1(self.core, self.g), key
        return self._pending


class EpisodeV1:
    """One game of the batch from the learning seat's side: its pending decision, steps and seat."""

    def __init__(self, core: LockstepV1, g: int) -> None:
        self.core, self.g = core, g  # a vector env's autoreset makes one per restarted game: the rest on first use

    @cached_property
    def game(self) -> _GameView:
        return _GameView(self.core, self.g)

    @cached_property
    def last(self) -> npt.NDArray[np.int8]:
        """The bits of the agent's last completed action (what the single env renders)."""
        return np.zeros(self.core.slots, dtype=np.int8)

    @property
    def steps(self) -> int:
        """The agent's steps in this episode (counted by the compiled step)."""
        return int(self.core.engine.arrays.game[self.g, G_STEPS])

    @property
    def actor(self) -> str:
        engine = self.core.engine
        return engine.arrays.seat_ids[self.g][int(engine.arrays.game[self.g, 19])]

    def pending(self) -> PendingV1:
        self.expect_pending()
        decision = self.game.pending
        assert decision is not None
        return decision

    def expect_pending(self) -> None:
        """RuntimeError if no decision is pending (the episode is over): :meth:`pending`'s check, nothing built."""
        if self.core.over[self.g] or not self.core.engine.pending(self.g):
            raise RuntimeError("no decision is pending: the episode is over, call reset()")

    @property
    def view(self) -> View:
        """The solver-side view of the current decision (for rendering only: built from its board)."""
        return self.current_view()

    def current_view(self) -> View:
        board = self.pending().board
        engine = self.core.engine
        c = engine.config
        return View.build(
            board, engine.arrays.seat_ids[self.g], self.actor, c.slots, c.c_max, {}, start_life(c.variant)
        )


class LockstepV1:
    """``n`` games of one env configuration in arrays; every method takes the indices of the games it acts on."""

    def __init__(self, config: EnvConfig, agent: AgentConfig, n: int) -> None:
        self.config, self.agent, self.n = config, agent, n
        self.slots = config.slots
        self.engine = Engine(config, agent, n)
        self.episodes: list[EpisodeV1 | None] = [None] * n
        self.over = self.engine.over  # per game: the episode is over (the compiled step sets it)
        self.decision_key = self.engine.decision_key  # per game: bumped when a decision completes
        # info["opportunity"] of each game's decision, made once per distinct opportunity (seat ids, seat, source,
        # target, sacrifice): per game its code and the decision key it was found at; per code the dict and, by
        # key, its values (the batched infos index them by the games' codes)
        self._opportunity_code = np.full(n, -1, dtype=np.int64)
        self._opportunity_at = np.full(n, -1, dtype=np.int64)
        self._opportunity_codes: dict[tuple[Any, ...], int] = {}
        self._opportunity_infos: list[dict[str, Any]] = []
        #: Per key of ``info["opportunity"]``, its value by code, typed as Gymnasium types the key's batched array;
        #: the last entry is that array's fill (a game without an opportunity).
        self._opportunity_columns: dict[str, npt.NDArray[Any]] = {}
        self._opportunity_capacity = max(_OPPORTUNITY_CODES, n)  # codes before they are all forgotten
        self._keys = tuple(self.engine.obs_layout)
        self._rows0 = tuple(buffer[0] for buffer in self.engine.obs)  # the single env's rows of the buffers
        self._game0 = np.zeros(1, dtype=np.int64)
        self._want_value = agent.reward_mode != "terminal" or agent.oracle_in_info
        self._want_regret = agent.reward_mode == "regret" or agent.oracle_in_info

    def episode(self, i: int) -> EpisodeV1:
        ep = self.episodes[i]
        if ep is None:
            raise RuntimeError("call reset() before step()")
        return ep

    # ------------------------------------------------------------------ reset and step
    def reset(
        self, indices: Sequence[int], rngs: Sequence[np.random.Generator], options: dict[str, Any] | None,
        *, batched: bool = False,
    ) -> tuple[Obs, list[Info]]:  # fmt: skip
        """Start a new episode in each game of ``indices``, its stream seeded by one draw from its generator
        (``batched``: the infos as :class:`Columns`)."""
        given = (options or {}).get("board")
        board = self._given_board(given) if given is not None else None
        seeds = list(map(stream_seed, rngs))
        idx = list(indices)
        status = self.engine.reset(idx, seeds, board, observe=True)
        if (status != K.AGENT).any():
            raise RuntimeError("the episode ended before the agent's first decision")
        for g in idx:
            self.episodes[g] = EpisodeV1(self, g)
            self.decision_key[g] += 1
        k = len(idx)
        zero = np.zeros(k, dtype=np.int64)
        obs, columns = self._observe(np.array(idx, dtype=np.int64), zero, None, np.zeros(k, dtype=np.bool_), zero)
        return obs, columns.infos() if not batched else columns  # type: ignore[return-value]

    def _given_board(self, given: Any) -> Board:
        config = self.config
        board = given_board(given, config)
        unmodelled(board)
        untabled = sorted({e.card for e in board.effects} & UNTABLED)
        if untabled:
            raise ValueError(
                f"options['board'].effects: {untabled[0]!r} is not modelled by the v1 envs' compiled game yet "
                "(its effect selects objects by subtype or by its own permanent, or depends on this turn)"
            )
        if board.n_objects - board.n_players > config.capacity:
            raise ValueError(
                f"the board has {board.n_objects - board.n_players} permanents and {config.n_seats} seats, more "
                f"than the {config.slots} slots; pass a larger slots= (objects are never truncated)"
            )
        return board

    def step(
        self, indices: Sequence[int], actions: npt.NDArray[np.int64], *, batched: bool = False
    ) -> tuple[Obs, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], list[Info]]:
        """One agent step in each game of ``indices``; ``actions`` are checked (:func:`env.actions.check_actions`).

        With ``batched`` the infos come as :class:`Columns` (for :meth:`Columns.write`) instead of one dict per game.
        """
        idx = np.asarray(indices, dtype=np.int64)
        for g in idx.tolist():
            self.episode(g)  # RuntimeError before any reset
        acts = np.ascontiguousarray(actions.reshape(len(idx), -1), dtype=np.int64)
        if not self.engine.step_observe(idx, acts):
            raise ValueError("an action is not a point of the action space")  # the callers check first
        obs = self._taken(len(idx))
        rewards, terminated, truncated, columns = self._outcome(idx, obs)
        return obs, rewards, terminated, truncated, columns.infos() if not batched else columns  # type: ignore[return-value]

    def step_reset(
        self,
        moving: npt.NDArray[np.int64],
        actions: npt.NDArray[np.int64],
        restart: npt.NDArray[np.int64],
        rngs: Sequence[np.random.Generator],
    ) -> VectorStep | None:
        """A vector env's step of all ``n`` games in one compiled call (:meth:`Engine.step_reset_observe`): the
        agent's step in the games ``moving`` (``actions`` has a row per game, int64), a new episode in the games
        ``restart`` (seeded by one draw from each of ``rngs``; together the two are every game).  Every game's
        observation (new arrays), reward, terminated and truncated (a restarted game's 0, False, False) and the
        infos batched as Gymnasium batches the per-game dicts (:meth:`_batched_infos`); None (nothing changed) if
        an action is not a point of the action space."""
        if None in self.episodes:  # some game never reset
            for g in moving.tolist():
                self.episode(g)  # RuntimeError before any reset
        seeds = list(map(stream_seed, rngs))
        ok, status = self.engine.step_reset_observe(moving, actions, restart, seeds)
        if not ok:
            return None
        if (status != K.AGENT).any():
            raise RuntimeError("the episode ended before the agent's first decision")
        obs = dict(zip(self._keys, [buffer.copy() for buffer in self.engine.obs], strict=True))
        rew_m, term_m, trunc_m, terms, done, results = self._outcome_arrays(moving)
        illegal = self.engine.out_i[: len(moving), 0]
        n = self.n
        rewards, terminated, truncated = (_scattered(v, moving, n) for v in (rew_m, term_m, trunc_m))
        episodes = self.episodes
        for g in restart.tolist():
            episodes[g] = EpisodeV1(self, g)
        self.decision_key[restart] += 1
        masks = obs["action_mask"]
        if not self.agent.oracle_in_info:
            return obs, rewards, terminated, truncated, self._batched_infos(moving, restart, masks, illegal, terms,
                                                                            done, results)  # fmt: skip
        infos: dict[str, Any] = {}  # the oracle's actions: through the per-game dicts
        k = len(restart)
        zero = np.zeros(k, dtype=np.int64)
        _, moved = self._columns(moving, {"action_mask": masks[moving]}, illegal, terms, done, results)
        _, fresh = self._columns(restart, {"action_mask": masks[restart]}, zero, None, zero != 0, zero)
        moved.write(infos, moving.tolist(), n)
        fresh.write(infos, restart.tolist(), n)
        return obs, rewards, terminated, truncated, infos

    def _batched_infos(
        self, moving: npt.NDArray[np.int64], restart: npt.NDArray[np.int64], masks: npt.NDArray[np.int8],
        illegal: npt.NDArray[np.int64], terms: Terms, done: npt.NDArray[np.bool_], results: npt.NDArray[np.int64],
    ) -> dict[str, Any]:  # fmt: skip
        """The infos of a vector step as Gymnasium's ``VectorEnv._add_info`` batches the per-game dicts of
        :meth:`Columns.infos` (tested equal: keys, arrays, dtypes, masks), made key by key from arrays.  The games
        ``moving`` stepped (``illegal``, ``terms``, ``done`` and ``results`` have a row per game of ``moving``), the
        games ``restart`` started (a reset's info: nothing illegal, no reward terms, no decision done); ``masks``
        has a row per game.  An opportunity's values are its code's entries of :attr:`_opportunity_columns` (typed
        as Gymnasium types a key by its first value; the fields of :meth:`Opportunity.to_info` keep one type)."""
        n = self.n
        seen = np.zeros(n, dtype=np.bool_)
        seen[moving] = True
        seen[restart] = True
        out: dict[str, Any] = {"illegal_bits": _scattered(illegal, moving, n), "_illegal_bits": seen.copy()}
        nested: dict[str, Any] = {}
        for key, values, present in terms.arrays():
            at = moving if present is None else moving[present]
            if len(at):
                nested[key] = _scattered(values if present is None else values[present], at, n)
                nested[f"_{key}"] = _scattered(np.ones(len(at), dtype=np.bool_), at, n)
        out["reward_terms"], out["_reward_terms"] = nested, seen.copy()
        out["decision_done"], out["_decision_done"] = _scattered(done, moving, n), seen.copy()
        out["action_mask"], out["_action_mask"] = masks.copy(), seen.copy()
        live = seen & ~self.over
        games = np.flatnonzero(live)
        if len(games):
            codes = np.full(n, -1, dtype=np.int64)  # -1: the columns' last entry, the fill of a game without one
            codes[games] = self._refresh_opportunities(games)
            columns = self._opportunity_columns
            opportunity: dict[str, Any] = {}
            for key in self._opportunity_infos[int(codes[games[0]])]:
                opportunity[key], opportunity[f"_{key}"] = columns[key][codes], live.copy()
            out["opportunity"], out["_opportunity"] = opportunity, live.copy()
            out["round"], out["_round"] = np.where(live, self.engine.arrays.game[:, G_PROUND], 0), live.copy()
        result = _scattered(results, moving, n)
        ended = result != 0
        if ended.any():
            out["game_result"], out["_game_result"] = _RESULT_NAMES[result], ended
        return out

    def _outcome_arrays(
        self, idx: npt.NDArray[np.int64]
    ) -> tuple[
        npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], Terms, npt.NDArray[np.bool_],
        npt.NDArray[np.int64],
    ]:  # fmt: skip
        """The rewards, terminated, truncated, reward terms, decision done and results of the games ``idx`` just
        stepped (the step's outputs' rows ``0 .. len(idx) - 1``)."""
        agent = self.agent
        k = len(idx)
        out_f, out_i = self.engine.out_f[:k], self.engine.out_i[:k]
        rewards = out_f[:, 0].copy()
        terminated = np.zeros(k, dtype=np.bool_)
        truncated = np.zeros(k, dtype=np.bool_)
        done = out_i[:, 1] != 0
        terms = Terms.of(k)
        terms.illegal[:] = out_f[:, 0]
        results = np.zeros(k, dtype=np.int64)
        finished = np.flatnonzero(done)
        if len(finished):
            game = self.engine.arrays.game
            games = idx[finished]
            results[finished] = out_i[finished, 3]
            end = results[finished] != 0
            if agent.bandit:
                end[:] = True
            terminated[finished] = end
            truncated[finished] = (game[games, G_TRUNC] != 0) & ~end
            terms.finished[finished] = True
            terms.terminal[finished] = _TERMINAL_OF[results[finished]]
            if self._want_value:
                terms.has_delta[finished] = True
                terms.delta[finished] = out_f[finished, 1]
            if self._want_regret:
                terms.has_regret[finished] = True
                terms.regret[finished] = out_f[finished, 2]
            paid = {"delta": terms.delta, "regret": terms.regret, "terminal": terms.terminal}[
                "delta" if agent.reward_mode == "delta" else agent.reward_mode
            ]
            rewards[finished] += paid[finished]
        return rewards, terminated, truncated, terms, done, results

    def _outcome(
        self, idx: npt.NDArray[np.int64], obs: Obs
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], Columns]:
        """The rewards, terminated, truncated and infos of the games ``idx`` just stepped (the step's outputs'
        rows ``0 .. len(idx) - 1``; ``obs`` their observations)."""
        rewards, terminated, truncated, terms, done, results = self._outcome_arrays(idx)
        _, columns = self._columns(idx, obs, self.engine.out_i[: len(idx), 0], terms, done, results)
        return rewards, terminated, truncated, columns

    def step_single(self, acts: npt.NDArray[np.int64]) -> tuple[Obs, float, bool, bool, Info] | None:
        """:meth:`step` of game 0 alone, as the single env returns it (one dict, scalars, the observation's rows):
        the same compiled entry and the same values, without the batch's arrays; None (nothing changed) if the
        action (``acts``, shape ``(1, width)``) is not a point of the action space."""
        engine, agent = self.engine, self.agent
        if self.episodes[0] is None:
            raise RuntimeError("call reset() before step()")
        if not engine.step_observe(self._game0, acts):
            return None
        penalty, delta, regret, _ = engine.out_f[0].tolist()
        illegal, done, _, result = engine.out_i[0].tolist()
        reward, terminated, truncated = penalty, False, False
        reward_terms: Info = {"illegal": penalty}
        if done:
            end = result != 0 or agent.bandit
            terminated = end
            truncated = not end and bool(engine.arrays.game[0, G_TRUNC])
            if self._want_value:
                reward_terms["delta"] = delta
            if self._want_regret:
                reward_terms["regret"] = regret
            terminal = _TERMINAL[result] if result else 0.0
            reward_terms["terminal"] = terminal
            mode = agent.reward_mode
            reward += delta if mode == "delta" else regret if mode == "regret" else terminal
        else:
            result = 0
        obs, info = self._single(illegal, reward_terms, bool(done), result)
        return obs, reward, terminated, truncated, info

    def reset_single(self, rng: np.random.Generator, options: dict[str, Any] | None) -> tuple[Obs, Info]:
        """:meth:`reset` of game 0 alone, as the single env returns it (the observation's rows, one dict)."""
        given = (options or {}).get("board")
        board = self._given_board(given) if given is not None else None
        status = self.engine.reset([0], [stream_seed(rng)], board, observe=True)
        if status[0] != K.AGENT:
            raise RuntimeError("the episode ended before the agent's first decision")
        self.episodes[0] = EpisodeV1(self, 0)
        self.decision_key[0] += 1
        return self._single(0, {}, False, 0)

    def _single(self, illegal: int, reward_terms: Info, done: bool, result: int) -> tuple[Obs, Info]:
        """Game 0's observation (new arrays from the buffers' rows) and info dict, as :meth:`Columns.infos`
        makes them."""
        obs = dict(zip(self._keys, [row.copy() for row in self._rows0], strict=True))
        info: Info = {
            "illegal_bits": illegal,
            "reward_terms": reward_terms,
            "decision_done": done,
            "action_mask": obs["action_mask"].copy(),
        }
        if not self.over[0]:
            info["opportunity"] = dict(self._opportunities_of(0))
            info["round"] = int(self.engine.arrays.game[0, G_PROUND])
            if self.agent.oracle_in_info:
                info["oracle_action"], info["oracle_value"] = self._oracle(0)
        if result:
            info["game_result"] = _RESULTS[result]
        return obs, info

    # ------------------------------------------------------------------ masks and observations
    def _masks(self, idx: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
        return self._arrays(idx)["action_mask"]

    def mask(self, ep: EpisodeV1) -> npt.NDArray[np.int8]:
        """The action mask (int8, 1 = allowed) of ``ep``'s current step; all zero (bar DONE) once it is over."""
        out: npt.NDArray[np.int8] = self._masks(np.array([ep.g], dtype=np.int64))[0]
        return out

    def _arrays(self, idx: npt.NDArray[np.int64]) -> Obs:
        """The observations of the games ``idx``: new arrays, filled by one compiled call (:func:`K.observe`)."""
        self.engine.observe(idx)
        return self._taken(len(idx))

    def _taken(self, k: int) -> Obs:
        """New arrays: the first ``k`` rows of the observation buffers (the compiled entries wrote them)."""
        return dict(zip(self._keys, [buffer[:k].copy() for buffer in self.engine.obs], strict=True))

    def _observe(
        self, idx: npt.NDArray[np.int64], illegal: npt.NDArray[np.int64], terms: Terms | None,
        decision_done: npt.NDArray[np.bool_], results: npt.NDArray[np.int64],
    ) -> tuple[Obs, Columns]:  # fmt: skip
        """Observations (fresh arrays, from the buffers the last compiled entry wrote for ``idx``) and the infos of
        the games ``idx`` (``terms`` None: a reset's, no terms)."""
        return self._columns(idx, self._taken(len(idx)), illegal, terms, decision_done, results)

    def _columns(
        self, idx: npt.NDArray[np.int64], obs: Obs, illegal: npt.NDArray[np.int64], terms: Terms | None,
        decision_done: npt.NDArray[np.bool_], results: npt.NDArray[np.int64],
    ) -> tuple[Obs, Columns]:  # fmt: skip
        over = self.over[idx]
        masks = obs["action_mask"].copy()  # info["action_mask"]: the observation's, DONE = 1 once over too
        live = (~over).tolist()
        live_games = idx[~over]
        codes = self._refresh_opportunities(live_games)
        infos, next_code = self._opportunity_infos, iter(codes.tolist())
        opportunities = [infos[next(next_code)] if ok else None for ok in live]
        columns = Columns(
            illegal.tolist(), terms, decision_done.tolist(), masks, opportunities,
            self.engine.arrays.game[idx, G_PROUND].tolist(), results.tolist(),
        )  # fmt: skip
        if self.agent.oracle_in_info:
            columns.oracle = [self._oracle(g) if ok else None for g, ok in zip(idx.tolist(), live, strict=True)]
        return obs, columns

    def _oracle(self, g: int) -> tuple[Any, float]:
        """``info["oracle_action"]`` and ``info["oracle_value"]`` of game ``g``'s decision now."""
        plan = self.episode(g).pending().optimum
        return self.action_for(self.episode(g), plan.chosen, plan.recipients), plan.value / MILLI

    def _opportunities_of(self, g: int) -> dict[str, Any]:
        """``info["opportunity"]`` of game ``g``'s decision (not to be changed: copy it); equal opportunities
        share one dict.  One game's, without the arrays of :meth:`_refresh_opportunities` (the single env's step)."""
        key = int(self.decision_key[g])
        if self._opportunity_at[g] == key:
            return self._opportunity_infos[int(self._opportunity_code[g])]
        if len(self._opportunity_infos) + 1 > self._opportunity_capacity:
            self._forget_opportunities()
        return self._opportunity_infos[self._find_opportunity(g, key)]

    def _refresh_opportunities(self, games: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The opportunity code of each game of ``games``, found again for those whose decision changed since
        (a new code, its dict and its values by key, for an opportunity not seen yet)."""
        keys = self.decision_key[games]
        stale = np.flatnonzero(self._opportunity_at[games] != keys)
        if not len(stale):
            return self._opportunity_code[games]
        if len(self._opportunity_infos) + len(stale) > self._opportunity_capacity:  # forget them all, find them again
            self._forget_opportunities()
            stale = np.arange(len(games))
        changed = games[stale]
        changed_list = changed.tolist()
        a = self.engine.arrays
        fields = a.game[changed, G_PSEAT : G_PSAC + 1].T.tolist()  # seat, source, target, sacrifice: a list each
        same = zip(map(a.seat_ids.__getitem__, changed_list), *fields, strict=True)  # _find_opportunity's keys
        found: list[int | None] = list(map(self._opportunity_codes.get, same))
        if None in found:  # an opportunity not seen yet: its code made
            for j, (g, key) in enumerate(zip(changed_list, keys[stale].tolist(), strict=True)):
                if found[j] is None:
                    found[j] = self._find_opportunity(g, key)
        self._opportunity_code[changed] = np.asarray(found, dtype=np.int64)
        self._opportunity_at[changed] = keys[stale]
        return self._opportunity_code[games]

    def _forget_opportunities(self) -> None:
        """Drop every opportunity code, dict and by-key value (they are found again when next asked for)."""
        self._opportunity_codes.clear()
        self._opportunity_infos.clear()
        self._opportunity_columns.clear()
        self._opportunity_at[:] = -1

    def _find_opportunity(self, g: int, key: int) -> int:
        """Game ``g``'s opportunity code at its decision ``key`` (a new code, its dict and its values by key, for
        an opportunity not seen yet), kept with the game."""
        a, codes, infos, columns = (
            self.engine.arrays,
            self._opportunity_codes,
            self._opportunity_infos,
            self._opportunity_columns,
        )
        same = (a.seat_ids[g], *a.game[g, G_PSEAT : G_PSAC + 1].tolist())  # seat ids, seat, source, target, sacrifice
        code = codes.get(same)
        if code is None:
            code = codes[same] = len(infos)
            info = self.opportunity(g).to_info()
            infos.append(info)
            for name, value in info.items():
                column = columns.get(name)
                if column is None or code >= len(column) - 1:  # typed by the value, its last entry the fill
                    grown = info_array(value, max(self._opportunity_capacity, code + 1) + 1)
                    if column is not None:
                        grown[: len(column) - 1] = column[:-1]
                    column = columns[name] = grown
                column[code] = value
        self._opportunity_code[g] = code
        self._opportunity_at[g] = key
        return code

    def opportunity(self, g: int) -> Opportunity:
        """The source of game ``g``'s pending decision (``info["opportunity"]``)."""
        a = self.engine.arrays
        game = a.game[g]
        ids = a.seat_ids[g]
        target, sac = int(game[G_PTARGET]), int(game[G_PSAC])
        return Opportunity(
            SOURCES[int(game[G_PSRC])],
            ids[int(game[G_PSEAT])],
            target=a.catalogue.object_id(target) if target >= 0 else None,
            sacrifice=a.catalogue.object_id(sac) if sac >= 0 else None,
        )

    # ------------------------------------------------------------------ oracle
    def action_for(self, ep: EpisodeV1, chosen: npt.NDArray[np.bool_], recipients: npt.NDArray[np.int64]) -> Any:
        """Turn a whole-decision choice (solver matrices over the decision board's rows) into ``ep``'s action now."""
        decision = ep.pending()
        r = decision.round
        engine, g = self.engine, ep.g
        rows = engine.rows_of(g)
        v_slot = engine.views[0][g]
        obs_of = {int(s): o for o, s in enumerate(v_slot.tolist()) if s >= 0}
        picked_rows = np.flatnonzero(chosen[r]).tolist()
        if self.agent.action_mode == "subset":
            bits = np.zeros(self.agent.n_bits, dtype=np.int8)
            for i in picked_rows:
                bits[obs_of[rows[i]]] = 1
            board = decision.board
            heads = engine.views[7][g]
            for t in range(self.agent.extra):
                first, second = int(heads[t, 0]), int(heads[t, 1])
                fi, si = rows.index(first), rows.index(second)
                team = int(board.team[fi])
                bits[self.slots + t] = int(chosen[r, fi] and chosen[r, si] and recipients[r, team] == si)
            return bits
        receivers = {int(h) for h in recipients[r] if h >= 0}
        todo = [obs_of[rows[i]] for i in sorted(picked_rows, key=lambda i: (i not in receivers, obs_of[rows[i]]))]
        picked = engine.arrays.picked[g]
        remaining = [s for s in todo if not picked[s]]
        return remaining[0] if remaining else self.slots

    def is_over(self, g: int) -> bool:
        return bool(self.over[g] or self.engine.arrays.game[g, G_OVER])
