"""N games stepped in lockstep: the one implementation behind the single env and the vector env.

:class:`~env.core.ProliferateEnv` is this with ``n = 1`` and the native vector env
(:mod:`env.vector`) the same code with ``n = num_envs``, so a sub-env of the vector env and a
single env seeded alike play the same game by construction.  Per step, what can be done for
all games at once is: the action checks, masks and illegal-bit counts are array operations
over the batch; the scripted seats' decisions of all games go to one
:func:`env.policies.decide_each` call per board policy (:func:`env.game.advance_all`); the
optimum for the regret reward and the oracle is one :func:`env.decide.decide_boards` call
(:func:`env.game.plan_all`); the agents' choices are scored by one
:func:`solver.batch.score_many` call; the state-based actions of all the games, after each
resolution and each turn's events, are one :func:`solver.batch.settle_many` call per round
(:func:`env.game.play_all`); observations are stacked arrays.  What stays a loop over games
is what each game does with its own generator (events, opportunities, random seats) and the
bookkeeping of each game's own board.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core import MILLI, Board, BoardError, BoolArray, IntArray, as_board, score_many

from .config import AgentConfig, EnvConfig
from .game import Game, PendingDecision, Resolved, advance_all, plan_all, play_all
from .opportunities import GIVEN, Opportunity, opening
from .policies import matrices
from .scenarios import sample_scenario, start_life, with_columns
from .spaces import MAX_ROUNDS, N_GLOBALS, VARIANTS, View

__all__ = ["Episode", "Lockstep"]

_TERMINAL = {"win": 1.0, "loss": -1.0, "draw": 0.0}

#: Fewer finished decisions than this in a step are scored one by one (see :meth:`Lockstep._values`).
SCORE_STACK_FROM = 8

Obs = dict[str, npt.NDArray[Any]]
Info = dict[str, Any]


def _stack(arrays: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """``np.stack(arrays)``; for one array (the single env's game) a copy with a leading axis, far cheaper."""
    if len(arrays) == 1:
        return arrays[0][None].copy()
    return np.stack(arrays)


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


class Episode:
    """One game of the batch, from the learning seat's side: the decision in progress and its layout."""

    __slots__ = ("actor", "game", "last", "order", "picked", "steps", "view")

    def __init__(self, game: Game, actor: str, slots: int) -> None:
        self.game = game
        self.actor = actor
        self.view: View | None = None
        self.picked = np.zeros(slots, dtype=np.int8)
        self.order: list[int] = []
        self.steps = 0
        self.last = np.zeros(slots, dtype=np.int8)

    def pending(self) -> PendingDecision:
        decision = self.game.pending
        if decision is None:
            raise RuntimeError("no decision is pending: the episode is over, call reset()")
        return decision

    def current_view(self) -> View:
        if self.view is None:
            raise RuntimeError("call reset() first")
        return self.view


class Lockstep:
    """``n`` games of one env configuration; every method takes the indices of the games it acts on."""

    def __init__(self, config: EnvConfig, agent: AgentConfig, n: int) -> None:
        self.config = config
        self.agent = agent
        self.n = n
        self.slots = config.slots
        self.episodes: list[Episode | None] = [None] * n
        self._kind_map: dict[tuple[str, ...], npt.NDArray[np.float64]] = {}
        self._orders: dict[tuple[object, ...], tuple[str, ...]] = {}
        self._start_life = start_life(config.variant)

    def episode(self, i: int) -> Episode:
        ep = self.episodes[i]
        if ep is None:
            raise RuntimeError("call reset() before step()")
        return ep

    # ------------------------------------------------------------------ reset
    def reset(
        self, indices: Sequence[int], rngs: Sequence[np.random.Generator], options: dict[str, Any] | None
    ) -> tuple[Obs, list[Info]]:
        """Start a new episode in each game of ``indices``, drawing from its own generator."""
        config = self.config
        given = (options or {}).get("board")
        board_given = self._given_board(given) if given is not None else None
        fresh: list[Episode] = []
        for i, rng in zip(indices, rngs, strict=True):
            if board_given is not None:
                board, seats, actor = board_given, tuple(p.id for p in board_given.players), board_given.proliferator_id
                archetypes = dict.fromkeys(seats, "mixed")
            else:
                scenario = sample_scenario(
                    config.variant, rng, max_permanents=config.start_permanents, archetypes=config.archetypes
                )
                board, seats, archetypes, actor = scenario.board, scenario.seats, scenario.archetypes, "p0"
            game = Game(
                board,
                seats,
                archetypes,
                rng,
                external=frozenset({actor}),
                policies=dict.fromkeys(seats, self.agent.opponent),
                config=config.game,
                policy=config.policy,
            )
            if board_given is not None:
                game.pending = PendingDecision(actor, board, Opportunity(GIVEN, actor), config.policy)
                game.next_seat = (seats.index(actor) + 1) % len(seats)
            else:
                game.start(actor, opening(board, actor, rng))
            ep = Episode(game, actor, self.slots)
            self.episodes[i] = ep
            fresh.append(ep)
        advance_all([ep.game for ep in fresh if ep.game.pending is None])
        for ep in fresh:
            if ep.game.pending is None:  # cannot happen: the opening opportunity always proliferates
                raise RuntimeError("the episode ended before the agent's first decision")
            self._begin(ep, ep.game.pending)
        zero_terms: list[dict[str, float]] = [{} for _ in fresh]
        return self._observe(fresh, np.zeros(len(fresh), dtype=np.int64), zero_terms, [False] * len(fresh))

    def _given_board(self, given: Any) -> Board:
        return with_columns(given_board(given, self.config))

    # ------------------------------------------------------------------ step
    def step(
        self, indices: Sequence[int], actions: npt.NDArray[np.int64]
    ) -> tuple[Obs, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], list[Info]]:
        """One agent step in each game of ``indices``; ``actions`` are checked (:func:`env.actions.check_actions`)."""
        agent = self.agent
        eps = [self.episode(i) for i in indices]
        decisions = [ep.pending() for ep in eps]
        for ep in eps:
            ep.steps += 1
        illegal = self._take(eps, decisions, actions)
        terms: list[dict[str, float]] = [{"illegal": -agent.illegal_penalty * int(n)} for n in illegal]
        rewards = np.array([t["illegal"] for t in terms], dtype=np.float64)
        terminated = np.zeros(len(eps), dtype=np.bool_)
        truncated = np.zeros(len(eps), dtype=np.bool_)
        done_k = [k for k, d in enumerate(decisions) if d.round >= d.rounds]
        extras: dict[int, Info] = {}
        if done_k and (agent.reward_mode == "regret" or agent.oracle_in_info):
            plan_all([decisions[k] for k in done_k])
        ended = [decisions[k] for k in done_k]
        choices = [matrices(d.board, d.rows, d.recipients) for d in ended]
        # The choices applied and the games run on to the agents' next decisions, their state-based
        # actions batched across the games (env.game.play_all).
        runs = [
            eps[k].game.playing(decision, *choice, go_on=not agent.bandit)
            for k, decision, choice in zip(done_k, ended, choices, strict=True)
        ]
        outcomes = play_all([eps[k].game for k in done_k], runs)
        if agent.reward_mode != "terminal" or agent.oracle_in_info:
            values = self._values(ended, choices, outcomes)
            for k, decision, value in zip(done_k, ended, values, strict=True):
                terms[k]["delta"] = value / MILLI
                if agent.reward_mode == "regret" or agent.oracle_in_info:
                    terms[k]["regret"] = -(decision.optimum.value - value) / MILLI
        for k, (chosen, _), outcome in zip(done_k, choices, outcomes, strict=True):
            ep = eps[k]
            ep.last = self._slot_bits(ep, np.asarray(chosen.any(axis=0), dtype=bool))
            extras[k] = {"dies": list(outcome.dies), "losers": list(outcome.losers)}
        for k in done_k:
            ep = eps[k]
            game = ep.game
            result = game.result(ep.actor)
            terminated[k] = result is not None or agent.bandit
            truncated[k] = game.truncated and not terminated[k]
            terms[k]["terminal"] = _TERMINAL.get(result or "", 0.0)
            rewards[k] += terms[k]["delta" if agent.reward_mode == "delta" else agent.reward_mode]
            if game.pending is not None:
                self._begin(ep, game.pending)
            if result is not None:
                extras[k]["game_result"] = result
        done = [k in extras for k in range(len(eps))]
        obs, infos = self._observe(eps, illegal, terms, done)
        for k, extra in extras.items():
            infos[k].update(extra)
        return obs, rewards, terminated, truncated, infos

    def _values(
        self,
        ended: list[PendingDecision],
        choices: list[tuple[BoolArray, IntArray]],
        outcomes: list[Resolved],
    ) -> list[int]:
        """The value of each finished decision's choice (milli-points, relative to choosing nothing).

        Many games: one stacked :func:`solver.batch.score_many` pass.  A few (the single env):
        each decision's objective scores its resolution, already settled, since a stack of a
        few boards costs more than it saves.  Both are the objective's own kernels.
        """
        if len(ended) < SCORE_STACK_FROM:
            return [d.objective.value_of(o.settled) for d, o in zip(ended, outcomes, strict=True)]
        values: list[int] = score_many([d.board for d in ended], choices, self.config.policy).tolist()
        return values

    def _take(
        self, eps: list[Episode], decisions: list[PendingDecision], actions: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """Record this step's part of each decision; return how many ineligible bits or picks each ignored."""
        slots = self.slots
        if self.agent.action_mode == "subset":
            on = actions != 0
            eligible = _stack([ep.current_view().eligible for ep in eps]).astype(bool)
            opened = _stack([self._open(ep) for ep in eps]).astype(bool)
            taken = on[:, :slots] & eligible
            second = on[:, slots:] & opened
            illegal: npt.NDArray[np.int64] = (on[:, :slots] & ~eligible).sum(axis=1) + (on[:, slots:] & ~opened).sum(
                axis=1
            )
            for k, (ep, decision) in enumerate(zip(eps, decisions, strict=True)):
                rows = ep.current_view().row_of_slot[taken[k]].tolist()
                self._close_round(ep, decision, rows, second[k].tolist())
            return illegal
        illegal = np.zeros(len(eps), dtype=np.int64)
        for k, (ep, decision) in enumerate(zip(eps, decisions, strict=True)):
            index = int(actions[k])
            view = ep.current_view()
            if index == slots:  # DONE
                self._close_round(ep, decision, [int(view.row_of_slot[s]) for s in ep.order], None)
            elif not view.eligible[index] or ep.picked[index]:
                illegal[k] = 1
            else:
                ep.picked[index] = 1
                ep.order.append(index)
        return illegal

    def _open(self, ep: Episode) -> npt.NDArray[np.int8]:
        view = ep.current_view()
        out = np.zeros(self.agent.extra, dtype=np.int8)
        out[: len(view.recipient_open)] = view.recipient_open
        return out

    def _close_round(self, ep: Episode, decision: PendingDecision, rows: list[int], second: list[bool] | None) -> None:
        """Finish one proliferate of the decision: the chosen rows and the 2HG poison recipients."""
        view = ep.current_view()
        named: dict[int, int] = {}
        chosen = set(rows)
        for t, (first, other) in enumerate(view.recipient_heads):
            if not (view.recipient_open[t] and first in chosen and other in chosen):
                continue
            if second is None:  # sequential: the head picked first receives
                named[int(decision.board.team[first])] = first if rows.index(first) < rows.index(other) else other
            else:
                named[int(decision.board.team[first])] = other if second[t] else first
        decision.rows.append(sorted(rows))
        decision.recipients.append(named)
        ep.picked = np.zeros(self.slots, dtype=np.int8)
        ep.order = []

    def _begin(self, ep: Episode, decision: PendingDecision) -> None:
        ep.view = View.build(
            decision.board,
            ep.game.seats,
            decision.seat,
            self.slots,
            self.config.c_max,
            self._kind_map,
            self._start_life,
            self._orders,
        )
        ep.picked = np.zeros(self.slots, dtype=np.int8)
        ep.order = []

    def _slot_bits(self, ep: Episode, rows: npt.NDArray[np.bool_]) -> npt.NDArray[np.int8]:
        out = np.zeros(self.slots, dtype=np.int8)
        out[ep.current_view().slot_of_row[rows]] = 1  # a boolean index: the slots of the rows set
        return out

    # ------------------------------------------------------------------ masks and observations
    def mask(self, ep: Episode) -> npt.NDArray[np.int8]:
        """The action mask (int8, 1 = allowed) of ``ep``'s current step; all zero (bar DONE) once it is over."""
        agent = self.agent
        if ep.game.pending is None:
            mask = np.zeros(agent.n_bits, dtype=np.int8)
            if agent.action_mode == "sequential":
                mask[self.slots] = 1
            return mask
        view = ep.current_view()
        if agent.action_mode == "subset":  # both int8, so the concatenation is already a fresh int8 array
            return np.concatenate([view.eligible, view.recipient_open])
        mask = np.zeros(agent.n_bits, dtype=np.int8)
        mask[: self.slots] = view.eligible & (1 - ep.picked)
        mask[self.slots] = 1
        return mask

    def _observe(
        self,
        eps: list[Episode],
        illegal: npt.NDArray[np.int64],
        terms: list[dict[str, float]],
        decision_done: list[bool],
    ) -> tuple[Obs, list[Info]]:
        """Stacked observations and the per-game infos of ``eps`` (fresh arrays on every call)."""
        k, slots, agent = len(eps), self.slots, self.agent
        views = [ep.current_view() for ep in eps]
        masks = _stack([self.mask(ep) for ep in eps])
        times = np.zeros((k, slots), dtype=np.int8)
        picked = np.zeros((k, slots), dtype=np.int8)
        # Plain lists filled per game, then one float32 array each (no numpy item assignment per game).
        round_index = [0] * k
        rounds = [1] * k
        infos: list[Info] = []
        if agent.oracle_in_info:
            plan_all([d for d in (ep.game.pending for ep in eps) if d is not None])
        for j, ep in enumerate(eps):
            info: Info = {
                "illegal_bits": int(illegal[j]),
                "reward_terms": dict(terms[j]),
                "decision_done": decision_done[j],
            }
            decision = ep.game.pending
            if decision is None:  # the episode is over: the last decision's view, nothing allowed (bar DONE)
                info["action_mask"] = masks[j].copy()
            else:
                for chosen in decision.rows:
                    times[j, views[j].slot_of_row[chosen]] += 1
                picked[j] = ep.picked
                round_index[j], rounds[j] = decision.round, max(decision.rounds, 1)
                info["action_mask"] = masks[j].copy()
                info["opportunity"] = decision.opportunity.to_info()
                info["round"] = decision.round
                if agent.oracle_in_info:
                    plan = decision.optimum
                    info["oracle_action"] = self.action_for(ep, plan.chosen, plan.recipients)
                    info["oracle_value"] = plan.value / MILLI
            infos.append(info)
        glob = np.zeros((k, N_GLOBALS), dtype=np.float32)
        rounds_f = np.array(rounds, dtype=np.float32)
        glob[:, 0] = np.array(round_index, dtype=np.float32) / rounds_f
        glob[:, 1] = np.minimum(rounds_f / 4.0, 1.0)
        progress = np.array([ep.steps for ep in eps], dtype=np.float32) / self.config.horizon
        glob[:, 2] = np.minimum(np.maximum(progress, 0.0), 1.0)  # np.clip's values, without its dispatch cost
        glob[:, 3 + VARIANTS.index(self.config.variant)] = 1.0
        glob[:, 6:] = _stack([v.seat_globals for v in views])
        obs: Obs = {
            "counters": _stack([v.counters for v in views]),
            "kind": _stack([v.kind for v in views]),
            "relation": _stack([v.relation for v in views]),
            "stats": _stack([v.stats for v in views]),
            "present": _stack([v.present for v in views]),
            "eligible": _stack([v.eligible for v in views]),
            "times": times,
            "picked": picked,
            "action_mask": masks,
            "globals": glob,
        }
        return obs, infos

    # ------------------------------------------------------------------ oracle
    def action_for(self, ep: Episode, chosen: npt.NDArray[np.bool_], recipients: npt.NDArray[np.int64]) -> Any:
        """Turn a whole-decision choice (solver matrices) into ``ep``'s action for this step."""
        decision = ep.pending()
        r = decision.round
        rows = np.flatnonzero(chosen[r])
        view = ep.current_view()
        if self.agent.action_mode == "subset":
            bits = np.zeros(self.agent.n_bits, dtype=np.int8)
            bits[view.slot_of_row[rows]] = 1
            for t, (first, second) in enumerate(view.recipient_heads):
                team = int(decision.board.team[first])
                bits[self.slots + t] = int(chosen[r, first] and chosen[r, second] and recipients[r, team] == second)
            return bits
        receivers = {int(h) for h in recipients[r] if h >= 0}
        todo = [int(view.slot_of_row[i]) for i in sorted(rows, key=lambda i: (i not in receivers, view.slot_of_row[i]))]
        remaining = [s for s in todo if not ep.picked[s]]
        return remaining[0] if remaining else self.slots
