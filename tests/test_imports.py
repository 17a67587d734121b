"""The import graph of ``solver`` and ``env``: no cycles, and the layers of ``docs/architecture.md``.

Every ``import`` of every module counts, at module level or inside a function (a lazy import
is still a dependency, and a cycle behind one is still a cycle); only ``if TYPE_CHECKING:``
blocks are left out, being read by the type checker alone.  A relative import resolves as
Python resolves it: ``from . import x`` inside package ``p`` is an edge to ``p.x`` when that
is a module, else to ``p`` (its ``__init__``); ``from .m import name`` is an edge to ``p.m``
(or to ``p.m.name`` when that is a submodule).  An edge to a package is an edge to its
``__init__``.  A submodule importing its own package (``import solver`` in ``solver.cli``) is
then an edge to ``solver/__init__``: harmless when that ``__init__`` does not reach the submodule
(Python has run it before the submodule), a cycle the test reports when it does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "env")

#: The layers of docs/architecture.md, bottom first, by module of ``solver`` (a subpackage by its name):
#: a module imports only modules of its own layer or below.  ``env`` is above them all.
LAYERS = (
    (
        "terms",
        "errors",
        "status",
        "kinds",
        "limits",
        "files",
        "terminal",
        "budget",
        "jsoncodec",
        "render",
        "allocator",
        "interrupts",
        "threads",
    ),
    ("cards", "catalogue", "board", "choices", "formats", "policy", "decision"),
    ("effects", "kernels", "rules", "boardjson", "validation", "inputs", "schema"),
    ("objective", "fast", "limited", "cpsat", "brute", "explain", "solve", "batch", "svg"),
    ("cli", "protocol", "analysis", "core", "preload", "__main__", "examples", ""),
)
_LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}


def layer(module: str) -> int:
    """The layer of one of our modules; KeyError for a module of ``solver`` no layer lists."""
    parts = module.split(".")
    if parts[0] == "env":
        return len(LAYERS)
    if parts[1:] == ["kernels", "warm"]:  # ``python -m solver.kernels.warm``: a script over the package
        return len(LAYERS) - 1
    return _LAYER_OF[parts[1] if len(parts) > 1 else ""]


#: What the data types may import: lower layers only, never the pipeline (rules, effects, solve...).
DATA_LAYER = {
    "solver.board": {"solver.cards", "solver.kinds", "solver.terms"},
    "solver.decision": {"solver.board", "solver.choices", "solver.policy", "solver.render", "solver.status"},
}
#: The pipeline: the card rules, the rules, the objective and the solvers.  No data type reaches it.
PIPELINE = {
    "solver.effects",
    "solver.rules",
    "solver.objective",
    "solver.batch",
    "solver.cpsat",
    "solver.brute",
    "solver.explain",
    "solver.solve",
    "solver.kernels",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


MODULES = _modules()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, at any depth, but those of ``if TYPE_CHECKING:`` bodies."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for other in child.orelse:
                yield from _imports_of(other)
            continue
        yield from _imports_of(child)


def _imports_of(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    yield from _imports(node)


def _known(name: str) -> str | None:
    """The innermost module of ours that ``name`` is or lies in (``solver.kernels.x.f`` -> ``solver.kernels.x``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if (target := _known(alias.name)) is not None:
                yield target
        return
    if node.level:
        package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
        parts = package.split(".")
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, node.module] if node.module else parts)
    else:
        base = node.module or ""
    if base not in MODULES:
        if (target := _known(base)) is not None:
            yield target
        return
    for alias in node.names:
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base


def import_graph() -> dict[str, set[str]]:
    """Each of our modules and the modules of ours it imports."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = {t for node in _imports(tree) for t in _targets(module, node)} - {module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as ``[a, b, ..., a]``, or None (an iterative depth-first search)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for start in sorted(graph):
        if start in state:
            continue
        path = [start]
        stack = [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


GRAPH = import_graph()


def test_the_graph_sees_lazy_relative_and_package_imports() -> None:
    # Checks of the reader itself, on imports the tree has today.
    assert "solver.kernels.layout" in GRAPH["solver.batch"] or any(
        t.startswith("solver.kernels") for t in GRAPH["solver.batch"]
    )
    assert "solver.board" in GRAPH["solver.rules"]  # from .board import ...
    assert "solver" in GRAPH["env.core"] or any(t.startswith("solver.") for t in GRAPH["env.core"])


def test_find_cycle_reports_the_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_every_module_has_a_layer() -> None:
    missing = sorted(m for m in MODULES if m.split(".")[0] == "solver" and _layer_or_none(m) is None)
    assert not missing, f"add {missing} to LAYERS here and to the layers of docs/architecture.md"


def test_modules_import_only_their_layer_or_below() -> None:
    upward = sorted(
        f"{m} (layer {layer(m) + 1}) -> {t} (layer {layer(t) + 1})"
        for m, ts in GRAPH.items()
        if _layer_or_none(m) is not None
        for t in ts
        if _layer_or_none(t) is not None and layer(t) > layer(m)
    )
    assert not upward, "imports up the layers of docs/architecture.md:\n" + "\n".join(upward)


def _layer_or_none(module: str) -> int | None:
    try:
        return layer(module)
    except KeyError:
        return None


def test_env_imports_solver_never_the_reverse() -> None:
    assert any(t.split(".")[0] == "solver" for m, ts in GRAPH.items() if m.startswith("env") for t in ts)
    back = sorted(
        f"{m} -> {t}" for m, ts in GRAPH.items() if m.split(".")[0] == "solver" for t in ts if t.split(".")[0] == "env"
    )
    assert not back, back


@pytest.mark.parametrize("module", sorted(DATA_LAYER))
def test_data_types_import_only_lower_layers(module: str) -> None:
    """``Board`` and ``Decision`` are data: they never call back into the pipeline (docs/architecture.md)."""
    extra = GRAPH[module] - DATA_LAYER[module]
    assert not extra, f"{module} imports {sorted(extra)}, above its layer"
    reached = {m for m in _reachable(module) if m in PIPELINE or m.rpartition(".")[0] in PIPELINE}
    assert not reached, f"{module} reaches the pipeline through its imports: {sorted(reached)}"


def _reachable(start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in GRAPH[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen
