"""Every driver README keeps to the template (docs/adding-a-driver.md): at most 150 hand-written lines,
the generated side-by-side block not counted, and no figure from an uncommitted state."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "check_readmes.py"
_spec = importlib.util.spec_from_file_location("check_readmes", SCRIPT)
check_readmes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_readmes)


@pytest.mark.parametrize("readme", check_readmes.driver_readmes(), ids=lambda p: p.parent.name)
def test_driver_readme_keeps_to_the_template(readme):
    assert readme.exists(), f"{readme} is missing"
    assert check_readmes.problems(readme.read_text()) == []


def test_generated_blocks_are_not_counted():
    text = "\n".join(["# x", "<!-- fidelity:begin -->", *["| row |"] * 500, "<!-- fidelity:end -->", "after"])
    assert check_readmes.hand_written(text) == ["# x", "after"]
    assert check_readmes.problems(text) == []


def test_over_the_limit_and_uncommitted_figures_are_named():
    assert "hand-written lines" in check_readmes.problems("line\n" * 151)[0]
    assert check_readmes.problems("line\n" * 150) == []
    dirty = "measured at commit 1a2b3c4d5e6f (uncommitted changes): 80 ns/hop"
    assert "uncommitted" in check_readmes.problems(dirty)[0]
    assert check_readmes.problems("<!-- fidelity:begin -->\n" + dirty + "\n<!-- fidelity:end -->") == []
