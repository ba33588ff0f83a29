"""The command line's longer help texts in one place (cli.py only parses): the program's, each command's
that runs to more than a line, and the workloads' list that `run` and `sweep` end with. perf's help is beside
its argv grammar (perf_cli.py); one-line option helps stay with their options."""

from __future__ import annotations

import textwrap

from .api import workloads

MAIN = """ringbench: how fast does a runtime spawn a process, pass a message, and what does a process cost?

Joe Armstrong's ring, measured the same way in every runtime: N processes in a ring, a token
sent round M times (N×M messages), the spawn phase and the message phase timed apart inside
each runtime's own driver, every count verified, every result stored with its environment.

\b
Start with:
  ringbench runtimes                         which drivers exist, built or not
  ringbench bench                            the default comparison (one core and all cores)
  ringbench run ring --runtime all -n 10000  one cell per runtime (M calibrated)
  ringbench history                          what the store holds

Exit status: 0 done; 1 a cell failed, or a store or file could not be used; 2 bad input
(nothing run); 3 stopped by --budget; 130 interrupted. Both 3 and 130 keep every finished
cell: `ringbench sweep --resume RUN` finishes the run.
"""

VERSUS = """Measure one driver against an independent ring program of your own; store it as a run.

\b
Both sides are timed the same way, from outside, as whole processes: each
runs with a short lap count M1 and a long one M2, and
    ns/hop = (t(M2) - t(M1)) / (N x (M2 - M1) x tokens)
so VM start-up, spawning the ring and teardown cancel out, whatever the
program prints or however it times itself. The four runs of each round are
interleaved (driver M1, program M1, program M2, driver M2; the sides swap
places every other round) so a drift in machine speed hits both. The figures
are medians over the rounds with bootstrap 95 % intervals; the ratio is
driver/program (<= 1.0: the driver is at least as fast), tested with
Mann-Whitney U (needs 5 rounds or more). The driver's own ns/hop (run_ns
from its result record) is shown beside the differential figure.

\b
The program is any command line (split like a shell would, not run by one;
wrap it in sh -c '...' for pipes) with placeholders:
    {n} processes   {m} laps   {tokens} tokens   {hops} N x M x tokens
    {cores} scheduler threads (1 for --cores 1, else the CPU count)
It must contain {m} or {hops}, do N x M x tokens hops, and exit 0; it may
print anything. It gets the driver's manifest environment (e.g.
GOMAXPROCS=1 for go at --cores 1) unless --no-driver-env, plus --env.
With --cores 1 both sides are pinned to the same CPU.

\b
--nodes K spreads the driver's ring over K nodes of this machine (drivers
with the feature `nodes`); the program gets {nodes} K and {placement}
(0 contiguous, 1 interleaved, from --node-placement) and starts its own.

\b
The run is stored like any other (two rows per N: the driver, and the
program as program:LABEL): `ringbench show`, `compare`, `export` and
`report` read it.

\b
Example (a Go channel ring compiled to /tmp; see docs/versus.md):
    ringbench versus --runtime go/stock \\
        --build 'go build -o /tmp/ring/ring /tmp/ring/main.go' \\
        --program '/tmp/ring/ring {n} {m}' -n 1000,10000 --hops 5000000

\b
Exit status: 0 compared (whatever the verdict); 1 a run failed (non-zero
exit, timeout, a driver error, the long runs no longer than the short ones,
a failed build); 2 bad input (nothing run); 130 interrupted.
"""


def workloads_epilog() -> str:
    """The workloads and what each measures, for `run --help` and `sweep --help`."""
    lines = ["\b", "Workloads:"]
    for w in workloads.WORKLOADS.values():
        wrapped = textwrap.wrap(w.summary, 84)
        lines.append(f"  {w.name:<10} {wrapped[0]}")
        lines += [f"  {'':<10} {more}" for more in wrapped[1:]]
    lines += ["", "Comma-separated values of -n, -m and the other parameters make a grid (-n 1000,10000)."]
    return "\n".join(lines)
