"""The PettingZoo adapters (AEC and parallel) on the v1 engine: PettingZoo's own checks, random legal subsets, team
rewards (810.8a), views from every seat, per-seat results, and no import of v0's game model."""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium import spaces
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from env.kernels import game as K
from env.kernels.state import G_OVER, G_PROUND, G_PROUNDS, G_TRUNC, S_IN, S_LOST, S_TEAM
from env.pettingzoo import ProliferateAEC, ProliferateParallel, aec_env, parallel_env

VARIANTS = ("duel", "two_headed_giant", "free_for_all")
TEAMS = (("player_0", "player_1"), ("player_2", "player_3"))


@pytest.mark.parametrize("variant", VARIANTS)
def test_api_and_seed_tests_pass(variant: str) -> None:
    # PettingZoo warns about Dict/MultiBinary spaces and dict observations; those are expected (see the docs).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(aec_env(variant), num_cycles=40)
        seed_test(lambda: aec_env(variant), num_cycles=40)


def _random_game(
    env: ProliferateAEC, seed: int, rng: np.random.Generator, chosen_of: Callable[[], np.ndarray] | None = None
) -> dict[str, float]:
    """Play one game with random legal subsets (recipient bits included), checking every step; with ``chosen_of``
    (:func:`_record_resolutions`), also that the chosen bits are the objects the kernels record as chosen."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(2000):
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        assert env.observation_space(agent).contains(obs)
        for other in env.agents:
            if other != agent or terminated or truncated:
                assert not env.observe(other)["action_mask"].any(), "the mask is all zeros off-turn and when finished"
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        action = (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8)
        game = env._game
        seat = env.possible_agents.index(agent)
        state_slot = game.view(seat)[0][0].copy()  # the state slot of each observation slot of the actor's view
        r = int(game.game[G_PROUND])
        env.step(action)
        assert env.infos[agent]["illegal_bits"] == 0
        assert env.infos[agent]["round"] == r + 1
        if chosen_of is not None:
            chosen = chosen_of()
            expected = set(state_slot[np.flatnonzero(action[: env.slots])].tolist())
            assert set(np.flatnonzero(chosen[r]).tolist()) == expected, "every legal chosen bit is a chosen object"
    assert not env.agents, "the game ended within the step budget"
    return totals


def _record_resolutions(monkeypatch: pytest.MonkeyPatch, env: ProliferateAEC) -> Callable[[], np.ndarray]:
    """The decision's chosen objects per round as the kernels hold them: the arrays while it is pending, the copy
    taken just before :func:`K.resume_one` resolved it otherwise."""
    real = K.resume_one
    last: dict[str, Any] = {}

    def resume_one(S: tuple[np.ndarray, ...], T: tuple[Any, ...], V: tuple[np.ndarray, ...], g: int) -> int:
        last["chosen"], last["game"] = S[7][g].copy(), env._game.version
        return int(real(S, T, V, g))

    monkeypatch.setattr(K, "resume_one", resume_one)

    def chosen_of() -> np.ndarray:
        if last.get("game") == env._game.version - 1:  # resolved in the step just taken
            return np.asarray(last["chosen"])
        return np.asarray(env._game.arrays.chosen[0])

    return chosen_of


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_legal_subsets_are_taken_as_chosen(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    env = aec_env(variant)
    chosen_of = _record_resolutions(monkeypatch, env)
    rng = np.random.default_rng(7)
    for seed in range(4):
        totals = _random_game(env, seed, rng, chosen_of)
        assert set(totals.values()) <= {-1.0, 0.0, 1.0}


def test_ineligible_bits_are_ignored_and_counted() -> None:
    env = aec_env("two_headed_giant")
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(np.ones_like(mask))
    assert env.infos[agent]["illegal_bits"] == int((mask == 0).sum())


@pytest.mark.parametrize("reward_mode", ["terminal", "delta"])
def test_two_headed_giant_teammates_share_rewards(reward_mode: Any) -> None:
    # 810.8a: a Two-Headed Giant team wins or loses together; a decision's value is the team's.
    env = aec_env("two_headed_giant", reward_mode=reward_mode)
    rng = np.random.default_rng(11)
    saw_nonzero = False
    for seed in range(3):
        env.reset(seed=seed)
        for _agent in env.agent_iter(2000):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                mask = obs["action_mask"].astype(bool)
                action = (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8)
            env.step(action)
            for first, second in TEAMS:
                if first in env.rewards and second in env.rewards:
                    assert env.rewards[first] == env.rewards[second]
                    saw_nonzero |= env.rewards[first] != 0.0
    assert saw_nonzero


def test_terminal_rewards_are_opposite_between_teams() -> None:
    env = aec_env("two_headed_giant")
    totals = _random_game(env, 1, np.random.default_rng(0))
    assert totals["player_0"] == totals["player_1"] == -totals["player_2"] == -totals["player_3"] != 0.0


def test_bad_arguments_name_the_field() -> None:
    with pytest.raises(ValueError, match="variant must be 'duel', 'two_headed_giant' or 'free_for_all'"):
        aec_env("archenemy")
    with pytest.raises(ValueError, match="reward_mode"):
        aec_env("free_for_all", reward_mode="regret")


def test_import_env_does_not_import_pettingzoo() -> None:
    code = "import sys, env; assert 'pettingzoo' not in sys.modules and 'env.pettingzoo' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_parallel_api_and_seed_tests_pass(variant: str) -> None:
    """Issue 24 item 11: a parallel API, checked by PettingZoo's own ``parallel_api_test``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(variant), num_cycles=200)
        parallel_seed_test(lambda: parallel_env(variant), num_cycles=40)


def test_a_duel_has_two_agents_on_opposite_sides() -> None:
    """Issue 24 item 11: the duel (704.5a/c: one player loses, the other wins)."""
    env = aec_env("duel")
    assert env.possible_agents == ["player_0", "player_1"]
    totals = _random_game(env, 2, np.random.default_rng(1))
    assert totals["player_0"] == -totals["player_1"] != 0.0


def _parallel_game(env: ProliferateParallel, seed: int, rng: np.random.Generator) -> dict[str, float]:
    """Random legal subsets by the acting agent; every other agent sends all ones (ignored)."""
    obs, infos = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(2000):
        if not env.agents:
            break
        acting = env.acting_agent
        assert [a for a in env.agents if infos[a]["acting"]] == [acting]
        assert [a for a in env.agents if obs[a]["action_mask"].any()] in ([acting], [])
        actions = {a: np.ones(env.aec.n_bits, dtype=np.int8) for a in env.agents}
        mask = obs[acting]["action_mask"].astype(bool)
        actions[acting] = (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8)
        obs, rewards, _, _, infos = env.step(actions)
        assert infos[acting]["illegal_bits"] == 0, "other agents' actions are ignored"
        for a, r in rewards.items():
            totals[a] += r
    assert not env.agents
    return totals


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_parallel_env_plays_the_aec_game(variant: str) -> None:
    """The same seed and the same acting agents' choices give the same rewards through either API."""
    rng_seed = 5
    parallel = _parallel_game(parallel_env(variant), 3, np.random.default_rng(rng_seed))
    aec = _random_game(aec_env(variant), 3, np.random.default_rng(rng_seed))
    assert parallel == aec


def test_the_adapters_are_version_1() -> None:
    """Issue 28: the adapters play the v1 engine, so their trajectories changed and so did their names."""
    assert ProliferateAEC.metadata["name"] == "proliferate_aec_v1"
    assert ProliferateParallel.metadata["name"] == "proliferate_parallel_v1"
    assert "v1 (``proliferate_aec_v1``)" in (ProliferateAEC.__doc__ or "")


V0_MODULES = ("env.game", "env.lockstep", "env.boardops")


def _env_imports(path: Path) -> set[str]:
    """The modules of package ``env`` that the module at ``path`` imports itself (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    package = "env"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = ["env", *path.relative_to(Path(__file__).parent.parent / "env").parent.parts]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base]) if base else ".".join(parts)
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name == package or name.startswith(package + ".")}


def test_the_adapter_does_not_import_the_v0_game_model() -> None:
    """Issue 28: one game model. env/pettingzoo.py imports neither v0's ``env.game`` nor ``env.lockstep``."""
    path = Path(__file__).parent.parent / "env" / "pettingzoo.py"
    imported = _env_imports(path)
    assert "env.kernels.game" in imported  # the resolution is right
    assert not [m for m in imported if m in V0_MODULES or any(m.startswith(v + ".") for v in V0_MODULES)]


def test_a_fresh_interpreter_loads_no_v0_module_for_the_adapter() -> None:
    """Issue 28: ``import env.pettingzoo`` in a fresh interpreter leaves ``env.game`` and ``env.lockstep`` out of
    ``sys.modules`` (and ``import env`` alone loads none of them)."""
    probe = "import sys, {m}; print(','.join(sorted(n for n in {v0!r} if n in sys.modules)))"
    base = subprocess.run(
        [sys.executable, "-c", probe.format(m="env", v0=V0_MODULES)], check=True, capture_output=True, text=True
    )
    assert base.stdout.strip() == ""
    run = subprocess.run(
        [sys.executable, "-c", probe.format(m="env.pettingzoo", v0=V0_MODULES)],
        check=True,
        capture_output=True,
        text=True,
    )
    assert run.stdout.strip() == ""


def _unflatten(env: ProliferateAEC, observation: np.ndarray) -> dict[str, np.ndarray]:
    out = spaces.unflatten(env._dict_space, observation)
    assert isinstance(out, dict)
    return {key: np.asarray(value) for key, value in out.items()}


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_agent_observes_from_its_own_seat(variant: str) -> None:
    """Slot 0 is the observer, then its teammates, then its opponents (the Gymnasium layout from any seat); in 2HG
    the recipient bits are the observer's team's first (701.34b), so bit ``slots`` is always its own team's."""
    env = aec_env(variant)
    env.reset(seed=4)
    game = env._game
    for q, agent in enumerate(env.possible_agents):
        obs = _unflatten(env, env.observe(agent)["observation"])
        n = env.n_seats
        assert obs["present"][:n].all() and obs["kind"][:n].tolist() == [1] * n  # the players first
        relation = obs["relation"][:n].tolist()
        assert relation[0] == 1, "the observer is slot 0"
        team = game.seat[:, S_TEAM]
        mates = sum(1 for p in range(n) if p != q and team[p] == team[q])
        assert relation[1:] == [2] * mates + [3] * (n - 1 - mates)
        view = game.view(q)
        assert view[0][0][0] == q
        if variant == "two_headed_giant":
            heads = view[7][0]
            assert heads[0].tolist() == [q, *(p for p in range(n) if p != q and team[p] == team[q])]
            assert team[heads[1, 0]] != team[q]


def test_the_agent_view_is_the_view_of_its_seat() -> None:
    """``build_view`` (the Gymnasium envs' learning seat) is ``build_view_of`` that seat: one layout."""
    env = aec_env("free_for_all")
    env.reset(seed=2)
    game = env._game
    mine = [v.copy() for v in game.view(0)]
    theirs = tuple(np.zeros_like(v) for v in mine)
    saved = int(game.game[19])
    try:
        game.game[19] = 0  # G_AGENT: seat 0 as if it were the learning seat
        K.build_view(game.S, game.T, 0, theirs)
    finally:
        game.game[19] = saved
    for a, b in zip(mine, theirs, strict=True):
        assert np.array_equal(a, b)


def _seats(teams: list[int]) -> tuple[np.ndarray, np.ndarray]:
    seat = np.zeros((len(teams), 5), dtype=np.int64)
    seat[:, S_IN] = 1
    seat[:, S_TEAM] = teams
    return seat, np.zeros(25, dtype=np.int64)


def test_results_per_seat_two_headed_giant_team() -> None:
    """810.8a: a 2HG team wins or loses together; ``lose`` marks both heads, and each head's result is the team's."""
    seat, game = _seats([0, 0, 1, 1])
    assert [K.result_of_seat(seat, game, p) for p in range(4)] == [0, 0, 0, 0]
    seat[0:2, S_LOST] = 1
    game[G_OVER] = 1
    assert [K.result_of_seat(seat, game, p) for p in range(4)] == [2, 2, 1, 1]
    seat[2:4, S_LOST] = 1  # everyone lost at once: a draw (104.4a)
    assert [K.result_of_seat(seat, game, p) for p in range(4)] == [3, 3, 3, 3]


def test_results_per_seat_free_for_all_and_truncation() -> None:
    """800.4a: a free-for-all player who lost has lost while the others play on; past max_turns nobody's result
    is decided."""
    seat, game = _seats([0, 1, 2, 3])
    seat[1, S_LOST] = 1
    seat[1, S_IN] = 0
    assert [K.result_of_seat(seat, game, p) for p in range(4)] == [0, 2, 0, 0]
    game[G_OVER] = game[G_TRUNC] = 1
    assert [K.result_of_seat(seat, game, p) for p in range(4)] == [0, 2, 0, 0]
    assert K.result_of(seat, game) == K.result_of_seat(seat, game, 0)  # the learning seat's (G_AGENT = 0)


def test_a_free_for_all_goes_on_after_a_player_loses() -> None:
    """800.4a with no agent seat: a free-for-all player who loses terminates at once (observing zeros), and the game
    goes on for the others while more than one is left."""
    env = aec_env("free_for_all")
    rng = np.random.default_rng(3)
    for seed in range(30):
        env.reset(seed=seed)
        for agent in env.agent_iter(2000):
            obs, _, terminated, truncated, _ = env.last()
            if terminated and env.infos[agent].get("game_result") == "loss" and len(env.agents) > 2:
                seat = env.possible_agents.index(agent)
                assert not env._game.seat[seat, S_IN] and env._game.seat[seat, S_LOST]
                assert not obs["observation"].any() and not obs["action_mask"].any()
                assert not env._game.over and env._game.deciding >= 0
                return
            mask = obs["action_mask"].astype(bool)
            env.step(None if terminated or truncated else (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8))
    pytest.fail("no free-for-all game in 30 seeds had a player lose with two or more left")


def test_a_decision_with_several_proliferates_takes_one_step_each() -> None:
    """701.34 (Contagion Engine: proliferate, then proliferate again): the same agent acts once per proliferate, and the
    observation counts the rounds done."""
    env = aec_env("duel")
    rng = np.random.default_rng(0)
    for seed in range(60):
        env.reset(seed=seed)
        for agent in env.agent_iter(2000):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            game = env._game
            if game.game[G_PROUNDS] > 1 and game.game[G_PROUND] == 0:
                rounds = int(game.game[G_PROUNDS])
                for r in range(rounds):
                    assert env.agent_selection == agent
                    globals_ = _unflatten(env, env.observe(agent)["observation"])["globals"]
                    assert globals_[0] == pytest.approx(r / rounds)
                    env.step(env.observe(agent)["action_mask"])
                    assert env.infos[agent]["round"] == r + 1
                return
            mask = obs["action_mask"].astype(bool)
            env.step((mask & (rng.random(len(mask)) < 0.5)).astype(np.int8))
    pytest.fail("no decision with several proliferates in 60 duels")


@pytest.mark.parametrize(
    "action", [np.ones(3, dtype=np.int8), "all", None, np.full(50, 2, dtype=np.int8), np.full(50, 0.5)]
)
def test_an_action_outside_the_space_raises_before_any_change(action: Any) -> None:
    env = aec_env("two_headed_giant")
    env.reset(seed=1)
    agent = env.agent_selection
    before = [a.copy() for a in env._game.S]
    with pytest.raises(ValueError, match="a subset action must be 50 bits"):
        env.step(action)
    assert env.agent_selection == agent
    for a, b in zip(before, env._game.S, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_seed_replays_the_same_game(variant: str) -> None:
    """The same seed and actions give the same observations, rewards and ends (the game's stream is seeded by one
    draw from the reset seed's generator)."""

    def play(seed: int) -> list[tuple[str, bytes, float, bool]]:
        env = aec_env(variant, reward_mode="delta")
        env.reset(seed=seed)
        rng = np.random.default_rng(9)
        out = []
        for agent in env.agent_iter(2000):
            obs, reward, terminated, truncated, _ = env.last()
            out.append((agent, obs["observation"].tobytes(), reward, terminated or truncated))
            mask = obs["action_mask"].astype(bool)
            env.step(None if terminated or truncated else (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8))
        return out

    first = play(5)
    assert first == play(5)
    assert first != play(6)


def test_a_given_board_is_refused_not_ignored() -> None:
    """The adapter samples its games: ``options["board"]`` names itself in a ValueError rather than being dropped."""
    env = aec_env("duel")
    with pytest.raises(ValueError, match=r"options\['board'\]"):
        env.reset(seed=0, options={"board": {"variant": "duel"}})
    env.reset(seed=0, options={"anything": 1})  # PettingZoo's api_test passes options of its own
    assert env.agents == env.possible_agents


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_observation_is_gymnasiums_flatten(variant: str) -> None:
    """The adapter's own flatten (one pass, float32) is ``gymnasium.spaces.flatten`` of the Dict observation."""
    env = aec_env(variant)
    rng = np.random.default_rng(1)
    env.reset(seed=8)
    checked = 0
    for agent in env.agent_iter(200):
        obs, _, terminated, truncated, _ = env.last()
        for q, other in enumerate(env.possible_agents):
            if env._game.seat[q, S_IN]:
                raw = env._raw_observation(q, other == agent and not (terminated or truncated))
                expected = np.asarray(spaces.flatten(env._dict_space, raw), dtype=np.float32)
                assert np.array_equal(env._flat(raw), expected)
                checked += 1
        mask = obs["action_mask"].astype(bool)
        env.step(None if terminated or truncated else (mask & (rng.random(len(mask)) < 0.5)).astype(np.int8))
    assert checked > 10
