#!/usr/bin/env python3
"""fidelity: every driver against the independent ring programs of its runtime, side by side.

The programs and the pairings are listed in scripts/fidelity/programs.toml: the Benchmarks Game
thread-ring programs, the seeds' programs, and the plain rings a competent programmer of each runtime
writes (those are in scripts/fidelity/programs/<id>/; third-party source is never committed: it is
fetched from its public address into the programs folder, and prepare.sh applies the documented
change). Each comparison is one `ringbench versus` run (interleaved, differential, see docs/versus.md),
made in this process through the API and stored like any run; this script only walks the list, keeps
every result, and renders the tables.

    .venv/bin/python scripts/fidelity.py prepare             # fetch, change, build every program
    .venv/bin/python scripts/fidelity.py run                 # every case, one after another
    .venv/bin/python scripts/fidelity.py run --only go       # the cases of one driver (or program)
    .venv/bin/python scripts/fidelity.py render --write      # tables into docs/results.md and READMEs

Results are appended to results/fidelity.jsonl one comparison at a time (each record keeps its figures,
every round's times and commands, and the id of its run in the store), so an interrupted run keeps what it
measured and `run` again resumes where it stopped (`--again` measures everything anew).
Run it on an idle machine; nothing else should run beside it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Run as a file, not as part of the package: make the checkout's ringbench importable (as versus does).
sys.path.insert(0, str(REPO))

import click  # noqa: E402

from ringbench import api  # noqa: E402
from ringbench.api import (  # noqa: E402
    DEFAULT_DB,
    DEFAULT_NS_PER_HOP,
    FORMER_NAMES,
    OWN_NS_PER_HOP,
    WALL_LONG,
    WALL_SHORT,
    Cell,
    Run,
    stats,
)
from ringbench.present import fmt  # noqa: E402

CATALOGUE = REPO / "scripts" / "fidelity" / "programs.toml"
SOURCES = REPO / "scripts" / "fidelity" / "programs"
DEFAULT_DIR = Path(os.environ.get("RINGBENCH_PROGRAMS", "/tmp/ringbench-programs"))
DEFAULT_OUT = REPO / "results" / "fidelity.jsonl"
BEGIN, END = "<!-- fidelity:begin -->", "<!-- fidelity:end -->"
TOOLCHAIN_PATH = f"/usr/local/go/bin:{Path.home()}/.cargo/bin"


class Stop(Exception):
    """One line for the user, then exit with the given status."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def load() -> tuple[dict[str, dict], list[dict], list[dict]]:
    """The catalogue: programs.toml, then each driver's own programs.d/<driver>.toml (a new driver adds
    its programs and cases in a file of its own)."""
    data: dict[str, list] = {"program": [], "case": [], "core": []}
    for path in [CATALOGUE, *sorted((CATALOGUE.parent / "programs.d").glob("*.toml"))]:
        try:
            part = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise Stop(f"cannot read {path}: {e}") from None
        for key in data:
            data[key] += part.get(key, [])
    programs = {p["id"]: p for p in data.get("program", [])}
    for c in data.get("case", []):
        if c["program"] not in programs:
            raise Stop(f"{CATALOGUE}: case {c['driver']} names unknown program {c['program']!r}")
    return programs, data.get("case", []), data.get("core", [])


def toolchain_env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{TOOLCHAIN_PATH}:{os.environ.get('PATH', '')}"}


def sh(cmd: str, cwd: Path) -> tuple[int, str]:
    p = subprocess.run(cmd, shell=True, cwd=cwd, capture_output=True, text=True, errors="replace", env=toolchain_env())
    tail = (p.stderr.strip() or p.stdout.strip()).splitlines()
    return p.returncode, tail[-1] if tail else ""


# -- prepare ----------------------------------------------------------------------------------
def prepare_one(prog: dict, root: Path) -> str | None:
    """Fetch, change and build one program into root/<id>; None when ready, else why not."""
    folder = root / prog["id"]
    folder.mkdir(parents=True, exist_ok=True)
    # Programs that differ only in how they are run (a tokio ring on either runtime) share one
    # source folder: `same_source` names the program whose files they are built from.
    ours = SOURCES / prog.get("same_source", prog["id"])
    if ours.is_dir():
        shutil.copytree(ours, folder, dirs_exist_ok=True)
    target = folder / prog["file"] if prog.get("file") else None
    if target and not target.exists():
        if not prog.get("fetch"):
            return f"no public address to fetch it from: save {prog['source']} as {target} and run prepare again"
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(prog["fetch"], timeout=30) as r:
                target.write_bytes(r.read())
        except OSError as e:
            return f"cannot fetch {prog['fetch']} ({e}); save {prog['source']} as {target} and run prepare again"
    if (folder / "prepare.sh").exists():
        rc, tail = sh("sh prepare.sh", folder)
        if rc:
            return f"prepare.sh failed (exit {rc}): {tail}"
    if prog.get("build"):
        rc, tail = sh(prog["build"], folder)
        if rc:
            return f"build failed (exit {rc}): {prog['build']}: {tail}"
    return None


def prepared(prog: dict, root: Path) -> bool:
    """Whether every file of the program's folder its command names ({dir}/...) is there."""
    folder = root / prog["id"]
    named = re.findall(r"\{dir\}(/[^\s'\":]*)?", prog.get("cmd", ""))  # a class path: one per entry
    return folder.is_dir() and all((folder / rest.lstrip("/").removesuffix("*")).exists() for rest in named)


# -- run --------------------------------------------------------------------------------------
DEFAULT_HOPS = 3_000_000  # a case's long-run hops when it names none


def case_hops(case: dict) -> int:
    return case.get("hops", DEFAULT_HOPS)


def key_of(rec: dict) -> tuple:
    # The hop count is part of the comparison: a case measured again with a longer run (e.g. past a
    # JIT's warm-up) is another comparison, not a repeat of the shorter one.
    return (
        rec["driver"],
        rec["program"],
        rec["cores"],
        rec["n"],
        rec.get("tokens", 1),
        rec.get("placement", "spread"),
        rec.get("hops"),
        rec.get("workload", "ring"),
        bool(rec.get("with_default")),  # measured with ringbench's default run beside: another comparison
        # a ring across nodes is another comparison than the in-node one of the same pairing
        rec.get("nodes", 1),
        rec.get("node_placement") if rec.get("nodes", 1) > 1 else None,
    )


NODE_PLACEMENTS = ("interleaved", "contiguous")


def case_layout(c: dict) -> dict:
    """A case's ring across nodes as a comparison's fields: {} on one node, else `nodes` and `node_placement`.
    `placement` names the nodes' layout when it is "interleaved" or "contiguous" (the default with `nodes`);
    "spread" and "burst" keep naming the tokens' placement."""
    nodes = c.get("nodes", 1)
    where = f"case {c['driver']} vs {c['program']}"
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise Stop(f"{where}: nodes must be an integer of at least 2, got {nodes!r}")
    layout = c["placement"] if c.get("placement") in NODE_PLACEMENTS else c.get("node_placement")
    if nodes == 1:
        if layout is not None:
            raise Stop(f"{where}: placement {layout!r} lays a ring out over nodes: give nodes = K (K >= 2)")
        return {}
    layout = layout or "interleaved"
    if layout not in NODE_PLACEMENTS:
        raise Stop(f"{where}: the nodes' placement must be interleaved or contiguous, got {layout!r}")
    return {"nodes": nodes, "node_placement": layout}


def token_placement(c: dict) -> str:
    return "spread" if c.get("placement") in NODE_PLACEMENTS else c.get("placement", "spread")


def read_records(out: Path) -> list[dict]:
    if not out.exists():
        return []
    recs = []
    for i, line in enumerate(out.read_text().splitlines(), 1):
        if line.strip():
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError:
                raise Stop(f"{out}:{i} is not a JSON record (a torn write?): remove that line") from None
    return recs


def plan(
    cases: list[dict], core: list[dict] | None, only: tuple[str, ...], cores: tuple[str, ...], sizes: tuple[int, ...]
) -> list[dict]:
    """The comparisons to run: each case's sizes × core settings, or only those the [[core]] list
    names (the published set), each taking its hops, tokens and placement from its case. A [[core]]
    entry that gives `hops` picks the case with that hop count where a pairing has several."""
    wanted = []
    if core is None:
        for c in cases:
            wanted += [(c, n, core_) for core_ in c.get("cores", ["1", "all"]) for n in c["sizes"]]
    else:
        for k in core:
            for n in k["sizes"]:
                match = [
                    c
                    for c in cases
                    if c["driver"] == k["driver"]
                    and c["program"] == k["program"]
                    and c.get("tokens", 1) == k.get("tokens", 1)
                    and n in c["sizes"]
                    and k.get("hops", case_hops(c)) == case_hops(c)
                    and k.get("nodes", 1) == c.get("nodes", 1)
                ]
                if not match:
                    raise Stop(f"{CATALOGUE}: [[core]] {k['driver']} vs {k['program']} at N={n:,} has no [[case]]")
                wanted += [(match[0], n, core_) for core_ in k.get("cores", match[0].get("cores", ["1", "all"]))]
    todo = []
    for c, n, core_ in wanted:
        if only and not any(o in c["driver"] or o == c["program"] for o in only):
            continue
        if (cores and core_ not in cores) or (sizes and n not in sizes):
            continue
        todo.append(
            {
                "driver": c["driver"],
                "program": c["program"],
                "cores": core_,
                "n": n,
                "tokens": c.get("tokens", 1),
                "placement": token_placement(c),
                **case_layout(c),
                "hops": case_hops(c),
                "note": c.get("note", ""),
                **({"workload": "tree", "fanout": c.get("fanout", 10)} if c.get("workload") == "tree" else {}),
                **({"label": c["label"]} if "label" in c else {}),
            }
        )
    # Smaller rings first: a run cut short still has every driver at the sizes that matter most.
    return sorted(todo, key=lambda t: (t["n"], t["cores"]))


def versus_kwargs(item: dict, prog: dict, root: Path, rounds: int) -> dict:
    """The comparison as api.versus's arguments."""
    folder = str(root / prog["id"])
    common = {
        "runtime": item["driver"],
        "program": prog["cmd"].replace("{dir}", folder),
        "n": item["n"],
        "cores": item["cores"],
        "rounds": rounds,
        "label": prog["id"],
        "env": [f"{k}={v.replace('{dir}', folder)}" for k, v in prog.get("env", {}).items()],
        "no_driver_env": bool(prog.get("no_driver_env")),
    }
    if item.get("workload") == "tree":  # a short tree of N / fanout leaves against the tree of N
        return {**common, "workload": "tree", "fanout": item["fanout"]}
    tokens = item["tokens"]
    with_default = {"with_default": True} if item.get("with_default") else {}
    # The short run does a tenth of the long run's laps and needs at least one: at large N the long
    # run gets at least 10 laps, whatever the case's hop count says.
    hops = max(item["hops"], 10 * item["n"] * tokens)
    return {
        "runtime": item["driver"],
        "program": prog["cmd"].replace("{dir}", folder),
        "n": item["n"],
        "hops": hops,
        "cores": item["cores"],
        "rounds": rounds,
        "tokens": tokens,
        "placement": item["placement"],
        "label": prog["id"],
        "env": [f"{k}={v.replace('{dir}', folder)}" for k, v in prog.get("env", {}).items()],
        "no_driver_env": bool(prog.get("no_driver_env")),
        **with_default,
        **({"nodes": item["nodes"], "node_placement": item["node_placement"]} if item.get("nodes", 1) > 1 else {}),
    }


def versus_args(item: dict, prog: dict, root: Path, rounds: int) -> list[str]:
    """The same comparison as `ringbench versus` arguments (the command each record names)."""
    kw = versus_kwargs(item, prog, root, rounds)
    args = ["-r", kw["runtime"], "-p", kw["program"], "-n", str(kw["n"])]
    if kw.get("workload") == "tree":
        args += ["-w", "tree", "--fanout", str(kw["fanout"])]
    else:
        args += ["--hops", str(kw["hops"])]
    args += ["--cores", kw["cores"], "--rounds", str(kw["rounds"]), "--label", kw["label"]]
    if kw.get("tokens", 1) != 1:
        args += ["--tokens", str(kw["tokens"])]
    if kw.get("placement", "spread") != "spread":
        args += ["--placement", kw["placement"]]
    if kw.get("nodes", 1) > 1:
        args += ["--nodes", str(kw["nodes"]), "--node-placement", kw["node_placement"]]
    for pair in kw["env"]:
        args += ["--env", pair]
    if kw["no_driver_env"]:
        args.append("--no-driver-env")
    if kw.get("with_default"):
        args.append("--with-default")
    return args


def side_report(c: Cell) -> dict:
    """One side of one N as results/fidelity.jsonl has always kept it (the figures of scripts/versus.py --json)."""
    values = c.values()
    lo, hi = stats.bootstrap_median_ci(values)
    out = {
        "ns_per_hop": stats.summarize(values).median,
        "ci": [lo, hi],
        "per_round": values,
        "seconds_m1": c.values(WALL_SHORT),
        "seconds_m2": c.values(WALL_LONG),
        "command_m1": c.extra.get("command_m1"),
        "command_m2": c.extra.get("command_m2"),
    }
    if c.settings.get("side") == "driver":
        own = c.values(OWN_NS_PER_HOP)
        out.update(own_ns_per_hop=stats.summarize(own).median if own else None, own_per_round=own)
        default = c.values(DEFAULT_NS_PER_HOP)
        if default:
            out.update(default_ns_per_hop=stats.summarize(default).median, default_per_round=default)
    return out


def default_comparison(program: Cell, driver: Cell) -> dict:
    """The default figure (`versus --with-default`) against the program's: ratio default / program, its
    bootstrap interval and the Mann-Whitney test over the rounds, as the differential ratio has them."""
    default = driver.values(DEFAULT_NS_PER_HOP)
    if not default:
        return {}
    d = stats.compare(program.values(), default)
    return {
        "default_ratio": d.ratio,
        "default_ratio_ci": list(d.ratio_ci),
        "default_p_value": d.p_value,
        "default_significant": d.significant,
    }


def report(run: Run) -> dict:
    """A stored versus run in the shape results/fidelity.jsonl keeps (what `render` reads), with its run id."""
    cells = []
    for pair in api.versus_pairs(run):
        d = pair.difference
        if d is None:
            continue
        p = pair.params
        if "fanout" in p:  # the tree: the short and long runs' sizes are leaves; the work is processes
            procs = [(p["fanout"] * x - 1) // (p["fanout"] - 1) for x in (pair.m1, p["n"])]
            p = {"n": p["n"], "m": p["n"], "tokens": 1, "burst": 0}
        cells.append(
            {
                "n": p["n"],
                "m1": pair.m1,
                "m2": p["m"],
                "tokens": p["tokens"],
                "placement": "burst" if p["burst"] else "spread",
                **(
                    {"nodes": p["nodes"], "node_placement": ("contiguous", "interleaved")[p["node_placement"]]}
                    if p.get("nodes", 1) > 1
                    else {}
                ),
                "hops_m1": procs[0] if "fanout" in pair.params else p["n"] * pair.m1 * p["tokens"],
                "hops_m2": procs[1] if "fanout" in pair.params else p["n"] * p["m"] * p["tokens"],
                "hops_difference": (
                    procs[1] - procs[0] if "fanout" in pair.params else p["n"] * (p["m"] - pair.m1) * p["tokens"]
                ),
                **({"workload": "tree", "fanout": pair.params["fanout"]} if "fanout" in pair.params else {}),
                "driver": side_report(pair.driver),
                "program": side_report(pair.program),
                "ratio": d.ratio,
                "ratio_ci": list(d.ratio_ci),
                "p_value": d.p_value,
                "significant": d.significant,
                "at_least_as_fast": d.ratio <= 1.0,
                "verdict": pair.verdict,
                "order": [list(o) for o in pair.order],
                **default_comparison(pair.program, pair.driver),
            }
        )
    s, first = run.settings, run.cells[0]
    return {
        "tool": "ringbench versus",
        "command": run.command,
        "run_id": run.run_id,
        "db": str(run.db),
        "runtime": s["runtimes"][0],
        "program": s["versus"]["program"],
        "cores": first.cores,
        "scheduler_threads": first.settings.get("schedulers"),
        "pinned_cpu": first.settings.get("pinned_cpu"),
        "rounds": run.options.repeat,
        "warmup_runs": run.options.warmup,
        "program_env": s["versus"]["program_env"],
        "environment": run.environment,
        "cells": cells,
        "warnings": [w.text for w in run.warnings],
    }


def compare_one(item: dict, prog: dict, root: Path, rounds: int, db: Path, command: str) -> dict:
    """Run one comparison (api.versus, in this process) and return what its record holds: its report, or
    the one line that says why it failed."""
    try:
        run = api.versus(**versus_kwargs(item, prog, root, rounds), db=db, command=command)
    except (api.InputError, api.RunFailed) as e:
        return {"error": str(e)}
    if run.status == "interrupted":
        raise KeyboardInterrupt
    if run.status != "complete":
        why = next((p.failure for p in api.versus_pairs(run) if p.failure), None) or f"run {run.status}"
        return {"error": why, "run_id": run.run_id}
    return {"report": report(run)}


def across(t: dict) -> str:
    """ ", 2 nodes interleaved" for a ring across nodes, "" for one on one node."""
    return f", {t['nodes']} nodes {t['node_placement']}" if t.get("nodes", 1) > 1 else ""


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()


def head_commit(out: Path | None = None) -> str:
    """The checkout's commit, read again for every comparison: drivers can change during a long run.

    Changes to results files do not count as uncommitted changes: `out`, the file this run appends
    to, results/fidelity.jsonl, which a run with another --out leaves as it is, and docs/results.md,
    and the pages under docs/results/, which the scripts write their tables into (the comparisons' output,
    not what they measure)."""
    spec = ["--", "."]
    outputs = {REPO / "results" / "fidelity.jsonl", REPO / "docs" / "results.md", REPO / "docs" / "results"}
    for f in outputs | ({out.resolve()} if out is not None else set()):
        if f.is_relative_to(REPO):
            spec.append(f":(exclude){f.relative_to(REPO)}")
    dirty = " (uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no", *spec) else ""
    return git("rev-parse", "--short=12", "HEAD") + dirty


# -- render -----------------------------------------------------------------------------------
def latest(recs: list[dict]) -> dict[tuple, dict]:
    out: dict[tuple, dict] = {}
    for r in recs:
        if "driver" in r:
            out[key_of(r)] = r
    return out


def kept_comparisons(out: Path, again: bool) -> set[tuple]:
    """The comparisons `run` does not measure again: those that ended at a committed state (none with
    --again). A failed one, or one measured with uncommitted changes (never published), is measured again."""
    if again:
        return set()
    return {k for k, r in latest(read_records(out)).items() if "error" not in r and not is_dirty(r)}


def setting(r: dict) -> str:
    """A comparison's setting column: cores, the program's label, rounds other than 5, tokens, tree."""
    where = ("1 core" if r["cores"] == "1" else "all cores") + (f", {r['label']}" if r.get("label") else "")
    where += ", again" if r.get("again") else ""
    rounds = r.get("report", {}).get("rounds", 5)
    where += (f", {rounds} round" + "s" * (rounds != 1)) if rounds != 5 else ""
    place = "" if r.get("tokens", 1) == 1 else f", {r['tokens']} tokens {r.get('placement', 'spread')}"
    if r.get("workload") == "tree":  # its figures are ns per process, not per hop
        place += f", tree (fanout {r.get('fanout', 10)}; ns/proc)"
    if r.get("nodes", 1) > 1:  # a ring across nodes: a comparison of its own
        place += f", {r['nodes']} nodes {r.get('node_placement', 'interleaved')}"
    return where + place


def ratio_columns(ratio: float, ci: list[float], p_value: float | None, significant: bool | None) -> str:
    """The ratio with its interval, p, and whether the driver is at least as fast (significantly or not)."""
    lo, hi = ci
    p = "–" if p_value is None else f"{p_value:.2g}"
    if ratio <= 1.0:
        verdict = "yes" if hi <= 1.0 or significant else "yes (not significant)"
    else:
        verdict = "**no**" if significant else "no (not significant)"
    return f"{ratio:.2f} ({lo:.2f}–{hi:.2f}) | {p} | {verdict}"


def row(r: dict, default: bool = False) -> str:
    """A comparison's table row; `default`: the default figure against the program's (`run --with-default`),
    with the differential driver figure of the same rounds beside it."""
    commit = r.get("commit", "")[:7]
    if is_dirty(r):  # no checkout reproduces it: its figures are not published
        blanks = "– | " * (3 + default)
        return (
            f"| {r['program']} | {setting(r)} | {r['n']:,} | {blanks}– | awaits re-measuring at a committed "
            f"state (measured with uncommitted changes) | {commit} |"
        )
    if "error" in r:
        blanks = "– | " * (2 + default)
        return f"| {r['program']} | {setting(r)} | {r['n']:,} | {blanks}failed: {r['error']} | | | {commit} |"
    c = r["report"]["cells"][0]
    figures = [c["driver"]["ns_per_hop"], c["program"]["ns_per_hop"]]
    pre = "default_" if default else ""
    ratio = ratio_columns(c[pre + "ratio"], c[pre + "ratio_ci"], c[pre + "p_value"], c[pre + "significant"])
    return (
        f"| {r['program']} | {setting(r)} | {r['n']:,} | "
        + "".join(f"{fmt(x)} | " for x in ([c["driver"]["default_ns_per_hop"]] if default else []) + figures)
        + f"{ratio} | {commit} |"
    )


def case_note(cases: list[dict], r: dict) -> str:
    """The note the catalogue has now for a record's case (it may have been reworded since the run)."""
    same = [
        c
        for c in cases
        if (c["driver"], c["program"], c.get("tokens", 1)) == (r["driver"], r["program"], r.get("tokens", 1))
        and c.get("nodes", 1) == r.get("nodes", 1)
        and r["n"] in c["sizes"]
    ]
    if not same:
        return r.get("note", "")
    # The case with the record's hop count, else (its hops changed since the run) the first one.
    return min(same, key=lambda c: case_hops(c) != r.get("hops")).get("note", "")


def driver_table(driver: str, rows: list[dict], cases: list[dict]) -> list[str]:
    out = [
        f"**{driver}**",
        "",
        "| program | setting | N | driver ns/hop | program ns/hop | ratio (95 % CI) | p | at least as fast | commit |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    order = {"1": 0, "all": 1}
    for r in sorted(
        rows,
        key=lambda r: (
            r["program"],
            r.get("nodes", 1),
            order[r["cores"]],
            r.get("tokens", 1),
            r["n"],
            r.get("hops", 0),
            r["again"],
        ),
    ):
        out.append(row(r))
    notes = sorted({f"{r['program']}: {case_note(cases, r)}" for r in rows if case_note(cases, r)})
    out += [""] + [f"- {n}" for n in notes] if notes else []
    return out


def default_tables(cells: list[dict]) -> list[str]:
    """The comparisons measured with the default run beside, in one table, a row per driver and program."""
    if not cells:
        return []
    out = [
        "### At the default settings",
        "",
        "The same comparisons with ringbench's default measurement in every round (`scripts/fidelity.py "
        "run --with-default`): one fresh driver process a round, measured as `ringbench run ring -r "
        "DRIVER -n N --cores C` measures each repeat (warm-ups until settled, a JIT's seconds first, M "
        "calibrated to 100 ms of messages), the message phase per hop as the driver times it. default "
        "ns/hop: its median over the rounds, the figure ringbench prints; ratio = default / program, "
        "its 95 % interval and p as above. The differential driver figure of the same rounds is "
        "beside it.",
        "",
    ]
    order = {"1": 0, "all": 1}
    out += [
        "| driver | program | setting | N | default ns/hop | driver ns/hop (differential) | program ns/hop | "
        "default/program (95 % CI) | p | at least as fast | commit |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in sorted(cells, key=lambda r: (r["driver"], r["program"], order[r["cores"]], r["n"], r.get("hops", 0))):
        out.append(f"| {r['driver']} {row(r, default=True)}")
    return out + [""]


def programs_list(programs: dict[str, dict], used: set[str]) -> list[str]:
    out = ["| program | what it is | origin | change made for the comparison | idiom |", "|---|---|---|---|---|"]
    for pid in sorted(used):
        p = programs[pid]
        origin = p["origin"] if not p.get("source") else f"{p['origin']}: <{p['source']}>"
        out.append(f"| {pid} | {p['title']} | {origin} | {p.get('change') or '–'} | {p.get('idiom', '')} |")
    return out


def commands(rows: list[dict]) -> list[str]:
    out = [
        "<details><summary>Commands (each row's versus command; the per-run driver and program "
        "commands are in results/fidelity.jsonl)</summary>",
        "",
        "```",
    ]
    for r in sorted(rows, key=lambda r: (r["driver"], r["program"], r["cores"], r["n"])):
        out.append(r["command"])
    return out + ["```", "", "</details>"]


def is_dirty(r: dict) -> bool:
    """A record measured with uncommitted changes (its commit says so)."""
    return "uncommitted" in r.get("commit", "")


def header(recs: list[dict]) -> list[str]:
    metas = [r["meta"] for r in recs if "meta" in r]
    if not metas:
        return []
    commits = sorted({r["commit"] for r in recs if "report" in r and not is_dirty(r)})
    # Only those not measured since at a committed state (render leaves the others out).
    committed = {key_of(r) for r in recs if "report" in r and not is_dirty(r)}
    dirty = [r for r in recs if "report" in r and is_dirty(r) and key_of(r) not in committed]
    unpublished = (
        f" {len(dirty)} comparison(s) measured with uncommitted changes and not since are not published "
        "(their rows say so): no checkout reproduces them; `scripts/fidelity.py run` measures them anew."
        if dirty
        else ""
    )
    first, last = metas[0], metas[-1]
    loads = sorted(m["load"][0] for m in metas)
    when = first["started"] if len(metas) == 1 else f"{first['started']} … {last['started']}"
    return [
        f"Measured by `scripts/fidelity.py run` at commit {', '.join(commits)} in {len(metas)} session(s) "
        f"started {when}; load average at each start {loads[0]}–{loads[-1]} "
        "(the thread rings themselves raise it). Rendered by `scripts/fidelity.py render --write` from "
        "results/fidelity.jsonl, which keeps every round's times and commands." + unpublished,
        "",
    ]


def render(recs: list[dict], programs: dict[str, dict], cases: list[dict]) -> str:
    # Every measurement is shown, a repeated one too (marked "again"): a comparison measured twice
    # is reported twice, never only the run that came out better. A failed run that was measured
    # again successfully is left out (its error stays in the JSON lines file), and so is one measured
    # with uncommitted changes once the same comparison has been measured at a committed state: its
    # figures were never published, and a row saying it awaits re-measuring would be untrue.
    seen: dict[tuple, int] = {}
    ok = {key_of(r) for r in recs if "report" in r}
    committed = {key_of(r) for r in recs if "report" in r and not is_dirty(r)}
    cells = []
    for r in recs:
        if "driver" not in r or ("error" in r and key_of(r) in ok) or (is_dirty(r) and key_of(r) in committed):
            continue
        seen[key_of(r)] = seen.get(key_of(r), 0) + 1
        cells.append({**r, "again": seen[key_of(r)] > 1})
    if not cells:
        return "No side-by-side comparison has been measured yet (`scripts/fidelity.py run`)."
    by_driver: dict[str, list[dict]] = {}
    for r in cells:
        if not r.get("with_default"):
            by_driver.setdefault(r["driver"], []).append(r)
    out = header(recs)
    out += [
        "ns/hop: the differential figure of `ringbench versus` (wall time of whole processes at a "
        "short and a long lap count; start-up, spawn and teardown cancel), median of 5 interleaved "
        "rounds (a row names another count); ratio = driver / program, ≤ 1.00 means the driver "
        "is at least as fast; p: "
        'two-sided Mann-Whitney U over the rounds. "1 core": both pinned to one CPU, one '
        'scheduler thread; "all cores": both CPUs.',
        "",
    ]
    for d in sorted(by_driver):
        out += driver_table(d, by_driver[d], cases) + [""]
    out += default_tables([r for r in cells if r.get("with_default")])
    out += ["The programs:", ""] + programs_list(programs, {r["program"] for r in cells}) + [""]
    out += commands(cells)
    return "\n".join(out)


def replace_block(path: Path, body: str, heading: str | None) -> bool:
    text = path.read_text()
    block = f"{BEGIN}\n{body}\n{END}"
    if BEGIN in text and END in text:
        new = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    elif heading:
        new = text.rstrip("\n") + f"\n\n{heading}\n\n{block}\n"
    else:
        return False
    path.write_text(new)
    return new != text


def driver_folder(driver: str) -> Path:
    return REPO / "drivers" / driver.split("/")[0]


# -- command line -----------------------------------------------------------------------------
@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--catalogue",
    type=click.Path(path_type=Path),
    default=CATALOGUE,
    show_default=True,
    help="The list of programs and cases (its programs' own sources beside it, in programs/).",
)
def cli(catalogue: Path) -> None:
    """Every driver against the independent ring programs of its runtime (scripts/fidelity/programs.toml)."""
    global CATALOGUE, SOURCES
    CATALOGUE, SOURCES = catalogue, catalogue.parent / "programs"


DIR_OPT = click.option(
    "--programs",
    "root",
    type=click.Path(path_type=Path),
    default=DEFAULT_DIR,
    show_default=True,
    help="Where the programs are fetched and built ($RINGBENCH_PROGRAMS).",
)
ONLY_OPT = click.option(
    "--only",
    multiple=True,
    metavar="NAME",
    help="Only cases whose driver contains NAME or whose program is NAME (repeatable).",
)


ALL_OPT = click.option(
    "--all", "every", is_flag=True, help="Every [[case]] of the catalogue, not only the [[core]] set."
)


@cli.command()
@DIR_OPT
@ONLY_OPT
@ALL_OPT
def prepare(root: Path, only: tuple[str, ...], every: bool) -> None:
    """Fetch each third-party program, apply its documented change, and build every program."""
    programs, cases, core = load()
    wanted = {t["program"] for t in plan(cases, None if every else core, only, (), ())}
    failed = 0
    for pid in sorted(wanted):
        click.echo(f"fidelity: preparing {pid} in {root / pid}", err=True)
        why = prepare_one(programs[pid], root)
        if why:
            failed += 1
            click.echo(f"fidelity: {pid}: {why}", err=True)
    if failed:
        raise Stop(f"{failed} of {len(wanted)} programs are not ready (above)", 1)
    click.echo(f"fidelity: {len(wanted)} programs ready in {root}", err=True)


@cli.command()
@DIR_OPT
@ONLY_OPT
@click.option("--cores", "cores", multiple=True, type=click.Choice(["1", "all"]), help="Only this setting.")
@click.option("--size", "sizes", multiple=True, type=int, metavar="N", help="Only this ring size (repeatable).")
@click.option("--rounds", default=5, show_default=True, type=click.IntRange(min=1), help="Rounds per comparison.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=DEFAULT_OUT,
    show_default=True,
    help="JSON lines file; one record per comparison, appended as each ends.",
)
@click.option("--again", is_flag=True, help="Measure cases already in --out again.")
@click.option(
    "--with-default",
    is_flag=True,
    help="Each round also measures the driver as `ringbench run` does by default (versus --with-default): "
    "the published default figure against the program, in a table of its own. Rings only.",
)
@ALL_OPT
@click.option("--dry-run", is_flag=True, help="List the comparisons and exit.")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="The store each comparison's run goes to (as `ringbench versus --db`).",
)
def run(
    root: Path,
    only,
    cores,
    sizes,
    rounds: int,
    out: Path,
    again: bool,
    with_default: bool,
    every: bool,
    dry_run: bool,
    db: Path,
) -> None:
    """Run the comparisons (versus, interleaved), one after another, appending results to --out."""
    programs, cases, core = load()
    todo = plan(cases, None if every else core, only, cores, sizes)
    if with_default:  # the tree has no default figure to set beside a program's
        todo = [{**t, "with_default": True} for t in todo if t.get("workload", "ring") == "ring"]
    if not todo:
        raise Stop(
            "no comparison in the catalogue matches --only/--cores/--size"
            + ("" if every else " among the [[core]] set (--all for every [[case]])")
        )
    done = kept_comparisons(out, again)
    todo = [t for t in todo if key_of(t) not in done]
    if not todo:
        click.echo("fidelity: nothing to measure (all in --out; --again to measure anew)", err=True)
        return
    if dry_run:
        for t in todo:
            click.echo(shlex.join(["ringbench", "versus", *versus_args(t, programs[t["program"]], root, rounds)]))
        return
    # A program that is not prepared is skipped (named at the end), not run and recorded as a failure.
    missing = sorted({t["program"] for t in todo if not prepared(programs[t["program"]], root)})
    if missing:
        click.echo(
            f"fidelity: not prepared in {root}, skipped: {', '.join(missing)} (`scripts/fidelity.py "
            "prepare --only NAME`)",
            err=True,
        )
        todo = [t for t in todo if t["program"] not in missing]
    out.parent.mkdir(parents=True, exist_ok=True)
    # The programs and the drivers run with the toolchains on PATH (go, cargo), as `prepare` built them.
    os.environ["PATH"] = toolchain_env()["PATH"]
    meta = {
        "commit": head_commit(out),
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": Path("/proc/loadavg").read_text().split()[:3],
    }
    with out.open("a") as f:
        f.write(json.dumps({"meta": meta}) + "\n")
    started = time.monotonic()
    failures = 0
    for i, t in enumerate(todo, 1):
        command = shlex.join(["ringbench", "versus", *versus_args(t, programs[t["program"]], root, rounds)])
        spent = time.monotonic() - started
        eta = f", ~{spent / (i - 1) * (len(todo) - i + 1) / 60:.0f} min left" if i > 1 else ""
        click.echo(
            f"fidelity: [{i}/{len(todo)}] {t['driver']} vs {t['program']}, N={t['n']:,}, cores "
            f"{t['cores']}{across(t)} ({spent / 60:.1f} min{eta})",
            err=True,
        )
        try:
            got = compare_one(t, programs[t["program"]], root, rounds, db, command)
        except KeyboardInterrupt:
            raise Stop("interrupted; `scripts/fidelity.py run` again resumes with this comparison", 130) from None
        rec = {**t, "command": command, "commit": head_commit(out), **got}
        if "report" in rec:
            c = rec["report"]["cells"][0]
            default = (
                f"; default {fmt(c['driver']['default_ns_per_hop'])} ns/hop, ratio {c['default_ratio']:.2f}"
                if "default_ratio" in c
                else ""
            )
            click.echo(
                f"fidelity:   driver {fmt(c['driver']['ns_per_hop'])} ns/hop, program "
                f"{fmt(c['program']['ns_per_hop'])}, ratio {c['ratio']:.2f}{default} (run {rec['report']['run_id']})",
                err=True,
            )
        else:
            failures += 1
            click.echo(f"fidelity:   {rec['error']}", err=True)
        with out.open("a") as f:
            f.write(json.dumps(rec) + "\n")
    click.echo(
        f"fidelity: {len(todo)} comparisons in {(time.monotonic() - started) / 60:.1f} min, "
        f"{failures} failed; results in {out}",
        err=True,
    )
    if missing:
        raise Stop(f"not measured, not prepared: {', '.join(missing)}", 1)
    if failures:
        raise Stop(
            f"{failures} of {len(todo)} comparisons failed (kept in {out}; `run --again --only ...` "
            "measures them anew)",
            1,
        )


@cli.command("render")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=DEFAULT_OUT,
    show_default=True,
    help="The JSON lines file `run` wrote.",
)
@click.option("--write", is_flag=True, help="Write the tables into docs/results.md and each driver's README.")
def render_cmd(out: Path, write: bool) -> None:
    """Print the side-by-side tables as Markdown (or write them into the docs)."""
    programs, cases, _ = load()
    # A comparison recorded under a variant's contract-2 name is shown under its name now, beside
    # (before) the same comparison measured again since.
    recs = [
        {**r, "driver": FORMER_NAMES.get(r["driver"], r["driver"])} if "driver" in r else r for r in read_records(out)
    ]
    if not recs:
        raise Stop(f"no results in {out} (run `scripts/fidelity.py run` first)")
    if not write:
        click.echo(render(recs, programs, cases))
        return
    heading = "## Side by side: each driver against independent programs of its runtime"
    replace_block(REPO / "docs" / "results.md", render(recs, programs, cases), heading)
    for folder in sorted({driver_folder(r["driver"]) for r in recs if "driver" in r}):
        mine = [r for r in recs if "meta" in r or ("driver" in r and driver_folder(r["driver"]) == folder)]
        replace_block(folder / "README.md", render(mine, programs, cases), "## Side by side with independent programs")
    click.echo("fidelity: wrote docs/results.md and the drivers' READMEs", err=True)


def main() -> int:
    try:
        cli.main(prog_name="scripts/fidelity.py", standalone_mode=False)
        return 0
    except Stop as e:
        click.echo(f"fidelity: {e}", err=True)
        return e.status
    except click.ClickException as e:
        click.echo(f"fidelity: error: {e.format_message()}", err=True)
        return 2
    except (KeyboardInterrupt, click.exceptions.Abort):
        click.echo("fidelity: interrupted; `scripts/fidelity.py run` again resumes", err=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())
