"""`ccsim report`: one self-contained HTML file for a run, a sweep or a study, holding every table
and figure; the commands record what made their directories; Jupyter renders results as tables."""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import ccsim
import pandas as pd
import pytest
from ccsim import studies
from ccsim.report.markup import relative_command
from ccsim.report.numbers import (
    column_format,
    format_duration,
    format_mean_ci,
    format_number,
    format_percent,
    format_rate,
    significant,
)
from ccsim.studies import core
from conftest import SMALL_DUMBBELL, SWEEP_BASE, requires_engine, run_cli

pytest.importorskip("matplotlib")


class _Page(HTMLParser):
    """What a report holds: its tables (name, caption, header, body rows and their cells),
    figures and every URL-bearing attribute and tag."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict[str, Any]] = []
        self.images: list[str] = []
        self.urls: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()
        self._caption = False
        self._body = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        found = dict(attrs)
        for name in ("src", "href", "action", "data", "poster", "srcset"):
            if found.get(name) is not None:
                self.urls.append((tag, name, str(found[name])))
        if tag == "table":
            self.tables.append(
                {
                    "name": found.get("data-table"),
                    "caption": "",
                    "rows": 0,
                    "header": [],
                    "cells": [],
                }
            )
        elif tag == "caption":
            self._caption = True
        elif tag == "tbody":
            self._body = True
        elif tag == "tr" and self._body:
            self.tables[-1]["rows"] += 1
            self.tables[-1]["cells"].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images.append(str(found.get("src")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption":
            self._caption = False
        elif tag == "tbody":
            self._body = False
        elif tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            table = self.tables[-1]
            (table["cells"][-1] if self._body else table["header"]).append(text)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._caption:
            self.tables[-1]["caption"] += data
        elif self._cell is not None:
            self._cell.append(data)

    def table(self, name: str) -> dict[str, Any]:
        (found,) = [t for t in self.tables if t["name"] == name]
        return found

    def column(self, name: str, header: str) -> list[str]:
        """The cells of one column of table ``name`` (its folded rest included)."""
        tables = [t for t in self.tables if t["name"] in (name, f"{name} (rest)")]
        index = tables[0]["header"].index(header)
        return [row[index] for table in tables for row in table["cells"]]


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def assert_self_contained(html: str) -> _Page:
    """No reference to anything outside the file: every src is an inline PNG, there are no
    links, scripts, frames or style sheets, and the CSS imports nothing."""
    page = parse(html)
    for tag, name, url in page.urls:
        assert url.startswith("data:image/png;base64,"), (tag, name, url[:80])
    assert not page.tags & {"link", "script", "iframe", "object", "embed", "base", "a"}
    assert not re.search(r"url\(|@import", html)
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:|//|file:)", html, re.I)
    return page


def embedded(png: bytes, html: str) -> bool:
    return base64.b64encode(png).decode("ascii") in html


def text_of(html: str) -> str:
    """The page without its embedded images and style (what a reader reads)."""
    return re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+|<style>.*?</style>", "", html, flags=re.S)


def assert_in_order(html: str, *sections: str) -> None:
    """The report's sections come in this order."""
    positions = [html.index(f'<section id="{name}">') for name in sections]
    assert positions == sorted(positions), sections


# ---- numbers with their units -----------------------------------------------------------------


def test_numbers_read_with_their_units() -> None:
    # 21 077 200 b/s = 21.0772 Mb/s, three significant digits
    assert format_rate(21077200) == "21.1 Mb/s"
    # 8.71147e-05 = 0.00871147 %: at most four decimals
    assert format_percent(8.71147e-05) == "0.0087 %"
    assert format_percent(0.324828) == "32.5 %" and format_percent(0.0) == "0 %"
    assert format_percent(1e-9) == "< 0.0001 %"  # 1e-7 %: not shown as 0
    assert format_rate(1e9) == "1 Gb/s" and format_rate(1500) == "1.5 Kb/s"
    assert format_rate(950) == "950 b/s" and format_rate(None) == "-"
    assert format_duration(0.0603056) == "60.3 ms" and format_duration(2.0) == "2 s"
    assert format_duration(0.00093001) == "930 µs"
    assert significant(2472.4) == "2472" and significant(-0.0004) == "-0.0004"
    assert format_number(8.71147e-05) == "8.711 × 10⁻⁵"
    assert format_number(12345678.9) == "1.235 × 10⁷" and format_number(2650000.0) == "2650000"
    assert format_number(0.5456123) == "0.5456" and format_number(3) == "3"


def test_a_mean_and_its_interval_share_their_decimals() -> None:
    # 4.2036e6 ± 1.9612e6 b/s in Mb/s: the half-width to 2 digits (2.0), the mean alike (4.2)
    assert format_mean_ci(4.2036e6, 1.9612e6, 1e6) == "4.2 ± 2.0"
    assert format_mean_ci(0.10324, 0.00787, 0.01) == "10.32 ± 0.79"  # a fraction in %
    assert format_mean_ci(5.0, float("nan")) == "5 ± n/a"
    assert format_mean_ci(float("nan"), 1.0) == "-"


def test_a_column_has_one_unit_named_in_its_header() -> None:
    goodput = column_format("goodput_bps", [21077200.0, 264267.0, None])
    assert goodput.header == "goodput (Mb/s)" and goodput.numeric
    assert [goodput.format(v) for v in (21077200.0, 264267.0, None)] == ["21.1", "0.264", "-"]
    loss = column_format("loss_rate", [8.71147e-05, 0.12])
    assert loss.header == "loss rate (%)" and loss.format(8.71147e-05) == "0.0087"
    rtt = column_format("mean_rtt_s", [0.0480389, 0.120602])
    assert rtt.header == "mean RTT (ms)" and rtt.format(0.0480389) == "48"
    assert column_format("completed", [0, 1]).format(1) == "yes"
    assert column_format("label", ["reno", "cubic"]).header == "label"


def test_commands_in_a_report_name_no_absolute_path() -> None:
    command = "ccsim run /home/me/exp/small.toml -o /home/me/exp/out --set seed=7"
    assert relative_command(command, "/home/me/exp") == "ccsim run small.toml -o out --set seed=7"
    assert (
        relative_command("ccsim sweep s.toml --out=/w/a/o", "/w") == "ccsim sweep s.toml --out=a/o"
    )
    untouched = "ccsim run 'my file.toml'  -o out"
    assert relative_command(untouched, "/anywhere") == untouched


# ---- the checker itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        '<img src="figure.png">',
        '<img src="https://example.org/f.png">',
        '<a href="R6.csv">table</a>',
        '<link rel="stylesheet" href="style.css">',
        '<script src="plot.js"></script>',
        "<style>body { background: url(back.png) }</style>",
    ],
)
def test_the_check_catches_external_references(bad: str) -> None:
    with pytest.raises(AssertionError):
        assert_self_contained(f"<html><body>{bad}</body></html>")


# ---- a study ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def r6(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """`ccsim study R6 --quick` into a directory, as a user runs it."""
    if "randomized" not in (core.available_algorithms() or set()):
        pytest.skip("the engine lacks randomized")
    where = tmp_path_factory.mktemp("study")
    done = run_cli("study", "R6", "--quick", "--out", "R6", "-j", "1", cwd=where)
    assert done.returncode == 0, done.stderr
    return where / "R6", done


@requires_engine
def test_study_prints_intervals_with_n_and_its_warm_up(r6: tuple[Path, Any]) -> None:
    directory, done = r6
    out = done.stdout
    assert "warm-up: none: each flow's goodput is taken over its whole run" in out
    # Piped, the table is plain text; n, the same in every row, is said once above it.
    assert re.search(r"^every row: n 3$", out, re.M), out
    assert re.search(r"^rate +config +metric +ours +95% CI +published$", out, re.M), out
    # e.g. "2Mbps  Reno/Reno    short share   0.8493   [0.7707, 0.9279]       0.71"
    rows = re.findall(
        r"^([23]Mbps) +(Reno/\w+) +(\w+ \S+) +([\d.]+) +\[([\d.]+), ([\d.]+)\] +[\d.]+$",
        out,
        re.M,
    )
    assert len(rows) == 16, out
    table = pd.read_csv(directory / "R6.csv")
    for rate, config, metric, ours, low, high in rows:
        row = table[
            (table["rate"] == rate) & (table["config"] == config) & (table["metric"] == metric)
        ]
        assert float(low) < float(ours) < float(high)
        assert float(low) == pytest.approx(row["ci_low"].iloc[0], rel=2e-3)
    assert "study.json" in out.split("wrote ")[-1]


@requires_engine
def test_study_report_holds_every_table_and_figure(r6: tuple[Path, Any]) -> None:
    directory, _ = r6
    done = run_cli("report", "R6", cwd=directory.parent)
    assert done.returncode == 0, done.stderr
    report = directory / "report.html"
    assert re.fullmatch(r"wrote R6/report\.html \(\d+ KiB\)\n", done.stdout), done.stdout
    html = report.read_text(encoding="utf-8")
    page = assert_self_contained(html)
    # Every figure the study wrote is embedded, byte for byte.
    pngs = sorted(directory.glob("*.png"))
    assert pngs and len(page.images) == len(pngs)
    assert all(embedded(p.read_bytes(), html) for p in pngs)
    # The comparison table, row for row, with the interval and n of each row.
    table = pd.read_csv(directory / "R6.csv")
    assert page.table("comparison")["rows"] == len(table)
    first = table.iloc[0]
    interval = f"[{format_number(first['ci_low'])}, {format_number(first['ci_high'])}]"
    assert f'<td class="num">{interval}</td><td class="num">3</td>' in html
    assert not re.search(r"\d\.\d+e[+-]\d", text_of(html)), "a number in e-notation"
    # The verdicts and every claim's checks.
    metadata = json.loads((directory / "study.json").read_text())
    assert page.table("verdicts")["rows"] == len(studies.get("R6").claims)
    for index, verdict in enumerate(metadata["verdicts"], 1):
        assert page.table(f"checks-{index}")["rows"] == len(verdict["checks"])
    # Setup, warm-up, assumptions, the stack profile, the command and the version.
    assert page.table("setup")["rows"] >= 7 and "warm-up" in html
    assert "200 s runs (the paper gives none" in html
    assert page.table("stack")["rows"] > 10 and "rto_formula" in html
    assert "<pre>ccsim study R6 --quick --out R6</pre>" in html
    assert "Run in .. (relative to the directory of this report)" in html
    assert str(directory.parent) not in html  # no absolute local path
    assert f"Results made with ccsim {metadata['ccsim_version']}" in html
    # Results first: the verdicts, the comparison and checks, the figures; then the setup.
    assert_in_order(html, "summary", "results", "figures", "setup", "reproduce")


@requires_engine
def test_study_report_of_a_directory_without_metadata(r6: tuple[Path, Any], tmp_path: Path) -> None:
    """A study directory written before study.json: the definition comes from the registry and
    the command is rebuilt from the settings in the verdicts file, said to be rebuilt."""
    import shutil

    old = tmp_path / "R6-old"
    shutil.copytree(r6[0], old)
    (old / "study.json").unlink()
    (old / "report.html").unlink(missing_ok=True)
    csv = pd.read_csv(old / "R6.csv").drop(columns=["ci_low", "ci_high"])
    csv.to_csv(old / "R6.csv", index=False)  # and before the intervals
    from ccsim.report import write_report

    html = write_report(old).read_text(encoding="utf-8")
    page = assert_self_contained(html)
    assert page.table("comparison")["rows"] == len(csv)
    assert "Rebuilt from the profile and mode" in html and "ccsim study R6 --quick" in html
    assert "[0." in html  # intervals computed from sd and runs


@requires_engine
def test_study_report_renders_in_jupyter(r6: tuple[Path, Any]) -> None:
    report = studies.run("R6", quick=True, out=r6[0], workers=1)  # cached: nothing runs
    html = report._repr_html_()
    page = assert_self_contained(html)
    assert page.table("comparison")["rows"] == len(report.table)
    assert len(page.images) == 1 and embedded((r6[0] / "R6.png").read_bytes(), html)


# ---- a run ------------------------------------------------------------------------------------


@requires_engine
def test_run_report_and_the_recorded_command(tmp_path: Path) -> None:
    (tmp_path / "small.toml").write_text(
        SMALL_DUMBBELL + '\n[trace]\nsample_interval = "50ms"\n', encoding="utf-8"
    )
    done = run_cli("run", "small.toml", "-o", "out", "--set", "seed=7", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["command"] == "ccsim run small.toml -o out --set seed=7"
    assert summary["cwd"] == str(tmp_path)
    done = run_cli("report", "out", "-o", "page.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "page.html").read_text(encoding="utf-8")
    page = assert_self_contained(html)
    # cwnd, throughput, queue (traced), flows and cdf
    assert len(page.images) == 5
    assert page.table("Flows")["rows"] == 3 and page.table("Links")["rows"] >= 6
    assert page.table("stack")["rows"] > 10
    assert "<pre>ccsim run small.toml -o out --set seed=7</pre>" in html
    assert "Run in the directory of this report." in html and str(tmp_path) not in html
    assert "seed = 7" in html  # the scenario as run
    assert f"ccsim {summary['ccsim_version']}" in html
    # Results first, the full scenario last and folded.
    assert_in_order(html, "summary", "tables", "figures", "setup", "reproduce", "scenario")
    assert re.search(r'<section id="scenario">\s*<h2>Scenario</h2>\s*<details><summary>', html)
    # Numbers with their units: each flow's goodput in the unit of the column's header.
    results = ccsim.Results.load(tmp_path / "out")
    flows = results.flows
    assert "goodput (Mb/s)" in page.table("Flows")["header"]
    assert page.column("Flows", "goodput (Mb/s)") == [
        significant(v / 1e6) for v in flows["goodput_bps"]
    ]
    assert "goodput_bps" not in html and not re.search(r"\d\.\d+e[+-]\d", text_of(html))
    total = format_rate(flows["goodput_bps"].sum())
    assert f"<dt>total goodput</dt><dd>{total}</dd>" in html
    # The links, the busiest first; beyond the first 12 folded.
    links = results.links
    shown = [float(v) for v in page.column("Links", "utilisation (%)")]
    assert len(shown) == len(links) and shown == sorted(shown, reverse=True)
    assert shown[0] == pytest.approx(100 * links["utilization"].max(), rel=1e-2)
    if len(links) > 12:
        assert page.table("Links")["rows"] == 12
        assert re.search(r"<details><summary>Links: the other \d+ rows</summary>", html)


@requires_engine
def test_results_render_as_tables_in_jupyter() -> None:
    import ccsim

    results = ccsim.run(ccsim.Scenario.from_toml(SMALL_DUMBBELL))
    html = results._repr_html_()
    page = assert_self_contained(html)
    assert page.table("Flows")["rows"] == len(results.flows)
    assert len(page.column("Links", "link")) == len(results.links)
    assert page.table("stack")["rows"] > 10 and not page.images


# ---- a sweep ----------------------------------------------------------------------------------


@requires_engine
def test_sweep_prints_intervals_records_its_command_and_reports(
    tmp_path: Path, write_sweep: Any
) -> None:
    path = write_sweep(
        'replicates = 3\n[axes]\n"topology.bottleneck_rate" = ["10Mbps", "20Mbps"]\n'
        '[compare]\nalgorithms = ["newreno"]\n',
        base=SWEEP_BASE,
    )
    done = run_cli("sweep", path.name, "-o", "out", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "mean over replicates +- 95% CI" in done.stdout
    # 2 rates x 2 algorithms, each 3 of 3 runs done, goodput "mean +- half-width"
    rows = re.findall(r"3/3[ │]+[\d.]+[ │]+(?:±|\+-) ?[\d.]+", done.stdout)
    assert len(rows) == 4, done.stdout
    recorded = json.loads((tmp_path / "out" / "command.json").read_text())
    assert recorded["command"] == "ccsim sweep sweep.toml -o out -j 1"
    assert recorded["cwd"] == str(tmp_path)
    done = run_cli("report", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    page = assert_self_contained(html)
    # goodput, jain, utilization, loss rate against the rate, and the goodput CDF
    assert len(page.images) == 5
    assert page.table("summary")["rows"] == 4 and page.table("Runs")["rows"] == 12
    assert page.table("axes")["rows"] == 1 and page.table("compare")["rows"] == 4
    assert "3 / 3" in html and " ± " in html
    assert "<pre>ccsim sweep sweep.toml -o out -j 1</pre>" in html
    assert "Run in .. (relative to the directory of this report)" in html
    assert str(tmp_path) not in html
    assert 'kind = "dumbbell"' in html  # the base scenario
    assert_in_order(html, "summary", "figures", "tables", "setup", "reproduce", "scenario")
    # The summary's goodput in Mb/s, mean ± half-width as the sweep's summary computes them.
    from ccsim.explore import read_manifest
    from ccsim.store import Store
    from ccsim.sweeps import summarise_runs

    columns = read_manifest(tmp_path / "out")["columns"]
    runs = Store.open(tmp_path / "out").runs_table()
    means = summarise_runs(runs, columns, ["goodput_bps"])
    expected = [
        format_mean_ci(m, h, 1e6) for m, h in zip(means["mean"], means["half_width"], strict=True)
    ]
    assert page.column("summary", "goodput (Mb/s)") == expected


def test_report_of_something_else_is_one_line_and_status_2(tmp_path: Path) -> None:
    done = run_cli("report", tmp_path, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "not a results, sweep or study" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "report.html").exists()
