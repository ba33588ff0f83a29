"""Showing results: tables, exports, plots, the HTML report."""

# The kinds of `ringbench plot`, here so the command line can offer them without importing matplotlib.
PLOT_KINDS = ("hops-vs-n", "time-vs-m", "surface", "heatmap", "spawn", "memory", "selective", "squeeze")
