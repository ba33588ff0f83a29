"""How a chart looks, whatever draws it: units, axis ticks, one style per runtime, and the line rules.

Both drawing backends (draw_mpl, draw_plotly) and the report's legends read these, so a runtime has the
same colour and marker everywhere, and a legend's words are made from the same table as the lines.

    from ringbench.present import style
    style.fmt_ns(1234)                      # '1.23 µs'
    style.styles(["erlang", "go/stock"])  # {'erlang': Style(colour='#d62728', marker='s', floor=False), …}
"""

from __future__ import annotations

import colorsys
import math
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass


# -- units ------------------------------------------------------------------------
def fmt_ns(ns: float) -> str:
    """A duration in ns as a person reads it: 6.8 ns, 1.2 µs, 35 ms, 2.1 s."""
    if ns is None or not math.isfinite(ns):
        return "–"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{_sig(ns / scale)} {unit}"
    return f"{_sig(ns)} ns"


def fmt_count(x: float) -> str:
    """1, 10, 100, 1k, 10k, 499.9k, 1M."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{_sig(x / scale, 4)}{unit}"
    return f"{_sig(x, 4)}"


def fmt_bytes(b: float) -> str:
    """Bytes per process in decimal units, so that log-axis ticks read 1 kB, 2 kB, 5 kB: 312 B, 2.6 kB, 8.1 MB."""
    if b is None or not math.isfinite(b):
        return "–"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(b) >= scale:
            return f"{_sig(b / scale)} {unit}"
    return f"{_sig(b)} B"


def fmt_rate(x: float) -> str:
    """Per second: 12.3M/s."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{_sig(x / scale)}{unit}/s"
    return f"{_sig(x)}/s"


def fmt_qps(x: float) -> str:
    """Iterations per second, as a QPS axis reads them: 720k, 7.2M."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{_sig(x / scale)}{unit}"
    return f"{_sig(x)}"


def _sig(x: float, digits: int = 3) -> str:
    """Up to `digits` significant digits, no trailing zeros, thousands separated."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


FORMATTERS: dict[str, Callable[[float], str]] = {
    "ns": fmt_ns,
    "count": fmt_count,
    "bytes": fmt_bytes,
    "rate": fmt_rate,
    "qps": fmt_qps,
}


def cores_text(cores: str) -> str:
    return "1 core" if cores == "1" else "all cores" if cores == "all" else f"{cores} cores"


# -- ticks ------------------------------------------------------------------------
def log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values for a log axis from lo to hi: decades, with 2 and 5 between them on narrow ranges."""
    if not (lo > 0 and hi > 0):
        return []
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    subs = (1,) if b - a > 3 else (1, 2, 5) if b - a > 1 else (1, 1.5, 2, 3, 5, 7)
    ticks = [s * 10**e for e in range(a, b + 1) for s in subs]
    inside = [t for t in ticks if lo / 1.0001 <= t <= hi * 1.0001]
    if len(inside) >= 2:
        return inside
    return [t for t in ticks if lo / 10 <= t <= hi * 10]


def log_span(values: Iterable[float]) -> tuple[list[float], float, float]:
    """A log axis over `values`: its ticks and the (lo, hi) it spans, widened to the nearest ticks when fewer
    than two fall among the values (one point, or points close together), so the axis always reads."""
    pos = sorted(v for v in values if v > 0 and math.isfinite(v))
    if not pos:
        return [], 1.0, 10.0
    lo, hi = pos[0], pos[-1]
    ticks = log_ticks(lo, hi)
    if sum(lo <= t <= hi for t in ticks) < 2:
        lo = min(lo, max((t for t in ticks if t <= lo), default=lo))
        hi = max(hi, min((t for t in ticks if t >= hi), default=hi))
        if lo == hi:
            lo, hi = lo / 2, hi * 2
            ticks = log_ticks(lo, hi)
    pad = (math.log10(hi) - math.log10(lo)) * 0.06
    return [t for t in ticks if lo <= t <= hi], lo / 10**pad, hi * 10**pad


def x_ticks(values: list[float], log: bool) -> list[float]:
    """The measured values themselves when there are few (N = 100, 1k, 10k; K = 1 … 8), else log_ticks."""
    distinct = sorted({v for v in values if v > 0})
    if 0 < len(distinct) <= 10:
        return distinct
    return log_ticks(distinct[0], distinct[-1]) if log and distinct else linear_ticks(max(values, default=1))


def linear_ticks(hi: float, count: int = 6) -> list[float]:
    """0 and a few round steps up to hi (1, 2, 2.5 or 5 × a power of ten)."""
    if not hi > 0:
        return [0.0]
    raw = hi / count
    p = 10 ** math.floor(math.log10(raw))
    step = next(s * p for s in (1, 2, 2.5, 5, 10) if s * p >= raw)
    return [i * step for i in range(int(hi / step) + 2)]


# -- one style per runtime ----------------------------------------------------------
# Colours chosen to stay apart from each other (after Kelly's colours of maximum contrast and
# Tableau's), all dark enough to read on white. Grey is kept for the floor.
PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#0b3d91",
    "#7f0000",
    "#006d5b",
    "#b8860b",
    "#4b0082",
    "#ff1493",
    "#556b2f",
    "#00a2ff",
    "#c04000",
    "#6a5acd",
    "#3cb371",
    "#b03060",
    "#008b8b",
    "#a0522d",
    "#9932cc",
    "#808000",
    "#e9967a",
    # more families than the first 26 colours (the runtimes of the seeds and those asked about)
    "#2f4f4f",
    "#ff8c00",
    "#7b68ee",
    "#228b22",
    "#dc143c",
    "#4682b4",
    "#d2691e",
    "#8b008b",
)
FLOOR_COLOUR = "#555555"
# Today's runtime families keep the colour they have always had here; families added later take a free
# colour chosen from their name (see styles), so no existing runtime changes colour when one is added.
PINNED = {
    "erlang": 1,
    "go": 0,
    "c-pthreads": 3,
    "rust-threads": 8,
    "rust-tokio": 4,
    "java-threads": 5,
    "java-virtual": 6,
    "python-threads": 9,
    "python-greenlet": 2,
    "python-asyncio": 7,
    "c-coro": 10,
    "fake": 11,
}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "p", "*")
_PLOTLY_SYMBOL = {
    "o": "circle",
    "s": "square",
    "^": "triangle-up",
    "D": "diamond",
    "v": "triangle-down",
    "P": "cross",
    "X": "x",
    "<": "triangle-left",
    ">": "triangle-right",
    "h": "hexagon",
    "p": "pentagon",
    "*": "star",
}
_VARIANT_LIGHTNESS = (0.0, 0.22, -0.18, 0.34, -0.3, 0.12)  # variants share their family's hue


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str  # matplotlib marker
    floor: bool  # a stackless state machine, not a runtime: drawn as a dashed reference line

    @property
    def symbol(self) -> str:
        return _PLOTLY_SYMBOL[self.marker]


def base(runtime: str) -> str:
    """A runtime's family: the part of its id before the `/` (erlang/tuned → erlang)."""
    return runtime.split("/")[0]


def _crc(text: str) -> int:
    return zlib.crc32(text.encode())  # not hash(): Python salts that per process


def floors() -> set[str]:
    """Drivers whose manifest declares their hop a floor, and c-coro (the floor before manifests said so)."""
    out = {"c-coro"}
    try:
        from ..catalogue.drivers import discover

        out |= {d.name for d in discover().values() if getattr(d, "is_floor", False)}
    except Exception:  # a broken manifest elsewhere must not stop a chart from being drawn
        pass
    return out


def _known() -> set[str]:
    try:
        from ..catalogue.drivers import discover

        return set(discover())
    except Exception:
        return set()


def shade(colour: str, amount: float) -> str:
    """The colour lighter (amount > 0) or darker, hue kept."""
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    h, lum, s = colorsys.rgb_to_hls(r, g, b)
    lum = min(0.85, max(0.12, lum + amount))
    return "#" + "".join(f"{round(c * 255):02x}" for c in colorsys.hls_to_rgb(h, lum, s))


def styles(names: Iterable[str], floor_names: Iterable[str] = ()) -> dict[str, Style]:
    """A style for every runtime named, decided by the runtime's name alone wherever colours do not collide.

    Pinned runtimes keep their colour. Any other runtime family starts at the free colour its name
    hashes to and takes the next free one if that is taken; the families considered are every
    discovered driver plus the names given, in name order, so the report and `ringbench plot` of the
    same runs agree. Variants (`rust-tokio/multi-thread`) share their family's hue in lighter or
    darker shades and differ by marker.
    """
    names = set(names)
    is_floor = floors() | set(floor_names)
    universe = sorted(names | _known())
    families = sorted({base(n) for n in universe})
    slot: dict[str, int] = {f: PINNED[f] for f in families if f in PINNED}
    taken = set(PINNED.values())
    free = [i for i in range(len(PALETTE)) if i not in taken]
    for f in families:
        if f in slot:
            continue
        pool = [i for i in free if i not in slot.values()] or list(range(len(PALETTE)))
        wanted = free[_crc(f) % len(free)] if free else _crc(f) % len(PALETTE)
        # the first free colour at or after the one the name hashes to
        slot[f] = min(pool, key=lambda i: (i - wanted) % len(PALETTE))
    out: dict[str, Style] = {}
    for f in families:
        members = sorted(n for n in universe if base(n) == f)
        marker0 = PINNED[f] % len(MARKERS) if f in PINNED else _crc(f + "/marker") % len(MARKERS)
        for k, n in enumerate(members):
            floor = n in is_floor or f in is_floor
            colour = FLOOR_COLOUR if floor else PALETTE[slot[f]]
            if k and not floor:
                colour = shade(colour, _VARIANT_LIGHTNESS[k % len(_VARIANT_LIGHTNESS)])
            out[n] = Style(colour, MARKERS[(marker0 + k) % len(MARKERS)], floor)
    return {n: out[n] for n in sorted(names)}


# -- how a line looks, and the words its legend uses -----------------------------------------
@dataclass(frozen=True)
class Line:
    """One kind of line. `dash` is Plotly's name; draw_mpl maps it to matplotlib's."""

    dash: str  # solid, dot, dash, dashdot
    hollow: bool  # open markers
    meaning: str  # what the legend says this kind of line is

    @property
    def words(self) -> str:
        line = {"solid": "solid", "dot": "dotted", "dash": "dashed", "dashdot": "dash-dot"}[self.dash]
        return f"{line} lines with {'open' if self.hollow else 'filled'} markers"


ONE_CORE = Line("solid", False, "one core")
ALL_CORES = Line("dot", True, "all cores")
FLOOR_ONE_CORE = Line("dash", False, "the floor (a stackless state machine, not a runtime), one core")
FLOOR_ALL_CORES = Line("dash", True, "the floor, all cores")
CONTRAST = Line("dashdot", True, "")  # the second of a pair (selective: reverse order); its meaning is the series'
HISTORICAL = Line("dashdot", True, "published historical figures, measured on other machines")
LINES = (ONE_CORE, ALL_CORES, FLOOR_ONE_CORE, FLOOR_ALL_CORES, CONTRAST, HISTORICAL)


def line_of(cores: str, floor: bool, contrast: bool = False, historical: bool = False) -> Line:
    """The one rule both backends draw by: one core solid and filled, more cores dotted and open, the floor
    dashed, the second of a pair and published figures dash-dot and open."""
    if historical:
        return HISTORICAL
    if contrast:
        return CONTRAST
    if floor:
        return FLOOR_ONE_CORE if cores == "1" else FLOOR_ALL_CORES
    return ONE_CORE if cores == "1" else ALL_CORES


def legend_text(lines: Iterable[tuple[Line, str]]) -> str:
    """'Solid lines with filled markers: one core; dotted lines with open markers: all cores.' for the
    (line, meaning) pairs a chart draws, in the order of LINES."""
    seen: dict[tuple[Line, str], None] = {}
    for ln, meaning in lines:
        seen[(ln, meaning or ln.meaning)] = None
    ordered = sorted(seen, key=lambda lm: (LINES.index(lm[0]), lm[1]))
    parts = [f"{ln.words}: {meaning}" for ln, meaning in ordered if meaning]
    if not parts:
        return ""
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."
