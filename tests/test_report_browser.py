"""The report in a real browser (headless chromium over the DevTools protocol): it loads with no error and no
network, draws every chart, shows the summary on the first screen, sorts its tables and switches axes.
Screenshots are left in the test's tmp folder (browser/*.png) to look at."""

import base64
import io
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from report_fixtures import SYNTHETIC_RUNS, render, synthetic


@pytest.fixture(scope="module")
def multi_store(tmp_path_factory):
    """The synthetic store, written once: both reports read it."""
    return synthetic(tmp_path_factory.mktemp("browser-store") / "store.db")


@pytest.fixture(scope="module")
def multi_html(multi_store) -> str:
    return render(multi_store, SYNTHETIC_RUNS)


CHROMIUM = shutil.which("chromium")
SCREEN = (1280, 800)


class Browser:
    """Headless chromium driven over the DevTools protocol on a pipe (no port, no extra package)."""

    def __init__(self, profile: Path):
        c_in, self._w = os.pipe()  # commands to chromium (its fd 3)
        self._r, c_out = os.pipe()  # replies from chromium (its fd 4)

        def fds():
            a, b = os.dup(c_in), os.dup(c_out)
            os.dup2(a, 3)
            os.dup2(b, 4)

        flags = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--mute-audio",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={SCREEN[0]},{SCREEN[1]}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            [CHROMIUM, *flags], preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
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


needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="Debian's chromium is not installed (make test installs it: apt-get install chromium)",
)


@pytest.fixture(scope="module")
def loaded(multi_html, tmp_path_factory):
    """The multi-runtime report opened once in headless chromium; every browser test reads this one load."""
    yield from _opened(multi_html, tmp_path_factory.mktemp("browser"))


def _opened(html_text: str, tmp: Path):
    """A report opened in headless chromium, once every chart has drawn."""
    assert CHROMIUM, "chromium must be installed in CI (make test installs it)"
    page = tmp / "report.html"
    page.write_text(html_text)
    b = Browser(tmp / "profile")
    try:
        for domain in ("Runtime", "Log", "Network", "Page"):
            b.page(f"{domain}.enable")
        b.page(
            "Emulation.setDeviceMetricsOverride", width=SCREEN[0], height=SCREEN[1], deviceScaleFactor=1, mobile=False
        )
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
    errors = [
        e
        for e in loaded.events
        if (e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert", "warning"))
        or e["method"] == "Runtime.exceptionThrown"
        or (e["method"] == "Log.entryAdded" and e["params"]["entry"]["level"] in ("error", "warning"))
    ]
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
    assert len(charts) == 11
    from PIL import Image

    for c in charts:
        assert c["drawn"] == c["traces"] and c["svg"] >= 1 and c["marks"] >= c["traces"], c
        assert 600 < c["w"] <= SCREEN[0] and 300 < c["h"] <= SCREEN[1], c
        loaded.js(f"""new Promise(r => {{ window.scrollTo(0, {c["y"]}); requestAnimationFrame(
            () => requestAnimationFrame(r)); }})""")
        png = loaded.screenshot(
            loaded.out / f"{c['id']}.png", {"x": c["x"], "y": c["y"], "width": c["w"], "height": c["h"]}
        )
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
    desc = [v for v in result["desc"] if v is not None]
    assert len(ok) > 10 and ok == sorted(ok) and desc == sorted(ok, reverse=True)
    assert result["open"]
    assert (result["before"], result["after"]) == ("log", "linear")


@pytest.fixture(scope="module")
def perf_and_one_n(tmp_path_factory, multi_store):
    """A report of perf runs (one on 2 nodes, one squeeze) and of a ring run at one N, opened in chromium."""
    from report_fixtures import loaded as runs_of
    from report_fixtures import perf_runs

    from ringbench.present import report

    tmp = tmp_path_factory.mktemp("browser-perf")
    perf = perf_runs(tmp / "perf.db")
    ((run, cmd),) = runs_of(multi_store, [1])
    run.cells = [c for c in run.cells if c.params.get("n") == 1000]  # one N: dots, not lines
    yield from _opened(report.render(runs_of(perf, [1, 2]) + [(run, cmd)]), tmp)


@needs_chromium
def test_browser_draws_perf_and_one_n_charts(perf_and_one_n):
    """The perf squeeze chart and the one-N dot charts draw in a real browser with no error; a dot chart names
    every row on its axis and labels at least two values (issue 40)."""
    b = perf_and_one_n
    errors = [
        e
        for e in b.events
        if e["method"] == "Runtime.exceptionThrown"
        or (e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
    ]
    assert not errors, json.dumps(errors, indent=1)[:3000]
    charts = b.js("""[...document.querySelectorAll('.chart')].map(e => ({id: e.id, drawn: +e.dataset.rendered,
        traces: JSON.parse(document.getElementById(e.dataset.spec).textContent).data.length,
        yticks: [...e.querySelectorAll('.yaxislayer-above .ytick text')].map(t => t.textContent),
        xticks: [...e.querySelectorAll('.xaxislayer-above .xtick text')].map(t => t.textContent)}))""")
    by = {c["id"]: c for c in charts}
    assert "chart-perf-2" in by and by["chart-perf-2"]["drawn"] == 1
    dots = by["chart-hops-vs-n"]
    assert dots["drawn"] == dots["traces"] and len(dots["yticks"]) == dots["traces"] >= 10
    assert "go · 1 core" in dots["yticks"] and len(dots["xticks"]) >= 2
    node_rows = b.js("document.querySelectorAll('#perf tr.node').length")
    assert node_rows == 4  # two snippets on two nodes
    b.js("window.scrollTo(0, document.getElementById('chart-hops-vs-n').getBoundingClientRect().top + scrollY)")
    b.js("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    b.screenshot(b.out / "one-n-dots.png")
