"""The orchestrator's layers hold (README, "Layout"): each package imports only the layers beneath it.

catalogue  imports nothing of ringbench       (what can be measured)
results    imports catalogue                  (what a measurement leaves: model, statistics, store)
harness    imports results and catalogue      (running drivers; hands cells to a sink)
present    imports results and catalogue      (tables, exports, charts, the report)
api        imports all of the above           (the one facade)
cli        imports api, present and results'  value types (the command line)
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ringbench"
ALLOWED = {
    "catalogue": set(),
    "results": {"catalogue"},
    "harness": {"results", "catalogue"},
    "present": {"results", "catalogue"},
    "api": {"catalogue", "results", "harness"},
    "cli": {"api", "present", "cli_help", "cli_common", "cli_measure", "cli_own"},
    # the command line's other modules: its help texts, what the commands share, the commands that measure the
    # runtimes, and those that measure something of the user's own
    "cli_help": {"api"},
    "cli_common": {"api", "present"},
    "cli_measure": {"api", "present", "cli_help", "cli_common"},
    "cli_own": {"api", "present", "cli_help", "cli_common"},
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


MODE_AND_WORKLOAD_HOMES = ("results/modes.py", "catalogue/workloads.py")


def _guarded_names() -> set[str]:
    """Every mode's name (and perf's job words) and every workload's name and verb."""
    from ringbench.catalogue import workloads
    from ringbench.results.modes import MODES

    ws = [v for v in vars(workloads).values() if isinstance(v, workloads.Workload)]
    return set(MODES) | {m.wire for m in MODES.values() if m.wire} | {w.name for w in ws} | {w.verb for w in ws}


def name_comparisons(source: str, names: set[str]) -> list[str]:
    """Lines of `source` that compare a value with a literal mode or workload name, in any form: ==, !=, is,
    `in`/`not in` a literal tuple, list or set, or a `case` pattern. (A name looked up in a container, such as
    `"continuous" in features`, is a membership test of the container's vocabulary, not a comparison.)"""

    def literals(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return set().union(*(literals(e) for e in node.elts))
        return set()

    out = []
    for node in ast.walk(ast.parse(source)):
        hit: set[str] = set()
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, (a, b) in zip(node.ops, zip(operands, operands[1:], strict=False), strict=True):
                if isinstance(op, ast.Eq | ast.NotEq | ast.Is | ast.IsNot):
                    hit |= {x for x in (a, b) if isinstance(x, ast.Constant)} and (literals(a) | literals(b))
                elif isinstance(op, ast.In | ast.NotIn) and not isinstance(b, ast.Constant):
                    hit |= literals(b)
        elif isinstance(node, ast.MatchValue | ast.MatchSingleton):
            hit |= literals(getattr(node, "value", None) or ast.Constant(None))
        if hit & names:
            out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def test_no_mode_or_workload_name_is_compared_outside_its_definition():
    """Every module but the modes' and the workloads' own asks the mode and workload objects (settles, searches,
    lower_is_better, headline…) instead of comparing their names."""
    names = _guarded_names()
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in MODE_AND_WORKLOAD_HOMES:
            continue
        offenders += [f"{rel}:{hit}" for hit in name_comparisons(path.read_text(), names)]
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize(
    "line",
    [
        'if opts.mode == "timed": pass',
        "if 'squeeze' != mode: pass",
        'if cell.mode in ("continuous", "squeeze"): pass',
        'if w.name not in ["ring", "tree"]: pass',
        'if req.mode is "perf-timed": pass',
        'x = 1 if c.mode_object.name == "versus" else 2',
        'match mode:\n    case "timed":\n        pass',
    ],
)
def test_the_name_guard_catches_every_form(line):
    assert name_comparisons(line, _guarded_names()), line


@pytest.mark.parametrize(
    "line",
    [
        'if "continuous" not in features: pass',
        "if opts.mode_object.settles: pass",
        "if w.name == workloads.TREE.name: pass",
        'if command == "show": pass',
    ],
)
def test_the_name_guard_lets_pass_what_is_no_name_comparison(line):
    assert not name_comparisons(line, _guarded_names()), line


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


# Loaded only by the commands that use them: every `ringbench` process starts with the CLI's imports, and the
# tests start hundreds (numpy alone was ~60 ms of a start).
HEAVY = ("numpy", "scipy", "matplotlib", "plotly", "rich.progress", "ringbench.harness.perf",
         "ringbench.harness.versus", "ringbench.present.charts", "ringbench.results.analysis")  # fmt: skip


def test_the_command_line_starts_without_statistics_plots_or_the_perf_and_versus_runners():
    code = "import sys, ringbench.cli; print(' '.join(sys.modules))"
    loaded = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    )
    assert "ringbench.cli" in loaded
    assert sorted(m for m in loaded if m in HEAVY or m.split(".")[0] in HEAVY) == []


def test_every_name_the_api_exports_resolves_those_loaded_on_first_use_too():
    import ringbench.api as api

    assert [n for n in api.__all__ if not hasattr(api, n)] == []
    assert set(api._PERF_RUN) | set(api._VERSUS_RUN) <= set(api.__all__)


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


SCRIPTS = sorted((PACKAGE.parent / "scripts").glob("*.py"))
# a script stands where the command line stands: the API, and present/ to print
SCRIPT_LAYERS = {"api", "present", "cli"}


def script_imports(path: Path) -> set[str]:
    """The ringbench layers a script imports, however spelled (`from ringbench import api` included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "ringbench":
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ringbench."):
            out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[1] for a in node.names if a.name.startswith("ringbench.")}
    return out


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_a_script_reaches_ringbench_only_through_its_api(path):
    wrong = script_imports(path) - SCRIPT_LAYERS
    named = ", ".join(sorted(wrong))
    assert not wrong, f"scripts/{path.name} imports ringbench's {named}: add what it needs to the API"


def test_the_script_walker_sees_every_spelling(tmp_path):
    f = tmp_path / "s.py"
    f.write_text(
        "from ringbench import api\ndef g():\n    from ringbench.results.modes import X\nimport ringbench.harness\n"
    )
    assert script_imports(f) == {"api", "results", "harness"}
