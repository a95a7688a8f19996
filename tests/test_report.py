"""`ccsim report`: one self-contained HTML file for a run, a sweep or a study, holding every table
and figure; the commands record what made their directories; Jupyter renders results as tables."""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ccsim import studies
from ccsim.studies import core
from conftest import SMALL_DUMBBELL, SWEEP_BASE, requires_engine, run_cli

pytest.importorskip("matplotlib")


class _Page(HTMLParser):
    """What a report holds: its tables (name, caption, body rows), figures and every URL-bearing
    attribute and tag."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict[str, Any]] = []
        self.images: list[str] = []
        self.urls: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()
        self._caption = False
        self._body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        found = dict(attrs)
        for name in ("src", "href", "action", "data", "poster", "srcset"):
            if found.get(name) is not None:
                self.urls.append((tag, name, str(found[name])))
        if tag == "table":
            self.tables.append({"name": found.get("data-table"), "caption": "", "rows": 0})
        elif tag == "caption":
            self._caption = True
        elif tag == "tbody":
            self._body = True
        elif tag == "tr" and self._body:
            self.tables[-1]["rows"] += 1
        elif tag == "img":
            self.images.append(str(found.get("src")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption":
            self._caption = False
        elif tag == "tbody":
            self._body = False

    def handle_data(self, data: str) -> None:
        if self._caption:
            self.tables[-1]["caption"] += data

    def table(self, name: str) -> dict[str, Any]:
        (found,) = [t for t in self.tables if t["name"] == name]
        return found


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
    assert re.search(r"┃ +95% CI ┃ n ┃ published ┃", out), out
    # e.g. "│ 2Mbps │ Reno/Reno   │ short share  │ 0.8428 │ [0.7735, 0.9121] │ 3 │      0.71 │"
    rows = re.findall(
        r"│ ([23]Mbps) │ (Reno/\w+) +│ (\w+ \S+) +│ +([\d.]+) │ +\[([\d.]+), ([\d.]+)\] │ 3 │", out
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
    interval = core.format_interval(first["ci_low"], first["ci_high"])
    assert f'<td class="num">{interval}</td><td class="num">3</td>' in html
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
    assert f"Results made with ccsim {metadata['ccsim_version']}" in html


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
    assert "seed = 7" in html  # the scenario as run
    assert f"ccsim {summary['ccsim_version']}" in html


@requires_engine
def test_results_render_as_tables_in_jupyter() -> None:
    import ccsim

    results = ccsim.run(ccsim.Scenario.from_toml(SMALL_DUMBBELL))
    html = results._repr_html_()
    page = assert_self_contained(html)
    assert page.table("Flows")["rows"] == len(results.flows)
    assert page.table("Links")["rows"] == len(results.links)
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
    assert len(re.findall(r"│ 3/3 │ +[\d.]+ \+- [\d.]+ │", done.stdout)) == 4, done.stdout
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
    assert 'kind = "dumbbell"' in html  # the base scenario


def test_report_of_something_else_is_one_line_and_status_2(tmp_path: Path) -> None:
    done = run_cli("report", tmp_path, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "not a results, sweep or study" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "report.html").exists()
