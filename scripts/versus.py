#!/usr/bin/env python3
"""Kept for recorded command lines: `scripts/versus.py ARGS` is `ringbench versus ARGS` (docs/versus.md)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's ringbench, installed or not

from ringbench.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.argv = ["ringbench", "versus", *sys.argv[1:]]
    main()
