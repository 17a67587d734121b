"""The Gymnasium environments: one class, parametrised by variant and by bandit/game mode.

The agent always plays seat ``p0`` of generated games (or the proliferator of a board
given with ``reset(options={"board": ...})``); the observation is relative to it, so slot
0 is always "me".  See :class:`ProliferateEnv` for spaces, rewards and episodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from solver.board import Board, BoolArray, IntArray, Variant
from solver.boardjson import load_board
from solver.errors import BoardError
from solver.objective import MILLI
from solver.policy import Policy

from .agents import BOARD_POLICIES, BoardPolicy, matrices
from .events import EventParams
from .game import Decision, Game, GameConfig
from .opportunities import GIVEN, Opportunity, opening
from .render import render_ansi, render_rgb
from .scenarios import sample_scenario, start_life, with_columns
from .spaces import MAX_ROUNDS, View, maskable, observation_space

__all__ = ["ProliferateEnv"]

ActionMode = Literal["subset", "sequential"]
RewardMode = Literal["delta", "terminal", "regret"]
Opponent = str | BoardPolicy

_SEATS = {Variant.DUEL: 2, Variant.TWO_HEADED_GIANT: 4, Variant.FREE_FOR_ALL: 4}
_TERMINAL = {"win": 1.0, "loss": -1.0, "draw": 0.0}


class ProliferateEnv(gym.Env[dict[str, Any], Any]):
    """Proliferate decisions in a game of Magic, one agent decision per step.

    ## Description
    The agent controls seat ``p0``.  Whenever it gets to proliferate (Atraxa's end-step
    trigger, an activated ability, a "put a counter, then proliferate" spell, ...), it
    chooses which permanents and players with counters get one more counter of each kind
    they have (701.34a).  Between its decisions the game goes on: a seeded event model
    (infect and toxic damage, -1/-1 effects, +1/+1 growth, planeswalker activations,
    permanents entering with counters, creatures dying) and the other seats' own
    proliferates, decided by ``opponent``.  With ``bandit=True`` an episode is a single
    decision on a sampled position.  All rules and values come from :mod:`solver`.

    ## Action space
    ``action_mode="subset"`` (default): ``MultiBinary(slots + extra)``; bit ``s`` chooses the
    object in slot ``s``.  In Two-Headed Giant ``extra = 2``: bit ``slots`` gives the
    agent's team's poison counter to the teammate (slot 1) instead of the agent (slot 0)
    when both are chosen, bit ``slots + 1`` gives the opposing team's to its second head
    (slot 3) instead of its first (slot 2) (701.34b).  ``action_mode="sequential"``:
    ``Discrete(slots + 1)``; each step picks one object, ``slots`` is DONE; in 2HG the head
    of a poisoned team picked first gets the team's poison.  A proliferate that happens
    several times in one resolution (Contagion Engine, Tekuthal) takes one subset (or one
    DONE-terminated run of picks) per proliferate.  Ineligible bits and picks are ignored,
    counted in ``info["illegal_bits"]`` and cost ``illegal_penalty`` each; they never raise.

    ## Observation space
    A single-level ``Dict``: ``counters`` (slots x 14 int16: a fixed kind vocabulary plus
    "other"), ``kind`` (object type code), ``relation`` (none/self/teammate/opponent),
    ``stats`` (printed power, toughness, damage, final chapter), ``present``, ``eligible``,
    ``times`` (rounds each object is already chosen in this decision), ``picked`` (picked in
    this round, sequential mode), ``action_mask`` and ``globals`` (round, rounds, progress,
    variant, and per seat: alive, life, poison relative to the losing threshold).

    ## Rewards
    Paid when a decision is complete (every round chosen).  ``"delta"``: the solver's
    objective value of the choice, from the agent's side, relative to choosing nothing, in
    points (``Objective(board).score_matrix``; one +1/+1 counter on one's creature = 1;
    game results are worth at least 1000).  ``"terminal"``: +1 win, -1 loss, 0 draw or
    unfinished.  ``"regret"``: minus the gap to the optimum (0 is optimal).  Each
    component is in ``info["reward_terms"]`` (the regret only when computed).

    ## Starting state
    A seeded scenario (``archetypes``: infect, superfriends, +1/+1, -1/-1, sagas and battles,
    mixed), starting at an opportunity of the agent; or the board in ``options["board"]``.

    ## Episode end
    Terminated when a seat the agent's result depends on loses (a duel or 2HG team: either
    side; free-for-all: the agent loses or is the last one left), or after the single
    decision of a bandit.  Truncated by the registered ``TimeLimit`` (agent steps), or
    when the game passes ``max_turns`` turns.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        variant: str = "duel",
        *,
        slots: int | None = None,
        action_mode: ActionMode = "subset",
        reward_mode: RewardMode = "delta",
        bandit: bool = False,
        opponent: Opponent = "rule",
        events: EventParams | Mapping[str, float] | None = None,
        archetypes: tuple[str, ...] | None = None,
        policy: Policy | Mapping[str, Any] | None = None,
        illegal_penalty: float = 0.0,
        oracle_in_info: bool = False,
        horizon: int = 64,
        c_max: int = 255,
        p_activate: float = 0.5,
        p_spell: float = 0.35,
        p_fizzle: float = 0.15,
        max_turns: int = 200,
        render_mode: str | None = None,
    ) -> None:
        self.variant = Variant(variant)
        self.n_seats = _SEATS[self.variant]
        self.slots = slots if slots is not None else (32 if self.variant is Variant.DUEL else 48)
        if self.slots <= self.n_seats:
            raise ValueError(f"slots must exceed the {self.n_seats} player slots of a {self.variant.value}")
        if action_mode not in ("subset", "sequential"):
            raise ValueError(f"action_mode must be 'subset' or 'sequential', not {action_mode!r}")
        if reward_mode not in ("delta", "terminal", "regret"):
            raise ValueError(f"reward_mode must be 'delta', 'terminal' or 'regret', not {reward_mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.action_mode: ActionMode = action_mode
        self.reward_mode: RewardMode = reward_mode
        self.bandit = bandit
        self.opponent = _board_policy(opponent)
        self.archetypes = archetypes
        self.policy = policy if isinstance(policy, Policy) else Policy.from_dict(policy or {})
        self.illegal_penalty = float(illegal_penalty)
        self.oracle_in_info = oracle_in_info
        self.horizon = horizon
        self.c_max = c_max
        self.render_mode = render_mode
        event_params = events if isinstance(events, EventParams) else EventParams(**(events or {}))
        self.config = GameConfig(
            events=event_params,
            p_activate=p_activate,
            p_spell=p_spell,
            p_fizzle=p_fizzle,
            max_turns=max_turns,
            capacity=self.slots - self.n_seats,
        )
        self.extra = 2 if self.variant is Variant.TWO_HEADED_GIANT else 0
        self.n_bits = self.slots + self.extra if action_mode == "subset" else self.slots + 1
        self.done_action = self.slots
        self.action_space: spaces.Space[Any] = (
            spaces.MultiBinary(self.n_bits) if action_mode == "subset" else spaces.Discrete(self.n_bits)
        )
        self.observation_space = observation_space(self.slots, self.n_bits, c_max)
        self._kind_map: dict[tuple[str, ...], npt.NDArray[np.float64]] = {}
        self._orders: dict[tuple[object, ...], tuple[str, ...]] = {}
        self._start_life = start_life(self.variant)
        self._game: Game | None = None
        self._view: View | None = None
        self._picked = np.zeros(self.slots, dtype=np.int8)
        self._order: list[int] = []
        self._steps = 0
        self._last: npt.NDArray[np.int8] = np.zeros(self.slots, dtype=np.int8)

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        given = (options or {}).get("board")
        if given is not None:
            board = self._given_board(given)
            seats = tuple(p.id for p in board.players)
            actor = board.proliferator_id
            archetypes = dict.fromkeys(seats, "mixed")
            first: Opportunity = Opportunity(GIVEN, actor)
        else:
            scenario = sample_scenario(
                self.variant, rng, max_permanents=(self.slots - self.n_seats) * 2 // 3, archetypes=self.archetypes
            )
            board, seats, archetypes, actor = scenario.board, scenario.seats, scenario.archetypes, "p0"
            first = opening(board, actor, rng)
        self.actor = actor
        game = Game(
            board,
            seats,
            archetypes,
            rng,
            external=frozenset({actor}),
            policies=dict.fromkeys(seats, self.opponent),
            config=self.config,
            policy=self.policy,
        )
        self._game = game
        self._steps = 0
        self._last = np.zeros(self.slots, dtype=np.int8)
        if given is not None:
            game.pending = Decision(actor, board, first, self.policy)
            game.next_seat = (seats.index(actor) + 1) % len(seats)
        else:
            game.start(actor, first)
        if game.pending is None:  # cannot happen: the opening opportunity always proliferates
            raise RuntimeError("the episode ended before the agent's first decision")
        self._begin(game.pending)
        obs, info = self._observe(illegal=0, terms={}, decision_done=False)
        return obs, info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        game, decision = self._game, self._pending()
        if game is None:
            raise RuntimeError("call reset() before step()")
        self._steps += 1
        illegal = self._take(decision, action)
        terms: dict[str, float] = {"illegal": -self.illegal_penalty * illegal}
        reward = terms["illegal"]
        if decision.round < decision.rounds:
            obs, info = self._observe(illegal, terms, decision_done=False)
            return obs, reward, False, False, info

        chosen, recipients = matrices(decision.board, decision.rows, decision.recipients)
        outcome = game.resolve(decision, chosen, recipients)
        if self.reward_mode != "terminal" or self.oracle_in_info:
            # The resolution is already settled (apply_matrix): score it rather than settling it again.
            value = decision.objective.value_of(outcome.settled)
            terms["delta"] = value / MILLI
            if self.reward_mode == "regret" or self.oracle_in_info:
                terms["regret"] = -(decision.best.value - value) / MILLI
        self._last = self._slot_bits(np.asarray(chosen.any(axis=0), dtype=bool))
        game.pending = None
        nxt = None if game.over or self.bandit else game.advance()
        result = game.result(self.actor)
        terminated = result is not None or self.bandit
        truncated = game.truncated and not terminated
        terms["terminal"] = _TERMINAL.get(result or "", 0.0)
        reward += terms["delta" if self.reward_mode == "delta" else self.reward_mode]
        if nxt is not None:
            self._begin(nxt)
        obs, info = self._observe(illegal, terms, decision_done=True)
        info["dies"] = list(outcome.dies)
        info["losers"] = list(outcome.losers)
        if result is not None:
            info["game_result"] = result
        return obs, float(reward), bool(terminated), bool(truncated), info

    def render(self) -> Any:
        if self.render_mode is None or self._view is None:
            return None
        mask = self.current_mask()
        if self.render_mode == "ansi":
            return render_ansi(self._view, mask[: self.slots], self._last, self._pending().opportunity)
        return render_rgb(self._view, mask[: self.slots], self._last)

    # ------------------------------------------------------------------ masks and the oracle
    def current_mask(self) -> npt.NDArray[np.int8]:
        """The action mask (int8, 1 = allowed) of the current step, as in ``obs["action_mask"]``."""
        view = self._current_view()
        if self.action_mode == "subset":
            return np.concatenate([view.eligible, view.recipient_open]).astype(np.int8)
        mask = np.zeros(self.n_bits, dtype=np.int8)
        mask[: self.slots] = view.eligible & (1 - self._picked)
        mask[self.done_action] = 1
        return mask

    def action_masks(self) -> BoolArray:
        """The mask in the layout sb3-contrib's MaskablePPO expects (2 bools per MultiBinary bit)."""
        return maskable(self.current_mask(), self.action_mode)

    def decision_board(self) -> Board:
        """The solver board of the decision being made (its proliferator is the agent)."""
        return self._pending().board

    def oracle_action(self) -> Any:
        """The optimal action now, in the current action format (the solver's exact optimum).

        The optimum is solved once per decision.  In a decision with several proliferates,
        each round's action is that round of the optimal plan.
        """
        decision = self._pending()
        chosen, recipients = decision.plan
        return self.action_for(chosen, recipients)

    def action_for(self, chosen: BoolArray, recipients: IntArray) -> Any:
        """Turn a whole-decision choice (solver matrices) into this step's action."""
        decision = self._pending()
        r = decision.round
        rows = np.flatnonzero(chosen[r])
        view = self._current_view()
        if self.action_mode == "subset":
            bits = np.zeros(self.n_bits, dtype=np.int8)
            bits[view.slot_of_row[rows]] = 1
            for t, (first, second) in enumerate(view.recipient_heads):
                team = int(decision.board.team[first])
                bits[self.slots + t] = int(chosen[r, first] and chosen[r, second] and recipients[r, team] == second)
            return bits
        receivers = set(int(h) for h in recipients[r] if h >= 0)
        todo = [int(view.slot_of_row[i]) for i in sorted(rows, key=lambda i: (i not in receivers, view.slot_of_row[i]))]
        remaining = [s for s in todo if not self._picked[s]]
        return remaining[0] if remaining else self.done_action

    # ------------------------------------------------------------------ internals
    def _given_board(self, given: Any) -> Board:
        try:
            board = given if isinstance(given, Board) else load_board(given)
        except BoardError as exc:
            raise ValueError(f"options['board'] is not a valid board:\n{exc}") from exc
        if board.variant is not self.variant:
            raise ValueError(
                f"options['board'].variant is {board.variant.value!r}; this env plays {self.variant.value!r}"
            )
        if board.n_players > self.n_seats:
            raise ValueError(f"options['board'].players has {board.n_players} players; at most {self.n_seats} here")
        if board.rounds > MAX_ROUNDS:
            raise ValueError(f"options['board'].proliferates gives {board.rounds} rounds; at most {MAX_ROUNDS}")
        return with_columns(board)

    def _pending(self) -> Decision:
        decision = None if self._game is None else self._game.pending
        if decision is None:
            raise RuntimeError("no decision is pending: call reset()")
        return decision

    def _current_view(self) -> View:
        if self._view is None:
            raise RuntimeError("call reset() first")
        return self._view

    def _begin(self, decision: Decision) -> None:
        game = self._game
        assert game is not None
        self._view = View.build(
            decision.board,
            game.seats,
            decision.seat,
            self.slots,
            self.c_max,
            self._kind_map,
            self._start_life,
            self._orders,
        )
        self._picked = np.zeros(self.slots, dtype=np.int8)
        self._order = []

    def _take(self, decision: Decision, action: Any) -> int:
        """Record this step's part of the decision; return how many ineligible bits or picks were ignored."""
        view = self._current_view()
        if self.action_mode == "subset":
            bits = np.asarray(action).reshape(-1)
            if bits.shape != (self.n_bits,):
                raise ValueError(f"action must have {self.n_bits} bits, not shape {np.shape(action)}")
            on = bits != 0
            ok = view.eligible.astype(bool)
            illegal = int((on[: self.slots] & ~ok).sum()) + int(
                (on[self.slots :] & ~view.recipient_open.astype(bool)).sum()
            )
            rows = [int(view.row_of_slot[s]) for s in np.flatnonzero(on[: self.slots] & ok)]
            second = [bool(on[self.slots + t]) and bool(view.recipient_open[t]) for t in range(self.extra)]
            self._close_round(decision, rows, second)
            return illegal
        index = int(action)
        if index == self.done_action:
            self._close_round(decision, [int(view.row_of_slot[s]) for s in self._order], None)
            return 0
        if not 0 <= index < self.slots or not view.eligible[index] or self._picked[index]:
            return 1
        self._picked[index] = 1
        self._order.append(index)
        return 0

    def _close_round(self, decision: Decision, rows: list[int], second: list[bool] | None) -> None:
        """Finish one proliferate of the decision: the chosen rows and the 2HG poison recipients."""
        view = self._current_view()
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
        self._picked = np.zeros(self.slots, dtype=np.int8)
        self._order = []

    def _slot_bits(self, rows: BoolArray) -> npt.NDArray[np.int8]:
        out = np.zeros(self.slots, dtype=np.int8)
        out[self._current_view().slot_of_row[np.flatnonzero(rows)]] = 1
        return out

    def _times(self) -> npt.NDArray[np.int8]:
        decision = self._pending()
        view = self._current_view()
        times = np.zeros(self.slots, dtype=np.int8)
        for rows in decision.rows:
            times[view.slot_of_row[rows]] += 1
        return times

    def _observe(
        self, illegal: int, terms: dict[str, float], decision_done: bool
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The observation and the info of this step (the mask is worked out once for both)."""
        view = self._current_view()
        decision = self._game.pending if self._game is not None else None
        info: dict[str, Any] = {"illegal_bits": illegal, "reward_terms": dict(terms), "decision_done": decision_done}
        if decision is None:  # the episode is over: the last decision's view, nothing allowed
            info["action_mask"] = np.zeros(self.n_bits, dtype=np.int8)
            mask = np.zeros(self.n_bits, dtype=np.int8)
            if self.action_mode == "sequential":
                mask[self.done_action] = 1
            zeros = np.zeros(self.slots, dtype=np.int8)
            return view.observation(mask, zeros, zeros, 0, 1, self._steps / self.horizon), info
        mask = self.current_mask()
        obs = view.observation(
            mask, self._times(), self._picked, decision.round, max(decision.rounds, 1), self._steps / self.horizon
        )
        info["action_mask"] = mask
        info["opportunity"] = decision.opportunity.to_info()
        info["round"] = decision.round
        if self.oracle_in_info:
            info["oracle_action"] = self.oracle_action()
            info["oracle_value"] = decision.best.value / MILLI
        return obs, info


def _board_policy(opponent: Opponent) -> BoardPolicy:
    if callable(opponent):
        return opponent
    if opponent not in BOARD_POLICIES:
        raise ValueError(f"opponent must be one of {sorted(BOARD_POLICIES)} or a callable, not {opponent!r}")
    return BOARD_POLICIES[opponent]
