"""The drift check's replay (`scripts/results.py --simulate-settle`, issue 39): each candidate check is
scored on cells the settle rule settled, as caught (a failure it flags), flagged needlessly (a good cell
it flags) and its cost in the bench's iterations. Synthetic cells whose answer is known."""

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("results_script_drift", REPO / "scripts" / "results.py")
results = importlib.util.module_from_spec(_spec)
sys.modules["results_script_drift"] = results
_spec.loader.exec_module(results)

WINDOW = [100.0, 101, 99, 100, 101, 99, 100, 101, 99, 100]


def test_the_replay_scores_caught_needless_and_cost():
    moves = WINDOW + [120.0] * 30  # moves right after the window: settled at 10 over 5 % off, a failure
    later = WINDOW + [100.0] * 10 + [120.0] * 20  # moves at iteration 21: beyond any check of 3
    steady = WINDOW + [100.0, 101, 99] * 10  # settled right
    series = [("a", 1000, 1, moves), ("b", 1000, 2, later), ("c", 1000, 3, steady)]
    settled = [("settled", 10, 0.2), ("settled", 10, -1 / 6), ("settled", 10, 0.0)]
    # two bench processes of 2 repeats, 0.5 s an iteration; one moved in its stored repeats
    procs = [(WINDOW + [100.0, 100.0], 0, 10, 0.5, 2, True), (WINDOW + [130.0, 131.0], 0, 10, 0.5, 2, True)]
    checks = results.drift_candidates()
    rows = {r.split(" | ")[0].lstrip("| "): r for r in results.drift_table(series, settled, procs, checks)[3:]}
    chosen = rows[results.DRIFT_CHOSEN].split(" | ")
    assert chosen[1:6] == ["1 of 2", "0 of 1", "+2", "+1", "1 of 2"]  # one iteration more a process
    assert chosen[6].startswith("a at 1,000")  # the later move is not caught
    assert rows["window against the next 2"].split(" | ")[3] == "+0"
    assert results._drift_verdict(moves, settled[0], checks[results.DRIFT_CHOSEN]) == (
        "moved +20 % after the settle window"
    )
    assert results._drift_verdict(later, settled[1], checks[results.DRIFT_CHOSEN]) is None
    assert results._drift_verdict(moves, ("not settled", 30, None), checks[results.DRIFT_CHOSEN]) is None
