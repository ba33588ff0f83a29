"""What the API raises on input it cannot use."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: reported as one line, exit status 2, nothing stored."""
