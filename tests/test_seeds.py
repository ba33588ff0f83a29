"""The published figures shown as "then" (present/seeds.py, seed_figures.json): each with its source, as
published; the skynet tree's from its README, line by line."""

import json
import re
from pathlib import Path

import pytest
from conftest import cannot_run

from ringbench.present import seeds

SEED_MD = "shared/seed-figures.md"
SKYNET = "github.com/atemerev/skynet README.md at commit 374f8cb8af005fec5cbaefdb672018a3951134be"


# The transcription lives beside the checkout (CI copies shared/ beside the clone), not in the repository.
SEED_MD_PATH = Path(__file__).resolve().parents[1].parent / SEED_MD


def test_seed_figures_keep_their_sources():
    raw = json.loads(seeds.DATA.read_text())
    assert raw["series"] and all(s["source"] in raw["sources"] for s in raw["series"])
    assert all(src["transcribed_from"].startswith((SEED_MD, SKYNET)) for src in raw["sources"].values())
    msg = {(s.year, s.system, s.machine): {p.n: p.ns for p in s.points} for s in seeds.message_series()}
    assert msg[(1998, "Erlang R4b", "Pentium Pro 200 MHz, 64 MB, FreeBSD 2.2.7")][10_000] == pytest.approx(9520)
    t60 = next(v for k, v in msg.items() if k[0] == 2009)
    assert t60[499_900] == pytest.approx(666_953 * 1e6 / (499_900 * 1000))  # 1.33 µs per hop, M = 1,000
    assert {p["value"] for p in seeds.ring_table() if p["n"] == 499_900 and p["m"] == 10_000} == {6_976_977}


def test_every_published_number_is_in_the_transcription():
    """Each figure seed_figures.json takes from shared/seed-figures.md is written there (a ranged, alternative
    or memory figure is derived, not copied). On CI the file is beside the clone: its absence fails."""
    if not SEED_MD_PATH.exists():
        cannot_run(f"{SEED_MD_PATH} is not beside the checkout")
    raw = json.loads(seeds.DATA.read_text())
    text = SEED_MD_PATH.read_text().replace(",", "")
    from_md = {k for k, src in raw["sources"].items() if src["transcribed_from"].startswith(SEED_MD)}
    checked = 0
    for s in raw["series"]:
        if s["source"] not in from_md:
            continue
        for p in s["points"]:
            v = p["value"]
            if "low" not in p and "alt" not in p and s["metric"] != "memory":
                assert f"{v:g}" in text or str(v) in text, (s["system"], s["machine"], p)
                checked += 1
    assert checked > 10, f"only {checked} figures checked against the transcription"


def test_skynet_figures_are_the_readme_lines_with_runtime_machine_and_source():
    table = seeds.tree_table()
    assert len(table) == 21  # every figure of the README's three results tables (Quasar's "TODO" has none)
    assert {t.machine for t in table} == {
        "Macbook 12\" '2015, Core M, OS X",
        "i7-4770, Win8.1",
        "i7-4771, Ubuntu 15.10",
    }
    for t in table:
        assert (t.n, t.fanout, t.processes, t.year) == (1_000_000, 10, 1_111_111, 2016)
        assert t.source.transcribed_from.startswith(SKYNET)
        numbers = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", t.published.replace(t.system, ""))]
        if t.low != t.high:  # a published range: its ends as published, its middle drawn
            assert [t.low, t.high] == numbers and t.ms == (t.low + t.high) / 2 and "published as" in t.note
        else:
            assert numbers[0] == t.ms, t.published
    go = {t.machine: t.published for t in table if t.runtime == "go"}
    assert go == {
        "Macbook 12\" '2015, Core M, OS X": "Go: 979 ms.",
        "i7-4770, Win8.1": "Go: 629 ms.",
        "i7-4771, Ubuntu 15.10": "Go: 200-224 ms",
    }
    assert {t.runtime for t in table} == {"erlang", "go", None}  # families ringbench drives, or none
    assert all(t.matches("erlang/tuned") for t in table if t.runtime == "erlang")  # matched by family
    assert not any(t.matches("go/stock") for t in table if t.runtime is None)
    drawn = seeds.tree_series()
    assert {s.runtime for s in drawn} == {"erlang", "go"} and len(drawn) == 8
    assert all(p.ns == pytest.approx(p.lo + (p.hi - p.lo) / 2) for s in drawn for p in s.points)
