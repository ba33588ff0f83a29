"""results.analysis without HTML: every figure is the table's, comparisons are like for like and name what
they hold fixed, and the layers import only what they may (analysis: results and catalogue; present: never
the harness)."""

import ast
from pathlib import Path

import pytest
from report_fixtures import SYNTHETIC_RUNS, TREE_MS, loaded, synthetic

from ringbench import api
from ringbench.catalogue.workloads import NS_PER_HOP, PEAK_PER_PROC, RSS_PER_PROC, SPAWN_US
from ringbench.catalogue.workloads import TREE_MS as TREE_METRIC
from ringbench.present import tables
from ringbench.results import analysis

ROOT = Path(__file__).resolve().parents[1] / "ringbench"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return synthetic(tmp_path_factory.mktemp("analysis") / "store.db")


@pytest.fixture(scope="module")
def cells(store):
    return analysis.latest([r for r, _ in loaded(store, SYNTHETIC_RUNS)]).cells


@pytest.fixture(scope="module")
def found(cells):
    return analysis.summarize(cells, floors={"c-coro"})  # as the report does: style.floors() names it


def _lead(leads, **params):
    return next(ld for ld in leads if all(ld.params.get(k) == v for k, v in params.items()))


def test_every_figure_is_the_one_its_table_row_shows(store):
    headers = {SPAWN_US.name: "spawn\nµs", RSS_PER_PROC.name: "B/proc"}
    checked = 0
    for run, _ in loaded(store, SYNTHETIC_RUNS):
        cols, body, _ = tables.rows(run.cells, wide=True)
        names = [c.header for c in cols]
        for c, row in zip(run.cells, body, strict=True):
            for metric in c.workload.metrics:
                f = analysis.figure(c, metric)
                header = metric.label if metric is c.workload.headline else headers.get(metric.name, metric.label)
                if f is None or header not in names:
                    continue
                assert row[names.index(header)] == tables.fmt(f.value), (c.label, metric.name)
                checked += 1
    assert checked > 150


def test_rows_are_compared_like_for_like(cells):
    leads = analysis.comparisons(cells, NS_PER_HOP)
    at = [ld for ld in leads if ld.params == {"m": 100, "n": 1000, "tokens": 1} and ld.cores == "1"]
    by_group = {ld.group: ld for ld in at}
    assert set(by_group) == {"message", "handoff", "rendezvous"}  # hand-offs and rendezvous ranked apart
    message = by_group["message"]
    assert [f.runtime for f in message.ranked] == [
        "go",
        "erlang",
        "rust-tokio/current-thread",
        "rust-tokio/multi-thread",
    ]
    assert message.floor.runtime == "c-coro" and all(f.runtime != "c-coro" for f in message.ranked)
    assert message.factor == pytest.approx(message.ranked[1].value / message.ranked[0].value)
    assert message.diff.significant is True and message.workload.name == "ring"


def test_the_lead_depends_on_m_and_says_which(found):
    one_core = [c for c in found.message if c.cores == "1"]
    assert [c.fixed for c in one_core] == [{"m": 10, "tokens": 1}, {"m": 100, "tokens": 1}]
    m10, m100 = one_core
    assert m10.at(100).best.runtime == "rust-tokio/current-thread"  # go's spawn phase weighs at M = 10
    assert m100.at(100).best.runtime == "go"
    assert not m10.calibrated and m10.workload.name == "ring"


def test_spawn_and_memory_rank_message_passing_and_name_the_rest(found):
    spawn = found.spawn
    assert (spawn.lead.n, spawn.lead.cores, spawn.lead.workload.name) == (100_000, "1", "spawn")
    assert spawn.lead.best.runtime == "rust-tokio/current-thread" and spawn.lead.worst.runtime == "erlang"
    apart = {f.runtime: (ld.group, f.value) for ld in spawn.apart for f in ld.ranked}
    assert apart == {
        "go/handoff": ("handoff", pytest.approx(0.2)),
        "python-greenlet/switch": ("rendezvous", pytest.approx(4.65)),
    }
    assert spawn.lead.floor.runtime == "c-coro"
    memory = found.memory
    assert memory.lead.workload.name == "memory" and memory.lead.worst.runtime == "erlang"
    assert {f.runtime for ld in memory.apart for f in ld.ranked} == {"go/handoff", "python-greenlet/switch"}


def test_growth_with_n(found):
    g = found.growth_spread
    assert (g.cores, g.fixed) == ("1", {"m": 100, "tokens": 1})
    assert g.entries[0].runtime == "erlang" and g.entries[0].ratio == pytest.approx(1.1**2, rel=0.01)
    assert g.entries[-1].runtime == "rust-tokio/current-thread" and g.entries[-1].ratio == pytest.approx(4, rel=0.01)
    assert all(not x.floor and x.group == "message" for x in g.entries)
    floor = [x for x in found.growth if x.floor]
    assert floor and {x.runtime for x in floor} == {"c-coro"}


def test_tree_leads_per_core_setting(found):
    assert [(ld.cores, ld.best.runtime, ld.n) for ld in found.tree] == [
        ("1", "go", 1_000_000),
        ("all", "erlang", 1_000_000),
    ]
    assert found.tree[0].best.value == pytest.approx(TREE_MS[("go", "1")], rel=0.01)
    assert found.tree[0].metric is TREE_METRIC and found.tree_memory[0].metric is PEAK_PER_PROC
    assert found.tree_memory[0].best.runtime == "go"


def test_selective_squeeze_and_significance(found):
    assert [(o.runtime, o.n) for o in found.selective] == [("erlang", 10_000)]  # c-coro is the floor
    assert found.selective[0].ratio == pytest.approx(101, rel=0.01)
    assert {(p.runtime, p.tokens) for p in found.squeeze} == {("erlang", 4), ("go", 2)}
    sig = found.significance
    assert len(sig.tested) == sum(1 for c in found.leaders for ld in c.leads if ld.runner_up)
    assert {ld.metric.name for ld in sig.within_noise} == {RSS_PER_PROC.name}  # 350 vs 360 B/proc


def test_significance_is_the_tables_test_with_the_process_as_the_unit(found):
    """A finding's "significant" is its rows' ✓: results.difference's test, the fresh process as the unit
    (issue 39), for message cost and growth alike; bytes per process count each process's one value."""
    from ringbench.results.difference import difference

    leads = [ld for c in found.leaders for ld in c.leads if ld.diff is not None]
    assert leads and {ld.diff.unit for ld in leads} == {"process"}
    for ld in leads:
        if ld.metric is not RSS_PER_PROC:
            assert ld.diff == difference(ld.best.cell, ld.runner_up.cell, ld.metric)
    grown = next(g for g in found.growth if g.runtime == "go" and g.cores == "1" and g.fixed == {"m": 100, "tokens": 1})
    assert grown.significant == difference(grown.first.cell, grown.last.cell, NS_PER_HOP).significant


def test_cpu_per_hop_is_ranked_like_wall_time(found):
    """The cheapest runtime per hop of CPU, columned as message cost is (issue 39)."""
    assert [(c.cores, c.fixed) for c in found.cpu] == [(c.cores, c.fixed) for c in found.message]
    lead = found.cpu[0].last
    assert lead.metric.name == "cpu_ns_per_hop" and lead.best.value == min(f.value for f in lead.ranked)


def test_floors_named_for_old_stores(cells):
    # selective cells stored without a hop: c-coro is still the floor when named one
    assert any(o.runtime == "c-coro" for o in analysis.order_costs(cells))
    assert not any(o.runtime == "c-coro" for o in analysis.order_costs(cells, floors={"c-coro"}))


def test_latest_takes_the_later_run_of_a_cell(store):
    a, b = api.load(1, store), api.load(1, store)
    b.run_id = 7
    latest = analysis.latest([b, a])
    assert latest.replaced == sum(1 for c in a.cells if c.ok)
    assert all(latest.run_id(c) == 7 for c in latest.cells if c.ok)


def _imports(path: Path) -> set[str]:
    """The ringbench modules a file imports, as dotted names relative to the package."""
    pkg = path.relative_to(ROOT.parent).with_suffix("").parts[:-1]
    if path.name == "__init__.py":
        pkg = path.relative_to(ROOT.parent).parts[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = list(pkg[: len(pkg) - node.level + 1]) if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            out |= {name} if node.module else {f"{name}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m.startswith("ringbench")}


def test_layers_import_only_what_they_may():
    assert "ringbench.results.stats" in _imports(ROOT / "results" / "analysis.py")  # the reader finds imports
    for m in _imports(ROOT / "results" / "analysis.py"):
        assert m.startswith(("ringbench.results", "ringbench.catalogue")), m
    for path in (ROOT / "present").rglob("*.py"):
        for m in _imports(path):
            assert not m.startswith("ringbench.harness"), (path, m)
