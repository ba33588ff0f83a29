"""Steady state (issue 29): each driver process warms up until two iterations in a row agree (or exactly
--warmup N), M is calibrated on settled iterations, and a cell that never settles says so. Exact, with
the fake driver's fake clock and its FAKE_CURVE (multipliers of successive iterations of one process)."""
import json

import pytest
from conftest import run_cli

import ringbench
from ringbench.results import modes, stats


def run(db, **kw):
    kw.setdefault("params", {"n": 10, "m": 100})
    return ringbench.measure("ring", "fake", db=db, **kw)


def test_a_runtime_that_settles_on_its_third_iteration_is_measured_settled(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_CURVE="3,1.5,1.02,1")  # a JIT: 300, 150, 102, then 100 ns/hop
    (cell,) = run(db, repeat=4, processes=2).cells
    assert cell.headline.median == pytest.approx(100)
    assert modes.warmups(cell) == [4, 4]  # 300 ≠ 150 ≠ 102 ≈ 100 (within 5 %): the 4th agrees with the 3rd
    assert modes.settled(cell)
    assert cell.extra["warmup_values"]["1"] == pytest.approx([300, 150, 102, 100])
    assert not [w for w in cell.warnings() if w.kind == "not-settled"]


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
    (w,) = [w for w in r.warnings if w.kind == "not-settled"]
    assert w.cell.startswith("fake [all]") and "not settled" in w.what
    shown = json.loads(r.to_json())
    assert any(x["kind"] == "not-settled" for x in shown["warnings"])


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
    assert "warm-ups 3/3" in r.output
    doc = json.loads(run_cli("export", 1, "--db", db).stdout)
    assert [x["warmups"] for x in doc["cells"][0]["records"]] == [3, 3]


def test_m_is_calibrated_to_the_target_and_stored(zoo, db):
    # erlang's fake clock: 200 ns/hop; N=10 and a 40 ms target: 40e6 / (200 × 10) = 20,000 laps
    r = run_cli("run", "ring", "-r", "erlang", "-n", 10, "--target", "40ms", "--repeat", 5, "--json", "--db", db)
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["extra"]["calibrated"] == {"m": 20_000}
    assert {rec["m"] for rec in cell["records"]} == {20_000}
    assert cell["params"] == {"n": 10, "tokens": 1, "burst": 0}  # the grid point as asked: comparable across runtimes



@pytest.fixture
def fake_jit(fake, tmp_path, monkeypatch):
    """The fake driver as a JIT runtime (`jit = true`), beside the fake itself."""
    from conftest import FAKE_DIR, FAKE_PY
    folder = tmp_path / "drv" / "fakejit"
    folder.mkdir(parents=True)
    manifest = (FAKE_DIR / "fake" / "driver.toml").read_text()
    manifest = manifest.replace('name = "fake"', 'name = "fakejit"\njit = true')
    (folder / "driver.toml").write_text(manifest.replace("{dir}/fake.py", str(FAKE_PY)))
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", f"{FAKE_DIR}:{tmp_path / 'drv'}")
    return fake


def test_a_jit_runtime_passes_messages_for_the_jit_warmup_before_the_settle_test(fake_jit, db):
    # 1 ms an iteration (100 ns × 10 hops × 1,000 laps); a plateau at 2× until the 100th iteration, then
    # the last tier: two iterations agree on the plateau at once, but a JIT is not tested before 3 s.
    curve = ",".join(["2"] * 100 + ["1"])
    fake_jit(FAKE_NS_PER_HOP=100, FAKE_CURVE=curve)
    r = ringbench.measure("ring", "fakejit", db=db, params={"n": 10, "m": 1000}, repeat=2, processes=1)
    (cell,) = r.cells
    assert cell.headline.median == pytest.approx(100)  # measured after the tier-up, not on the plateau
    (warm,) = modes.warmups(cell)
    # 2 ms a plateau iteration: 1,500 of them would make 3 s; the plateau ends at 100, so the last tier
    # arrives within the JIT warm-up, and the settle test then needs two agreeing iterations
    assert warm >= 1500 and modes.settled(cell)
    assert cell.settings["jit_warmup_s"] == modes.JIT_WARMUP_S
    # the same curve on a runtime without a JIT settles on the plateau (the reason for the rule)
    fake_jit(FAKE_NS_PER_HOP=100, FAKE_CURVE=curve)
    (plain,) = ringbench.measure("ring", "fake", db=db, params={"n": 10, "m": 1000}, repeat=2, processes=1).cells
    assert plain.headline.median == pytest.approx(200) and modes.warmups(plain) == [2]
    assert plain.settings["jit_warmup_s"] == 0


def test_a_fixed_warmup_count_is_kept_for_a_jit_runtime(fake_jit, db):
    fake_jit(FAKE_NS_PER_HOP=100, FAKE_CURVE="3,1")
    (cell,) = ringbench.measure("ring", "fakejit", db=db, params={"n": 10, "m": 100}, repeat=2, processes=1,
                                warmup=1).cells
    assert modes.warmups(cell) == [1] and cell.settings["jit_warmup_s"] == 0


def test_a_jit_runtime_counts_its_spawn_phase_in_the_jit_warmup(fake_jit, db):
    # 10 ns of messages and 300 ms of spawn an iteration: the JIT warm-up counts both phases, so it ends
    # after about ten iterations (3 s of spawn), not when the process's warm-up time (20 s) runs out; a
    # workload without messages (memory) warms up its spawn path the same way.
    fake_jit(FAKE_NS_PER_HOP=1, FAKE_SETUP_NS_PER_PROC=30_000_000)
    (cell,) = ringbench.measure("ring", "fakejit", db=db, params={"n": 10, "m": 1}, repeat=2, processes=1).cells
    (warm,) = modes.warmups(cell)
    assert 10 <= warm <= 13 and modes.settled(cell)



def test_a_jit_runtimes_probe_is_sized_to_the_target_by_a_cold_process_first(fake_jit, db, tmp_path):
    # 400 ns/hop for 4 iterations, then 100. A probe of PROBE_HOPS (20,000 hops: 2 ms an iteration once
    # settled) would spend its 3 s of JIT warm-up in about 1,500 iterations; the cold sizing process
    # (4 iterations at 400 ns/hop) sizes it to 10 ms / (400 ns x 10 hops) = 2,500 laps instead, and the
    # cell's m still comes from the settled probe: 10 ms / (100 ns x 10 hops) = 10,000.
    log = tmp_path / "argv.log"
    fake_jit(FAKE_NS_PER_HOP=100, FAKE_CURVE="4,4,4,4,1", FAKE_LOG=str(log))
    (cell,) = ringbench.measure("ring", "fakejit", db=db, params={"n": 10}, target_ms=10, repeat=2,
                                processes=1).cells
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
    jit = [c for c in cells if c.driver.jit]
    timed = modes.MODES["timed"]
    o = modes.Options(**opts)
    assert api.estimate(plain, opts).seconds == pytest.approx(2 * timed.seconds(o) + timed.probe_seconds(o))
    both = api.estimate(cells, opts)
    assert both.processes == 8
    # the JIT's cells and probe take longer by the warm-up of each of its processes (5 with the probe's)
    extra = both.seconds - 2 * api.estimate(plain, opts).seconds
    assert extra == pytest.approx(5 * modes.JIT_WARMUP_S * 1.5 + 1.0)
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
