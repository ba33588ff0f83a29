"""Steady state (issues 29 and 39): each driver process warms up until its last SETTLE_WINDOW iterations
neither drift nor alternate (or exactly --warmup N), a JIT first passes its floor in hops (or a few
seconds), M is calibrated on settled iterations, and a cell that never settles says so. Exact, with the
fake driver's fake clock and its FAKE_CURVE (multipliers of successive iterations of one process)."""

import csv
import io
import json

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import ringbench
from ringbench.results import document, modes, stats


def run(db, **kw):
    kw.setdefault("params", {"n": 10, "m": 100})
    return ringbench.measure("ring", "fake", db=db, **kw)


def test_a_runtime_that_settles_on_its_third_iteration_is_measured_settled(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="3,1.5,1.02,1")  # a JIT: 300, 150, 102, then 100 ns/hop
    (cell,) = run(db, repeat=4, processes=2).cells
    assert cell.headline.median == pytest.approx(100)
    # the window of 10 from 300 still drifts (-7 %); from 150 on, one high value is not a trend (Theil-Sen)
    assert modes.warmups(cell) == [11, 11]
    assert modes.settled(cell)
    assert cell.extra["warmup_values"]["1"] == pytest.approx([300, 150, 102] + [100] * 8)
    assert not [w for w in cell.warnings() if w.kind == "not-settled"]


def test_a_drift_that_two_agreeing_iterations_pass_is_waited_out(fake, db):
    # 1.5 % faster each iteration for 20 iterations (130 → 101.5 ns/hop), then 100: any two in a row agree
    # within 5 % (the old rule settled after 2 warm-ups and measured ~127); the window waits for the plateau.
    curve = ",".join(f"{1.3 - 0.015 * i:.3f}" for i in range(20)) + ",1"
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE=curve)
    (cell,) = run(db, repeat=2, processes=1).cells
    (warm,) = modes.warmups(cell)
    assert modes.settled(cell) and warm >= 20
    assert cell.headline.median == pytest.approx(100, rel=0.05)
    assert modes.unsettled(cell.extra["warmup_values"]["1"][: modes.SETTLE_WINDOW]).startswith("drifts -")


def test_noise_without_a_trend_settles_at_the_first_window(fake, db):
    # ±5-10 % between consecutive iterations, no drift, no alternation: never two in a row within 5 % (the
    # old rule hit its cap and flagged it "not settled"); the window test finds nothing to wait for.
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="1.00,1.07,0.98,0.92,1.03,1.10,0.97,1.04,0.93,1.01,1.08,0.95")
    (cell,) = run(db, repeat=2, processes=1).cells
    assert modes.warmups(cell) == [modes.SETTLE_WINDOW] and modes.settled(cell)


def test_the_settle_window_flags_drift_and_alternation_beyond_noise():
    flat = [100, 104, 97, 101, 99, 103, 98, 100, 102, 99]
    assert modes.unsettled(flat) is None
    assert modes.unsettled(flat[:9]) == "9 of 10 iterations"
    assert modes.unsettled([100 - 1.2 * i for i in range(10)]) == "drifts -25 % over 20 iterations"  # of 94.6
    # -4 % across the window, but -8 % over the 20 iterations the position check spans: still drifting
    assert modes.unsettled([100 - 0.4 * i for i in range(10)]) == "drifts -8 % over 20 iterations"
    assert modes.unsettled([100 + 3 * i for i in range(10)]).startswith("drifts +")
    assert modes.unsettled([100, 120] * 5).startswith("alternates")
    assert modes.unsettled([100, 101] * 5) is None  # significant but under 5 %: not worth waiting for
    assert modes.unsettled([100, 99, 100.5, 99.5, 100, 99, 100.5, 99.5, 100, 99][::-1]) is None


# 10 % slower for 20 iterations, falling 0.5 % an iteration to the level it keeps (1.003), with ±1 % noise
# (drawn once, seed 19): crystal's, go/stock's and ruby/threads's shape in the position check
SLOW_DRIFT = [
    1.0978, 1.1049, 1.0846, 1.0752, 1.0757, 1.0793, 1.0764, 1.0661, 1.0558, 1.0634,
    1.0594, 1.044, 1.0379, 1.0371, 1.0341, 1.0271, 1.019, 1.014, 1.013, 1.013,
    0.991, 0.992, 1.005, 0.999, 1.006, 1.001, 0.999, 1.009, 0.997, 1.003,
]  # fmt: skip


def test_a_drift_of_ten_percent_over_twenty_iterations_is_waited_out_not_settled_at_its_start(fake, db):
    # the window of 8 (the rule before the issue 39 simulation) settled on the first 8 and measured ~106
    assert modes.unsettled([100 * x for x in SLOW_DRIFT[:8]], window=8) is None
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE=",".join(map(str, SLOW_DRIFT)))
    (cell,) = run(db, repeat=2, processes=1).cells
    (warm,) = modes.warmups(cell)
    assert modes.settled(cell) and warm >= 20
    assert cell.headline.median == pytest.approx(100.3, rel=0.02)


# No deadline: the first example imports scipy.stats (modes.unsettled), seconds on a loaded machine.
@settings(deadline=None)
@given(st.lists(st.floats(99.5, 100.5), min_size=modes.SETTLE_WINDOW, max_size=modes.SETTLE_WINDOW))
def test_a_window_whose_figures_lie_within_one_percent_always_settles(w):
    assert modes.unsettled(w) is None  # whatever its order: under the bar is not worth waiting for


@settings(deadline=None)
@given(
    st.floats(50, 5_000),
    st.floats(0.2, 1.0),
    st.lists(st.floats(-0.01, 0.01), min_size=modes.SETTLE_WINDOW, max_size=modes.SETTLE_WINDOW),
)
def test_a_figure_that_alternates_by_a_fifth_or_more_never_settles(base, step, noise):
    w = [base * (1 + step * (i % 2)) * (1 + e) for i, e in enumerate(noise)]
    assert (modes.unsettled(w) or "").startswith("alternates +")


def test_warmup_n_forces_a_fixed_count_and_zero_is_a_cold_start(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="3,1.5,1")
    (cold,) = run(db, repeat=3, processes=1, warmup=0).cells
    assert [r["run_ns"] / r["count"] for r in cold.records] == [300, 150, 100]
    (one,) = run(db, repeat=2, processes=1, warmup=1).cells
    assert [r["run_ns"] / r["count"] for r in one.records] == [150, 100] and modes.warmups(one) == [1]


def test_a_figure_that_alternates_never_settles_and_the_cell_says_so(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="1,1.2,*")  # go/handoff's parity: 100, 120, 100, 120, …
    r = run(db, repeat=2, processes=1)
    (cell,) = r.cells
    assert not modes.settled(cell) and modes.warmups(cell) == [modes.SETTLE_MAX]
    # the difference over the window's median, 110
    assert modes.unsettled(cell.extra["warmup_values"]["1"]).startswith("alternates +18 %")
    (w,) = [w for w in r.warnings if w.kind == "not-settled"]
    assert w.cell.startswith("fake [all]") and "not settled" in w.what
    shown = json.loads(document.run_to_json(r))
    assert any(x["kind"] == "not-settled" for x in shown["warnings"])
    # the compact table marks the figure itself, and says what the mark means
    from ringbench.present import tables

    _, body, notes = tables.rows(r.cells)
    assert [x for x in body[0] if x.endswith(tables.NOT_SETTLED_MARK)]
    assert any(n.startswith(f"{tables.NOT_SETTLED_MARK} = not settled") for n in notes)


def test_m_is_calibrated_on_the_settled_state_not_a_cold_probe(fake, db):
    # settled: 100 ns/hop; a cold probe would see 1,000 ns/hop and choose a tenth of the laps
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="10,1")
    (cell,) = run(db, params={"n": 10}, target_ms=10, repeat=2, processes=1).cells
    assert cell.extra["calibrated"] == {"m": 10_000}  # 10 ms / (100 ns × 10 hops a lap)
    assert {r["run_ns"] for r in cell.records} == {10_000_000}


def test_the_default_figure_lies_within_the_interval_of_a_long_settled_run(fake, db):
    """The rule behind docs/results.md's check for every real driver: defaults ≈ --warmup 20 --repeat 10."""
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="4,2,1.3,1.1,1.01,1")
    (default,) = run(db, cores="1").cells
    (settled,) = run(db, cores="1", processes=1, repeat=10, warmup=20).cells
    lo, hi = stats.bootstrap_median_ci(settled.values())
    assert lo <= default.headline.median <= hi


def test_the_warmups_are_shown_in_the_wide_table_and_stored(fake, db):
    from conftest import run_cli

    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="3,1")
    r = run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--repeat", 2, "--wide", "--db", db)
    assert r.exit_code == 0, r.output
    assert "warm-ups 10/10" in r.output  # 300 then 100: one high value is no trend, the first window settles
    doc = json.loads(run_cli("export", 1, "--db", db).stdout)
    assert [x["warmups"] for x in doc["cells"][0]["records"]] == [10, 10]


def test_m_is_calibrated_to_the_target_and_stored(zoo, db):
    # erlang's fake clock: 200 ns/hop; N=10 and a 40 ms target: 40e6 / (200 × 10) = 20,000 laps
    r = run_cli("run", "ring", "-r", "erlang", "-n", 10, "--target", "40ms", "--repeat", 5, "--json", "--db", db)
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["extra"]["calibrated"] == {"m": 20_000}
    assert {rec["m"] for rec in cell["records"]} == {20_000}
    assert cell["params"] == {"n": 10, "tokens": 1, "burst": 0}  # the grid point as asked: comparable across runtimes


def _jit_folder(tmp_path, name: str, floor: int | None = None):
    from conftest import FAKE_DIR, FAKE_PY

    folder = tmp_path / "drv" / name
    folder.mkdir(parents=True)
    manifest = (FAKE_DIR / "fake" / "driver.toml").read_text()
    top = f'name = "{name}"\njit = true' + (f"\njit_warmup_hops = {floor}" if floor is not None else "")
    manifest = manifest.replace('name = "fake"', top)
    (folder / "driver.toml").write_text(manifest.replace("{dir}/fake.py", str(FAKE_PY)))


@pytest.fixture
def fake_jit(fake, tmp_path, monkeypatch):
    """The fake driver as a JIT runtime (`jit = true`), beside the fake itself; fakejit400k has a floor of
    400,000 hops of its own (`jit_warmup_hops`), fakejit200 one of 200."""
    from conftest import FAKE_DIR

    _jit_folder(tmp_path, "fakejit")
    _jit_folder(tmp_path, "fakejit400k", 400_000)
    _jit_folder(tmp_path, "fakejit200", 200)
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", f"{FAKE_DIR}:{tmp_path / 'drv'}")
    return fake


def test_a_jit_runtime_passes_its_floor_before_the_settle_window(fake_jit, db):
    # 1 ms an iteration (100 ns × 10 hops × 1,000 laps: 10,000 hops); a plateau at 2× until the 30th
    # iteration, then the last tier. A flat plateau passes any window; the floor (here the manifest's
    # 400,000 hops: 40 iterations) takes the process past it, then the window of 8 settles.
    curve = ",".join(["2"] * 30 + ["1"])
    fake_jit(FAKE_NS_PER_HOP=100, FAKE_CURVE=curve)
    r = ringbench.measure("ring", "fakejit400k", db=db, params={"n": 10, "m": 1000}, repeat=2, processes=1)
    (cell,) = r.cells
    assert cell.headline.median == pytest.approx(100)  # measured after the tier-up, not on the plateau
    assert modes.warmups(cell) == [40 + modes.SETTLE_WINDOW] and modes.settled(cell)
    assert {rec["floor_warmups"] for rec in cell.records} == {40}
    assert cell.settings["jit_warmup_hops"] == 400_000
    assert cell.settings["jit_warmup_iterations"] == modes.JIT_WARMUP_ITERATIONS
    assert cell.settings["jit_warmup_cap_s"] == modes.JIT_WARMUP_CAP_S
    assert "JIT floor 0.4 M hops, 50 iterations or 2 s" in cell.mode_object.details(cell)
    # the same curve on a runtime without a JIT settles on the plateau (the reason for the floor)
    (plain,) = ringbench.measure("ring", "fake", db=db, params={"n": 10, "m": 1000}, repeat=2, processes=1).cells
    assert plain.headline.median == pytest.approx(200) and modes.warmups(plain) == [modes.SETTLE_WINDOW]
    assert plain.settings["jit_warmup_hops"] == 0 and plain.settings["jit_warmup_cap_s"] == 0
    # without a floor of its own, a JIT runtime's is JIT_WARMUP_HOPS; 10 M hops would be 1,000 of these
    # iterations: JIT_WARMUP_ITERATIONS come first
    (default,) = ringbench.measure("ring", "fakejit", db=db, params={"n": 10, "m": 1000}, repeat=1).cells
    assert default.settings["jit_warmup_hops"] == modes.JIT_WARMUP_HOPS
    assert default.records[0]["floor_warmups"] == modes.JIT_WARMUP_ITERATIONS


def test_a_fixed_warmup_count_is_kept_for_a_jit_runtime(fake_jit, db):
    fake_jit(FAKE_NS_PER_HOP=100, FAKE_CURVE="3,1")
    (cell,) = ringbench.measure(
        "ring", "fakejit", db=db, params={"n": 10, "m": 100}, repeat=2, processes=1, warmup=1
    ).cells
    assert modes.warmups(cell) == [1] and cell.settings["jit_warmup_hops"] == 0


def test_a_jit_runtime_counts_its_spawned_processes_in_the_floor(fake_jit, db):
    # N = 10, M = 1: 10 hops and 10 processes spawned an iteration; a floor of 200 is 10 iterations (20 if
    # only hops counted): a workload without messages (memory) warms up its spawn path the same way.
    fake_jit(FAKE_NS_PER_HOP=100)
    (cell,) = ringbench.measure("ring", "fakejit200", db=db, params={"n": 10, "m": 1}, repeat=2, processes=1).cells
    assert modes.warmups(cell) == [10 + modes.SETTLE_WINDOW] and modes.settled(cell)


def test_tiny_phases_end_the_floor_after_its_iterations_not_after_minutes(fake_jit, db):
    # 10 hops an iteration against a floor of 10 M hops: a million iterations. The floor ends after
    # JIT_WARMUP_ITERATIONS (at most JIT_WARMUP_CAP_S after the first iteration; before issue 39 a JIT
    # warmed up until 3 s of timed phases, 30 µs an iteration here, and so until the 20 s settle_s cap).
    import time

    fake_jit(FAKE_NS_PER_HOP=100)
    t0 = time.monotonic()
    (cell,) = ringbench.measure("ring", "fakejit", db=db, params={"n": 10, "m": 1}, repeat=1).cells
    took = time.monotonic() - t0
    assert modes.settled(cell) and cell.records[0]["floor_warmups"] == modes.JIT_WARMUP_ITERATIONS
    assert took < modes.JIT_WARMUP_CAP_S + 8, took  # start-up and the window on a busy machine


def test_a_jit_runtimes_probe_is_sized_to_the_target_by_a_cold_process_first(fake_jit, db, tmp_path):
    # 400 ns/hop for 4 iterations, then 100. A probe of PROBE_HOPS (20,000 hops: 2 ms an iteration once
    # settled) would spend its 3 s of JIT warm-up in about 1,500 iterations; the cold sizing process
    # (4 iterations at 400 ns/hop) sizes it to 10 ms / (400 ns x 10 hops) = 2,500 laps instead, and the
    # cell's m still comes from the settled probe: 10 ms / (100 ns x 10 hops) = 10,000.
    log = tmp_path / "argv.log"
    fake_jit(FAKE_NS_PER_HOP=100, FAKE_CURVE="4,4,4,4,1", FAKE_LOG=str(log))
    (cell,) = ringbench.measure("ring", "fakejit", db=db, params={"n": 10}, target_ms=10, repeat=2, processes=1).cells
    ms = [int(next(a for a in line.split() if a.startswith("m="))[2:]) for line in log.read_text().splitlines()]
    assert ms == [2_000, 2_500, 10_000]  # the cold sizing (PROBE_HOPS), the settled probe, the cell
    assert cell.extra["calibrated"] == {"m": 10_000}  # on the settled state: 10 ms / (100 ns x 10 hops)
    assert {r["run_ns"] for r in cell.records} == {10_000_000}


def test_a_plain_runtimes_probe_is_not_sized_first(fake, db, tmp_path):
    log = tmp_path / "argv.log"
    fake(FAKE_NS_PER_HOP=100, FAKE_LOG=str(log))
    run(db, params={"n": 10}, target_ms=10, repeat=2, processes=1)
    ms = [int(next(a for a in line.split() if a.startswith("m="))[2:]) for line in log.read_text().splitlines()]
    assert ms == [2_000, 10_000]


def test_the_estimate_counts_a_jit_runtimes_warmup_and_each_runtimes_probe(fake_jit):
    from ringbench import api

    _, cells = api.plan("ring", "fake,fakejit", params={"n": "10"}, cores="1,all")
    opts = {"repeat": 6, "processes": 2, "target_ms": 40.0}
    plain = [c for c in cells if not c.driver.jit]
    timed = modes.MODES["timed"]
    o = modes.Options(**opts)
    assert api.estimate(plain, opts).seconds == pytest.approx(2 * timed.seconds(o) + timed.probe_seconds(o))
    both = api.estimate(cells, opts)
    assert both.processes == 8
    # the JIT's cells and probe take longer by the warm-up of each of its processes (5 with the probe's)
    extra = both.seconds - 2 * api.estimate(plain, opts).seconds
    assert extra == pytest.approx(5 * modes.JIT_WARMUP_CAP_S + 1.0)
    # given m, nothing is probed
    _, given = api.plan("ring", "fake", params={"n": "10", "m": "5"}, cores="1,all")
    assert api.estimate(given, opts).seconds == pytest.approx(2 * timed.seconds(o))


def test_the_estimate_counts_a_probe_for_each_grid_point(fake_jit):
    from ringbench import api

    opts = {"repeat": 6, "processes": 2, "target_ms": 40.0}
    o = modes.Options(**opts)
    timed = modes.MODES["timed"]
    _, one = api.plan("ring", "fake", params={"n": "10"}, cores="1,all")
    _, two = api.plan("ring", "fake", params={"n": "10,20"}, cores="1,all")
    assert api.estimate(two, opts).seconds - 2 * api.estimate(one, opts).seconds == pytest.approx(0)
    assert api.estimate(one, opts).seconds == pytest.approx(2 * timed.seconds(o) + timed.probe_seconds(o))


def test_the_wide_table_shows_each_process_median_and_their_spread(fake, db):
    from conftest import run_cli

    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,1.2,0.9")  # successive driver processes: 100, 120, 90 ns/hop
    r = run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 10, "--repeat", 6, "--processes", 3, "--wide", "--db", db)
    assert r.exit_code == 0, r.output
    (cell,) = ringbench.load(1, db).cells
    meds = modes.process_medians(cell)
    assert sorted(meds) == pytest.approx([90, 100, 120])
    shown = " / ".join(f"{m:,.0f}" if m >= 100 else f"{m:.3g}" for m in meds)
    assert f"process medians {shown} (spread 30 %)" in " ".join(r.output.split())


def test_compare_marks_a_side_that_never_settled_and_names_the_test_it_used(fake, db):
    """`compare` shows each side's figure as its run's table does ("~" when a process never settled) and
    names the test behind its verdicts: per-process medians for timed cells (issue 39)."""
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="1,1.2,*")
    run(db, repeat=3, processes=3)
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="1")
    run(db, repeat=3, processes=3)
    out = run_cli("compare", 1, 2, "--db", db).output
    (row,) = [line for line in out.splitlines() if line.strip().startswith("fake")]
    assert row.split()[4:6] == ["100~", "100"], row
    words = " ".join(out.split())
    assert "~ = not settled" in words
    assert "per-process medians, p < 0.05, ≥ 3 processes a side" in words and "5 repeats" not in words


# -- the drift check after the window (issue 39: a plateau that moves once the window has passed) --------
WINDOW_NOISE = "1.00,1.01,0.99,1.00,1.01,0.99,1.00,1.01,0.99,1.00"  # a window that passes at once


def test_the_drift_check_flags_a_move_after_the_window_beyond_noise_and_size():
    window = [100, 101, 99, 100, 101, 99, 100, 101, 99, 100]
    assert modes.drifted(window, [120, 120, 120]) == "moved +20 % after the settle window"
    assert modes.drifted(window, [88, 89, 87]).startswith("moved -12 %")
    assert modes.drifted(window, [103, 104, 103]) is None  # significant but under 5 %
    assert modes.drifted(window, [120]) is None  # one iteration is never evidence (p = 0.18)
    assert modes.drifted(window, [100, 130, 130]) is None  # the median moved, the ranks do not say so
    assert modes.drifted(window, [120, 121]) is not None  # two beyond all ten: p = 0.03
    noisy = [100, 112, 91, 104, 95, 109, 98, 90, 111, 100]  # ±10 % noise: +8 % inside it is not a move
    assert modes.drifted(noisy, [104, 110, 108]) is None


def test_a_plateau_that_moves_right_after_the_window_is_flagged_not_settled_everywhere(fake, db):
    # the window's 10 iterations agree (the settle rule passes them), then the figure rises by a fifth:
    # without the check the cell would publish 120 as settled
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE=WINDOW_NOISE + ",1.2")
    r = run(db, repeat=4, processes=2)
    (cell,) = r.cells
    assert modes.warmups(cell) == [modes.SETTLE_WINDOW] * 2
    assert cell.headline.median == pytest.approx(120)
    assert not modes.settled(cell) and cell.extra["not_settled"] == [1, 2]
    assert cell.extra["drifted"] == {"1": "moved +20 % after the settle window"} | {
        "2": "moved +20 % after the settle window"
    }
    (w,) = [w for w in r.warnings if w.kind == "not-settled"]
    assert "process 1 moved +20 % after the settle window" in w.what and "at the cap" not in w.what
    from ringbench.present import exporting, tables

    _, body, notes = tables.rows(r.cells)
    assert [x for x in body[0] if x.endswith(tables.NOT_SETTLED_MARK)]
    assert any(n.startswith(f"{tables.NOT_SETTLED_MARK} = not settled") for n in notes)
    exported = list(csv.DictReader(io.StringIO(exporting.to_csv(r))))
    assert len(exported) == 4 and {row["settled"] for row in exported} == {"False"}


def test_one_repeat_a_process_runs_unreported_iterations_for_the_check(fake, db):
    # one measured repeat is no evidence on its own; the process runs SETTLE_CHECK - 1 iterations more,
    # unreported, and they show the move (the figure reported is the repeat's alone)
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE=WINDOW_NOISE + ",1.2")
    (cell,) = run(db, repeat=1, processes=1).cells
    assert [r["run_ns"] / r["count"] for r in cell.records] == pytest.approx([120])
    assert not modes.settled(cell) and "1" in cell.extra["drifted"]


def test_a_steady_process_passes_the_drift_check_and_a_fixed_warmup_skips_it(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE=WINDOW_NOISE + ",1.01,0.99,1.00")
    (steady,) = run(db, repeat=2, processes=1).cells
    assert modes.settled(steady) and "drifted" not in steady.extra
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE=WINDOW_NOISE + ",1.2")
    (fixed,) = run(db, repeat=2, processes=1, warmup=10).cells  # --warmup N: no window, nothing to check
    assert modes.settled(fixed) and "drifted" not in fixed.extra


def test_the_time_estimate_counts_the_drift_checks_iterations():
    # the bench's 6 repeats in 3 processes run one unreported iteration a process; 6 in 6, two each
    assert modes.check_iterations(modes.Options(repeat=6, processes=3), 2) == 1
    assert modes.check_iterations(modes.Options(repeat=6, processes=6), 1) == 2
    assert modes.check_iterations(modes.Options(repeat=6, processes=2), 3) == 0
    assert modes.check_iterations(modes.Options(repeat=6, processes=6, warmup=5), 1) == 0
    t = modes.MODES["timed"]
    with_check = t.seconds(modes.Options(repeat=6, processes=6, target_ms=100))
    assert with_check == pytest.approx(6 * (0.5 + (modes.SETTLE_WINDOW + 1 + 2) * 0.1 * 1.5))


def test_runtime_stats_stay_with_their_repeats_and_the_checks_iterations_are_read_past_them(fake, db, monkeypatch):
    # a driver with `stats=1` prints a stats record after each result: each repeat keeps the one after
    # it, the drift check's unreported iteration (its stats too) is read before the process is stopped
    from ringbench.harness import measure

    real = measure.run_driver

    def with_stats(driver, args, on_record, **kw):
        def feed(rec):
            stop = on_record(rec)
            if rec["type"] == "result" and not stop:
                stop = on_record({"type": "stats", "after_iteration": rec["iteration"]})
            return stop

        return real(driver, args, on_record=feed, **kw)

    monkeypatch.setattr(measure, "run_driver", with_stats)
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE=WINDOW_NOISE + ",1.2")
    (cell,) = run(db, repeat=1, processes=1, runtime_stats=True).cells
    assert [r["runtime_stats"]["after_iteration"] for r in cell.records] == [11]  # not the check's 12 or 13
    # one repeat alone is no evidence: the flag needs the check's two iterations, read past the stats
    assert not modes.settled(cell) and "1" in cell.extra["drifted"]
