"""The orchestrator's layers hold (README, "Layout"): each package imports only the layers beneath it.

    catalogue  imports nothing of ringbench       (what can be measured)
    results    imports catalogue                  (what a measurement leaves: model, statistics, store)
    harness    imports results and catalogue      (running drivers; hands cells to a sink)
    present    imports results and catalogue      (tables, exports, charts, the report)
    api        imports all of the above           (the one facade)
    cli        imports api, present and results'  value types (the command line)
"""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ringbench"
ALLOWED = {
    "catalogue": set(),
    "results": {"catalogue"},
    "harness": {"results", "catalogue"},
    "present": {"results", "catalogue"},
    "api": {"catalogue", "results", "harness"},
    "cli": {"api", "present"},
}


def layer_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imported_layers(path: Path) -> set[str]:
    """The ringbench layers a module imports (relative imports resolved against its package)."""
    tree = ast.parse(path.read_text())
    depth_of_module = len(path.relative_to(PACKAGE).parts) - 1
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                up = node.level - 1  # `.x` is this package, `..x` the one above
                base = list(path.relative_to(PACKAGE).parts[:depth_of_module])[: max(depth_of_module - up, 0)]
                parts = base + (node.module.split(".") if node.module else [])
                if not parts:  # `from .. import api`
                    parts = [a.name for a in node.names]
                out.add(parts[0])
            elif node.module and node.module.startswith("ringbench."):
                out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[1] for a in node.names if a.name.startswith("ringbench.")}
    return out


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if layer_of(p) in ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_a_module_imports_only_the_layers_beneath_its_own(path):
    layer = layer_of(path)
    wrong = imported_layers(path) - ALLOWED[layer] - {layer}
    assert not wrong, f"{path.relative_to(PACKAGE)} ({layer}) imports {', '.join(sorted(wrong))}"


def test_the_walker_sees_relative_and_absolute_imports(tmp_path):
    """The rule cannot pass vacuously: the walker finds both spellings of an import."""
    sample = PACKAGE / "results" / "model.py"
    assert "catalogue" in imported_layers(sample)
    assert imported_layers(PACKAGE / "cli.py") >= {"api", "present"}


def test_no_mode_or_workload_name_is_compared_outside_its_definition():
    """Presenters ask the mode and workload objects (headline, lower_is_better, settles) instead."""
    import re
    pattern = re.compile(r"""\.(mode|name)\s*[!=]=\s*["'](timed|continuous|squeeze|ring|spawn|memory|msgcost|"""
                         r"""pingpong|fanin|selective|tree)["']""")
    offenders = []
    for path in (PACKAGE / "present").rglob("*.py"):
        if path.name in ("report.py", "plots.py"):  # being split into the chart registry (issue 22)
            continue
        for no, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{no}: {line.strip()}")
    for path in (PACKAGE / "cli.py", PACKAGE / "api.py"):
        for no, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{no}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """Lines inside `if TYPE_CHECKING:` blocks: imports for annotations, never run."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                out |= set(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return out


def module_imports(path: Path, known: set[str]) -> set[str]:
    """The ringbench modules `path` imports when it runs: at its top or inside a function alike (an import
    hidden in a function still makes a loop), annotations-only imports left out."""
    tree = ast.parse(path.read_text())
    skip = _type_checking_lines(tree)
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:  # `from . import stats` imports the module stats; `from .model import Cell` model
                out.add(f"{target}.{a.name}" if f"{target}.{a.name}" in known else target)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
    out.discard(me)
    return out & known


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    known = {_module_name(p) for p in paths}
    # importing a module runs its package's __init__ first: a package is imported by its modules' importers
    return {_module_name(p): module_imports(p, known) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every loop of imports, each once (Tarjan's strongly connected components of two or more)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_loop_of_imports_anywhere_in_the_package():
    """Inside a layer as across layers, and whether the import is at the top or hidden in a function."""
    assert cycles(import_graph()) == []


def test_the_loop_finder_finds_a_loop_hidden_in_a_function(tmp_path, monkeypatch):
    pkg = tmp_path / "ringbench" / "results"
    pkg.mkdir(parents=True)
    (pkg.parent / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "ringbench")
    assert cycles(import_graph()) == [["ringbench.results.a", "ringbench.results.b"]]
