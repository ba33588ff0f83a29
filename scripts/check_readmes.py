#!/usr/bin/env python3
"""Count the hand-written lines of every driver README and fail above the template's limit.

A driver README (drivers/<name>/README.md, docs/adding-a-driver.md) holds at most 150 hand-written
lines. The blocks that scripts/fidelity.py generates, from `<!-- fidelity:begin -->` to
`<!-- fidelity:end -->` (the markers included), are not counted; every other line is, blank ones
too. A hand-written line may not cite a figure measured on a state that was never committed (a
provenance of "uncommitted changes" or a "-dirty" commit): figures come from committed states.

    python3 scripts/check_readmes.py          # one line per README, exit 1 if any breaks a rule
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIMIT = 150
BEGIN, END = "<!-- fidelity:begin -->", "<!-- fidelity:end -->"


UNCOMMITTED = re.compile(r"uncommitted changes|\b[0-9a-f]{7,40}-dirty\b|\(dirty\)")


def hand_written(text: str) -> list[str]:
    """The lines outside the generated blocks (an unclosed block runs to the end of the file)."""
    out, inside = [], False
    for line in text.splitlines():
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END and inside:
            inside = False
        elif not inside:
            out.append(line)
    return out


def problems(text: str) -> list[str]:
    """What is wrong with one README: too many hand-written lines, figures from uncommitted states."""
    lines = hand_written(text)
    out = [f"{len(lines)} hand-written lines (at most {LIMIT})"] if len(lines) > LIMIT else []
    out += [f"a figure from an uncommitted state: {line.strip()[:80]!r}" for line in lines if UNCOMMITTED.search(line)]
    return out


def driver_readmes(root: Path = REPO) -> list[Path]:
    """The README of every driver folder (one with a driver.toml)."""
    return sorted(m.parent / "README.md" for m in (root / "drivers").glob("*/driver.toml"))


def main() -> int:
    over = []
    for path in driver_readmes():
        if not path.exists():
            print(f"{path.relative_to(REPO)}: missing")
            over.append(path)
            continue
        text = path.read_text()
        print(f"{len(hand_written(text)):4d}  {path.relative_to(REPO)}")
        for p in problems(text):
            print(f"      {p}")
        if problems(text):
            over.append(path)
    if over:
        print(f"check_readmes: {len(over)} README(s) to fix (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
