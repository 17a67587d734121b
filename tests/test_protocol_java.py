"""The Java client of docs/protocol.md, compiled and run against the real server, so doc and code cannot drift."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import solver

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"
CLASSIC = ROOT / "solver" / "examples" / "classic.json"


def java_source() -> str:
    blocks: list[str] = re.findall(r"```java\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) == 1, "docs/protocol.md should hold exactly one Java example"
    return blocks[0]


def test_the_java_example_uses_only_the_jdk() -> None:
    imports = re.findall(r"^import ([\w.]+);", java_source(), flags=re.MULTILINE)
    assert imports and all(name.startswith("java.") for name in imports)


@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="needs a JDK")
def test_the_java_example_compiles_and_solves(tmp_path: Path) -> None:
    (tmp_path / "ProliferateEngine.java").write_text(java_source(), encoding="utf-8")
    subprocess.run(["javac", "ProliferateEngine.java"], cwd=tmp_path, check=True, capture_output=True, timeout=120)
    env = {**os.environ, "PROLIFERATE_COMMAND": f"{sys.executable} -m solver serve", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        ["java", "-cp", str(tmp_path), "ProliferateEngine", str(CLASSIC)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    decision = solver.solve(CLASSIC)
    assert done.stdout.strip() == f"chosen [{', '.join(decision.chosen)}] value {decision.value} OPTIMAL"
