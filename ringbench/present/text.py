"""Stored text shown as it is: a run's command, a cell's reason, a runtime's name or a snippet's code come
from a store or an imported file, and reach a terminal only through `printable` (control characters as
visible escapes, so `\\x1b[2J` cannot clear the screen nor an OSC sequence retitle the window) and, where
rich draws it, `shown` (its brackets are text, never markup)."""

from __future__ import annotations

import re

from rich.markup import escape

# C0 controls but for newline and tab, DEL, C1 controls (\x9b is a one-byte CSI), and the bidirectional
# overrides and isolates that make text read other than it is.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: object) -> str:
    """`text` with each control character written as its Python escape (`\\x1b`, `\\r`, `\\u202e`)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def shown(text: object) -> str:
    """`text` for rich to print verbatim: control characters escaped, brackets not markup."""
    return escape(printable(text))
