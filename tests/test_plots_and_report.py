"""Plots and the HTML report from a stored sweep (fake driver); the report checked in a real browser."""
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from ringbench.cli import main


def ringbench_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def swept(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,1.1,0.9")
    r = ringbench_cli("sweep", "ring", "-r", "fake", "-n", "10,100,1000", "-m", "10,100", "--cores", "1,all",
                      "--db", db)
    assert r.exit_code == 0, r.output
    return db


@pytest.mark.parametrize("kind,extra", [
    ("hops-vs-n", []), ("time-vs-m", []), ("heatmap", ["--runtime", "fake"]), ("auto", []),
])
def test_plots_are_written(swept, tmp_path, kind, extra):
    out = tmp_path / f"{kind}.png"
    r = ringbench_cli("plot", 1, "--kind", kind, "--out", out, *extra, "--db", swept)
    if kind == "heatmap":  # two core settings of one runtime: the plot asks for one
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


def test_report_is_self_contained(swept, tmp_path):
    out = tmp_path / "report.html"
    r = ringbench_cli("report", 1, "--out", out, "--db", swept)
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert text.count("data:image/png;base64,") == 4  # hops-vs-n, time-vs-m, one heat map per core setting
    assert "http://" not in text and "https://" not in text
    assert "cpu_model" in text and "fake" in text


CHROMIUM = shutil.which("chromium")


@pytest.mark.skipif(CHROMIUM is None and not __import__("os").environ.get("CI"),
                    reason="Debian's chromium is not installed (make setup installs it)")
def test_report_renders_in_headless_chromium(swept, tmp_path):
    assert CHROMIUM, "chromium must be installed in CI (make setup installs it)"
    out = tmp_path / "report.html"
    ringbench_cli("report", 1, "--out", out, "--db", swept)
    # Add a probe: the page writes how many images decoded with a real size into its title.
    probe = out.read_text().replace("</body>", """<script>
      window.addEventListener('load', () => {
        const imgs = [...document.images];
        const ok = imgs.filter(i => i.complete && i.naturalWidth > 100 && i.naturalHeight > 100).length;
        document.title = 'images ' + ok + '/' + imgs.length;
      });</script></body>""")
    page = tmp_path / "probe.html"
    page.write_text(probe)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=300).stdout
    assert "<title>images 4/4</title>" in dom  # every embedded plot decoded with a real size
