"""Shared bits of the analysis tests: fixture paths, small boards and records, and the CLI runner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent
ARENA_NEW = FIXTURES / "arena_persistent.log"
ARENA_NEW_GZ = FIXTURES / "arena_persistent.log.gz"
ARENA_2020 = FIXTURES / "arena_annotations_2020.log"
#: Two triggers each giving seat 2 two poison counters (0 -> 2 -> 4), no proliferate shown (issue 24).
ARENA_POISON_TRIGGERS = FIXTURES / "arena_poison_triggers.log"
#: Proliferates shown by their selection request (one answered with nothing), and a "choose a counter" request.
ARENA_SHOWN = FIXTURES / "arena_shown_proliferate.log"
NATIVE = FIXTURES / "records_native.jsonl"


def duel(
    proliferator: str, alice: dict[str, int], bob: dict[str, int], permanents: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "format": 1,
        "variant": "duel",
        "proliferator": proliferator,
        "players": [{"id": "alice", "life": 20, "counters": alice}, {"id": "bob", "life": 20, "counters": bob}],
        "permanents": permanents,
    }


def creature(pid: str, controller: str, counters: dict[str, int], power: int = 2, toughness: int = 2) -> dict[str, Any]:
    return {
        "id": pid,
        "controller": controller,
        "types": ["creature"],
        "power": power,
        "toughness": toughness,
        "counters": counters,
    }


def record(board: dict[str, Any], chosen: list[str], *, game: str = "g", turn: int = 1, **extra: Any) -> dict[str, Any]:
    return {"game": game, "turn": turn, "decider": board["proliferator"], "board": board, "chosen": chosen, **extra}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m solver`` with the analysis subcommands, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "solver", *args], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )
