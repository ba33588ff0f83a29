"""Plots, the HTML report and the seeds' figures; the report checked in a real browser (headless chromium).

The multi-runtime store below is synthetic (made-up figures with known winners, written through the
store like any run) so that the summary's findings can be checked exactly; it lives only in tmp_path.
"""
import base64
import json
import math
import os
import re
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ringbench import api
from ringbench.cli import main
from ringbench.harness import runner
from ringbench.present import plots, report, seeds
from ringbench.results import noise
from ringbench.results.store import Cell, Store


def ringbench_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def swept(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,1.1,0.9")
    r = ringbench_cli("sweep", "ring", "-r", "fake", "-n", "10,100,1000", "-m", "10,100", "--cores", "1,all",
                      "--db", db)
    assert r.exit_code == 0, r.output
    return db


# -- a synthetic store with several runtimes and every workload the report draws --------------
NS_PER_HOP = {"c-coro": 7, "go": 90, "erlang": 130, "rust-tokio/current-thread": 100, "rust-tokio/multi-thread": 400,
              "go/handoff": 40}
GROWTH = {"c-coro": 1.2, "go": 1.5, "erlang": 1.1, "rust-tokio/current-thread": 2.0, "rust-tokio/multi-thread": 1.3,
          "go/handoff": 1.02}
SPAWN_US = {"c-coro": 0.05, "go": 0.4, "erlang": 0.6, "rust-tokio/current-thread": 0.3, "rust-tokio/multi-thread": 0.5,
            "go/handoff": 0.2}
RSS = {"c-coro": 70, "go": 2600, "erlang": 2800, "rust-tokio/current-thread": 350, "rust-tokio/multi-thread": 360,
       "go/handoff": 300}
HOP = {"c-coro": "floor", "go/handoff": "handoff"}  # the hop kind a manifest declares (mailbox when left out)
JITTER = (0.97, 1.0, 1.03, 0.99, 1.01)
NS, MS = (100, 1000, 10000), (10, 100)


def _record(n, m, ns_hop, spawn_us, rss, j, workload="ring", process=1, **extra):
    hops = n * m if m else n  # spawn and memory count the processes that reported ready
    return {"type": "result", "workload": workload, "iteration": 1, "process": process, "ready": n,
            "n": n, "m": m, "tokens": 1, "count": hops,
            "setup_ns": int(n * spawn_us * 1000 * j), "run_ns": int(hops * ns_hop * j),
            "setup_cpu_ns": int(n * spawn_us * 900), "run_cpu_ns": int(hops * ns_hop * j * 0.98),
            "rss_before": 5_000_000, "rss_after": int(5_000_000 + rss * j * n), **extra}


def _run(store, workload, mode="timed", **opts):
    o = vars(runner.Options(mode=mode, repeat=5, **opts))
    env = {"date": "2026-11-23T10:00:00+00:00", "hostname": "testbox", "cpu_model": "Test CPU 3000", "cpu_count": 2,
           "usable_cpus": 2, "memory_bytes": 8 * 2 ** 30, "kernel": "6.1.0", "os": "Linux-6.1.0-x86_64",
           "python": "3.11", "loadavg": [1.5, 1.0, 0.5], "cpu_governor": None, "git_revision": "test"}
    return store.begin_run(f"ringbench sweep {workload} (synthetic)", {"workload": workload, "runtimes": [],
                                                                       "grid": [], "cores": ["1", "all"], **o}, env)


@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    """Runs 1–5: ring N×M on 1 and all cores, spawn, memory, selective, squeeze; run 1 has noisy cells."""
    db = tmp_path_factory.mktemp("multi") / "store.db"
    st = Store(db)
    rid = _run(st, "ring")
    warnings = ["load average 1.50 on 2 CPU(s) at the start: the machine was not idle; stop other work and run again"]
    for rt, base in NS_PER_HOP.items():
        for cores in ("1", "all"):
            for n in NS:
                for m in MS:
                    ns = base * GROWTH[rt] ** math.log10(n / 100) * (1.0 if cores == "1" else 1.5)
                    recs = [(i + 1, 1, _record(n, m, ns, SPAWN_US[rt], RSS[rt], j, process=i + 1))
                            for i, j in enumerate(JITTER)]
                    st.add_cell(rid, Cell(rt, "ring", {"m": m, "n": n, "tokens": 1}, cores,
                                          runtime_settings={"hop": HOP.get(rt, "mailbox")}), recs)
                    if rt == "erlang":  # as the harness words them
                        warnings += noise.cell(f"erlang [{cores}] n={n} m={m} tokens=1", 0.05 + n / 100_000)
    st.add_cell(rid, Cell("c-pthreads", "ring", {"m": 10, "n": 10000, "tokens": 1}, "1", status="refused",
                          reason="c-pthreads: 10,000 processes need 10,000 OS threads; the limit here is 4,096"))
    st.finish_run(rid, "complete", warnings)
    for wl in ("spawn", "memory"):
        rid = _run(st, wl, warmup=0)
        for rt in NS_PER_HOP:
            for n in (1000, 100000):
                recs = [(i + 1, 1, _record(n, 0, 0, SPAWN_US[rt], RSS[rt], j, "spawn", i + 1))
                        for i, j in enumerate(JITTER)]
                st.add_cell(rid, Cell(rt, wl, {"n": n}, "1", runtime_settings={"hop": HOP.get(rt, "mailbox")}), recs)
        st.finish_run(rid, "complete", [])
    rid = _run(st, "selective")
    for rt in ("erlang", "c-coro"):
        for n in (100, 1000, 10000):
            for rev in (0, 1):
                ns = 200 * (1 + n / 100 * rev)
                recs = [(i + 1, 1, _record(n, 1, ns, 1, 100, j, "selective", reverse=rev)) for i, j in enumerate(JITTER)]
                st.add_cell(rid, Cell(rt, "selective", {"m": 1, "n": n, "reverse": rev}, "1"), recs)
    st.finish_run(rid, "complete", [])
    rid = _run(st, "ring", mode="squeeze")
    for rt, peak_k in (("erlang", 4), ("go", 2)):
        hist = [{"concurrency": k, "hops_per_s": 1e7 * min(k, peak_k), "sd": 1e5, "samples": 3} for k in (1, 2, 4, 8)]
        samples = [{"process": 1, "tokens": peak_k, "seq": s, "elapsed_ns": (s + 1) * 10 ** 8,
                    "count": (s + 1) * 10 ** 6 * peak_k} for s in range(4)]
        st.add_cell(rid, Cell(rt, "ring", {"m": 1, "n": 1000, "tokens": 1}, "all", mode="squeeze",
                              extra={"history": hist, "peak_concurrency": peak_k}), samples=samples)
    st.finish_run(rid, "complete", [])
    st.close()
    return db


def _render(db, ids) -> str:
    store = Store(db)
    runs = [(api.load(i, db), store.run(i)["command"]) for i in ids]
    store.close()
    return report.render(runs)


@pytest.fixture(scope="module")
def multi_html(multi) -> str:
    return _render(multi, [1, 2, 3, 4, 5])


def _text(html_text: str) -> str:
    """The page's text without the inlined library and chart data, tags stripped."""
    body = re.sub(r"<script.*?</script>", "", html_text, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


# -- styles and units ---------------------------------------------------------------------------
def test_every_runtime_keeps_one_style_and_25_runtimes_get_25_colours():
    today = ["c-coro", "erlang", "go", "c-pthreads", "rust-threads", "rust-tokio/current-thread",
             "rust-tokio/multi-thread", "java-threads", "java-virtual", "python-threads", "python-asyncio",
             "python-greenlet/mailbox", "python-greenlet/switch"]
    later = ["elixir", "gleam", "pony", "akka", "haskell-ghc", "ocaml-eio", "kotlin-coroutines", "dotnet-tasks",
             "swift-actors", "zig-async", "lua-coroutines", "node-workers"]
    every = plots.styles(today + later)
    series = [n for n in every if not every[n].floor]
    assert len(series) == 24 and len({every[n].colour for n in series}) == 24  # every runtime and variant its own
    # a runtime's style does not depend on which other runtimes are in the chart
    assert plots.styles(["go", "erlang"]) == {k: every[k] for k in ("go", "erlang")}
    assert plots.styles(["elixir"])["elixir"] == every["elixir"]
    # variants share their family's hue and differ in shade and marker
    a, b = every["rust-tokio/current-thread"], every["rust-tokio/multi-thread"]
    hue = lambda c: __import__("colorsys").rgb_to_hls(*(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0]
    assert a.colour != b.colour and abs(hue(a.colour) - hue(b.colour)) < 0.02 and a.marker != b.marker
    assert every["c-coro"].floor and not every["go"].floor
    assert len(plots.PALETTE) >= 25 and len(set(plots.PALETTE)) == len(plots.PALETTE)


def test_units_are_readable():
    assert [plots.fmt_ns(x) for x in (6.81, 1234, 35e6, 2.1e9)] == ["6.81 ns", "1.23 µs", "35 ms", "2.1 s"]
    assert [plots.fmt_count(x) for x in (10, 1000, 499_900, 1_000_000)] == ["10", "1k", "499.9k", "1M"]
    assert plots.fmt_bytes(2600) == "2.6 kB" and plots.fmt_bytes(312) == "312 B"
    ticks = plots.log_ticks(6, 25_000)
    assert ticks[0] <= 10 and ticks[-1] >= 10_000 and all(math.log10(t).is_integer() for t in ticks)


# -- ringbench plot ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind,extra", [
    ("hops-vs-n", []), ("time-vs-m", []), ("heatmap", []), ("auto", []), ("surface", ["--runtime", "fake"]),
])
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
    r = ringbench_cli("plot", 1, "--kind", "hops-vs-n", "--out", tmp_path / "x.gif", "--db", swept)
    assert r.exit_code == 2


def test_matplotlib_uses_the_report_styles(multi, tmp_path):
    cells = api.load(1, multi).cells
    fig = plots.draw(plots.chart(cells, "hops-vs-n"))
    try:
        st = plots.styles({c.runtime for c in cells})
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert set(labels) >= {"go · 1 core", "go · all cores", "c-coro · 1 core"}
        go = fig.legends[0].legend_handles[labels.index("go · 1 core")]
        assert matplotlib_colour(go.get_color()) == st["go"].colour
        assert fig.axes[0].get_yscale() == "log" and fig.axes[0].get_xscale() == "log"
        # the legend sits outside the axes
        fig.canvas.draw()
        assert fig.legends[0].get_window_extent().x0 >= fig.axes[0].get_window_extent().x1
    finally:
        plots.plt.close(fig)
    for kind in ("spawn", "memory", "selective", "heatmap"):
        out = plots.plot(api.load({"spawn": 2, "memory": 3, "selective": 4, "heatmap": 1}[kind], multi).cells,
                         kind, tmp_path / f"{kind}.svg")
        assert "<svg" in out.read_text()[:500]


def matplotlib_colour(c) -> str:
    from matplotlib.colors import to_hex
    return to_hex(c)


# -- the seeds (their figures: tests/test_seeds.py) -----------------------------------------------------
def test_report_never_mixes_seeds_into_measured_tables(multi_html):
    tables_part = multi_html.split("id='tables'")[1].split("id='warnings'")[0]
    assert "1998" not in tables_part and "ThinkPad" not in tables_part
    then = multi_html.split("id='then-and-now'")[1].split("id='tables'")[0]
    assert "historical" in then.split("</p>")[0]
    # the 2009 table beside today's erlang at the same N and M (1,000 × 100: 172 ms then)
    assert "Erlang: ring of N = 1k, M = 100 laps" in then and "172 ms" in then


# -- the report --------------------------------------------------------------------------------------
def test_report_opens_with_findings_computed_from_the_data(multi_html):
    text = _text(multi_html)
    summary = text.split("Charts Hover")[0]
    assert "Test CPU 3000" in summary and "2 CPU(s)" in summary and "not idle" in summary
    # go is fastest at N = 100 and 1k, erlang (which grows least) at 10k; c-coro is the floor, not a runtime
    assert "Message cost, 1 core: fastest go at N = 100–1k; erlang at N = 10k" in summary
    assert "The floor" in summary and "7 ns" in summary
    # a hand-off idiom does less per hop: ranked apart, never the fastest message-passing runtime
    assert "Handoff idioms (ranked apart" in summary and "fastest go/handoff" in summary
    assert re.search(r"Spawn: at N = 100k, cheapest rust-tokio/current-thread", summary)
    assert re.search(r"Memory: at N = 100k, cheapest rust-tokio/current-thread", summary)
    # growth: erlang grows least (×1.1 per decade, two decades), rust-tokio/current-thread most (×2 per decade)
    assert re.search(r"lowest for erlang \(×1\.21, 100 → 10k\) and highest for rust-tokio/current-thread \(×4\.00\)",
                     summary)
    assert "Significance:" in summary and "leads over the runner-up are significant" in summary
    assert "Selective receive: replies taken in reverse order cost, against arrival order: erlang 101× at N = 10k" \
        in summary
    assert "Squeeze: throughput peaked for erlang at K = 4" in summary
    order = [multi_html.index(f"id='{s}'") for s in ("summary", "charts", "then-and-now", "tables", "warnings")]
    assert order == sorted(order)


def test_report_groups_warnings_one_line_per_kind(multi_html):
    part = multi_html.split("id='warnings'")[1]
    assert part.count("coefficient of variation") == 1  # twelve noisy cells, one line
    assert "12 cells" in part and "erlang · all cores · N = 10k, M = 100" in part
    assert "5.1–15.0 %" in part  # the range of the figures the cells warned about
    assert part.count("load average") == 1


def test_report_charts_tables_and_self_containment(multi_html):
    specs = dict(re.findall(r"<script type='application/json' id='(chart-[\w-]+)-data'>(.*?)</script>", multi_html,
                            flags=re.S))
    assert set(specs) == {"chart-hops-vs-n", "chart-spawn", "chart-time-vs-m", "chart-surface", "chart-memory",
                          "chart-selective", "chart-squeeze", "chart-then-now-message", "chart-then-now-spawn"}
    hops = json.loads(specs["chart-hops-vs-n"])
    assert hops["layout"]["xaxis"]["type"] == "log" and hops["layout"]["yaxis"]["type"] == "log"
    assert hops["layout"]["legend"]["x"] > 1  # outside the data
    assert "1 µs" in hops["layout"]["yaxis"]["ticktext"] or "100 ns" in hops["layout"]["yaxis"]["ticktext"]
    by_name = {t["name"]: t for t in hops["data"]}
    st = plots.styles(NS_PER_HOP)
    assert by_name["go · 1 core"]["line"]["color"] == st["go"].colour
    assert by_name["go · all cores"]["marker"]["symbol"].endswith("-open")
    assert by_name["c-coro · 1 core"]["line"]["dash"] == "dash" and "error_y" in by_name["go · 1 core"]
    surface = json.loads(specs["chart-surface"])
    assert len(surface["data"]) == 12 and {t["coloraxis"] for t in surface["data"]} == {"coloraxis"}
    then = json.loads(specs["chart-then-now-message"])
    assert any("published" in (t.get("legendgroup") or "") for t in then["data"])
    assert any(t["name"].startswith("erlang") for t in then["data"])
    # the same runtime has the same colour in every chart
    colours = {}
    for spec in specs.values():
        for t in json.loads(spec)["data"]:
            if t.get("type") == "scatter" and t.get("legendgroup") != "published then (other machines)":
                rt = t["name"].split(" · ")[0]
                colours.setdefault(rt, set()).add(t["line"]["color"])
    assert all(len(c) == 1 for c in colours.values()), colours
    # compact sortable tables with details on demand; a refused cell is shown as n/a
    assert multi_html.count("class='cells sortable'") == 5 and "<tr class='det' hidden>" in multi_html
    tables_part = multi_html.split("id='tables'")[1].split("id='warnings'")[0]
    assert "Rel % = throughput against" in tables_part  # the terminal's notes under each table
    assert "<tr><th>count</th><td>" in tables_part  # the wide table's columns with each row's details
    refused = multi_html.split("<tbody class='bad'>")[1].split("</tbody>")[0]
    assert ">n/a<" in refused and "10,000 processes need 10,000 OS threads" in refused
    # nothing outside the inlined library refers to the network
    outside = re.sub(r"<script>.*?</script>", "", multi_html, flags=re.S)
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", outside) and "<link" not in outside


def test_report_is_self_contained(swept, tmp_path):
    out = tmp_path / "report.html"
    r = ringbench_cli("report", 1, "--out", out, "--db", swept)
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert "cpu_model" in text and "fake" in text and "Plotly" in text
    assert len(re.findall(r"<div class='chart' id=", text)) >= 3  # ns/hop, time against M, surface (+ then and now)
    outside = re.sub(r"<script>.*?</script>", "", text, flags=re.S)
    assert "http://" not in outside and "https://" not in outside


# -- in a real browser -------------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium")
SCREEN = (1280, 800)


class Browser:
    """Headless chromium driven over the DevTools protocol on a pipe (no port, no extra package)."""

    def __init__(self, profile: Path):
        c_in, self._w = os.pipe()   # commands to chromium (its fd 3)
        self._r, c_out = os.pipe()  # replies from chromium (its fd 4)

        def fds():
            a, b = os.dup(c_in), os.dup(c_out)
            os.dup2(a, 3)
            os.dup2(b, 4)
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-default-apps", "--mute-audio", "--hide-scrollbars", f"--user-data-dir={profile}",
                 f"--window-size={SCREEN[0]},{SCREEN[1]}", "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen([CHROMIUM, *flags], preexec_fn=fds, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(c_in)
        os.close(c_out)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        target = next(t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]

    def _read(self, timeout: float) -> dict | None:
        while b"\0" not in self._buf:
            ready, _, _ = select.select([self._r], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method: str, session: bool = False, timeout: float = 60, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = self._read(end - time.monotonic())
            if m is None:
                break
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)
        raise TimeoutError(method)

    def page(self, method: str, **params):
        return self.call(method, session=True, **params)

    def wait_event(self, name: str, timeout: float = 60) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for e in self.events:
                if e["method"] == name:
                    return e
            m = self._read(end - time.monotonic())
            if m and "method" in m:
                self.events.append(m)
        raise TimeoutError(name)

    def js(self, expression: str):
        r = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"])
        return r["result"].get("value")

    def screenshot(self, path: Path, clip: dict | None = None) -> bytes:
        # Never beyond the viewport: that resizes the window, and the report's responsive charts
        # redraw on a resize, so a capture could catch one half drawn. Scroll the clip into view.
        params: dict = {"format": "png", "captureBeyondViewport": False}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        data = base64.b64decode(self.page("Page.captureScreenshot", **params)["data"])
        path.write_bytes(data)
        return data

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._w)
        os.close(self._r)


needs_chromium = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                    reason="Debian's chromium is not installed (make test installs it: "
                                           "apt-get install chromium)")


@pytest.fixture(scope="module")
def loaded(multi_html, tmp_path_factory):
    """The multi-runtime report opened once in headless chromium; every browser test reads this one load."""
    assert CHROMIUM, "chromium must be installed in CI (make test installs it)"
    tmp = tmp_path_factory.mktemp("browser")
    page = tmp / "report.html"
    page.write_text(multi_html)
    b = Browser(tmp / "profile")
    try:
        for domain in ("Runtime", "Log", "Network", "Page"):
            b.page(f"{domain}.enable")
        b.page("Emulation.setDeviceMetricsOverride", width=SCREEN[0], height=SCREEN[1], deviceScaleFactor=1,
               mobile=False)
        b.page("Page.navigate", url=page.as_uri())
        b.wait_event("Page.loadEventFired")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # every chart reports what it drew once Plotly has finished
            state = b.js("[...document.querySelectorAll('.chart')].map(e => e.dataset.rendered || null)")
            if state and all(state):
                break
            time.sleep(0.1)
        b.js("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        b.out = tmp
        b.url = page.as_uri()
        yield b
    finally:
        b.close()


@needs_chromium
def test_browser_loads_without_errors_or_network(loaded):
    errors = [e for e in loaded.events if
              (e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert", "warning")) or
              e["method"] == "Runtime.exceptionThrown" or
              (e["method"] == "Log.entryAdded" and e["params"]["entry"]["level"] in ("error", "warning"))]
    assert not errors, json.dumps(errors, indent=1)[:3000]
    urls = [e["params"]["request"]["url"] for e in loaded.events if e["method"] == "Network.requestWillBeSent"]
    outside = [u for u in urls if u != loaded.url and not u.startswith(("data:", "blob:"))]
    assert urls and not outside, outside


@needs_chromium
def test_browser_renders_every_chart(loaded):
    charts = loaded.js("""[...document.querySelectorAll('.chart')].map(e => {
        const r = e.getBoundingClientRect();
        return {id: e.id, drawn: +e.dataset.rendered, svg: e.querySelectorAll('svg.main-svg').length,
                marks: e.querySelectorAll('.scatterlayer path.js-line, .scatterlayer path.point, .hm image').length,
                traces: JSON.parse(document.getElementById(e.dataset.spec).textContent).data.length,
                x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height};
    })""")
    assert len(charts) == 9
    import io

    from PIL import Image
    for c in charts:
        assert c["drawn"] == c["traces"] and c["svg"] >= 1 and c["marks"] >= c["traces"], c
        assert 600 < c["w"] <= SCREEN[0] and 300 < c["h"] <= SCREEN[1], c
        loaded.js(f"""new Promise(r => {{ window.scrollTo(0, {c['y']}); requestAnimationFrame(
            () => requestAnimationFrame(r)); }})""")
        png = loaded.screenshot(loaded.out / f"{c['id']}.png",
                                {"x": c["x"], "y": c["y"], "width": c["w"], "height": c["h"]})
        img = Image.open(io.BytesIO(png)).convert("RGB").resize((200, 120))
        colours = {px for _, px in img.getcolors(200 * 120) if max(px) - min(px) > 60}  # saturated: data, not axes
        assert len(colours) > 20, f"{c['id']} looks blank ({len(colours)} colours)"


@needs_chromium
def test_first_screen_shows_the_summary(loaded):
    loaded.js("window.scrollTo(0, 0)")
    loaded.screenshot(loaded.out / "first-screen.png")
    box = loaded.js("""(() => {
        const f = document.querySelector('ul.findings').getBoundingClientRect();
        const m = document.querySelector('.machine').getBoundingClientRect();
        const charts = document.getElementById('charts').getBoundingClientRect();
        return {findingsTop: f.top, findingsBottom: f.bottom, machineTop: m.top, charts: charts.top,
                first: document.querySelector('ul.findings li').textContent};
    })()""")
    assert box["machineTop"] < 200 and box["findingsBottom"] <= SCREEN[1], box  # machine and findings on screen one
    assert box["charts"] > box["findingsBottom"] and box["first"].startswith("Message cost, 1 core")


@needs_chromium
def test_browser_tables_sort_and_open_details_and_axes_switch(loaded):
    result = loaded.js("""(() => {
        const t = document.querySelector('table.cells');
        const col = [...t.tHead.rows[0].cells].findIndex(th => th.textContent.trim() === 'ns/hop');
        t.tHead.rows[0].cells[col].click();
        const asc = [...t.tBodies].map(b => parseFloat(b.rows[0].cells[col].textContent.replace(/,/g, '')));
        t.tHead.rows[0].cells[col].click();
        const desc = [...t.tBodies].map(b => parseFloat(b.rows[0].cells[col].textContent.replace(/,/g, '')));
        t.tBodies[0].querySelector('button').click();
        const open = !t.tBodies[0].rows[1].hidden && t.tBodies[0].rows[1].textContent.includes('raw records');
        const gd = document.getElementById('chart-hops-vs-n');
        const before = gd.layout.yaxis.type;
        [...gd.querySelectorAll('.updatemenu-button')].find(b => b.textContent.includes('linear'))
            .dispatchEvent(new MouseEvent('click', {bubbles: true}));
        return {asc, desc, open, before, after: gd.layout.yaxis.type};
    })()""")
    ok = [v for v in result["asc"] if v is not None]  # NaN (a failed row's text) arrives as null
    assert len(ok) > 10 and ok == sorted(ok) and [v for v in result["desc"] if v is not None] == sorted(ok, reverse=True)
    assert result["open"]
    assert (result["before"], result["after"]) == ("log", "linear")
