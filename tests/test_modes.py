"""The three harness modes end to end (timed, continuous, squeeze) with the fake driver's fake clock:
what each reports, and that a setting of another mode is refused."""

import json
from pathlib import Path

import pytest
from conftest import q, run_cli

import ringbench


def test_api_returns_result_objects(fake, db):
    fake(FAKE_NS_PER_HOP=250)
    result = ringbench.measure("ring", "fake", params={"n": 20, "m": 5}, repeat=2, db=db)
    assert result.status == "complete" and result.run_id == 1
    (cell,) = result.cells
    assert cell.ok and cell.headline.median == 250 and len(cell.records) == 2
    with pytest.raises(ringbench.InputError):
        ringbench.measure("ring", "fake", params={"n": 0, "m": 5}, db=db)


def test_continuous_mode_reports_hops_per_sample_and_time_per_hop(fake, db):
    fake(FAKE_NS_PER_HOP=100)  # 100 ms samples at 100 ns/hop: 1,000,000 hops = 1,000 laps of 1,000
    r = run_cli(
        "run",
        "ring",
        "-r",
        "fake",
        "-n",
        1000,
        "--continuous",
        "--samples",
        4,
        "--sample-ms",
        100,
        "--json",
        "--db",
        db,
    )
    assert r.exit_code == 0, r.output
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["mode"] == "continuous"
    assert len(cell["samples"]) == 5  # 4 counted + the warm-up
    assert cell["extra"]["counted_samples"] == 4
    assert cell["extra"]["hops_per_sample_mean"] == 1_000_000
    assert cell["summary"]["ns_per_hop"]["median"] == 100
    assert len(q(db, "SELECT * FROM samples")) == 5


def test_continuous_slower_than_one_sample_is_said(fake, db):
    fake(FAKE_NS_PER_HOP=100)  # 10 ms samples: 100,000 hops, less than one lap of 2,000,000
    r = run_cli("run", "ring", "-r", "fake", "-n", 2_000_000, "--continuous", "--sample-ms", 10, "--db", db)
    assert r.exit_code == 0, r.output
    assert "a lap > a sample" in r.output
    assert json.loads(q(db, "SELECT extra FROM cells")[0]["extra"])["slower_than_one_sample"]


def test_cv_mode_samples_until_converged(fake, db):
    # The first intervals are noisy, then steady: with --samples 3 --cv 0.01 it stops once three agree.
    fake(FAKE_NS_PER_HOP=100, FAKE_SAMPLE_JITTER="1,1,2,1,1,1,1,1,1,1,1,1,1,1")
    r = run_cli(
        "run",
        "ring",
        "-r",
        "fake",
        "-n",
        100,
        "--continuous",
        "--samples",
        3,
        "--sample-ms",
        10,
        "--cv",
        0.01,
        "--max-samples",
        12,
        "--json",
        "--db",
        db,
    )
    assert r.exit_code == 0, r.output
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["extra"]["converged"] is True
    assert len(cell["samples"]) == 6  # warm-up, 1, 2(noisy), then three steady intervals


def test_cv_mode_says_when_it_did_not_converge(fake, db):
    fake(FAKE_NS_PER_HOP=100, FAKE_SAMPLE_JITTER="1,2")
    r = run_cli(
        "run",
        "ring",
        "-r",
        "fake",
        "-n",
        100,
        "--continuous",
        "--samples",
        3,
        "--sample-ms",
        10,
        "--cv",
        0.01,
        "--max-samples",
        6,
        "--db",
        db,
    )
    assert r.exit_code == 0
    assert "not converged" in r.output


def test_squeeze_finds_the_peak_concurrency(fake, db):
    fake(FAKE_SQUEEZE="1:100,2:50,3:34,4:40,5:45,6:50,7:60,8:70")
    r = run_cli(
        "run", "ring", "-r", "fake", "-n", 100, "--squeeze", "--max", 8, "--sample-ms", 10, "--json", "--db", db
    )
    assert r.exit_code == 0, r.output
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["extra"]["peak_concurrency"] == 3
    assert [h["concurrency"] for h in cell["extra"]["history"]] == [1, 2, 3, 4, 5, 6]
    assert {s["tokens"] for s in cell["samples"]} == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize(
    "args,words",
    [
        (["--samples", "3"], "--samples belongs"),
        (["--continuous", "--squeeze"], "one of"),
        (["--continuous", "--min", "2"], "--min belongs"),
        (["--squeeze", "--cv", "0.1"], "--cv belongs"),
        (["--continuous", "--cv", "5"], "fraction"),
        (["--continuous", "--in-process"], "timed mode"),
    ],
)
def test_mode_settings_must_match_the_mode(fake, db, args, words):
    r = run_cli("run", "ring", "-r", "fake", "-n", 10, "-m", 1, *args, "--db", db)
    assert r.exit_code == 2 and words in r.output
    assert not Path(db).exists() or not q(db, "SELECT * FROM runs")


def test_cv_mode_reports_the_window_that_converged(fake, db):
    # intervals: noisy (×3, ×1), then five steady ones at 100 ns/hop
    fake(FAKE_NS_PER_HOP=100, FAKE_SAMPLE_JITTER="1,3,1,1,1,1,1,1,1,1,1,1")
    r = run_cli(
        "run",
        "ring",
        "-r",
        "fake",
        "-n",
        100,
        "--continuous",
        "--samples",
        5,
        "--sample-ms",
        10,
        "--cv",
        0.01,
        "--max-samples",
        12,
        "--json",
        "--db",
        db,
    )
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["extra"]["converged"] and cell["extra"]["window"] == 5
    assert cell["summary"]["ns_per_hop"]["count"] == 5
    assert cell["summary"]["ns_per_hop"]["high"] == 100  # the noisy intervals before it settled are not counted
    assert cell["extra"]["cv"] < 0.01
    text = run_cli("show", 1, "--db", db).output
    assert "converged over the last 5" in text and "sample(s): too few" not in text


def test_squeeze_summary_is_the_peak_step(fake, db):
    fake(FAKE_SQUEEZE="1:100,2:50,3:34,4:40,5:45,6:50,7:60,8:70")
    r = run_cli(
        "run", "ring", "-r", "fake", "-n", 100, "--squeeze", "--max", 8, "--sample-ms", 10, "--json", "--db", db
    )
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["extra"]["peak_concurrency"] == 3
    assert cell["summary"]["ns_per_hop"]["median"] == pytest.approx(34, rel=0.02)
    assert cell["extra"]["hops_per_sample_mean"] > 0
    assert "peak at 3 tokens" in run_cli("show", 1, "--db", db).output
