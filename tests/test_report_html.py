"""The HTML report of a synthetic store (report_fixtures.synthetic): its summary says what its tables say,
naming N, M and cores; its charts' legends say what their lines are; the then-and-now section keeps the
published figures apart; the file needs no network."""

import csv
import html
import io
import json
import re

import pytest
from report_fixtures import SYNTHETIC_RUNS, loaded, render, ringbench_cli, synthetic, text

from ringbench.catalogue.workloads import RSS_PER_PROC
from ringbench.present import style, tables
from ringbench.present.report import html as report_html


@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    return synthetic(tmp_path_factory.mktemp("report") / "store.db")


@pytest.fixture(scope="module")
def multi_html(multi) -> str:
    return render(multi, SYNTHETIC_RUNS)


@pytest.fixture(scope="module")
def table_rows(multi):
    """Every row of every run's table (the wide one: all its columns), by the id the report tags it with."""
    out = {}
    for run, _ in loaded(multi, SYNTHETIC_RUNS):
        cols, body, _ = tables.rows(run.cells, run.baseline, wide=True)
        for c, row in zip(run.cells, body, strict=True):
            out[report_html.cell_id(run.run_id, c)] = (c, dict(zip([col.header for col in cols], row, strict=True)))
    return out


def _summary(page: str) -> str:
    return page.split("<section id='summary'>")[1].split("</section>")[0]


def _findings(page: str) -> list[str]:
    return re.findall(r"<li>(.*?)</li>", _summary(page).split("<ul class='findings'>")[1].split("</ul>")[0])


def _count(t: str) -> int:
    return int(float(t[:-1]) * {"k": 1e3, "M": 1e6}[t[-1]]) if t[-1] in "kM" else int(t)


def _column(c, metric_name: str, row: dict) -> str:
    """The column of `row` a metric is shown in: the headline's, beside it (a two-line header) or --wide's."""
    if metric_name == c.workload.headline.name:
        return c.workload.headline.label
    if metric_name == RSS_PER_PROC.name:
        return "B/proc"
    m = next(m for m in c.workload.metrics if m.name == metric_name)
    return m.header if m.header in row else m.label


# -- the summary and its tables --------------------------------------------------------------------
def test_every_figure_in_the_summary_is_its_table_rows_figure(multi_html, table_rows):
    quoted = re.findall(
        r"<span class='fig' data-cell='([^']*)' data-metric='([^']*)'>([^<]*)</span>", _summary(multi_html)
    )
    assert len(quoted) > 80
    for cid, metric, shown in quoted:
        c, row = table_rows[html.unescape(cid)]
        assert row[_column(c, metric, row)] == html.unescape(shown), (cid, metric)
    # no figure in a finding is written without its row: every number with a unit is a quoted one
    for line in _findings(multi_html):
        bare = re.sub(r"<span class='fig'[^>]*>[^<]*</span>", "", line)
        assert not re.search(r"\d[\d,.]* (ns/hop|µs/proc|B/proc|ms/tree|ns/reply)", bare), line


def _ring_table(table_rows, cores, m, n):
    """(runtime, hop, ns/hop) of the ring table's rows at one core setting, M and N."""
    return [
        (c.runtime, row["hop"], float(row["ns/hop"].replace(",", "")))
        for c, row in table_rows.values()
        if c.workload.name == "ring"
        and c.mode == "timed"
        and c.ok
        and c.cores == cores
        and c.params.get("m") == m
        and c.params["n"] == n
    ]


def test_each_summary_line_agrees_with_the_table(multi_html, table_rows):
    lines = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html.unescape(li))) for li in _findings(multi_html)]
    # message cost: one line per core setting and M, each naming them; its leaders lead the table at that N
    message = [li for li in lines if li.startswith("Message cost")]
    assert len(message) == 4 and all(re.match(r"Message cost, (1 core|all cores), M = \d+:", li) for li in message)
    ns = (100, 1000, 10000)
    for li in message:
        cores, m, leaders = re.match(r"Message cost, (1 core|all cores), M = (\d+): fastest (.*) \(", li).groups()
        for part in leaders.split("; "):
            rt, span = re.match(r"(\S+) at N = (\S+)", part).groups()
            lo, _, hi = span.partition("–")
            for n in (n for n in ns if _count(lo) <= n <= _count(hi or lo)):
                rows = [
                    r
                    for r in _ring_table(table_rows, "1" if cores == "1 core" else "all", int(m), n)
                    if r[1] in ("mbox", "chan")
                ]
                assert min(rows, key=lambda r: r[2])[0] == rt, (li, n)
    # spawn: cheapest and dearest of the message-passing rows at that N, every other row named beside them
    spawn = next(li for li in lines if li.startswith("Spawn"))
    n = _count(re.match(r"Spawn, N = (\S+), 1 core", spawn).group(1))
    rows = [
        (c.runtime, row["hop"], float(row["spawn µs/proc"]))
        for c, row in table_rows.values()
        if c.workload.name == "spawn" and c.params["n"] == n
    ]
    message = sorted((r for r in rows if r[1] in ("mbox", "chan")), key=lambda r: r[2])
    assert f"cheapest {message[0][0]} ({message[0][2]:g} µs/proc)" in spawn
    assert f"dearest {message[-1][0]} ({message[-1][2]:g} µs/proc" in spawn
    for rt, hop, v in rows:  # the case: python-greenlet/switch costs more than the "dearest"
        assert hop in ("mbox", "chan") or re.search(rf"{rt} \([a-z]+\) {v:g} µs/proc|floor {rt} {v:g}", spawn), rt
    assert "ranked apart: go/handoff (handoff) 0.2 µs/proc, python-greenlet/switch (rendezvous) 4.65 µs/proc" in spawn
    assert "of 4 message-passing runtimes" in spawn
    memory = next(li for li in lines if li.startswith("Memory"))
    assert "python-greenlet/switch (rendezvous) 6,100 B/proc" in memory and "dearest erlang (2,800 B/proc" in memory
    # the tree: the fastest on one core and on all cores, as the tree table ranks them
    tree = next(li for li in lines if li.startswith("Tree"))
    for cores, word in (("1", "1 core"), ("all", "all cores")):
        rows = sorted(
            (float(row["ms/tree"].replace(",", "")), c.runtime)
            for c, row in table_rows.values()
            if c.workload.name == "tree" and c.cores == cores and c.params["n"] == 1_000_000
        )
        assert f"on {word} {rows[0][1]} ({tables.fmt(rows[0][0])} ms/tree" in tree
    assert "N = 1M, fanout = 10" in tree


def test_report_opens_with_findings_computed_from_the_data(multi_html):
    summary = text(multi_html).split("Charts Lines only across N")[0]
    assert "Test CPU 3000" in summary and "2 CPU(s)" in summary and "not idle" in summary
    # go is fastest at N = 100 and 1k at M = 100, erlang (which grows least) at 10k; at M = 10 go's spawn
    # phase weighs and rust-tokio leads at 100; c-coro is the floor, not a runtime
    assert "Message cost, 1 core, M = 100: fastest go at N = 100–1k; erlang at N = 10k" in summary
    assert "Message cost, 1 core, M = 10: fastest rust-tokio/current-thread at N = 100; erlang at N = 1k–10k" in summary
    assert "The floor" in summary and "7.00 – 15.12 ns/hop" in summary
    # a hand-off idiom does less per hop: ranked apart, never the fastest message-passing runtime
    assert "Handoff idioms (ranked apart" in summary and "fastest go/handoff" in summary
    assert re.search(r"Spawn, N = 100k, 1 core \(spawn workload\): cheapest rust-tokio/current-thread", summary)
    assert re.search(r"Memory, N = 100k, 1 core \(memory workload\): cheapest rust-tokio/current-thread", summary)
    # growth: erlang grows least (×1.1 per decade, two decades), rust-tokio/current-thread most (×2 per decade)
    assert re.search(
        r"Growth with N \(1 core, M = 100\): .* lowest for erlang \(×1\.21, 100 → 10k\) and highest "
        r"for rust-tokio/current-thread \(×4\.00\)",
        summary,
    )
    assert "Significance:" in summary and "leads over the runner-up are significant" in summary
    assert (
        "Selective receive: replies taken in reverse order cost, against arrival order: erlang 101× at N = 10k"
        in summary
    )
    assert "Squeeze: throughput peaked for erlang at K = 4" in summary
    assert "Tree (skynet, N = 1M, fanout = 10): fastest on 1 core go" in summary
    order = [multi_html.index(f"id='{s}'") for s in ("summary", "charts", "then-and-now", "tables", "warnings")]
    assert order == sorted(order)


def test_chart_legends_say_what_the_lines_are(multi_html):
    specs = dict(
        re.findall(r"<script type='application/json' id='(chart-[\w-]+)-data'>(.*?)</script>", multi_html, flags=re.S)
    )
    boxes = dict(re.findall(r"<div class='chart' id='(chart-[\w-]+)'.*?<figcaption>(.*?)</figcaption>", multi_html))
    assert set(boxes) == set(specs)
    words = {(ln.dash, ln.hollow): ln.words for ln in style.LINES}
    for fid, spec in specs.items():
        caption = html.unescape(re.sub(r"<[^>]+>", "", boxes[fid])).lower()
        for t in json.loads(spec)["data"]:
            if t["type"] == "scatter":
                assert words[(t["line"]["dash"], t["marker"]["symbol"].endswith("-open"))] in caption, (fid, t["name"])
    then = html.unescape(boxes["chart-then-now-message"])
    assert "Solid lines are today" not in then  # the old caption, wrong for today's dotted all-cores series
    assert "dotted lines with open markers: measured here, all cores" in then
    assert "dash-dot lines with open markers: published historical figures" in then


def test_report_groups_warnings_one_line_per_kind(multi_html):
    part = multi_html.split("id='warnings'")[1]
    assert part.count("coefficient of variation") == 1  # twelve noisy cells, one line
    assert "12 cells" in part and "rust-tokio/multi-thread · all cores · N = 10k, M = 100" in part
    assert "5.1–15.0 %" in part  # the range of the figures the cells warned about
    assert part.count("load average") == 1


def test_report_charts_tables_and_self_containment(multi_html):
    specs = dict(
        re.findall(r"<script type='application/json' id='(chart-[\w-]+)-data'>(.*?)</script>", multi_html, flags=re.S)
    )
    assert set(specs) == {
        "chart-hops-vs-n",
        "chart-spawn",
        "chart-time-vs-m",
        "chart-surface",
        "chart-memory",
        "chart-selective",
        "chart-squeeze",
        "chart-tree",
        "chart-then-now-message",
        "chart-then-now-spawn",
        "chart-then-now-tree",
    }
    order = [
        multi_html.index(f"id='chart-{k}'")
        for k in ("hops-vs-n", "spawn", "time-vs-m", "surface", "memory", "selective", "squeeze", "tree")
    ]
    assert order == sorted(order)  # the registry's report order
    hops = json.loads(specs["chart-hops-vs-n"])
    assert hops["layout"]["xaxis"]["type"] == "log" and hops["layout"]["yaxis"]["type"] == "log"
    assert hops["layout"]["legend"]["x"] > 1  # outside the data
    assert "1 µs" in hops["layout"]["yaxis"]["ticktext"] or "100 ns" in hops["layout"]["yaxis"]["ticktext"]
    by_name = {t["name"]: t for t in hops["data"]}
    st = style.styles(["go", "erlang"])
    assert by_name["go · 1 core"]["line"]["color"] == st["go"].colour
    assert by_name["go · all cores"]["marker"]["symbol"].endswith("-open")
    assert by_name["c-coro · 1 core"]["line"]["dash"] == "dash" and "error_y" in by_name["go · 1 core"]
    surface = json.loads(specs["chart-surface"])
    assert len(surface["data"]) == 14 and {t["coloraxis"] for t in surface["data"]} == {"coloraxis"}
    then = json.loads(specs["chart-then-now-message"])
    assert any("published" in (t.get("legendgroup") or "") for t in then["data"])
    assert any(t["name"].startswith("erlang") for t in then["data"])
    tree = json.loads(specs["chart-tree"])
    assert {t["yaxis"] for t in tree["data"]} == {"y", "y2"} and len(tree["data"]) == 8
    # the same runtime has the same colour in every chart
    colours = {}
    for spec in specs.values():
        for t in json.loads(spec)["data"]:
            if t.get("type") == "scatter" and t.get("legendgroup") != "published then (other machines)":
                rt = t["name"].split(" · ")[0]
                colours.setdefault(rt, set()).add(t["line"]["color"])
    assert all(len(c) == 1 for c in colours.values()), colours
    # compact sortable tables with details on demand; a refused cell is shown as n/a
    assert multi_html.count("class='cells sortable'") == 6 and "<tr class='det' hidden>" in multi_html
    tables_part = multi_html.split("id='tables'")[1].split("id='warnings'")[0]
    assert "Rel % = throughput against" in tables_part  # the terminal's notes under each table
    assert "<tr><th>count</th><td>" in tables_part  # the wide table's columns with each row's details
    refused = multi_html.split("<tbody class='bad'")[1].split("</tbody>")[0]
    assert ">n/a<" in refused and "10,000 processes need 10,000 OS threads" in refused
    # nothing outside the inlined library refers to the network
    outside = re.sub(r"<script>.*?</script>", "", multi_html, flags=re.S)
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", outside) and "<link" not in outside
    # the page's own style and script are the package's files
    assert report_html.asset("report.css") in multi_html and report_html.asset("report.js") in multi_html


def test_report_never_mixes_seeds_into_measured_tables(multi_html):
    tables_part = multi_html.split("id='tables'")[1].split("id='warnings'")[0]
    assert "1998" not in tables_part and "ThinkPad" not in tables_part and "skynet" not in tables_part.lower()
    then = multi_html.split("id='then-and-now'")[1].split("id='tables'")[0]
    assert "historical" in then.split("</p>")[0] and "skynet" in then.split("</p>")[0]
    # the 2009 table beside today's erlang at the same N and M (1,000 × 100: 172 ms then)
    assert "Erlang: ring of N = 1k, M = 100 laps" in then and "172 ms" in then
    # the skynet table beside today's tree of the same family, compared per process
    go = then.split("Go: skynet tree of 1M leaves, fanout 10")[1].split("</tr>")[0]
    assert "979 ms" in go and "629 ms" in go and "200-224 ms" in go and "i7-4771, Ubuntu 15.10" in go
    assert "go · 1 core: <b>900 ms</b>" in go and "less" in go.split("<td class='num'>")[1]
    others = then.split("runtimes ringbench has no driver for")[1].split("</tr>")[0]
    assert "Scala/Akka: <b>6379 ms</b>" in others and "no ringbench driver" in others
    tree_chart = then.split("id='chart-then-now-tree'")[1].split("</figure>")[0]
    assert "historical" in tree_chart and "2016" in tree_chart


def test_report_is_self_contained(fake, db, tmp_path):
    fake(FAKE_NS_PER_HOP=100, FAKE_JITTER="1,1.1,0.9")
    # enough cells for every chart of a sweep (3 N × 2 M), one repeat each: what is checked is the file
    r = ringbench_cli("sweep", "ring", "-r", "fake", "-n", "10,100,1000", "-m", "10,100", "--repeat", 1, "--db", db)
    assert r.exit_code == 0, r.output
    out = tmp_path / "report.html"
    r = ringbench_cli("report", 1, "--out", out, "--db", db)
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert "cpu_model" in page and "fake" in page and "Plotly" in page
    assert len(re.findall(r"<div class='chart' id=", page)) >= 3  # ns/hop, time against M, surface (+ then and now)
    outside = re.sub(r"<script>.*?</script>", "", page, flags=re.S)
    assert "http://" not in outside and "https://" not in outside


def test_calibrated_m_and_new_runtime_ids(tmp_path):
    """`make bench`'s run: M calibrated per runtime (absent from the parameters asked), runtimes named by
    variant (erlang/stock, erlang/tuned, go/stock): the summary says M is calibrated, then and now matches
    the families by base name."""
    from report_fixtures import JITTER, begin, cell, record

    from ringbench.results.store import Store

    db = tmp_path / "store.db"
    st = Store(db)
    rid = begin(st, "ring")
    for rt, ns, m in (("erlang/stock", 130, 300), ("erlang/tuned", 120, 320), ("go/stock", 150, 260)):
        for cores in ("1", "all"):
            recs = [(i + 1, 1, record(1000, m, ns, 0.5, 2000, j, process=i + 1)) for i, j in enumerate(JITTER)]
            st.save_cell(
                rid,
                cell(
                    rt,
                    "ring",
                    {"n": 1000, "tokens": 1, "burst": 0},
                    cores,
                    recs,
                    extra={"calibrated": {"m": m}, "target_ms": 40},
                    runtime_settings={"tuned": rt.endswith("/tuned")},
                ),
            )
    st.finish_run(rid, "complete")
    st.close()
    page = render(db, [1])
    lines = [re.sub(r"<[^>]+>", "", html.unescape(li)) for li in _findings(page)]
    # erlang/tuned (120 ns/hop) is faster, but tuned variants are ranked among themselves
    assert lines[0] == "Message cost, 1 core, M calibrated per runtime: fastest erlang/stock at N = 1k (130 ns/hop)."
    then = page.split("id='then-and-now'")[1].split("id='tables'")[0]
    erlang_row = then.split("Erlang: time per message, N = 10k")[1].split("</tr>")[0]
    assert "erlang/stock · 1 core" in erlang_row and "erlang/tuned · 1 core" in erlang_row
    spec = re.search(r"id='chart-then-now-message-data'>(.*?)</script>", page, flags=re.S).group(1)
    assert {t["name"] for t in json.loads(spec)["data"]} >= {"erlang/stock · 1 core", "erlang/tuned · all cores"}


def test_a_run_across_nodes_gets_a_finding_and_a_line_per_layout(tmp_path):
    """A ring on one node beside the same ring over 2 nodes, contiguous and interleaved (`run ring --nodes
    1,2 --node-placement contiguous,interleaved`): each layout has its own message-cost finding with its
    own range, never one range over all; spawn speaks of the ring on one node; the spawn chart draws a
    line per layout, as the leaders table has a column per layout."""
    from report_fixtures import JITTER, begin, cell, record

    from ringbench.results.store import Store

    db = tmp_path / "store.db"
    st = Store(db)
    rid = begin(st, "ring")
    layouts = (({}, 1.0, 1.0), ({"nodes": 2}, 1.01, 1.5), ({"nodes": 2, "node_placement": 1}, 60.0, 3.0))
    for extra_params, cost, spawn in layouts:
        for rt, ns in (("erlang/stock", 800), ("elixir/stock", 850)):
            for n in (10_000, 100_000):
                recs = [
                    (i + 1, 1, record(n, 2, ns * cost, 1.2 * spawn, 2600, j, process=i + 1))
                    for i, j in enumerate(JITTER)
                ]
                st.save_cell(
                    rid, cell(rt, "ring", {"n": n, "m": 2, "tokens": 1, "burst": 0, **extra_params}, "all", recs)
                )
    st.finish_run(rid, "complete")
    st.close()
    page = render(db, [1])
    lines = [re.sub(r"<[^>]+>", "", html.unescape(li)) for li in _findings(page)]
    cost = [x for x in lines if x.startswith("Message cost")]
    assert cost == [
        "Message cost, all cores, M = 2: fastest erlang/stock at N = 10k–100k (800 ns/hop).",
        "Message cost, all cores, M = 2, nodes = 2: fastest erlang/stock at N = 10k–100k (808 ns/hop).",
        "Message cost, all cores, M = 2, nodes = 2, node_placement = interleaved: fastest erlang/stock at "
        "N = 10k–100k (48,000 ns/hop).",
    ]
    spawn = next(x for x in lines if x.startswith("Spawn"))
    assert spawn.startswith("Spawn, N = 100k, all cores, M = 2 (ring workload): cheapest erlang/stock (1.20 µs/proc)")
    spec = json.loads(re.search(r"id='chart-spawn-data'>(.*?)</script>", page, flags=re.S).group(1))
    names = sorted(t["name"] for t in spec["data"] if t.get("name"))
    assert len(names) == 6 and len(set(names)) == 6
    assert sum("2 nodes, interleaved" in x for x in names) == 2 and sum("nodes" not in x for x in names) == 2


# -- perf runs: snippets of code get a section of their own --------------------------------------------
@pytest.fixture(scope="module")
def perf_db(tmp_path_factory):
    from report_fixtures import perf_runs

    return perf_runs(tmp_path_factory.mktemp("perf") / "store.db")


def _perf_rows(page: str, run_id: int) -> list[list[str]]:
    """The perf table of one run as the page shows it: each row's cells as text (the ▸ column left out)."""
    part = page.split(f"<h3>Run {run_id}:")[1].split("<table class='cells sortable'>")[1].split("</table></div>")[0]
    rows = re.findall(r"<tr class='(?:row|node)'>(.*?)</tr>", part, flags=re.S)
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", td)).strip() for td in re.findall(r"<td[^>]*>(.*?)</td>", r)][1:]
        for r in rows
    ]


def test_a_perf_report_has_a_perf_section_and_no_ring_sections(perf_db):
    """`ringbench report` of perf runs: a finding per run quoting the table's QPS and Time, the snippets' table
    with a row per node under a snippet measured with --nodes, the squeeze chart in QPS by workers; no ring
    summary, ring charts, then-and-now or ring tables (issue 40)."""
    page = render(perf_db, [1, 2])
    words = text(page)
    assert "No measured cell to summarise" not in words
    for ring_only in ("id='charts'", "id='then-and-now'", "id='tables'", "hops per second", "N = 0"):
        assert ring_only not in page, ring_only
    assert "1998" not in words and "Ericsson" not in words
    assert "id='perf'" in page and "<a href='#perf'>Perf</a>" in page
    rows = _perf_rows(page, 1)
    assert [r[0] for r in rows] == [
        "erlang:unique_integer().",
        "└ node 0",
        "└ node 1",
        "rand:uniform().",
        "└ node 0",
        "└ node 1",
    ]
    fastest, node0, node1 = rows[0], rows[1], rows[2]
    assert fastest[1] == "2" and node0[1] == node1[1] == "1"  # || : the sum's workers, each node's own
    assert fastest[2] == "83580 Ki" and node0[2] == "39800 Ki" and node1[2] == "43780 Ki"
    assert rows[3][5] == "25.0 ?"  # Rel % on the sum, against the fastest snippet
    finding = next(li for li in _findings(page) if "run 1" in li)
    finding = html.unescape(re.sub(r"<[^>]+>", "", finding))
    assert finding.startswith(
        "Perf, run 1 (erlang/stock, all cores, continuous, on 2 BEAM nodes at once): fastest "
        "erlang:unique_integer(). (83580 Ki QPS, 24 ns per iteration with 2 workers)"
    )
    assert "rand:uniform(). (25.0 % of it ?, 20895 Ki QPS, 96 ns per iteration with 2 workers)" in finding
    squeeze = next(li for li in _findings(page) if "run 2" in li)
    assert html.unescape(re.sub(r"<[^>]+>", "", squeeze)).endswith(
        f"rand:uniform().: {_perf_rows(page, 2)[0][2]} QPS, {_perf_rows(page, 2)[0][4]} per iteration with 3 workers."
    )
    spec = json.loads(re.search(r"id='chart-perf-2-data'>(.*?)</script>", page, flags=re.S).group(1))
    assert spec["layout"]["yaxis"]["title"]["text"] == "QPS (iterations per second)"
    assert spec["layout"]["xaxis"]["title"]["text"].startswith("workers running the snippet at once")
    assert [t["name"] for t in spec["data"]] == ["rand:uniform()."] and spec["data"][0]["x"] == [1, 2, 3, 4, 5, 6]
    qps = json.loads(re.search(r"id='chart-perf-1-data'>(.*?)</script>", page, flags=re.S).group(1))
    assert qps["layout"]["yaxis"]["categoryarray"] == ["rand:uniform().", "erlang:unique_integer()."]  # top: fastest
    assert [t["x"][0] for t in qps["data"]] == pytest.approx([83.58e6, 20.895e6], rel=1e-3)


def test_a_report_of_ring_and_perf_runs_keeps_them_apart(perf_db, multi, tmp_path):
    """Ring runs keep their sections; a perf run's snippets are in none of them (its table is in the perf
    section, its cells in no ring chart or finding)."""
    from report_fixtures import perf_runs

    from ringbench.present import report

    mixed = perf_runs(tmp_path / "mixed.db")
    page = report.render(loaded(multi, SYNTHETIC_RUNS[:1]) + loaded(mixed, [1]))
    order = [page.index(f"id='{s}'") for s in ("summary", "perf", "charts", "then-and-now", "tables", "warnings")]
    assert order == sorted(order)
    ring_tables = page.split("id='tables'")[1].split("id='warnings'")[0]
    assert "unique_integer" not in ring_tables and "rand:uniform" not in ring_tables
    charts_part = page.split("id='charts'")[1].split("id='then-and-now'")[0]
    assert "unique_integer" not in charts_part


def test_headings_say_how_each_run_measured(fake, db):
    """A continuous ring has no M, calibrated or not: its headings say it was sampled while the ring ran; a
    timed run's with a given M name that M (issue 40: 'M calibrated per runtime' on a continuous run)."""
    fake(FAKE_NS_PER_HOP=100)
    r = ringbench_cli(
        "run", "ring", "-r", "fake", "-n", "1000,2000", "--continuous", "--samples", 4, "--sample-ms", 50, "--db", db
    )
    assert r.exit_code == 0, r.output
    r = ringbench_cli("run", "ring", "-r", "fake", "-n", "1000,2000", "-m", 10, "--db", db)
    assert r.exit_code == 0, r.output
    page = render(db, [1, 2])
    lines = [html.unescape(re.sub(r"<[^>]+>", "", li)) for li in _findings(page)]
    assert "calibrated" not in text(page)
    assert any(
        x.startswith("Message cost, all cores, continuous (sampled while the ring runs): fastest fake") for x in lines
    ), lines
    assert any(x.startswith("Message cost, all cores, M = 10: fastest fake") for x in lines), lines
    head = page.split("<table class='leaders'>")[1].split("</thead>")[0]
    assert "continuous (sampled while the ring runs)" in head and "M = 10" in head
    # a chart is of one way of measuring: the timed run's, the continuous run left to the tables
    box = page.split("id='chart-hops-vs-n'")[0].rsplit("<h3>", 1)[1]
    assert box.startswith("Message cost against N (M = 10)")
    assert "Continuous runs are in the tables." in page.split("id='chart-hops-vs-n'")[1].split("</figcaption>")[0]
    from ringbench import api
    from ringbench.present import charts

    alone = charts.build(api.load(1, db).cells, "hops-vs-n")
    assert alone.title == "Message cost against N (continuous, sampled while the ring runs)"
    assert alone.caption.startswith("Median ns per hop over the sample intervals")


def test_cpu_per_hop_beside_wall_time(tmp_path):
    """At all cores a runtime whose idle workers spin looks fast in wall time: the summary names the cheapest
    runtime per hop of CPU beside the fastest per hop of wall time and who spent more than one core's worth;
    the table shows CPU ns/hop (marked ⁺ and set apart), CPU/wall and context switches per hop (issue 39)."""
    from report_fixtures import JITTER, begin, cell, record

    from ringbench.results.store import Store

    db = tmp_path / "store.db"
    st = Store(db)
    rid = begin(st, "ring")
    # runtime: (wall ns/hop, CPU/wall, context switches per hop)
    kinds = {"go": (100, 1.9, 0.001), "erlang": (130, 0.9, 0.0), "c-pthreads": (2000, 0.8, 2.0)}
    for rt, (ns, cpu, sw) in kinds.items():
        recs = []
        for i, j in enumerate(JITTER):
            r = record(10_000, 100, ns, 1, 2000, j, process=i + 1)
            r |= {"run_cpu_ns": int(r["run_ns"] * cpu), "run_vcsw": int(sw * r["count"]), "run_ivcsw": 0}
            recs.append((i + 1, 1, r))
        st.save_cell(rid, cell(rt, "ring", {"n": 10_000, "m": 100, "tokens": 1}, "all", recs))
    st.finish_run(rid, "complete")
    st.close()
    page = render(db, [1])
    lines = [html.unescape(re.sub(r"<[^>]+>", "", li)) for li in _findings(page)]
    assert "Message cost, all cores, M = 100: fastest go at N = 10k (100 ns/hop)." in lines
    assert (
        "Least CPU time per hop, all cores, M = 100, N = 10k: erlang (117 CPU ns/hop; fastest in wall time go, "
        "100 ns/hop); more than one core's worth of CPU time (⁺ in the tables, CPU/wall): go (1.90)."
    ) in lines
    ((run, _),) = loaded(db, [1])
    cols, body, _ = tables.rows(run.cells, run.baseline, wide=True)
    by = {row[0]: dict(zip([c.header for c in cols], row, strict=True)) for row in body}
    quoted = re.findall(r"data-metric='cpu_ns_per_hop'>([^<]*)</span>", _summary(page))
    assert quoted == [by["erlang"]["CPU\nns/hop"]] == ["117"]
    table = page.split("<table class='cells sortable'>")[1].split("</table></div>")[0]
    head = re.findall(r"<th>(.*?)</th>", table.split("</thead>")[0])
    assert head[:12] == [
        "Runtime",
        "hop",
        "Cores",
        "N",
        "M",
        "ns/hop",
        "±95%",
        "CPU<br>ns/hop",
        "B/proc",
        "CPU/<br>wall",
        "switches<br>per hop",
        "Rel %",
    ]
    go = table.split("data-cell='1:")[1 + [c.runtime for c in run.cells].index("go")]
    assert "<td class='over' title=\"more than one core's worth" in go and ">190⁺</td>" in go
    assert ">1.90</td>" in go
    pthreads = table.split("data-cell='1:")[1 + [c.runtime for c in run.cells].index("c-pthreads")]
    assert ">2.00</td>" in pthreads and "class='over'" not in pthreads


def test_a_finding_marks_an_unsettled_figure_as_its_row_does(tmp_path):
    """A figure taken before its process settled carries the tables' "~" wherever it is quoted: in the
    summary's findings and leaders as in its row (issue 39), and in the CSV export's `settled` column."""
    from report_fixtures import JITTER, begin, cell, record

    from ringbench.present import exporting
    from ringbench.results.store import Store

    db = tmp_path / "store.db"
    st = Store(db)
    rid = begin(st, "ring")
    for rt, ns, settled in (("go", 100, False), ("erlang", 130, True)):
        recs = [
            (i + 1, 1, record(10_000, 100, ns, 1, 2000, j, process=i + 1, settled=settled, warmups=30))
            for i, j in enumerate(JITTER)
        ]
        st.save_cell(rid, cell(rt, "ring", {"n": 10_000, "m": 100, "tokens": 1}, "1", recs))
    st.finish_run(rid, "complete")
    st.close()
    page = render(db, [1])
    lines = [html.unescape(re.sub(r"<[^>]+>", "", li)) for li in _findings(page)]
    assert "Message cost, 1 core, M = 100: fastest go at N = 10k (100~ ns/hop)." in lines, lines
    ((run, _),) = loaded(db, [1])
    cols, body, _ = tables.rows(run.cells, run.baseline, wide=True)
    by = {row[0]: dict(zip([c.header for c in cols], row, strict=True)) for row in body}
    assert by["go"]["ns/hop"] == "100~" and by["erlang"]["ns/hop"] == "130"
    quoted = re.findall(r"data-metric='ns_per_hop'>([^<]*)</span>", _summary(page))
    assert "100~" in quoted and "130" in quoted and "100" not in quoted
    rows = list(csv.DictReader(io.StringIO(exporting.to_csv(run))))
    assert {r["runtime"]: r["settled"] for r in rows} == {"go": "False", "erlang": "True"}


def test_the_summary_counts_each_kind_of_warning_once_whatever_its_texts():
    """Not-settled warnings name each process's own move, so their texts differ: the summary's state line
    still gives one count for the kind (the cells any of them names), not one clause a text."""
    from ringbench.present.report import summary

    warned = [
        {"short": "not settled", "cells": [("a · 1 core · N = 1k", ""), ("b · 1 core · N = 1k", "")]},
        {"short": "not settled", "cells": [("b · 1 core · N = 1k", ""), ("c · 1 core · N = 1k", "")]},
        {"short": "noisy (CV 6.0 %)", "cells": [("a · 1 core · N = 1k", "CV 6.0 %")]},
    ]
    line = summary.state([], warned)
    assert line.count("not settled") == 1 and "3 of 0 cells: not settled" in line
    assert "1 of 0 cells: noisy (CV 6.0 %)" in line
