"""The Gymnasium environments: API conformance, seeding, masks, the oracle and the rules they rely on."""

from __future__ import annotations

import itertools
import json
import warnings
from importlib.resources import files
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence

import env
import solver
from env.config import AgentConfig, EnvConfig
from env.core import ProliferateEnv
from env.kernels import game as K
from env.kernels.engine import Engine
from env.kernels.state import O_UID
from env.kernels.tables import SOURCES
from env.opportunities import SPELLS
from env.scenarios import CARDS, LEGENDARY, make_permanent, rebuild, sample_scenario
from env.spaces import N_KINDS
from solver.board import Effect, Variant
from solver.brute import enumerate_choices
from solver.effects import gain
from solver.objective import MILLI, Objective
from solver.rules import eligible_mask, settle

IDS = tuple(env.IDS)
MODES = ("subset", "sequential")


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(files("solver.examples").joinpath(name).read_text())
    return data


def make(env_id: str, **kwargs: Any) -> ProliferateEnv:
    made = gym.make(env_id, **kwargs).unwrapped
    assert isinstance(made, ProliferateEnv)
    return made


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes_with_warnings_as_errors(env_id: str, mode: str) -> None:
    made = make(env_id, action_mode=mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(made)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_and_actions_give_the_same_trajectory(env_id: str, mode: str) -> None:
    def trajectory() -> list[Any]:
        e = make(env_id, action_mode=mode)
        agent = env.RandomAgent(seed=7)
        out: list[Any] = [e.reset(seed=11)]
        for _ in range(40):
            step = e.step(agent.act(e))
            out.append(step)
            if step[2] or step[3]:
                out.append(e.reset())
        return out

    first, second = trajectory(), trajectory()
    assert data_equivalence(first, second)


def test_different_seeds_give_different_positions() -> None:
    e = make("proliferate/Duel-v1")
    a, _ = e.reset(seed=1)
    b, _ = e.reset(seed=2)
    assert not data_equivalence(a, b)


@pytest.mark.parametrize("env_id", IDS)
def test_mask_is_the_solver_eligibility_in_slot_order(env_id: str) -> None:
    """701.34a: exactly the objects with a counter can be chosen; three views of one mask."""
    e = make(env_id)
    obs, info = e.reset(seed=3)
    for _ in range(30):
        board = e.decision_board()
        view = e._current_view()
        expected = np.zeros(e.slots, dtype=np.int8)
        rows = np.flatnonzero(eligible_mask(board))
        expected[view.slot_of_row[rows]] = 1
        assert np.array_equal(obs["action_mask"][: e.slots], expected)
        assert np.array_equal(obs["eligible"], expected)
        assert np.array_equal(obs["eligible"], obs["present"] & obs["counters"].any(axis=1))
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        assert info["action_mask"] is not obs["action_mask"]
        layout = e.action_masks().reshape(-1, 2)
        assert layout[:, 0].all() and np.array_equal(layout[:, 1], obs["action_mask"].astype(bool))
        obs, _, term, trunc, info = e.step(e.oracle_action())
        if term or trunc:
            obs, info = e.reset()


def test_slot_zero_is_the_acting_player_and_relations_are_relative() -> None:
    e = make("proliferate/TwoHeadedGiant-v1")
    obs, _ = e.reset(seed=5)
    assert list(obs["relation"][:4]) == [1, 2, 3, 3]  # self, teammate, two opponents
    assert list(obs["kind"][:4]) == [1, 1, 1, 1]
    view = e._current_view()
    assert e.decision_board().ids[view.row_of_slot[0]] == e.actor


@pytest.mark.parametrize("env_id", IDS)
def test_rule_based_and_random_agents_only_take_legal_actions(env_id: str) -> None:
    for agent in (env.RuleBasedAgent(), env.RandomAgent(seed=1)):
        for mode in MODES:
            e = make(env_id, action_mode=mode)
            e.reset(seed=4)
            for _ in range(25):
                _, _, term, trunc, info = e.step(agent.act(e))
                assert info["illegal_bits"] == 0
                if term or trunc:
                    e.reset()


def test_ineligible_bits_are_ignored_reported_and_optionally_penalised() -> None:
    clean, noisy = make("proliferate/Bandit-v1"), make("proliferate/Bandit-v1", illegal_penalty=0.5)
    for seed in range(5):
        obs, _ = clean.reset(seed=seed)
        noisy.reset(seed=seed)
        action = clean.oracle_action()
        dirty = action.copy()
        dirty[obs["action_mask"] == 0] = 1
        added = int((obs["action_mask"] == 0).sum())
        _, r_clean, _, _, info_clean = clean.step(action)
        _, r_noisy, _, _, info_noisy = noisy.step(dirty)
        assert info_clean["illegal_bits"] == 0
        assert info_noisy["illegal_bits"] == added
        assert r_noisy == pytest.approx(r_clean - 0.5 * added)
        assert info_noisy["reward_terms"]["delta"] == info_clean["reward_terms"]["delta"]


def test_sequential_illegal_pick_changes_nothing() -> None:
    e = make("proliferate/Duel-v1", action_mode="sequential")
    obs, _ = e.reset(seed=8)
    bad = int(np.flatnonzero(obs["action_mask"][: e.slots] == 0)[0])
    after, reward, term, _trunc, info = e.step(bad)
    assert info["illegal_bits"] == 1 and reward == 0.0 and not term
    progress = 2  # globals[2] counts agent steps, legal or not
    assert data_equivalence(
        {k: v for k, v in after.items() if k != "globals"}, {k: v for k, v in obs.items() if k != "globals"}
    )
    assert np.array_equal(np.delete(after["globals"], progress), np.delete(obs["globals"], progress))


def _subsets(mask: np.ndarray) -> list[np.ndarray]:
    bits = np.flatnonzero(mask)
    out = []
    for size in range(len(bits) + 1):
        for subset in itertools.combinations(bits, size):
            action = np.zeros(len(mask), dtype=np.int8)
            action[list(subset)] = 1
            out.append(action)
    return out


def test_oracle_is_never_worse_than_any_action_and_matches_brute_force() -> None:
    """Every legal subset, played through the env, scores at most the oracle's action; brute force agrees."""
    e = make("proliferate/Bandit-v1", slots=10)
    checked = 0
    for seed in range(40):
        obs, _ = e.reset(seed=seed)
        board = e.decision_board()
        if board.rounds != 1 or obs["action_mask"].sum() > 6:
            continue
        objective = Objective(board)
        brute = max(objective.score_matrix(c, r) for c, r in enumerate_choices(objective)) / MILLI
        _, oracle_reward, *_ = e.step(e.oracle_action())
        assert oracle_reward == pytest.approx(brute)
        for action in _subsets(obs["action_mask"]):
            e.reset(seed=seed)
            _, reward, *_ = e.step(action)
            assert reward <= oracle_reward + 1e-9
        checked += 1
    assert checked >= 10


def test_regret_is_zero_for_the_oracle_and_positive_for_a_mistake() -> None:
    e = make("proliferate/Bandit-v1", reward_mode="regret")
    regrets = []
    for seed in range(30):
        e.reset(seed=seed)
        while True:
            _, reward, term, _, info = e.step(e.oracle_action())
            if term:
                break
        assert reward == 0.0 and info["reward_terms"]["regret"] == 0.0
        obs, _ = e.reset(seed=seed)
        terms: dict[str, float] = {}
        while True:  # choose everything eligible in every round
            obs, reward, term, _, info = e.step(obs["action_mask"].copy())
            terms = info["reward_terms"] or terms
            if term:
                break
        assert reward <= 0.0
        regrets.append(-reward)
    assert max(regrets) > 0


def test_options_board_starts_from_that_board_and_the_oracle_is_the_solver() -> None:
    e = make("proliferate/Duel-v1")
    data = example("classic.json")
    obs, info = e.reset(seed=0, options={"board": data})
    assert int(obs["present"].sum()) == 2 + len(data["permanents"])
    assert info["opportunity"]["pattern"] == "given"
    view = e._current_view()
    chosen = {e.decision_board().ids[view.row_of_slot[s]] for s in np.flatnonzero(e.oracle_action())}
    assert chosen == set(solver.solve(solver.load_board(data)).chosen)


def test_two_rounds_take_two_steps_and_pay_once() -> None:
    """Proliferate twice (Contagion Engine): one subset per proliferate, no SBAs in between (704.3)."""
    e = make("proliferate/Duel-v1")
    obs, _ = e.reset(seed=0, options={"board": example("proliferate_twice.json")})
    best = solver.solve(e.decision_board()).value
    obs, reward, _, _, info = e.step(e.oracle_action())
    assert reward == 0.0 and not info["decision_done"] and obs["globals"][0] == 0.5
    obs, reward, _, _, info = e.step(e.oracle_action())
    assert info["decision_done"] and reward == pytest.approx(best)


def test_two_headed_giant_poison_recipient_bit_chooses_the_head() -> None:
    """701.34b: both heads chosen adds one team poison; the proliferator picks the head (Winding Constrictor: 2)."""
    data = example("two_headed_giant_lethal.json")
    for player in data["players"][2:]:
        player["counters"] = {"poison": 13}
    data["effects"] = [{"card": "Winding Constrictor", "controller": "carol"}]
    e = make("proliferate/TwoHeadedGiant-v1", reward_mode="terminal", bandit=True)
    results = {}
    for bit in (0, 1):
        e.reset(seed=0, options={"board": data})
        action = np.zeros(e.n_bits, dtype=np.int8)
        action[[2, 3]] = 1  # bob and carol, both heads of team B
        action[e.slots + 1] = bit  # 0: bob (slot 2) gets the poison, 1: carol (slot 3)
        _, reward, _term, _, info = e.step(action)
        results[bit] = (reward, info.get("game_result"))
    assert results[0][1] is None
    assert results[1] == (1.0, "win")  # 13 + 2 = 15: team B loses (704.6b)


def test_two_headed_giant_lethal_example_is_a_win_for_the_oracle() -> None:
    e = make("proliferate/TwoHeadedGiant-v1", action_mode="sequential", reward_mode="terminal")
    e.reset(seed=0, options={"board": example("two_headed_giant_lethal.json")})
    while True:
        _, reward, term, trunc, info = e.step(e.oracle_action())
        if term or trunc:
            break
    assert info["game_result"] == "win" and reward == 1.0


def test_more_objects_than_slots_raises_at_reset() -> None:
    data = example("classic.json")
    data["permanents"] = [
        {"id": f"x{i}", "controller": "alice", "types": ["artifact"], "counters": {"charge": 1}} for i in range(12)
    ]
    with pytest.raises(ValueError, match="slots"):
        make("proliferate/Duel-v1", slots=10).reset(seed=0, options={"board": data})


def test_a_board_of_another_variant_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match=r"options\['board'\]\.variant"):
        make("proliferate/Duel-v1").reset(options={"board": example("two_headed_giant_lethal.json")})


def test_a_spell_whose_only_target_is_gone_does_not_proliferate() -> None:
    """608.2b: Grim Affliction with its target gone does nothing (the game's ``prepare`` kernel); otherwise its
    -1/-1 counter lands first, before the proliferate (704.3: no state-based actions in between)."""
    config = EnvConfig.build("duel")
    engine = Engine(config, AgentConfig.build(config), 1, threads=False)
    board = solver.load_board(example("classic.json"))
    grim = SOURCES.index(next(s for s in SPELLS if s.card == "Grim Affliction"))
    for fizzled in (1, 0):
        engine.reset([0], [0], board)
        start = engine.decision_board(0)
        rows = engine.rows_of(0)
        perms = rows[start.n_players :]
        engine.arrays.obj[0, perms, O_UID] = np.arange(1, len(perms) + 1)  # a given board's are negative: no target
        target = int(engine.arrays.uid[0, rows[start.index["courser"]]])
        happens = K.prepare(engine.S, engine.T, 0, rows[start.index["alice"]], grim, target, -1, fizzled)
        after = engine.decision_board(0)  # its ids follow the uids set above: compare by row
        row = start.index["courser"]
        if fizzled:
            assert not happens and after.n_objects == start.n_objects - 1
        else:
            assert happens and after.n_objects == start.n_objects
            assert _minus(after, row) == _minus(start, row) + 1


def _minus(board: solver.Board, row: int) -> int:
    column = board.kind_column("-1/-1")
    return int(board.counts[row, column]) if column >= 0 else 0


@pytest.mark.parametrize("action_mode", MODES)
def test_the_render_marks_the_slots_chosen_at_the_last_decision(action_mode: str) -> None:
    """docs/environments.md: the render's "last" column is what the agent chose at its last decision."""
    e = make("proliferate/Duel-v1", render_mode="rgb_array", action_mode=action_mode)
    for seed in range(3, 30):
        _, info = e.reset(seed=seed)
        assert not e._episode().last.any()
        picked: set[int] = set()
        while True:
            legal = [int(i) for i in np.flatnonzero(info["action_mask"][: e.slots])]
            if action_mode == "subset":
                action: Any = np.zeros(e.n_bits, dtype=np.int8)
                action[legal[:2]] = 1
                picked |= set(legal[:2])
            else:
                action = legal[0] if legal and not picked else e.done_action
                picked |= {action} if action < e.slots else set()
            _, _, term, trunc, info = e.step(action)
            if info["decision_done"] or term or trunc:
                break
        if info["decision_done"] and picked and not (term or trunc):
            assert set(np.flatnonzero(e._episode().last).tolist()) == picked
            picture = e.render()
            cell = picture.shape[0] // e.slots  # each slot a square of cells
            marks = picture[::cell, (2 + N_KINDS) * cell, 0]
            assert marks.tolist() == [255 * int(s in picked) for s in range(e.slots)]
            return
    pytest.fail("no seed gave a decision that left the game going")


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_render_modes(mode: str) -> None:
    e = make("proliferate/FreeForAll-v1", render_mode=mode)
    e.reset(seed=0)
    picture = e.render()
    if mode == "ansi":
        assert isinstance(picture, str) and "p0" in picture
    else:
        assert isinstance(picture, np.ndarray) and picture.dtype == np.uint8 and picture.shape[2] == 3


def test_env_prefix_form_imports_the_package() -> None:
    made = gym.make("env:proliferate/Bandit-v1")
    assert made.spec is not None and made.spec.id == "proliferate/Bandit-v1"


def test_scaled_counters_and_flatten_observation() -> None:
    e = env.ScaledCounters(gym.make("proliferate/Duel-v1"))
    obs, _ = e.reset(seed=0)
    assert obs in e.observation_space and obs["counters"].dtype == np.float32
    flat = gym.wrappers.FlattenObservation(gym.make("proliferate/Duel-v1"))
    obs, info = flat.reset(seed=0)
    assert obs.shape == flat.observation_space.shape
    for _ in range(20):
        obs, _, term, trunc, info = flat.step(env.sample_legal(flat, info["action_mask"]))
        assert obs in flat.observation_space
        if term or trunc:
            obs, info = flat.reset()


def test_cheap_board_derivations_equal_a_full_rebuild() -> None:
    """A permanent entering, another proliferator and lost life give the board (and the caches) a rebuild would."""
    rng = np.random.default_rng(0)
    for seed in range(12):
        variant = (Variant.DUEL, Variant.TWO_HEADED_GIANT, Variant.FREE_FOR_ALL)[seed % 3]
        board = sample_scenario(variant, np.random.default_rng(seed), max_permanents=12).board
        _ = gain(board), board.is_ally, board.rounds, board.index  # fill the caches that must not go stale
        spec = CARDS["mixed"][int(rng.integers(len(CARDS["mixed"])))]
        perm = make_permanent(spec, "new", "p1", "p0", rng)
        effect = Effect("Hardened Scales", "p1") if seed % 2 else None
        entered = board.with_permanent(perm, [effect] if effect else [])
        effects = [*board.effects, *([effect] if effect else [])]
        full = rebuild(variant, board.proliferator_id, 1, board.players, [*board.permanents, perm], effects)
        assert entered == full
        assert np.array_equal(gain(entered), gain(full))
        moved = board.with_proliferator(1, 2)
        fresh = rebuild(variant, board.ids[1], 2, board.players, board.permanents, board.effects)
        assert moved == fresh and moved.rounds == fresh.rounds
        assert np.array_equal(gain(moved), gain(fresh)) and np.array_equal(moved.is_ally, fresh.is_ally)
        life = moved.with_life(moved.life - 3)
        assert np.array_equal(gain(life), gain(fresh)) and list(life.life) == [p.life - 3 for p in fresh.players]
        assert np.array_equal(settle(life, life.counts).dies, settle(fresh, fresh.counts).dies)


def test_no_seat_controls_two_copies_of_a_legendary_card() -> None:
    """704.5j: the generator never plays a second copy, so Tekuthal doubles once and a decision stays small."""
    e = make("proliferate/TwoHeadedGiant-v1", archetypes=("minus_counters",))
    e.reset(seed=0)
    agent = env.RandomAgent(seed=0)
    for _ in range(150):
        board = e.decision_board()
        assert board.rounds <= 4
        held = [(str(board.names[i]), int(board.controller[i])) for i in range(board.n_players, board.n_objects)]
        legends = [h for h in held if h[0] in LEGENDARY]
        assert len(legends) == len(set(legends))
        _, _, term, trunc, _ = e.step(agent.act(e))
        if term or trunc:
            e.reset()
