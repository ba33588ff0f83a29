"""`versus`: a driver against a program of your own, stored as a run."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..harness import versus as _versus
from ..harness.versus import VersusRequest
from ..results import stats
from ..results.model import Cell, Run
from ..results.modes import Versus
from ..results.relative import Relative, group_key, relatives
from ..results.store import DEFAULT_DB
from .errors import InputError
from .lifecycle import RecordedRun


class RunFailed(RuntimeError):
    """A comparison that could not start (its build command failed): one line, exit 1, nothing stored."""


def versus(
    *request: Any,
    db: Path | str = DEFAULT_DB,
    command: str = "ringbench versus (api)",
    on_progress: Callable[[str], None] = lambda text: None,
    **fields: Any,
) -> Run:
    """One driver against an independent ring program, interleaved, both timed from outside; stored as a run.

    `request` is what to compare, a VersusRequest (its fields say what each means), or its fields themselves,
    as the command line and scripts/fidelity.py give them (runtime, program, n, m=…, rounds=…):

        run = api.versus(api.VersusRequest("go/stock", "./ring {n} {m}", "1000,10000", rounds=5))
        run = api.versus("go/stock", "./ring {n} {m}", "1000,10000", rounds=5)  # the same

    Bad input is an InputError (nothing run, nothing stored); a build that fails is RunFailed (nothing
    stored). Otherwise the run is returned as stored: status complete; failed (a run failed: the comparison
    stopped there and the cells of that N hold the reason, `versus_pairs(run)[i].failure`); or interrupted.
    `on_progress(text)` reports what is being run.
    """
    ask = _request(request, fields)
    try:
        req = _versus.plan(ask)
        _versus.check_driver(req)  # what the driver cannot do is said before anything is built
        if ask.build:
            on_progress(f"building: {ask.build}")
            try:
                _versus.build(ask.build)
            except _versus.Failed as e:
                raise RunFailed(str(e)) from None
        _versus.check_program(req, built=bool(ask.build))
    except _versus.BadRequest as e:
        raise InputError(str(e)) from None
    settings = {
        "workload": req.points[0].workload.name,
        "runtimes": [req.driver.name, req.program_runtime],
        "grid": [json.dumps(p.params, sort_keys=True) for p in req.points],
        "cores": [req.cores],
        "baseline": None,
        "tuned": False,
        **vars(req.options),
        "versus": {
            "program": req.program,
            "label": req.label,
            "program_env": dict(req.env),
            "driver_env": not ask.no_driver_env,
            "build": ask.build,
            ("n1" if req.points[0].fanout else "m1"): {str(p.n): p.m1 for p in req.points},
            # a ring across nodes: the driver's K and layout; the program is given them as {nodes} {placement}
            **(
                {"nodes": req.points[0].nodes, "node_placement": req.points[0].node_placement}
                if req.points[0].nodes > 1
                else {}
            ),
        },
    }
    if not Path(db).exists():
        on_progress(f"creating the store {db}")
    with RecordedRun(db, command, settings, 2 * len(req.points)) as rec:
        rec.begin()
        return rec.run(
            lambda: _versus.measure(req, rec.sink, on_progress),
            {_versus.Failed: "failed", KeyboardInterrupt: "interrupted"},
        )


def _request(given: tuple, fields: dict) -> VersusRequest:
    """The request itself, or the one its fields describe (a TypeError for a field it does not have)."""
    if len(given) == 1 and isinstance(given[0], VersusRequest):
        if fields:
            raise TypeError("versus takes a VersusRequest or its fields (runtime, program, n, …), not both")
        return given[0]
    return VersusRequest(*given, **fields)


@dataclass(frozen=True)
class VersusPair:
    """One N of a versus run: the driver's cell, the program's, and the driver row's comparison with the
    program's (the table's ratio driver/program; None unless both cells are ok)."""

    driver: Cell
    program: Cell
    relative: Relative | None

    @property
    def params(self) -> dict:
        return self.driver.used_params

    @property
    def m1(self) -> int:
        """The short run's size: its laps (ring) or its leaves (tree)."""
        x, y = self.driver.extra, self.program.extra
        return int(x.get("m1") or y.get("m1") or x.get("n1") or y.get("n1") or 0)

    @property
    def difference(self) -> stats.Difference | None:
        r = self.relative
        if r is None or r.ratio is None or r.ratio_ci is None:
            return None
        return stats.Difference(r.ratio, r.ratio_ci, r.p_value, r.significant)

    @property
    def verdict(self) -> str | None:
        d = self.difference
        return None if d is None else Versus.verdict(d)

    @property
    def failure(self) -> str | None:
        """Why this N was not compared (the one line naming the run that failed), or None."""
        return next((c.reason or c.status for c in (self.driver, self.program) if not c.ok), None)

    @property
    def order(self) -> list[tuple[str, str, int]]:
        """Every run of this N as it was launched: (phase, side, laps), warm-ups first."""
        runs: list[tuple[int, str, str, int]] = []
        for c in (self.driver, self.program):
            side = c.settings.get("side", "")
            short = int(c.extra.get("m1", c.extra.get("n1", 0)))
            runs += [(k, "warm-up", side, short) for k in c.extra.get("warmup_launches", [])]
            for r in c.records:
                runs += [(r["launch_m1"], f"round {r['round']}", side, r.get("m1", r.get("n1", 0)))]
                runs += [(r["launch_m2"], f"round {r['round']}", side, r.get("m", r["n"]))]
        return [(phase, side, laps) for _, phase, side, laps in sorted(runs)]


def versus_pairs(run: Run) -> list[VersusPair]:
    """The N of a versus run in the order measured, each with its two cells and their comparison."""
    rel = relatives(run.cells, run.baseline)
    sides: dict[str, dict[str, int]] = {}
    for i, c in enumerate(run.cells):
        sides.setdefault(group_key(c), {})[c.settings.get("side", "")] = i
    out = []
    for members in sides.values():
        if "driver" in members and "program" in members:
            d, p = members["driver"], members["program"]
            out.append(VersusPair(run.cells[d], run.cells[p], rel.get(d)))
    return out
