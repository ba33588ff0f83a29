"""Equal conditions (issue 21): what a driver is started with is recorded with the cell; variables that
tune a runtime are recorded, warned about and, with --clean-env, kept from the drivers; describe runs as
the run does; a limit is raised only when a cell needs it; comparable cells take turns."""

import json

import ringbench
from ringbench.catalogue.drivers import discover
from ringbench.results import document


def test_a_tuning_variable_is_recorded_warned_about_and_kept_out_with_clean_env(fake, db, monkeypatch):
    monkeypatch.setenv("GOGC", "400")
    kept = ringbench.measure("ring", "fake", params={"n": 10, "m": 10}, repeat=1, db=db)
    (cell,) = kept.cells
    assert cell.records[0]["gogc_seen"] == "400"
    assert cell.settings["inherited_tuning_env"] == {"GOGC": "400"}
    assert kept.environment["tuning_env"] == {"GOGC": "400"}
    (w,) = [w for w in kept.warnings if w.kind == "env"]
    assert "GOGC=400" in w.what
    clean = ringbench.measure("ring", "fake", params={"n": 10, "m": 10}, repeat=1, clean_env=True, db=db)
    assert clean.cells[0].records[0]["gogc_seen"] == ""
    assert clean.cells[0].settings["clean_env"] and not [w for w in clean.warnings if w.kind == "env"]


def test_the_collector_is_recorded_from_a_describe_launched_as_the_run(fake, db):
    run = ringbench.measure("ring", "fake", params={"n": 10, "m": 10}, cores="1,all", repeat=1, db=db)
    by_cores = {c.cores: c.settings["collector"] for c in run.cells}
    assert by_cores == {"1": "serial", "all": "g1"}  # the pinned describe sees one CPU, as the run does


def test_a_limit_is_raised_only_for_a_cell_that_needs_it_and_recorded(fake, db, tmp_path, monkeypatch):
    folder = tmp_path / "drv" / "limited"
    folder.mkdir(parents=True)
    fake_py = discover()["fake"].folder / "fake.py"
    (folder / "driver.toml").write_text(
        f'name = "limited"\ncommand = ["{{python}}", "{fake_py}", "{{limits}}"]\n'
        '[limits.processes]\ndefault = 5000\nargs = ["+P", "{value}"]\n'
    )
    monkeypatch.setenv("RINGBENCH_DRIVER_PATH", f"{tmp_path / 'drv'}")
    run = ringbench.measure("ring", "limited", params={"n": "10,10000", "m": 1}, repeat=1, db=db)
    small, large = run.cells
    assert small.settings["limits_raised"] == {} and small.records[0]["limit_seen"] == ""
    assert large.settings["limits_raised"] == {"processes": 21024}
    assert large.settings["argv"][-2:] == ["+P", "21024"] and large.records[0]["limit_seen"] == "21024"


def test_comparable_cells_take_turns_and_the_order_is_stored(zoo, db, tmp_path, monkeypatch):
    log = tmp_path / "starts.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    run = ringbench.measure("ring", "erlang,fastgo", params={"n": 10, "m": 5}, repeat=3, db=db)
    starts = sorted(
        (float(t), ns) for _, t, ns, *argv in map(str.split, log.read_text().splitlines()) if argv[:1] == ["run"]
    )
    rounds = [{ns for _, ns in starts[i : i + 2]} for i in (0, 2, 4)]
    assert rounds == [{"200", "100"}] * 3  # erlang (200 ns/hop) and fastgo (100): one process each a round
    launches = {c.runtime: [r["launch"] for r in c.records] for c in run.cells}
    assert sorted(launches["erlang"] + launches["fastgo"]) == [1, 2, 3, 4, 5, 6]
    assert all({launches["erlang"][k], launches["fastgo"][k]} == {2 * k + 1, 2 * k + 2} for k in range(3))
    seq = ringbench.measure("ring", "erlang,fastgo", params={"n": 10, "m": 5}, repeat=3, order="sequential", db=db)
    assert {c.runtime: [r["launch"] for r in c.records] for c in seq.cells} == {
        "erlang": [1, 2, 3],
        "fastgo": [4, 5, 6],
    }
    assert json.loads(document.run_to_json(run))["settings"]["order"] == "interleaved"


def test_no_runtime_runs_first_in_every_round_and_the_seed_replays_the_order(zoo, db):
    """Each round rotates a seeded shuffle of the cells by a share of the round: with as many rounds as
    cells, each cell is first once. The seed is stored with the run; the same seed, the same order."""

    def order(**kw):
        run = ringbench.measure("ring", "erlang,fastgo,beam/stock", params={"n": 10, "m": 5}, repeat=3, db=db, **kw)
        launch = {r["launch"]: c.runtime for c in run.cells for r in c.records}
        return run, [[launch[3 * k + i] for i in (1, 2, 3)] for k in range(3)]  # the runtimes of each round

    run, rounds = order()
    assert sorted(r[0] for r in rounds) == ["beam/stock", "erlang", "fastgo"]  # a different one first each round
    assert all(sorted(r) == ["beam/stock", "erlang", "fastgo"] for r in rounds)
    seed = run.settings["seed"]
    assert isinstance(seed, int) and run.options.seed == seed
    for c in run.cells:  # its place in each round, stored with the cell, as the launches show it
        assert c.extra["round_positions"] == [rounds[k].index(c.runtime) + 1 for k in range(3)]
    assert sorted(c.extra["round_positions"][0] for c in run.cells) == [1, 2, 3]
    again, replayed = order(seed=seed)
    assert replayed == rounds and again.settings["seed"] == seed
    # whatever order the rounds ran in, the cells are stored (and shown) in the order planned
    from ringbench import api

    planned = [c.driver.name for c in api.plan("ring", "erlang,fastgo,beam/stock", params={"n": 10, "m": 5})[1]]
    assert [c.runtime for c in run.cells] == planned
    runs = [order(seed=s) for s in (0, 1)]  # two seeds whose orders differ (a seed replays its order)
    assert len({tuple(rs[0]) for _, rs in runs}) > 1  # the seed chooses the order, not the plan
    assert all([c.runtime for c in r.cells] == planned for r, _ in runs)


def test_a_single_threaded_runtime_is_marked_in_all_core_rows(zoo, db):
    from conftest import run_cli

    r = run_cli("run", "ring", "-r", "rust-tokio,fastgo", "-n", 10, "-m", 5, "--repeat", 1, "--db", db)
    assert "all:1t" in r.output and "runs every process on one thread" in r.output
    (cell,) = [c for c in ringbench.load(1, db).cells if c.runtime == "rust-tokio/current-thread"]
    assert cell.settings["single_threaded"] and cell.settings["schedulers"] == 1
