"""The report's warnings: one line per kind, with the cells it applies to and the range of their figures.

Cell warnings are recognised by their wording, "<runtime> [<cores>] <k=v …>[ (<figure>)]: <advice>"
(results.noise.cell), their numbers taken out to tell one kind from another.
"""

from __future__ import annotations

import re

from ...results.model import Run
from ..style import cores_text, fmt_count
from .html import e

# A cell warning reads "<runtime> [<cores>] <k=v …>[ (<figure>)]: <advice>" (noise.cell).
_CELL = re.compile(
    r"^(?P<rt>\S+) \[(?P<cores>[^\]]+)\] (?P<params>(?:\w+=-?\d+ ?)*)"
    r"(?:\((?P<figure>[^)]*)\))?: (?P<rest>.*)$",
    re.S,
)
_NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _merge(texts: list[str]) -> tuple[str, list[int]]:
    """Texts that differ only in their numbers as one, each varying number shown as its range."""
    nums = [_NUM.findall(t) for t in texts]
    width = min(len(n) for n in nums)
    same = [len({n[i] for n in nums}) == 1 for i in range(width)]
    pieces = _NUM.split(texts[0])
    out = pieces[0]
    for i, num in enumerate(nums[0]):
        out += (num if i >= width or same[i] else _range([n[i] for n in nums])) + pieces[i + 1]
    return out, [i for i in range(width) if not same[i]]


def group(runs: list[Run]) -> list[dict]:
    """One group per kind of warning: cell warnings by their text with the numbers taken out, run warnings alike."""
    groups: dict[str, dict] = {}
    for run in runs:
        for w in run.warnings:
            m = _CELL.match(w)
            rest = m["rest"] if m else w
            g = groups.setdefault(_NUM.sub("#", rest), {"texts": [], "figures": [], "cells": [], "runs": []})
            g["texts"].append(rest)
            if m:
                params = dict(p.split("=") for p in m["params"].split())
                name = f"{m['rt']} · {cores_text(m['cores'])} · " + ", ".join(
                    f"{k.upper() if len(k) == 1 else k} = {fmt_count(int(v))}" for k, v in params.items()
                )
                g["cells"].append((name, m["figure"] or "", rest))
                if m["figure"]:
                    g["figures"].append(m["figure"])
            elif run.run_id not in g["runs"]:
                g["runs"].append(run.run_id)
    out = []
    for g in groups.values():
        text, varying = _merge(g["texts"])
        figures = _merge(g["figures"])[0] if g["figures"] and len(g["figures"]) == len(g["cells"]) else ""
        cells = [
            (name, fig or ", ".join(_NUM.findall(rest)[i] for i in varying if i < len(_NUM.findall(rest))))
            for name, fig, rest in g["cells"]
        ]
        short = text.split(":")[0] + (f" ({figures})" if figures else "") if g["cells"] else text
        out.append(
            {"text": text + (f" ({figures})" if figures else ""), "short": short, "cells": cells, "runs": g["runs"]}
        )
    return sorted(out, key=lambda g: (bool(g["cells"]), -len(g["cells"])))


def _range(texts: list[str]) -> str:
    """'5.1–15.0' from the numbers one kind of warning gave for its cells."""
    vals = sorted(texts, key=lambda t: float(t.replace(",", "")))
    return vals[0] if vals[0] == vals[-1] else f"{vals[0]}–{vals[-1]}"


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
