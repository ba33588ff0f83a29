"""The chart model, its registry and both backends: `ringbench plot` writes every kind, a runtime keeps one
style everywhere, and matplotlib and Plotly draw a line by the same rule."""

import colorsys
import math
import subprocess
import sys

import pytest
from report_fixtures import ringbench_cli, synthetic

from ringbench import api
from ringbench.present import PLOT_KINDS, charts, draw_mpl, draw_plotly, plots, style
from ringbench.results import analysis


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """One sweep of the fake (3 N × 2 M × 2 core settings), measured once: the plot tests only read it."""
    from conftest import FAKE_DIR

    from ringbench.harness import measure, runner

    where = tmp_path_factory.mktemp("swept")
    db = where / "store.db"
    with pytest.MonkeyPatch.context() as mp:  # what the `fake` fixture sets, for the module
        mp.setenv("RINGBENCH_DRIVER_PATH", str(FAKE_DIR))
        mp.setenv("FAKE_COUNTER_FILE", str(where / "launches"))
        for var in ("FAKE_FAULT", "FAKE_FAULT_ON", "FAKE_RSS_PER_PROC"):
            mp.delenv(var, raising=False)
        mp.setenv("FAKE_NS_PER_HOP", "100")
        mp.setenv("FAKE_JITTER", "1,1.1,0.9")
        runner._describe_cache.clear()
        measure._calibrated.clear()
        try:
            r = ringbench_cli(
                "sweep", "ring", "-r", "fake", "-n", "10,100,1000", "-m", "10,100", "--cores", "1,all", "--db", db
            )
        finally:
            runner._describe_cache.clear()
            measure._calibrated.clear()
    assert r.exit_code == 0, r.output
    return db


@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    return synthetic(tmp_path_factory.mktemp("charts") / "store.db")


# -- styles and units ---------------------------------------------------------------------------
def test_every_runtime_keeps_one_style_and_25_runtimes_get_25_colours():
    today = [
        "c-coro",
        "erlang",
        "go",
        "c-pthreads",
        "rust-threads",
        "rust-tokio/current-thread",
        "rust-tokio/multi-thread",
        "java-threads",
        "java-virtual",
        "python-threads",
        "python-asyncio",
        "python-greenlet/mailbox",
        "python-greenlet/switch",
    ]
    later = [
        "elixir",
        "gleam",
        "pony",
        "akka",
        "haskell-ghc",
        "ocaml-eio",
        "kotlin-coroutines",
        "dotnet-tasks",
        "swift-actors",
        "zig-async",
        "lua-coroutines",
        "node-workers",
    ]
    every = style.styles(today + later)
    series = [n for n in every if not every[n].floor]
    assert len(series) == 24 and len({every[n].colour for n in series}) == 24  # every runtime and variant its own
    # a runtime's style does not depend on which other runtimes are in the chart
    assert style.styles(["go", "erlang"]) == {k: every[k] for k in ("go", "erlang")}
    assert style.styles(["elixir"])["elixir"] == every["elixir"]
    # variants share their family's hue and differ in shade and marker
    a, b = every["rust-tokio/current-thread"], every["rust-tokio/multi-thread"]
    hue = lambda c: colorsys.rgb_to_hls(*(int(c[i : i + 2], 16) / 255 for i in (1, 3, 5)))[0]  # noqa: E731
    assert a.colour != b.colour and abs(hue(a.colour) - hue(b.colour)) < 0.02 and a.marker != b.marker
    assert every["c-coro"].floor and not every["go"].floor
    assert len(style.PALETTE) >= 25 and len(set(style.PALETTE)) == len(style.PALETTE)


def test_units_are_readable():
    assert [style.fmt_ns(x) for x in (6.81, 1234, 35e6, 2.1e9)] == ["6.81 ns", "1.23 µs", "35 ms", "2.1 s"]
    assert [style.fmt_count(x) for x in (10, 1000, 499_900, 1_000_000)] == ["10", "1k", "499.9k", "1M"]
    assert style.fmt_bytes(2600) == "2.6 kB" and style.fmt_bytes(312) == "312 B"
    ticks = style.log_ticks(6, 25_000)
    assert ticks[0] <= 10 and ticks[-1] >= 10_000 and all(math.log10(t).is_integer() for t in ticks)


# -- the registry ---------------------------------------------------------------------------------
def test_one_registry_feeds_plot_kinds_report_order_and_default_kinds():
    assert PLOT_KINDS == tuple(charts.KINDS) and "tree" in PLOT_KINDS
    assert [k.key for k in charts.report_kinds()] == [
        "hops-vs-n",
        "spawn",
        "time-vs-m",
        "heatmap",
        "memory",
        "selective",
        "squeeze",
        "tree",
        "nodes",
        "cluster",
    ]
    # the command line reads the kinds without loading a drawing library
    code = (
        "import sys, ringbench.present as p; print(len(p.PLOT_KINDS), 'matplotlib' in sys.modules, "
        "'plotly' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(len(charts.KINDS)), "False", "False"]


def test_default_kind_from_cells(multi):
    assert [plots.default_kind_for(api.load(i, multi).cells) for i in (1, 2, 3, 4, 5, 6)] == [
        "hops-vs-n",
        "spawn",
        "memory",
        "selective",
        "squeeze",
        "tree",
    ]


# -- ringbench plot ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kind,extra",
    [
        ("hops-vs-n", []),
        ("time-vs-m", []),
        ("heatmap", []),
        ("auto", []),
        ("surface", ["--runtime", "fake"]),
    ],
)
def test_plots_are_written(swept, tmp_path, kind, extra):
    out = tmp_path / f"{kind}.png"
    r = ringbench_cli("plot", 1, "--kind", kind, "--out", out, *extra, "--db", swept)
    if kind == "surface":  # two core settings of one runtime: a 3-D surface asks for one
        assert r.exit_code == 2 and "one runtime at one core setting" in r.output
        return
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_svg_and_surface(fake, db, tmp_path):
    ringbench_cli("sweep", "ring", "-r", "fake", "-n", "10,100", "-m", "10,100", "--db", db)
    out = tmp_path / "surface.svg"
    r = ringbench_cli("plot", 1, "--kind", "surface", "--out", out, "--db", db)
    assert r.exit_code == 0, r.output
    assert "<svg" in out.read_text()[:500]


def test_plot_refuses_what_does_not_fit(swept, tmp_path):
    r = ringbench_cli("plot", 1, "--kind", "squeeze", "--out", tmp_path / "x.png", "--db", swept)
    assert r.exit_code == 2 and "squeeze" in r.output
    r = ringbench_cli("plot", 1, "--kind", "tree", "--out", tmp_path / "x.png", "--db", swept)
    assert r.exit_code == 2 and "tree" in r.output
    r = ringbench_cli("plot", 1, "--kind", "hops-vs-n", "--out", tmp_path / "x.gif", "--db", swept)
    assert r.exit_code == 2


def matplotlib_colour(c) -> str:
    from matplotlib.colors import to_hex

    return to_hex(c)


def test_matplotlib_uses_the_report_styles(multi, tmp_path):
    cells = api.load(1, multi).cells
    fig = draw_mpl.draw(charts.build(cells, "hops-vs-n"))
    try:
        st = style.styles({c.runtime for c in cells})
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert set(labels) >= {"go · 1 core", "go · all cores", "c-coro · 1 core"}
        go = fig.legends[0].legend_handles[labels.index("go · 1 core")]
        assert matplotlib_colour(go.get_color()) == st["go"].colour
        assert fig.axes[0].get_yscale() == "log" and fig.axes[0].get_xscale() == "log"
        # the legend sits outside the axes
        fig.canvas.draw()
        assert fig.legends[0].get_window_extent().x0 >= fig.axes[0].get_window_extent().x1
    finally:
        draw_mpl.close(fig)
    for kind, run in (("spawn", 2), ("memory", 3), ("selective", 4), ("heatmap", 1), ("squeeze", 5), ("tree", 6)):
        out = plots.plot(api.load(run, multi).cells, kind, tmp_path / f"{kind}.svg")
        assert "<svg" in out.read_text()[:500]


def test_both_backends_draw_a_line_by_one_rule(multi):
    cells = [c for i in (1, 4) for c in api.load(i, multi).cells]
    for kind in ("hops-vs-n", "selective"):
        ch = charts.build(cells, kind)
        fig = draw_mpl.draw(ch)
        try:
            mpl = {c.get_label(): c.lines[0] for ax in fig.axes for c in ax.containers}  # errorbar(): data line
        finally:
            draw_mpl.close(fig)
        plotly = {t["name"]: t for t in draw_plotly.draw(ch)["data"]}
        assert set(mpl) == set(plotly) == {s.label for s in ch.series}
        for s in ch.series:
            rule = style.line_of(s.cores, s.floor, s.contrast, s.historical)
            assert plotly[s.label]["line"]["dash"] == rule.dash
            assert plotly[s.label]["marker"]["symbol"].endswith("-open") == rule.hollow
            assert mpl[s.label].get_linestyle() == {"solid": "-", "dot": ":", "dash": "--", "dashdot": "-."}[rule.dash]
            assert (mpl[s.label].get_markerfacecolor() == "white") == rule.hollow
        # and the legend's words are made from the same rule
        words = ch.legend().lower()
        for s in ch.series:
            assert style.line_of(s.cores, s.floor, s.contrast, s.historical).words in words


def test_tree_chart_draws_time_and_peak_memory_per_runtime(multi, tmp_path):
    cells = api.load(6, multi).cells
    ch = charts.build(cells, "tree")
    assert [p.title for p in ch.panels] == ["time per tree", "peak memory per process"]
    assert [ch.panel_unit(p)[1] for p in ch.panels] == ["ns", "bytes"]
    assert {s.label for s in ch.panels[0].series} == {
        "go · 1 core",
        "go · all cores",
        "erlang · 1 core",
        "erlang · all cores",
    }
    go = next(s for s in ch.panels[0].series if s.label == "go · 1 core")
    at_1m = next(c for c in cells if (c.runtime, c.cores, c.params["n"]) == ("go", "1", 1_000_000))
    assert go.points[-1].y == pytest.approx(analysis.figure(at_1m, at_1m.workload.headline).value * 1e6)
    fig = draw_plotly.draw(ch)
    assert fig["layout"]["yaxis2"].get("matches") is None  # bytes do not share the time axis
    assert fig["layout"]["yaxis2"]["title"]["text"] == "peak bytes per process"
    out = tmp_path / "tree.png"
    r = ringbench_cli("plot", 6, "--kind", "tree", "--out", out, "--db", multi)
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:4] == b"\x89PNG"


# -- the chart type fits the data -----------------------------------------------------------------------
def test_one_n_draws_sorted_dots_not_a_strip_of_lines(multi, tmp_path):
    """Every series with one point at one N: a row per runtime and core setting, sorted, named on its axis
    (no legend to scroll), titled at that N; both backends draw it; across N it stays lines (issue 40)."""
    cells = [c for c in api.load(1, multi).cells if c.params.get("n") == 1000 and c.params.get("m") == 100]
    ch = charts.build(cells, "hops-vs-n")
    assert ch.shape == "dots" and ch.title == "Message cost at N = 1k (M = 100)"
    ys = [s.points[0].y for s in ch.series]
    assert ys == sorted(ys) and len(ys) == 14  # 7 runtimes × 2 core settings, cheapest first
    assert ch.legend() == "Filled markers: one core; open markers: all cores."
    assert "The grey dot is the floor" in ch.caption  # said once, in the caption
    spawn = charts.build([c for c in api.load(2, multi).cells if c.params["n"] == 1000], "spawn")
    assert spawn.shape == "dots"
    assert spawn.legend().endswith("grey: the floor (a stackless state machine, not a runtime).")
    fig = draw_plotly.draw(ch)
    assert fig["layout"]["showlegend"] is False
    assert {t["mode"] for t in fig["data"]} == {"markers"} and all(len(t["x"]) == 1 for t in fig["data"])
    assert fig["layout"]["yaxis"]["categoryarray"] == [s.label for s in ch.series][::-1]  # cheapest at the top
    assert fig["layout"]["xaxis"]["type"] == "log" and fig["layout"]["xaxis"]["title"]["text"] == "time per hop"
    out = tmp_path / "dots.png"
    assert plots.plot(cells, "hops-vs-n", out) == out and out.read_bytes()[:4] == b"\x89PNG"
    assert charts.build(api.load(1, multi).cells, "hops-vs-n").shape == "lines"  # three N: lines


def test_a_one_point_chart_has_two_value_ticks_in_view(multi):
    """One runtime at one N (or points closer than two ticks): the value axis is given a range that shows at
    least two labelled ticks (autorange around one point showed none)."""
    one = [
        c
        for c in api.load(1, multi).cells
        if (c.runtime, c.cores, c.params.get("n"), c.params.get("m")) == ("go", "1", 1000, 100)
    ]
    ax = draw_plotly.draw(charts.build(one, "hops-vs-n"))["layout"]["xaxis"]
    lo, hi = (10**v for v in ax["range"])
    assert sum(lo <= t <= hi for t in ax["tickvals"]) >= 2 and len(ax["ticktext"]) == len(ax["tickvals"])
    y = charts.build(one, "hops-vs-n").series[0].points[0].y
    assert lo < y < hi


def test_many_runtimes_across_n_get_a_panel_per_core_setting(multi, tmp_path):
    """Lines of more than 16 series over two core settings: a panel per core setting, the legend naming each
    runtime once (its entry hides it in both panels), instead of one legend entry per runtime and cores."""
    from dataclasses import replace

    ring = [c for c in api.load(1, multi).cells if c.ok]
    cells = ring + [replace(c, runtime=f"{c.runtime}-copy") for c in ring if not c.is_floor]
    ch = charts.build(cells, "hops-vs-n")
    assert ch.shape == "lines" and [p.title for p in ch.panels] == ["1 core", "all cores"]
    assert all(s.label == s.runtime for s in ch.series)
    fig = draw_plotly.draw(ch)
    shown = [t["name"] for t in fig["data"] if t["showlegend"]]
    assert len(shown) == len(set(shown)) == 13  # 6 runtimes, their 6 copies and the floor
    groups = {t["legendgroup"] for t in fig["data"] if t["xaxis"] == "x2"}
    assert groups <= {t["legendgroup"] for t in fig["data"] if t["xaxis"] == "x"}
    assert fig["layout"]["yaxis2"]["matches"] == "y"
    out = tmp_path / "panels.png"
    draw_mpl.draw(ch).savefig(out)
    assert out.read_bytes()[:4] == b"\x89PNG"
    seven = charts.build(ring, "hops-vs-n")  # 14 series: one panel, as before
    assert len(seven.panels) == 1 and "go · 1 core" in {s.label for s in seven.series}


def test_a_perf_run_plots_its_snippets(tmp_path):
    """`ringbench plot` of a perf run: each snippet's QPS as a row, highest first (the default kind of a perf
    run); a perf squeeze plots QPS against workers."""
    from report_fixtures import perf_runs

    db = perf_runs(tmp_path / "perf.db")
    cells = api.load(1, db).cells
    assert charts.default_kind(cells) == "perf"
    ch = charts.build(cells, "perf")
    assert ch.shape == "dots" and [s.label for s in ch.series] == ["erlang:unique_integer().", "rand:uniform()."]
    out = tmp_path / "perf.png"
    r = ringbench_cli("plot", 1, "--out", out, "--db", db)
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:4] == b"\x89PNG"
    squeeze = charts.build(api.load(2, db).cells, charts.default_kind(api.load(2, db).cells))
    assert squeeze.ylabel == "QPS (iterations per second)" and squeeze.series[0].label == "rand:uniform()."
