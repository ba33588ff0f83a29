"""The environment, whole (issue 39): a driver's manifest declares the variables that tune its runtime and
those that change its build; builds run without the latter and say so; runs record and warn."""

import json

import pytest
from conftest import run_cli

from ringbench.catalogue import drivers
from ringbench.harness import environment

MANIFEST = """
name = "envy"
description = "a build that writes out its environment"
language = "sh"
build = "env > seen-env && mkdir -p bin && touch bin/envy"
artifact = "bin/envy"
command = ["{dir}/bin/envy"]
requires = ["sh"]
tuning_env = ["ENVY_GC", "ENVY_SCHED_*"]
build_env = ["ENVY_BUILDFLAGS", "ENVY_PROFILE_*"]
"""


@pytest.fixture
def envy(tmp_path, monkeypatch):
    root = tmp_path / "drivers"
    (root / "envy").mkdir(parents=True)
    (root / "envy" / "driver.toml").write_text(MANIFEST)
    monkeypatch.setenv("RINGBENCH_DRIVERS_DIR", str(root))
    monkeypatch.setattr(drivers, "BUILDS_DIR", tmp_path / "builds")
    environment.tuning_patterns.cache_clear()
    yield root / "envy"
    environment.tuning_patterns.cache_clear()


def test_a_build_runs_without_the_variables_that_change_it_and_records_them(envy, monkeypatch):
    monkeypatch.setenv("ENVY_BUILDFLAGS", "-Ofast -march=native")
    monkeypatch.setenv("ENVY_PROFILE_RELEASE_LTO", "fat")
    monkeypatch.setenv("UNRELATED", "kept")
    monkeypatch.setenv("ENVY_PROFILE_EMPTY", "")  # as make sets MAKEFLAGS=: removed, never reported
    r = run_cli("build", "envy")
    assert r.exit_code == 0, r.output
    seen = (envy / "seen-env").read_text()
    assert "ENVY_BUILDFLAGS" not in seen and "ENVY_PROFILE_RELEASE_LTO" not in seen and "UNRELATED=kept" in seen
    assert "ENVY_PROFILE_EMPTY" not in seen and "ENVY_PROFILE_EMPTY" not in r.output
    said = " ".join(r.output.split())  # the terminal may wrap the line
    assert "ENVY_BUILDFLAGS=-Ofast -march=native" in said and "removed from the build's environment" in said
    d = drivers.discover()["envy"]
    assert drivers.build_record(d)["removed"] == {
        "ENVY_BUILDFLAGS": "-Ofast -march=native",
        "ENVY_PROFILE_RELEASE_LTO": "fat",
    }
    v = " ".join(run_cli("runtimes", "-v").output.split())
    assert "removed ENVY_BUILDFLAGS=-Ofast -march=native" in v
    assert "run ENVY_GC ENVY_SCHED_*" in v


def test_keep_env_keeps_them_and_records_the_build_as_kept(envy, monkeypatch):
    monkeypatch.setenv("ENVY_BUILDFLAGS", "-Ofast")
    r = run_cli("build", "envy", "--keep-env")
    assert r.exit_code == 0, r.output
    assert "ENVY_BUILDFLAGS=-Ofast" in (envy / "seen-env").read_text()
    assert drivers.build_record(drivers.discover()["envy"])["kept"] == {"ENVY_BUILDFLAGS": "-Ofast"}
    assert "kept in the build's environment" in " ".join(r.output.split())


def test_a_manifests_own_tuning_variables_are_recorded_and_cleaned(envy):
    env = {"ENVY_GC": "off", "ENVY_SCHED_SPIN": "1", "HOME": "/root", "GLIBC_TUNABLES": "x"}
    assert environment.tuning_env(env) == {"ENVY_GC": "off", "ENVY_SCHED_SPIN": "1", "GLIBC_TUNABLES": "x"}


def test_a_manifest_whose_lists_are_not_names_is_refused(envy):
    (envy / "driver.toml").write_text(
        MANIFEST.replace('tuning_env = ["ENVY_GC", "ENVY_SCHED_*"]', 'tuning_env = "ENVY_GC"')
    )
    with pytest.raises(drivers.DriverError, match="tuning_env must be a list"):
        drivers.discover()


def test_the_build_record_is_json_beside_the_store_not_in_the_driver(envy):
    assert run_cli("build", "envy").exit_code == 0
    rec = json.loads((drivers.BUILDS_DIR / "envy.json").read_text())
    assert rec["command"].startswith("env > seen-env") and rec["removed"] == {} and rec["kept"] == {}
