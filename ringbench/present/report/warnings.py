"""The report's warnings: one line per kind, with the cells it applies to and the range of their figures.

Warnings are values (results.noise.RunWarning): a cell warning names its cell (`where`) and carries its
figure; nothing is parsed back from text.
"""

from __future__ import annotations

from ...results.model import Cell, Run
from ...results.noise import RunWarning
from ..style import cores_text, fmt_count
from .html import e


def group(runs: list[Run], cells: list[Cell] | None = None) -> list[dict]:
    """One group per kind of warning: cell warnings with the cells they name and the range of their
    coefficients of variation, run warnings with the runs they came from. With `cells` (the cells the
    report shows, the latest of each), cell warnings are theirs, so a cell measured by two runs counts once."""
    groups: dict[tuple[str, str], dict] = {}
    for run in runs:
        for w in run.warnings:
            if not (w.cell and cells is not None):
                _add(groups, run, w)
    for c in cells or []:
        for w in c.warnings():
            _add(groups, None, w)
    return _lines(groups)


def _add(groups: dict, run: Run | None, w: RunWarning) -> None:
    """Add one warning to its kind's group: a cell's to the cells named, a run's to the runs."""
    key = (w.kind, w.what if w.cell else w.text)
    g = groups.setdefault(key, {"text": key[1], "advice": w.advice, "cv": [], "cells": [], "runs": []})
    if w.cell:
        where = w.where or {"runtime": w.cell, "cores": "", "params": {}}
        params = ", ".join(
            f"{k.upper() if len(k) == 1 else k} = {fmt_count(int(v))}" for k, v in where["params"].items()
        )
        g["cells"].append((f"{where['runtime']} · {cores_text(where['cores'])} · {params}", w.detail))
        if "cv" in w.figures:
            g["cv"].append(w.figures["cv"] * 100)
    elif run is not None and run.run_id not in g["runs"]:
        g["runs"].append(run.run_id)


def _lines(groups: dict) -> list[dict]:
    out = []
    for g in groups.values():
        cv = g["cv"]
        figures = f" (CV {min(cv):.1f}–{max(cv):.1f} %)" if len(cv) > 1 else f" (CV {cv[0]:.1f} %)" if cv else ""
        text = g["text"] + figures + (f"; {g['advice']}" if g["cells"] else "")
        short = g["text"].split(":")[0]
        short += ")" * (short.count("(") - short.count(")"))  # a colon inside brackets cut them open
        out.append({"text": text, "short": short + figures, "cells": g["cells"], "runs": g["runs"]})
    return sorted(out, key=lambda g: (bool(g["cells"]), -len(g["cells"])))


def html(groups: list[dict]) -> str:
    if not groups:
        return "<p>No warnings.</p>"
    items = []
    for g in groups:
        if g["cells"]:
            cells = "".join(
                f"<li>{e(name)}" + (f" <span class='sub'>({e(v)})</span>" if v else "") + "</li>"
                for name, v in g["cells"]
            )
            items.append(
                f"<li><span class='wk'>{e(g['text'])}</span> — <details class='inline'><summary>"
                f"{len(g['cells'])} cell{'s' if len(g['cells']) > 1 else ''}</summary><ul class='cols'>{cells}"
                "</ul></details></li>"
            )
        else:
            runs = ", ".join(map(str, g["runs"]))
            items.append(
                f"<li><span class='wk'>{e(g['text'])}</span> — run{'s' if len(g['runs']) > 1 else ''} {runs}</li>"
            )
    return f"<ul class='warnings'>{''.join(items)}</ul>"
