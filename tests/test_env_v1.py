"""Env v1 (issue 28): the game kept as arrays and stepped by compiled code.

The other env test files guard the interface (tests/test_env.py runs Gymnasium's checker on
every id); here: the registry (v1 ids only, v0 retired), the vector env against N single envs
(hypothesis over seeds, sizes, actions, opponents and both action modes, autoresets included),
threads against one thread, and the compiled pieces against the solver and the reference
Python rules on the same boards.  That v1 plays v0's game is stored evidence
(``benchmarks/results/same_game_compare.md``).
"""

from __future__ import annotations

import json
import warnings
from importlib.resources import files
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import env
import solver
from env.config import AgentConfig, EnvConfig
from env.core import ProliferateEnv
from env.kernels import game as K
from env.kernels.engine import Engine
from env.policies import rule_choice
from env.scenarios import sample_scenario, start_life
from env.spaces import View
from solver.core import Variant
from solver.kernels import decide
from solver.objective import Objective
from solver.policy import DEFAULT_POLICY
from solver.rules import ChoiceMatrix

IDS = tuple(env.IDS)
MODES = ("subset", "sequential")
VARIANTS = ("duel", "two_headed_giant", "free_for_all")


def _actions(masks: np.ndarray, mode: str, rng: np.random.Generator, noise: float = 0.0) -> np.ndarray:
    """Random legal actions (subset: coin flips on allowed bits, plus ``noise`` of ineligible ones; sequential: an
    allowed index, or with probability ``noise`` any index)."""
    if mode == "subset":
        on = rng.random(masks.shape) < 0.5
        return ((masks.astype(bool) & on) | (rng.random(masks.shape) < noise)).astype(np.int8)
    out = [int(rng.choice(np.flatnonzero(m))) for m in masks]
    return np.array([int(rng.integers(masks.shape[1])) if rng.random() < noise else a for a in out], dtype=np.int64)


def test_the_v1_ids_make_the_envs_and_their_vector_envs() -> None:
    assert set(IDS) == {f"proliferate/{name}-v1" for name in ("Duel", "TwoHeadedGiant", "FreeForAll", "Bandit")}
    for env_id in IDS:
        made = gym.make(env_id)
        assert type(made.unwrapped) is ProliferateEnv
        vec = gym.make_vec(env_id, num_envs=2)
        assert type(vec.unwrapped) is env.ProliferateVectorEnv
        vec.close()
    sharded = gym.make_vec("proliferate/Duel-v1", num_envs=2, shards=2)
    assert type(sharded.unwrapped) is env.ShardedVectorEnv
    sharded.close()
    for cls in (ProliferateEnv, env.ProliferateVectorEnv, env.ShardedVectorEnv):
        history = (cls.__doc__ or "").split("## Version History", 1)[-1]
        assert "- v1:" in history and "- v0: retired" in history, cls


def test_the_v0_game_model_is_gone() -> None:
    """Issue 28: one game model. v0's Python game (``env.game``, its board edits ``env.boardops``, its lockstep)
    is deleted, and the event and opportunity modules keep only their data (the kernels' tables read them)."""
    import env.events
    import env.opportunities

    package = Path(env.__file__).parent
    assert [m for m in ("game", "boardops", "lockstep") if (package / f"{m}.py").exists()] == []
    assert env.events.__all__ == ["EventParams"]
    assert not [name for name in env.opportunities.__all__ if name[0].islower()]  # no functions left


@pytest.mark.parametrize("name", ["Duel", "TwoHeadedGiant", "FreeForAll", "Bandit"])
def test_the_retired_v0_ids_raise_gymnasiums_deprecated_error_naming_v1(name: str) -> None:
    """v0 is unregistered: Gymnasium's own error for an old version of a registered id points to v1."""
    for make in (gym.make, lambda i: gym.make_vec(i, num_envs=2)):
        with warnings.catch_warnings(), pytest.raises(gym.error.DeprecatedEnv, match=f"proliferate/{name}-v1"):
            warnings.simplefilter("ignore", DeprecationWarning)  # the deprecation logger's companion warning
            make(f"proliferate/{name}-v0")


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 4),
    env_id=st.sampled_from(IDS),
    mode=st.sampled_from(MODES),
    opponent=st.sampled_from(["rule", "random", "oracle", "noop"]),
    noise=st.sampled_from([0.0, 0.1]),
)
def test_vector_sub_env_i_plays_the_single_env_seeded_with_seed_plus_i(
    seed: int, n: int, env_id: str, mode: str, opponent: str, noise: float
) -> None:
    kwargs: dict[str, Any] = {"action_mode": mode, "opponent": opponent, "max_episode_steps": 5}
    vec = gym.make_vec(env_id, num_envs=n, **kwargs)
    singles = [gym.make(env_id, **kwargs) for _ in range(n)]
    obs, _ = vec.reset(seed=seed)
    for i, single in enumerate(singles):
        assert data_equivalence(single.reset(seed=seed + i)[0], {k: v[i] for k, v in obs.items()})
    rng = np.random.default_rng(seed)
    ended = np.zeros(n, dtype=bool)
    resets = 0
    for _ in range(12):
        actions = _actions(obs["action_mask"], mode, rng, noise)
        obs, reward, terminated, truncated, _ = vec.step(actions)
        for i, single in enumerate(singles):
            if ended[i]:
                expected: tuple[Any, ...] = (single.reset()[0], 0.0, False, False)
                resets += 1
            else:
                expected = tuple(single.step(actions[i])[:4])
            got = ({k: v[i] for k, v in obs.items()}, reward[i], terminated[i], truncated[i])
            assert data_equivalence(expected[0], got[0]) and expected[1:] == got[1:]
        ended = terminated | truncated
    vec.close()


@pytest.mark.parametrize("variant", VARIANTS)
def test_numbas_threads_give_the_results_of_one_thread(variant: str) -> None:
    config = EnvConfig.build(variant)
    agent = AgentConfig.build(config, opponent="oracle")
    one, many = Engine(config, agent, 8, threads=False), Engine(config, agent, 8, threads=True)
    games = np.arange(8, dtype=np.int64)
    for engine in (one, many):
        engine.reset(games.tolist(), list(range(100, 108)))
    rng = np.random.default_rng(3)
    for _ in range(25):
        actions = (rng.random((8, agent.n_bits)) < 0.5).astype(np.int64)
        f1, i1 = one.step(games, actions)
        f2, i2 = many.step(games, actions)
        assert np.array_equal(f1, f2) and np.array_equal(i1, i2)
        assert all(np.array_equal(a, b) for a, b in zip(one.S, many.S, strict=True))
        over = np.flatnonzero(i1[:, 2] != K.AGENT)
        for engine in (one, many):
            engine.reset(over.tolist(), (over + 1000).tolist())


@pytest.mark.parametrize(
    ("env_id", "mode", "oracle_in_info"),
    [("proliferate/Duel-v1", "subset", False), ("proliferate/TwoHeadedGiant-v1", "sequential", False),
     ("proliferate/FreeForAll-v1", "subset", True), ("proliferate/Bandit-v1", "subset", False)],
)  # fmt: skip
def test_the_vector_envs_batched_infos_are_gymnasiums_batching_of_the_per_game_infos(
    env_id: str, mode: str, oracle_in_info: bool
) -> None:
    """The v1 vector env batches its infos from the games' arrays (Columns.write); they equal what Gymnasium's
    VectorEnv._add_info makes of the per-game dicts (env.vector.batch_infos), autoresets included."""
    kwargs: dict[str, Any] = {"action_mode": mode, "oracle_in_info": oracle_in_info, "opponent": "random"}
    fast, slow = (gym.make_vec(env_id, num_envs=5, **kwargs) for _ in range(2))
    fast.unwrapped.columns_from = 1  # type: ignore[attr-defined]  # by key from one sub-env on
    obs, info = fast.reset(seed=3)
    obs_s, info_s = slow.reset(seed=3)
    assert data_equivalence(info, info_s)
    rng = np.random.default_rng(2)
    for _ in range(30):
        actions = _actions(obs["action_mask"], mode, rng, noise=0.1)
        obs, reward, terminated, truncated, info = fast.step(actions)
        obs_s, reward_s, terminated_s, truncated_s, infos = slow.unwrapped.step_each(actions)  # type: ignore[attr-defined]
        assert data_equivalence(info, env.vector.batch_infos(infos))
        assert data_equivalence((obs, reward, terminated, truncated), (obs_s, reward_s, terminated_s, truncated_s))
    fast.close()
    slow.close()


def test_the_batched_infos_are_right_when_the_opportunity_codes_run_out() -> None:
    """The batched infos read each game's opportunity from typed columns by code; with fewer codes than games
    (the codes forgotten at every step, the columns grown past their capacity) they still equal Gymnasium's
    batching of the per-game dicts."""
    fast, slow = (gym.make_vec("proliferate/FreeForAll-v1", num_envs=9, opponent="random") for _ in range(2))
    for made in (fast, slow):
        made.unwrapped._core._opportunity_capacity = 3  # type: ignore[attr-defined]
    obs, info = fast.reset(seed=11)
    slow.reset(seed=11)
    rng = np.random.default_rng(4)
    for _ in range(40):
        actions = _actions(obs["action_mask"], "subset", rng)
        obs, *_, info = fast.step(actions)
        *_, infos = slow.unwrapped.step_each(actions)  # type: ignore[attr-defined]
        assert data_equivalence(info, env.vector.batch_infos(infos), exact=True)
    fast.close()
    slow.close()


def test_a_game_plays_the_same_whatever_its_neighbours_do() -> None:
    """A game's stream is its own: alone, or among others that reset and play differently."""
    kwargs: dict[str, Any] = {"opponent": "random"}
    single = gym.make("proliferate/Duel-v1", **kwargs)
    vec = gym.make_vec("proliferate/Duel-v1", num_envs=3, **kwargs)
    obs, _ = vec.reset(seed=[7, 40, 41])  # type: ignore[arg-type]  # a seed per sub-env
    o, _ = single.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(20):
        mask = obs["action_mask"]
        actions = _actions(mask, "subset", rng)
        actions[0] = (mask[0] == 1).astype(np.int8)  # game 0 always chooses every allowed object
        obs, *_ = vec.step(actions)
        o, _, t1, t2, _ = single.step(actions[0])
        assert data_equivalence(o, {k: v[0] for k, v in obs.items()})
        if t1 or t2:
            break
    vec.close()


def test_a_python_opponent_plays_through_the_slower_path_as_the_compiled_one() -> None:
    """A callable opponent (here the rule-based filter, which draws nothing) decides as the compiled "rule" does."""

    def rule(board: solver.Board, rng: np.random.Generator) -> Any:
        return rule_choice(board, rng)

    for env_id in ("proliferate/TwoHeadedGiant-v1", "proliferate/FreeForAll-v1"):
        compiled, python = gym.make(env_id), gym.make(env_id, opponent=rule)
        a, _ = compiled.reset(seed=5)
        b, _ = python.reset(seed=5)
        rng = np.random.default_rng(1)
        for _ in range(30):
            assert data_equivalence(a, b)
            act = _actions(a["action_mask"][None], "subset", rng)[0]
            a, ra, ta, ua, _ = compiled.step(act)
            b, rb, tb, ub, _ = python.step(act)
            assert (ra, ta, ua) == (rb, tb, ub)
            if ta or ua:
                break


@pytest.mark.parametrize("mode", MODES)
def test_actions_outside_the_space_raise_before_anything_changes(mode: str) -> None:
    e = gym.make("proliferate/Duel-v1", action_mode=mode)
    e.reset(seed=0)
    core: Any = e.unwrapped
    before = [a.copy() for a in core._core.engine.S]
    for bad in (None, -1, 0.3, float("nan"), "x", 10**6):
        with pytest.raises(ValueError):
            e.step(bad)
    assert all(np.array_equal(a, b) for a, b in zip(before, core._core.engine.S, strict=True))


def test_a_given_board_is_decided_and_paid_as_the_solver_says() -> None:
    board = json.loads(files("solver.examples").joinpath("proliferate_twice.json").read_text())
    e = gym.make("proliferate/Duel-v1")
    e.reset(seed=0, options={"board": board})
    core: Any = e.unwrapped
    best = solver.solve(core.decision_board()).value
    total = 0.0
    for _ in range(core.decision_board().rounds):
        _, reward, *_ = e.step(core.oracle_action())
        total += float(reward)
    assert total == pytest.approx(best)


@pytest.mark.parametrize("variant", VARIANTS)
def test_compiled_views_values_oracle_and_rule_equal_the_python_models(variant: str) -> None:
    """On seeded scenario boards (every proliferator, 1-2 proliferates): the observation is View.build's, the value
    of a random legal choice is Objective.score_matrix's, the optimum is the compiled core's, the rule seat is
    env.policies.rule_choice."""
    config = EnvConfig.build(variant)
    engine = Engine(config, AgentConfig.build(config), 1, threads=False)
    a, V = engine.arrays, engine.views
    rng = np.random.default_rng(1)
    for seed in range(40):
        start = sample_scenario(config.variant, np.random.default_rng(seed), max_permanents=config.start_permanents)
        board = start.board.with_proliferator(seed % start.board.n_players, 1 + seed % 2)
        engine.reset([0], [seed], board)
        rows = engine.rows_of(0)
        view = View.build(
            board, a.seat_ids[0], board.proliferator_id, config.slots, config.c_max, {}, start_life(config.variant)
        )
        for want, got in ((view.counters, V[1]), (view.kind, V[2]), (view.relation, V[3]), (view.stats, V[4]),
                          (view.present, V[5]), (view.eligible, V[6]), (view.seat_globals, V[9])):  # fmt: skip
            assert np.array_equal(want, got[0])
        _, decided = decide([board], DEFAULT_POLICY)
        chosen, _, value = engine.optimum(0)
        assert value == decided.values[0]
        assert np.array_equal(chosen[: board.rounds][:, rows].astype(bool), decided.chosen)
        eligible = np.flatnonzero((board.counts > 0).any(axis=1) & ~board.phased_out)
        picks = [sorted(rng.choice(eligible, size=int(rng.integers(len(eligible) + 1)), replace=False).tolist())
                 for _ in range(board.rounds)]  # fmt: skip
        named: list[dict[int, int]] = [{} for _ in picks]
        if config.variant is Variant.TWO_HEADED_GIANT:
            col = board.kind_column("poison")
            for r, picked in enumerate(picks):
                for team in range(board.n_teams):
                    heads = [
                        i for i in picked if i < board.n_players and board.team[i] == team and board.counts[i, col]
                    ]
                    if len(heads) > 1:
                        named[r][team] = heads[int(rng.integers(len(heads)))]
        matrix = ChoiceMatrix.from_rows(board, picks, named)
        a.chosen[0], a.recipients[0] = 0, -1
        team_of = [a.team_names[0].index(t) for t in board.team_names]
        for r in range(board.rounds):
            a.chosen[0, r, [rows[i] for i in np.flatnonzero(matrix.chosen[r])]] = 1
            for t, h in enumerate(matrix.recipients[r].tolist()):
                if h >= 0:
                    a.recipients[0, r, team_of[t]] = rows[h]
        assert K.choice_value(engine.S, engine.T, 0) == Objective(board).score_matrix(matrix.chosen, matrix.recipients)
        a.chosen[0], a.recipients[0] = 0, -1
        K.decide_scripted(engine.S, engine.T, 0, K.POLICY_RULE)
        mine = np.asarray(a.chosen[0])[: board.rounds][:, rows].astype(bool)
        assert np.array_equal(mine, rule_choice(board)[0])


def test_4096_games_fit_in_the_memory_target() -> None:
    """The arrays of 4,096 Duel games, views and outputs included (the resident target is 500 MB)."""
    config = EnvConfig.build("duel")
    engine = Engine(config, AgentConfig.build(config), 4096)
    assert engine.nbytes < 100 * 2**20


def test_the_same_game_benchmark_plays_every_game_on_its_own_seed() -> None:
    """benchmarks.same_game's games are independent (one block of seeds per decider and deck), so each group's
    standard error is that of an independent sample; one block reused in every cell made the cells share starts."""
    from benchmarks.same_game import DECIDERS, cell_seeds
    from env.scenarios import ARCHETYPES

    cells = len(DECIDERS) * len(ARCHETYPES)
    seeds = [s for cell in range(cells) for s in cell_seeds(5, 40, cell)]
    assert len(seeds) == len(set(seeds)) == cells * 40


@pytest.mark.parametrize("capacity", [1, 3])
def test_the_opportunity_info_is_right_when_its_codes_are_forgotten(capacity: int) -> None:
    """``info["opportunity"]`` is the pending decision's source every step, also when the codes it is kept by
    run out and are all forgotten (a small capacity here; 4,096 or N in use)."""
    made = gym.make("proliferate/FreeForAll-v1")
    core = made.unwrapped._core  # type: ignore[attr-defined]
    core._opportunity_capacity = capacity
    _, info = made.reset(seed=3)
    seen = 0
    for _ in range(300):
        if "opportunity" in info:
            assert info["opportunity"] == core.opportunity(0).to_info()
            seen += 1
        _, _, terminated, truncated, info = made.step(made.action_space.sample(info["action_mask"]))
        if terminated or truncated:
            _, info = made.reset()
    assert seen > 100 and len(core._opportunity_infos) <= capacity


def test_a_forgotten_opportunity_code_is_not_read_again() -> None:
    """Games whose decision did not change since their code was forgotten find it again (the single env's path and
    the batch's), rather than reading what the code now stands for."""
    vec = gym.make_vec("proliferate/FreeForAll-v1", num_envs=4)
    vec.reset(seed=5)
    core = vec.unwrapped._core  # type: ignore[attr-defined]
    truth = [core.opportunity(g).to_info() for g in range(4)]
    assert len({json.dumps(t, sort_keys=True) for t in truth}) > 1  # the games' opportunities differ
    core._opportunity_capacity = 1
    core.decision_key[0] += 1  # game 0 at a new decision (the same opportunity): its code is found again
    for g in (0, 1, 2, 3, 0, 2):  # each over the capacity: every code forgotten before the next is found
        assert core._opportunities_of(g) == truth[g]
    core._opportunity_capacity = 2
    core.decision_key[1] += 1
    for games in ([1, 0], [2, 3], [0, 1]):
        codes = core._refresh_opportunities(np.array(games, dtype=np.int64))
        assert [core._opportunity_infos[c] for c in codes.tolist()] == [truth[g] for g in games]
