"""The package's two layers, read from its import statements (see ccsim/__init__.py).

The library (what one run needs) never imports the lab (experiments of many runs, reports, the
command line), and no module imports one that imports it back, directly or through others. Every
import counts: at module level, inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "ccsim"

#: The compiled engine: a leaf that imports nothing of the package.
ENGINE = "ccsim._core"

#: Modules (and packages, with every module in them) of each layer.
LIBRARY = {
    "ccsim.errors",
    "ccsim.units",
    "ccsim.display",
    "ccsim.scenario",
    "ccsim.pycc",
    "ccsim.harness",
    "ccsim.leo",
    "ccsim.runner",
    "ccsim.results",
    "ccsim.store",
    "ccsim.metrics",
    "ccsim.fluid",
    "ccsim.compare",
}
LAB = {
    "ccsim.sweeps",
    "ccsim.executors",
    "ccsim.sweep_run",
    "ccsim.plots",
    "ccsim.explore",
    "ccsim.studies",
    "ccsim.conformance",
    "ccsim.evaluate",
    "ccsim.report",
    "ccsim.cli",
    "ccsim.__main__",
}
#: The package itself offers names of both layers (importing the lab's on first use).
FRONT = {"ccsim"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_module(name: str) -> str | None:
    """The module of the package that importing ``name`` runs: ``name`` itself, or the package
    or module it is an attribute of. None for the engine and anything outside the package."""
    if name == ENGINE or not (name == "ccsim" or name.startswith("ccsim.")):
        return None
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def imports_of(module: str) -> dict[str, int]:
    """The package's modules that ``module`` imports, each with the line of its first import."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            # `from ccsim import metrics` imports the module ccsim.metrics; `from ccsim.x import
            # y` imports ccsim.x when y is a name defined there, not a module of its own.
            named = [f"{base}.{alias.name}" for alias in node.names]
            names = [n for n in named if n in MODULES or n == ENGINE]
            if len(names) < len(named):
                names.append(base)
        else:
            continue
        for name in names:
            target = imported_module(name)
            if target is not None and target != module:
                found.setdefault(target, node.lineno)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def layer_of(module: str) -> str | None:
    for layer, members in (("library", LIBRARY), ("lab", LAB), ("front", FRONT)):
        if any(module == m or module.startswith(f"{m}.") for m in members):
            return layer
    return None


def test_every_module_has_a_layer() -> None:
    unplaced = [m for m in MODULES if layer_of(m) is None]
    assert not unplaced, f"place these in LIBRARY or LAB (and in ccsim/__init__.py): {unplaced}"


def test_the_library_never_imports_the_lab() -> None:
    upward = [
        f"{module} imports {target} ({MODULES[module].relative_to(PACKAGE)}:{line})"
        for module, targets in GRAPH.items()
        if layer_of(module) == "library"
        for target, line in targets.items()
        if layer_of(target) != "library"
    ]
    assert not upward, "\n".join(upward)


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One cycle of ``graph`` as its modules in order (the first one again at the end)."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(module: str) -> list[str] | None:
        path.append(module)
        on_path.add(module)
        for target in sorted(graph.get(module, {})):
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        on_path.discard(path.pop())
        done.add(module)
        return None

    for module in sorted(graph):
        if module not in done:
            cycle = visit(module)
            if cycle is not None:
                return cycle
    return None


def test_no_module_imports_one_that_imports_it_back() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(
        f"{module} ({MODULES[module].relative_to(PACKAGE)}:{GRAPH[module][after]})"
        for module, after in itertools.pairwise(cycle)
    )


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b": 1}, "b": {"c": 1}, "c": {}}, None),
        ({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}}, ["a", "b", "c", "a"]),
    ],
)
def test_a_cycle_is_found(graph: dict[str, dict[str, int]], expected: list[str] | None) -> None:
    assert find_cycle(graph) == expected


def test_imports_inside_functions_and_relative_ones_count() -> None:
    # The graph is only as good as its reading of import statements: these are known edges of
    # each kind (module level, in a function, under TYPE_CHECKING, `from ccsim import module`).
    assert "ccsim.scenario" in GRAPH["ccsim.runner"]
    assert "ccsim.results" in GRAPH["ccsim.runner"]  # inside run()
    assert "ccsim.pycc" in GRAPH["ccsim.runner"]  # `from ccsim import pycc`
    assert "ccsim.report" in GRAPH["ccsim"]  # inside a function of the package
    assert ENGINE not in GRAPH["ccsim.runner"] and "ccsim" not in GRAPH["ccsim.runner"]
