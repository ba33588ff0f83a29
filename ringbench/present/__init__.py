"""Showing results: tables, exports, plots, the HTML report."""
