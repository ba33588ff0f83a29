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
