"""The layout's one-way dependencies: ``env`` builds on ``solver`` only through declared names.

``solver`` never imports ``env``; ``env`` imports from ``solver`` only through
:mod:`solver.core` (its declared internal API) or the public :mod:`solver` package, so a change
inside ``solver`` shows what it breaks in the environments.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import solver.core

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "env").rglob("*.py")), ids=lambda p: p.name)
def test_env_uses_only_the_declared_solver_api(path: Path) -> None:
    for module, names in _imports(path):
        if module == "solver" or not module.startswith("solver"):
            continue
        assert module == "solver.core", f"{path.name} imports {module}; import it from solver.core instead"
        undeclared = set(names) - set(solver.core.__all__)
        assert not undeclared, f"{path.name} imports {sorted(undeclared)} that solver.core does not declare"


@pytest.mark.parametrize("path", sorted((ROOT / "solver").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_solver_never_imports_env(path: Path) -> None:
    assert not any(module == "env" or module.startswith("env.") for module, _ in _imports(path))


def test_every_declared_name_is_used_by_env() -> None:
    """A name no environment uses does not belong in the declared API."""
    used = {name for path in (ROOT / "env").rglob("*.py") for module, names in _imports(path) for name in names}
    assert set(solver.core.__all__) <= used
