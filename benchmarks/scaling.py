"""Speed and scaling of every solver path, from 10 to 100,000 objects: ``python -m benchmarks.scaling``.

For each board size x variant x proliferates x (plain | thresholds and replacement effects):

* the fast path's pipeline: loading the JSON dict, the objective's per-unit tables, the
  dynamic programme alone, ``solver.solve`` end to end, and the peak Python-heap memory;
* every exact path deciding from a loaded board (objective tables included, so they start
  from the same place): the fast path, CP-SAT (``solver.cpsat``), a MILP of the same model
  solved by HiGHS through ``scipy.optimize.milp`` (an optional dependency), and brute force
  where it is feasible; each path's optimum is scored back through the objective and must
  equal the fast path's;
* the CLI end to end (a fresh process per call) and warm round-trips to ``proliferate serve``
  through ``solver.protocol.client``, for typical 200-object boards.

The last table checks the project's speed targets.  Medians of repeated runs with their
min-max spread; ratios are against the fastest path measured in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import solver
from solver.board import Board, IntArray
from solver.brute import MAX_BRUTE, solve_brute
from solver.cpsat import solve_cpsat
from solver.kernels import decide_layout
from solver.objective import MILLI, Objective

from . import batch as batch_bench
from .boards import VARIANTS, BoardSpec, generate
from .common import Timing, fmt_time, markdown_table, peak_memory, ratio, time_it, write_json

TYPICAL_SIZE = 200
DEFAULT_SIZES = (10, 100, TYPICAL_SIZE, 1_000, 10_000, 100_000)
#: Targets from the design card, in seconds.
TARGET_TYPICAL = 1e-3
TARGET_LARGE = 1.0
TARGET_SERVER = 2e-3


# ---------------------------------------------------------------------------- MILP baseline
@dataclass(frozen=True)
class Milp:
    """The CP-SAT model of :mod:`solver.cpsat` as a MILP, in arrays for ``scipy.optimize.milp``.

    Columns: ``x[u, r]`` (single unit ``u`` chosen in round ``r``, rounds ordered so the
    material is linear in the differences), one-hot options per 2HG team, and one-hot
    patterns of lost seats (each worth its game score).  A seat is lost exactly when one of
    its causes holds: a single unit chosen exactly ``c`` times (``x[u, c-1] - x[u, c]``, linear
    because rounds are ordered) or a team option.
    """

    cost: np.ndarray  # minimised: minus the value coefficients
    matrix: Any  # scipy.sparse CSR
    lower: np.ndarray
    upper: np.ndarray
    constant: int
    n_single: int
    team_slices: tuple[slice, ...]


def build_milp(objective: Objective) -> Milp:
    """Build the MILP from the objective's unit tables (vectorised over single units)."""
    from scipy import sparse

    units = objective.units
    rounds = objective.board.rounds
    mat, ev = units.single_material, units.single_events
    n_units = len(units.single_rows)
    n_x = n_units * rounds
    coef: list[np.ndarray] = [(mat[:, 1:] - mat[:, :-1]).ravel().astype(np.float64)]
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    data: list[np.ndarray] = []
    lower: list[float] = []
    upper: list[float] = []
    n_rows = 0

    def add_rows(r: np.ndarray, c: np.ndarray, d: np.ndarray, lo: Sequence[float], hi: Sequence[float]) -> None:
        nonlocal n_rows
        rows.append(r + n_rows)
        cols.append(c)
        data.append(d)
        lower.extend(lo)
        upper.extend(hi)
        n_rows += len(lo)

    if rounds > 1:  # x[u, r+1] <= x[u, r]
        pairs = n_units * (rounds - 1)
        u, r = np.divmod(np.arange(pairs), rounds - 1)
        row = np.arange(pairs)
        add_rows(
            np.concatenate([row, row]),
            np.concatenate([u * rounds + r + 1, u * rounds + r]),
            np.concatenate([np.ones(pairs), -np.ones(pairs)]),
            [-np.inf] * pairs,
            [0.0] * pairs,
        )

    # A cause is a linear expression {column: coefficient} plus a constant, in {0, 1}.
    causes: dict[int, list[tuple[dict[int, float], float]]] = {}

    def add_cause(events: int, expr: dict[int, float], const: float) -> None:
        free = events & ~units.base_events
        for seat in range(free.bit_length()):
            if (free >> seat) & 1:
                causes.setdefault(seat, []).append((expr, const))

    coupled = np.flatnonzero((ev != ev[:, :1]).any(axis=1)) if ev.size else np.zeros(0, dtype=np.int64)
    for unit in coupled.tolist():
        for c in range(rounds + 1):
            expr: dict[int, float] = {}
            const = 1.0 if c == 0 else 0.0
            if c > 0:
                expr[unit * rounds + c - 1] = 1.0
            if c < rounds:
                expr[unit * rounds + c] = -1.0
            add_cause(int(ev[unit, c]), expr, const)

    column = n_x
    team_slices = []
    for team in units.teams:
        n_opt = len(team.options)
        coef.append(np.array([o.material for o in team.options], dtype=np.float64))
        add_rows(np.zeros(n_opt, dtype=np.int64), np.arange(column, column + n_opt), np.ones(n_opt), [1.0], [1.0])
        for j, option in enumerate(team.options):
            add_cause(option.events, {column + j: 1.0}, 0.0)
        team_slices.append(slice(column, column + n_opt))
        column += n_opt

    seats = sorted(causes)
    patterns = list(itertools.product((0, 1), repeat=len(seats)))
    game = []
    for bits in patterns:
        mask = units.base_events
        for seat, bit in zip(seats, bits, strict=True):
            mask |= bit << seat
        game.append(objective.game_milli(mask))
    coef.append(np.array(game, dtype=np.float64))
    first_pattern = column
    add_rows(
        np.zeros(len(patterns), dtype=np.int64),
        np.arange(first_pattern, first_pattern + len(patterns)),
        np.ones(len(patterns)),
        [1.0],
        [1.0],
    )
    for i, seat in enumerate(seats):
        lost = {first_pattern + p: 1.0 for p, bits in enumerate(patterns) if bits[i]}
        for expr, const in causes[seat]:  # cause <= lost
            merged = dict(expr)
            for col, val in lost.items():
                merged[col] = merged.get(col, 0.0) - val
            _add_expr(add_rows, merged, -np.inf, -const)
        total = dict(lost)  # lost <= sum of causes
        consts = 0.0
        for expr, const in causes[seat]:
            consts += const
            for col, val in expr.items():
                total[col] = total.get(col, 0.0) - val
        _add_expr(add_rows, total, -np.inf, consts)

    n_cols = first_pattern + len(patterns)
    matrix = sparse.csr_matrix(
        (
            np.concatenate(data) if data else np.zeros(0),
            (np.concatenate(rows) if rows else np.zeros(0, np.int64), np.concatenate(cols) if cols else rows),
        ),
        shape=(n_rows, n_cols),
    )
    return Milp(
        cost=-np.concatenate(coef),
        matrix=matrix,
        lower=np.array(lower),
        upper=np.array(upper),
        constant=int(mat[:, 0].sum()) + units.base_material if n_units else units.base_material,
        n_single=n_units,
        team_slices=tuple(team_slices),
    )


def _add_expr(add_rows: Callable[..., None], expr: dict[int, float], lo: float, hi: float) -> None:
    cols = np.array(list(expr), dtype=np.int64)
    add_rows(np.zeros(len(cols), dtype=np.int64), cols, np.array(list(expr.values())), [lo], [hi])


@dataclass(frozen=True)
class MilpResult:
    value: int  # milli-points relative to choosing nothing, rescored through the objective
    status: str
    times: IntArray
    team_options: tuple[int, ...]


def solve_milp(objective: Objective, model: Milp, time_limit: float) -> MilpResult:
    """Solve with HiGHS (exact: ``mip_rel_gap=0``) and rescore the choice through the objective."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = len(model.cost)
    result = milp(
        model.cost,
        integrality=np.ones(n),
        bounds=Bounds(np.zeros(n), np.ones(n)),
        constraints=LinearConstraint(model.matrix, model.lower, model.upper),
        options={"time_limit": time_limit, "mip_rel_gap": 0.0, "disp": False},
    )
    if result.x is None:
        raise RuntimeError(f"HiGHS found no solution: {result.message}")
    x = np.rint(result.x).astype(np.int64)
    rounds = objective.board.rounds
    times = x[: model.n_single * rounds].reshape(model.n_single, rounds).sum(axis=1)
    team_options = tuple(int(np.argmax(x[s])) for s in model.team_slices)
    chosen, recipients = objective.matrix_of(times, team_options)
    status = "OPTIMAL" if result.status == 0 else "FEASIBLE"
    return MilpResult(objective.score_matrix(chosen, recipients), status, times, team_options)


# ---------------------------------------------------------------------------- one board
@dataclass
class Case:
    """Measurements for one board (seconds; values in milli-points)."""

    spec: BoardSpec
    objects: int
    eligible: int
    rounds: int
    timings: dict[str, Timing] = field(default_factory=dict)
    values: dict[str, int] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    peak_bytes: int = 0

    @property
    def agree(self) -> bool:
        return len(set(self.values.values())) <= 1

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.spec.size,
            "variant": self.spec.variant,
            "proliferates": self.spec.proliferates,
            "extras": self.spec.extras,
            "seed": self.spec.seed,
            "objects": self.objects,
            "eligible": self.eligible,
            "rounds": self.rounds,
            "timings": {k: v.to_json() for k, v in self.timings.items()},
            "values_milli": self.values,
            "status": self.status,
            "skipped": self.skipped,
            "peak_bytes": self.peak_bytes,
            "agree": self.agree,
        }


@dataclass(frozen=True)
class Options:
    repeats: int | None
    budget: float
    cpsat_max: int
    milp_max: int
    brute_max: int
    time_limit: float
    have_scipy: bool


def _repeats(options: Options, size: int, expensive: bool = False) -> int:
    """The default is 5 runs (3 at 100,000 objects or for the slow paths); ``--repeats`` overrides."""
    if options.repeats is not None:
        return options.repeats
    return 3 if expensive or size >= 100_000 else 5


def measure_case(spec: BoardSpec, options: Options) -> Case:
    data = generate(spec)
    budget = options.budget
    load, board = time_it(lambda: solver.load_board(data), _repeats(options, spec.size), budget=budget)
    eligible = len(solver.eligible(board))
    case = Case(spec, board.n_objects, eligible, board.rounds)
    case.timings["load"] = load
    n = _repeats(options, spec.size)
    case.timings["tables"], _ = time_it(lambda: _tables(board), n, budget=budget)
    warm = _tables(board)
    case.timings["dp"], fast = time_it(lambda: decide_layout(warm.core), n, budget=budget)
    case.timings["solve_api"], decision = time_it(lambda: solver.solve(board, method="fast"), n, budget=budget)
    case.values["fast"] = int(fast.values[0])
    if round(decision.value * MILLI) != case.values["fast"]:
        raise AssertionError(f"{spec.label}: solver.solve and the compiled core disagree")
    case.peak_bytes, _ = peak_memory(lambda: solver.solve(solver.load_board(data), method="fast"))
    slow = _repeats(options, spec.size, expensive=True)
    if spec.size > options.cpsat_max:
        case.skipped["cpsat"] = f"> {options.cpsat_max:,} objects"
    else:
        _measure_cpsat(case, board, warm, options, slow)
    if not options.have_scipy:
        case.skipped["milp"] = "scipy not installed"
    elif spec.size > options.milp_max:
        case.skipped["milp"] = f"> {options.milp_max:,} objects"
    else:
        case.timings["milp_build"], model = time_it(lambda: build_milp(warm), slow, budget=budget)
        case.timings["milp_solve"], _ = time_it(
            lambda: solve_milp(warm, model, options.time_limit), slow, budget=budget
        )
        case.timings["milp"], milp_result = time_it(lambda: _milp_from_board(board, options.time_limit), slow, warmup=0)
        case.values["milp"] = milp_result.value
        case.status["milp"] = milp_result.status
    if eligible * board.rounds > options.brute_max:
        case.skipped["brute"] = f"> {options.brute_max} object-rounds"
    else:
        case.timings["brute"], brute = time_it(lambda: solve_brute(Objective(board)), slow, budget=budget)
        case.values["brute"] = brute[2]
    if not set(case.skipped) >= {"cpsat", "milp", "brute"}:  # the fast path has company to be compared with
        case.timings["fast"], _ = time_it(lambda: Objective(board).best(), n, budget=budget)
    return case


def _warm_up(options: Options) -> None:
    """Pay the one-off costs (imports, caches, CP-SAT's first solve) before anything is timed."""
    board = solver.load_board(generate(BoardSpec(20, "two_headed_giant", 2, True, seed=-1)))
    objective = _tables(board)
    solver.solve(board)
    solve_cpsat(objective, time_limit=options.time_limit)
    if options.have_scipy:
        solve_milp(objective, build_milp(objective), options.time_limit)


def _tables(board: Board) -> Objective:
    """Everything the objective precomputes per board: unit tables, the no-choice baseline, the game weight."""
    objective = Objective(board)
    _ = objective.units, objective.baseline, objective.game_weight
    return objective


def _measure_cpsat(case: Case, board: Board, warm: Objective, options: Options, repeats: int) -> None:
    """CP-SAT with the time limit, and with an (almost) zero one to see model building and loading alone."""

    def build_only() -> None:
        with contextlib.suppress(RuntimeError):  # UNKNOWN: stopped before any solution, which is the point
            solve_cpsat(warm, time_limit=1e-9)

    build_only()  # the first call in a process pays for importing ortools
    case.timings["cpsat_build"], _ = time_it(build_only, repeats, budget=options.budget)
    case.timings["cpsat"], cp = time_it(lambda: solve_cpsat(Objective(board), time_limit=options.time_limit), repeats)
    chosen, recipients = warm.matrix_of(cp.single_times, cp.team_options)
    case.values["cpsat"] = warm.score_matrix(chosen, recipients)
    case.status["cpsat"] = cp.status


def _milp_from_board(board: Board, time_limit: float) -> MilpResult:
    objective = Objective(board)
    return solve_milp(objective, build_milp(objective), time_limit)


# ---------------------------------------------------------------------------- processes
def _proliferate_command() -> list[str]:
    script = Path(sys.executable).with_name("proliferate")
    if script.exists():
        return [str(script)]
    found = shutil.which("proliferate")
    return [found] if found else [sys.executable, "-m", "solver"]


def measure_processes(boards: list[dict[str, Any]], repeats: int) -> tuple[list[dict[str, Any]], list[str]]:
    """CLI end to end and warm server round-trips on typical boards, next to in-process and bare-process baselines."""
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    typical = boards[0]
    board = solver.load_board(typical)
    rows.append(
        {
            "what": f"in-process load + solve + to_json ({TYPICAL_SIZE} objects)",
            "timing": time_it(
                lambda: json.dumps(solver.solve(solver.load_board(typical)).to_json()), repeats * 20, collect=False
            )[0],
        }
    )
    rows.append({"what": "process start: python -c pass", "timing": _run([sys.executable, "-c", "pass"], repeats)})
    rows.append(
        {
            "what": "process start: python -c 'import solver'",
            "timing": _run([sys.executable, "-c", "import solver"], repeats),
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "board.json"
        path.write_text(json.dumps(typical))
        command = [*_proliferate_command(), "solve", str(path), "--json"]
        probe = subprocess.run(command, capture_output=True, text=True, check=False)
        if probe.returncode == 0 and json.loads(probe.stdout)["value"] == solver.solve(board).value:
            rows.append(
                {"what": f"CLI: proliferate solve --json ({TYPICAL_SIZE} objects)", "timing": _run(command, repeats)}
            )
        else:
            notes.append(
                f"CLI row left out: `proliferate solve --json` exited {probe.returncode}: {_last_line(probe.stderr)}"
            )
    if importlib.util.find_spec("solver.protocol.client") is None:
        notes.append("server rows left out: solver.protocol.client is not available")
    else:
        rows.extend(_server_rows(boards, repeats, notes))
    return rows, notes


def _run(command: list[str], repeats: int) -> Timing:
    def once() -> None:
        subprocess.run(command, check=True, capture_output=True)

    return time_it(once, repeats, warmup=1)[0]


def _server_rows(boards: list[dict[str, Any]], repeats: int, notes: list[str]) -> list[dict[str, Any]]:
    """Warm round-trips: one server process, a handshake and warm-up solves, then timed solves per board.

    Back to back, as an engine's loop sends them (``collect=False``: see :func:`benchmarks.common.time_it`),
    like the in-process row they are compared with and ``benchmarks.protocol_latency``.
    """
    from solver.protocol.client import EngineClient, EngineTerminated, ProtocolError

    rows = []
    with tempfile.TemporaryFile("w+") as log:
        try:
            with EngineClient(stderr=log) as engine:
                engine.hello()
                for data in boards:
                    expected = solver.solve(solver.load_board(data)).value
                    for _ in range(3):
                        engine.submit_solve(data).result()
                    timing, reply = time_it(
                        lambda data=data: engine.submit_solve(data).result(), 20 * repeats, collect=False
                    )
                    if reply["value"] != expected:
                        raise AssertionError("the server's value differs from the in-process solve")
                    rows.append({"what": f"server warm round-trip ({_spec_of(data)})", "timing": timing})
                ping = time_it(engine.ping, 20 * repeats, collect=False)[0]
                rows.append({"what": "server warm round-trip: ping", "timing": ping})
        except (EngineTerminated, ProtocolError, OSError, TimeoutError) as exc:
            log.seek(0)
            notes.append(f"server rows left out: {exc} ({_last_line(log.read())})")
            return []
    return rows


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else "no message"


def _spec_of(data: dict[str, Any]) -> str:
    n = len(data["players"]) + len(data["permanents"])
    extras = "+thr/fx" if data["effects"] else "plain"
    return f"{n} {data['variant']} x{data['proliferates']} {extras}"


# ---------------------------------------------------------------------------- tables
PATHS = (("fast", "fast"), ("cpsat", "CP-SAT"), ("milp", "HiGHS MILP"), ("brute", "brute force"))


def pipeline_table(cases: list[Case]) -> str:
    rows = []
    for c in cases:
        t = c.timings
        rows.append(
            [
                c.spec.label,
                c.eligible,
                t["load"].show(),
                t["tables"].show(),
                t["dp"].show(),
                t["solve_api"].show(),
                fmt_time(t["load"].median + t["solve_api"].median),
                _fmt_bytes(c.peak_bytes),
            ]
        )
    headers = ["board", "eligible", "load", "tables", "DP", "solve()", "load+solve()", "peak heap"]
    return markdown_table(headers, rows)


def _fmt_bytes(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def paths_table(cases: list[Case]) -> str:
    rows = []
    for c in cases:
        if "fast" not in c.timings:
            continue
        times = {k: c.timings[k].median for k, _ in PATHS if k in c.timings}
        fastest = min(times.values())
        cells: list[object] = [c.spec.label]
        for key, _ in PATHS:
            if key in c.timings:
                cell = f"{c.timings[key].show()} ({ratio(times[key], fastest)})"
                if c.status.get(key, "OPTIMAL") != "OPTIMAL":
                    cell += f" {c.status[key]}"
                cells.append(cell)
            else:
                cells.append(f"skipped: {c.skipped.get(key, '')}")
            if key == "cpsat":
                cells.append(c.timings["cpsat_build"].show() if "cpsat_build" in c.timings else "-")
            if key == "milp":
                both = [c.timings.get("milp_build"), c.timings.get("milp_solve")]
                cells.append(" / ".join(t.show() for t in both if t) or "-")
        cells.append("yes" if c.agree else f"NO {c.values}")
        rows.append(cells)
    headers = [
        "board",
        "fast",
        "CP-SAT",
        "CP-SAT build+load",
        "HiGHS",
        "HiGHS build / solve",
        "brute force",
        "same optimum",
    ]
    return markdown_table(headers, rows)


def targets_table(cases: list[Case], processes: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    rows: list[dict[str, Any]] = []
    typical = [c for c in cases if c.spec.size == TYPICAL_SIZE]
    if typical:
        worst = max(typical, key=lambda c: c.timings["solve_api"].median)
        core = max(c.timings["fast"].median for c in typical)
        rows.append(
            {
                "target": f"{TYPICAL_SIZE}-object board decided in-process, excluding load",
                "limit_s": TARGET_TYPICAL,
                "measured_s": worst.timings["solve_api"].median,
                "best_s": worst.timings["solve_api"].low,
                "detail": f"slowest of {len(typical)} boards, solve(); core (tables + DP) {fmt_time(core)}",
            }
        )
    large = [c for c in cases if c.spec.size >= 100_000]
    if large:
        worst = max(large, key=lambda c: c.timings["solve_api"].median)
        with_load = max(c.timings["load"].median + c.timings["solve_api"].median for c in large)
        rows.append(
            {
                "target": "100,000-object board decided optimally, excluding load",
                "limit_s": TARGET_LARGE,
                "measured_s": worst.timings["solve_api"].median,
                "best_s": worst.timings["solve_api"].low,
                "detail": f"slowest of {len(large)} boards, solve(); with load {fmt_time(with_load)}",
            }
        )
        rows.append(
            {
                "target": "100,000-object board decided optimally, including load",
                "limit_s": TARGET_LARGE,
                "measured_s": with_load,
                "best_s": min(c.timings["load"].low + c.timings["solve_api"].low for c in large),
                "detail": f"slowest of {len(large)} boards, load_board(dict) + solve()",
            }
        )
    server = [p for p in processes if p["what"].startswith("server warm round-trip (")]
    if server:
        worst_server = max(server, key=lambda p: p["timing"].median)
        rows.append(
            {
                "target": f"warm server round-trip, typical {TYPICAL_SIZE}-object board",
                "limit_s": TARGET_SERVER,
                "measured_s": worst_server["timing"].median,
                "best_s": worst_server["timing"].low,
                "detail": f"slowest of {len(server)} boards",
            }
        )
    if not rows:
        return f"(no target measured: the sizes did not include {TYPICAL_SIZE} or 100,000)", rows
    table = markdown_table(
        ["target", "limit", "measured (median)", "pass", "best run", "detail"],
        [
            [
                r["target"],
                fmt_time(r["limit_s"]),
                fmt_time(r["measured_s"]),
                "pass" if r["measured_s"] < r["limit_s"] else "MISS",
                fmt_time(r["best_s"]),
                r["detail"],
            ]
            for r in rows
        ],
    )
    return table, rows


# ---------------------------------------------------------------------------- main
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=list(DEFAULT_SIZES),
        help="objects per board",
    )
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--proliferates", type=int, nargs="+", default=[1, 2], choices=[1, 2, 3, 4])
    parser.add_argument("--repeats", type=int, help="runs per measurement (default 5; 3 at 100,000 and slow paths)")
    parser.add_argument(
        "--budget", type=float, default=4.0, help="stop repeating a measurement after this many seconds (min 1 run)"
    )
    parser.add_argument("--cpsat-max", type=int, default=10_000, help="skip CP-SAT above this many objects")
    parser.add_argument("--milp-max", type=int, default=10_000, help="skip the HiGHS MILP above this many objects")
    parser.add_argument(
        "--brute-max", type=int, default=12, help=f"brute force up to this many object-rounds (≤ {MAX_BRUTE})"
    )
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds per CP-SAT or HiGHS solve")
    parser.add_argument("--full", action="store_true", help="CP-SAT and HiGHS at every size, 7 runs each")
    parser.add_argument("--no-processes", action="store_true", help="skip the CLI and server measurements")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-boards", type=int, default=10_000, help="boards for solve_many (0: skip)")
    parser.add_argument(
        "--json", type=Path, help="where to write the results (default benchmarks/results/scaling.json)"
    )
    args = parser.parse_args(argv)
    if args.full:
        args.cpsat_max = args.milp_max = max(args.sizes)
        args.repeats = args.repeats or 7
        args.budget = max(args.budget, 60.0)
    if not 0 <= args.brute_max <= MAX_BRUTE:
        parser.error(f"--brute-max must be between 0 and {MAX_BRUTE}")
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    options = Options(
        repeats=args.repeats,
        budget=args.budget,
        cpsat_max=args.cpsat_max,
        milp_max=args.milp_max,
        brute_max=args.brute_max,
        time_limit=args.time_limit,
        have_scipy=importlib.util.find_spec("scipy") is not None,
    )
    _warm_up(options)
    cases = []
    for size, variant, proliferates, extras in itertools.product(
        sorted(set(args.sizes)), args.variants, args.proliferates, (False, True)
    ):
        spec = BoardSpec(size, variant, proliferates, extras, args.seed)
        print(f"measuring {spec.label} ...", file=sys.stderr, flush=True)
        cases.append(measure_case(spec, options))
    typical_boards = [
        generate(BoardSpec(TYPICAL_SIZE, variant, proliferates, extras, args.seed))
        for variant, proliferates, extras in itertools.product(args.variants, args.proliferates, (False, True))
    ]
    processes: list[dict[str, Any]] = []
    notes: list[str] = []
    if not args.no_processes:
        processes, notes = measure_processes(typical_boards, args.repeats or 5)
    names = dict(PATHS)
    skipped = sorted({f"{names[k]} skipped above {v.removeprefix('> ')}" for c in cases for k, v in c.skipped.items()})

    print("\n## Fast path pipeline (median [min-max])\n")
    print(pipeline_table(cases))
    print("\n## Exact paths deciding from a loaded board (median [min-max], ratio to the fastest in the row)\n")
    print(paths_table(cases))
    if processes:
        print("\n## Processes: CLI end to end and server round-trips (median [min-max])\n")
        fastest = min(p["timing"].median for p in processes)
        print(
            markdown_table(
                ["what", "time", "ratio"],
                [[p["what"], p["timing"].show(), ratio(p["timing"].median, fastest)] for p in processes],
            )
        )
    batch = None
    if args.batch_boards:
        sample = str(min(1_000, args.batch_boards))
        runs = ["--solve-runs", "10"] if args.repeats == 1 else []
        batch = batch_bench.report(
            batch_bench.parse_args(["--boards", str(args.batch_boards), "--loop-sample", sample, *runs])
        )
    targets, target_rows = targets_table(cases, processes)
    print("\n## Targets\n")
    print(targets)
    for note in notes + [f"{s} (see the tables)" for s in skipped]:
        print(f"- {note}")
    path = write_json(
        "scaling",
        {
            "arguments": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "cases": [c.to_json() for c in cases],
            "processes": [{"what": p["what"], **p["timing"].to_json()} for p in processes],
            "targets": [{**r, "pass": r["measured_s"] < r["limit_s"]} for r in target_rows],
            "notes": notes,
            "batch": batch,
        },
        args.json,
    )
    print(f"\nwrote {path}")
    return 0 if all(c.agree for c in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
