"""Smoke tests: each benchmark entry point runs at a tiny size, prints its tables and writes its JSON.

Speed is never asserted here (the benchmarks print it).  What is asserted is that the
scripts run as documented (``python -m benchmarks.<name>`` from the repository root, in a
fresh process), that every exact path they time reaches the same optimum, and that the
baselines' choices are legal (701.34a: eligible objects only; 701.34b: a 2HG team's poison
recipient is named), since the quality benchmark scores them through ``choice_matrix``,
which rejects anything else.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(module: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_scaling_prints_tables_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "scaling.json"
    printed = run(
        "benchmarks.scaling",
        *("--sizes", "10", "--repeats", "1", "--variants", "duel", "two_headed_giant", "--proliferates", "1"),
        *("--brute-max", "8", "--json", str(out), "--batch-boards", "60"),
    )
    assert "## Fast path pipeline" in printed
    assert "| 10 two_headed_giant x1 +thr/fx |" in printed
    assert "## Targets" in printed
    assert "## Batched decisions, 60 boards" in printed
    assert "## Where `decide_many`'s time goes, per board" in printed  # the batch report's stage split
    data = json.loads(out.read_text())
    assert len(data["cases"]) == 4
    for case in data["cases"]:
        assert case["agree"]
        assert {"fast", "cpsat", "milp"} <= set(case["values_milli"])
        assert case["status"] == {"cpsat": "OPTIMAL", "milp": "OPTIMAL"}
    assert any("brute" in case["values_milli"] for case in data["cases"])


def test_quality_prints_table_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "quality.json"
    printed = run("benchmarks.quality", "--boards", "30", "--json", str(out))
    assert "| two_headed_giant | nothing" in printed
    data = json.loads(out.read_text())
    assert set(data["summary"]) == {"duel", "free_for_all", "two_headed_giant"}
    for per_baseline in data["summary"].values():
        assert set(per_baseline) == {"filter", "mine+poisoned", "everything", "nothing"}
        nothing = per_baseline["nothing"]
        assert nothing["missed_wins"] == nothing["wins_available"]
        assert nothing["own_losses"] == 0
        for summary in per_baseline.values():
            assert summary["boards"] == 30
            assert summary["worst_regret"] >= summary["mean_regret"] >= 0


def test_compress_keeps_signs_and_compresses_game_results() -> None:
    import numpy as np

    from benchmarks.train_maskable import compress

    out = compress(np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0]), 1.0)
    assert out.dtype == np.float32
    assert out[2] == 0.0
    assert np.allclose(out, -out[::-1])
    assert np.isclose(out[3], np.log(2.0))
    assert 6.5 < out[4] < 7.5  # a game result weighs about ten counters, not a thousand
    scaled = compress(np.array([1.0, 1000.0]), 100.0)
    assert np.isclose(scaled[0], 100 * np.log1p(0.01))  # about linear below the scale
    assert 230 < scaled[1] < 250


def test_slot_policy_gives_two_logits_per_bit_including_the_2hg_extra_bits() -> None:
    import gymnasium as gym
    import numpy as np

    pytest.importorskip("sb3_contrib")
    import torch

    import env  # noqa: F401  (registers the ids)
    from benchmarks.train_maskable import slot_policy

    single = gym.make("proliferate/TwoHeadedGiant-v1")
    space = single.observation_space
    policy = slot_policy(48, 2, 16)(space, single.action_space, lambda _: 1e-3)
    obs, _ = single.reset(seed=0)
    batch, _ = policy.obs_to_tensor({k: np.asarray(v)[None] for k, v in obs.items()})
    features, _ = policy.extract_features(batch)  # the policy's and the value's, not shared
    logits = policy.action_net(features)
    assert logits.shape == (1, 2 * 50)
    assert isinstance(logits, torch.Tensor)


def test_train_maskable_trains_a_few_steps_and_writes_its_curve(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "train.json"
    litter = set(Path(tempfile.gettempdir()).glob("SB3-*"))  # SB3's default logger makes one folder per run
    printed = run(
        "benchmarks.train_maskable",
        *("--steps", "64", "--envs", "2", "--shards", "2", "--eval-games", "2", "--eval-every", "1000"),
        *("--json", str(out)),
        *("--reward", "delta", "--no-compress", "--gamma", "0.99", "--lr-final", "1e-4"),
    )
    assert "## MaskablePPO on proliferate/Duel-v1" in printed and "of the training wall time" in printed
    data = json.loads(out.read_text())
    assert 0.0 < data["env_seconds"] <= data["train_seconds"] and data["env_share"] <= 1.0
    assert (data["reward"], data["compress_scale"], data["gamma"], data["policy"]) == ("delta", None, 0.99, "slots")
    assert data["shards"] == 2
    assert data["train_steps"] >= 64
    assert data["learning_rate_at_end"] == pytest.approx(1e-4)  # the one update came at the end of the steps
    assert len(data["curve"]) == 2  # before training and at the end
    assert set(data["baselines"]) == {"random", "rule-based", "oracle"}
    assert data["baselines"]["oracle"]["mean_regret"] == 0.0
    assert set(Path(tempfile.gettempdir()).glob("SB3-*")) == litter  # the run left nothing behind


def test_batch_benchmark_runs_against_a_baseline_checkout(tmp_path: Path) -> None:
    """``benchmarks.batch --baseline`` with this checkout as its own baseline: the same decisions, a ratio per row."""
    out = tmp_path / "batch.json"
    printed = run(
        "benchmarks.batch",
        *("--baseline", str(ROOT), "--boards", "24", "--rounds", "1", "--repeats", "1", "--json", str(out)),
    )
    assert "| decide_many, 24 boards of 20 objects |" in printed
    assert "| solve(), 200 objects (p50)" in printed and "speed-up" in printed
    assert "same decisions on both sides: yes" in printed
    data = json.loads(out.read_text())
    assert data["same"] and set(data["best_s"]) == {"baseline", "new"}
    assert set(data["best_s"]["new"]) == {"decide_many_s", "solve_50_s", "solve_200_s"}


def test_batch_benchmark_splits_decide_many_into_its_stages(tmp_path: Path) -> None:
    """The stage split: the layout, the compiled decision and the rest per board, which make up the whole call;
    then ``score_many`` and ``settle_many`` per board with the layout's share.

    No timing is compared (a busy machine can stall any one sample): the JSON must hold every
    stage, one sample per repeat, and the derived figures must be those of the measured ones.
    """
    out = tmp_path / "batch.json"
    printed = run(
        "benchmarks.batch",
        *("--boards", "40", "--repeats", "1", "--loop-sample", "4", "--solve-runs", "2", "--json", str(out)),
    )
    assert "## Where `decide_many`'s time goes, per board" in printed
    assert "| whole `decide_many` " in printed and "with the layout free:" in printed
    assert "| `score_many` (each board's best choice) " in printed and "| `settle_many` (" in printed
    data = json.loads(out.read_text())
    stages = data["stages"]
    per_board = stages["per_board_s"]
    assert stages["boards"] == 40 and set(per_board) == {"layout", "decision", "rest", "whole"}
    assert {len(times) for times in stages["samples_s"].values()} == {1}
    assert min(per_board["layout"], per_board["decision"], per_board["whole"]) > 0
    layout, decision, whole = per_board["layout"], per_board["decision"], per_board["whole"]
    assert per_board["rest"] == pytest.approx(whole - layout - decision)
    assert stages["rate_without_layout"] == pytest.approx(1 / (whole - layout))
    calls = data["given"]
    assert calls["boards"] == 40 and set(calls["per_board_s"]) == {"score_many", "settle_many", "layout"}
    assert min(calls["per_board_s"].values()) > 0 and data["unit"]["median_s"] > 0


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [("--boards", "0", "--boards must be >= 1"), ("--size", "4", "--size must exceed the 4 players")],
)
def test_batch_benchmark_refuses_sizes_it_cannot_run(option: str, value: str, message: str) -> None:
    """``--boards 0`` and too small a ``--size`` once ended in a traceback; each is a usage error naming the option."""
    command = [sys.executable, "-m", "benchmarks.batch", option, value]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_env_throughput_times_the_single_env_after_its_first_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first step of a fresh env loads the compiled kernels; it falls in the untimed warm-up, not in a
    timed window (env_v1_throughput's single-env figure read 0/s with ``--seconds 1``)."""
    import time

    import gymnasium as gym

    from benchmarks import env_throughput as bench

    real = gym.make

    def slow_first_step(*args: object, **kwargs: object) -> object:
        made = real(*args, **kwargs)  # type: ignore[arg-type]
        step, first = made.step, [True]

        def stepping(action: object) -> object:
            if first[0]:
                first[0] = False
                time.sleep(1.0)  # as loading the kernels does
            return step(action)

        made.step = stepping  # type: ignore[method-assign,assignment]
        return made

    monkeypatch.setattr(gym, "make", slow_first_step)
    low = bench.measure(bench._single("proliferate/Bandit-v1"), 0.2, 2)[1]
    assert low > 20  # a timed window holding the 1 s step would give at most a few steps per second


def test_same_game_runs_v0_in_a_checkout_of_the_last_commit_that_has_it(tmp_path: Path) -> None:
    """``--version v0`` runs the checkout's own ``benchmarks.same_game`` with the run's options (here a stand-in
    checkout that records them; the default is a worktree of V0_COMMIT)."""
    from benchmarks.same_game import main

    checkout = tmp_path / "v0"
    (checkout / "benchmarks").mkdir(parents=True)
    (checkout / "benchmarks" / "__init__.py").write_text("")
    (checkout / "benchmarks" / "same_game.py").write_text(
        "import json, os, sys\n"
        "args = sys.argv[1:]\n"
        "out = args[args.index('--out') + 1]\n"
        "open(out, 'w').write(json.dumps({'argv': args, 'path': os.environ['PYTHONPATH']}))\n"
    )
    out = tmp_path / "v0.json"
    options = ["--games", "24", "--ids", "Duel", "--out", str(out)]
    assert main(["--version", "v0", "--v0-checkout", str(checkout), *options]) == 0
    recorded = json.loads(out.read_text())
    assert recorded["argv"][:4] == ["--version", "v0", "--games", "24"] and "Duel" in recorded["argv"]
    assert recorded["path"] == str(checkout.resolve())
    assert main(["--version", "v0", "--v0-checkout", str(tmp_path / "nothing"), "--out", str(out)]) == 2


@pytest.mark.parametrize(("wins", "n"), [(0, 3), (3, 3), (0, 7), (7, 7), (1, 3)])
def test_the_wilson_interval_holds_the_observed_rate_even_at_zero_and_all(wins: int, n: int) -> None:
    """At a rate of 0 the interval's lower end rounded to 5.6e-17, above the rate (seen on Duel-v1's games)."""
    from benchmarks.games import wilson

    low, high = wilson(wins, n)
    assert 0.0 <= low <= wins / n <= high <= 1.0
