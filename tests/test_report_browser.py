"""Reports in a real browser: a run's, a sweep's and a study's report, opened by headless
Chromium, show every figure, keep wide tables inside their own scrolling box (the page itself
never scrolls sideways) and log nothing to the console.

The page is copied with a small script added that, once the page has loaded, unfolds every
``<details>`` (so folded tables are measured too), runs the checks and writes its verdict as JSON
into the page; ``chromium --dump-dom`` prints the page with it. A screenshot of each report is
kept beside it (in ``$CCSIM_ARTEFACTS`` when set, a git-ignored directory such as ``artefacts/``;
the test's temporary directory otherwise). Skipped when Chromium is not installed
(``apt-get install chromium``; CI installs it).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ccsim.studies import core
from conftest import SMALL_DUMBBELL, SWEEP_BASE, requires_engine, run_cli

pytest.importorskip("matplotlib")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (apt-get install -y chromium; CI installs it)",
)

#: The browser window: a laptop screen's width, tall enough to show a report's first sections.
WINDOW = "1280,2000"
VERDICT_ID = "ccsim-browser-verdict"

#: Added at the top of <head>: records console errors and failed loads from the start, then on
#: load unfolds everything and checks figures and table widths.
CHECKS = """<script>
(function () {
  var problems = [];
  var original = console.error;
  console.error = function () {
    problems.push("console.error: " + Array.prototype.join.call(arguments, " "));
    original.apply(console, arguments);
  };
  window.addEventListener("error", function (event) {
    var target = event.target;
    if (target && target !== window && target.tagName) {
      problems.push("failed to load <" + target.tagName.toLowerCase() + ">");
    } else {
      problems.push("error: " + event.message);
    }
  }, true);
  window.addEventListener("load", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
    var page = document.documentElement.clientWidth;
    var images = Array.prototype.map.call(document.images, function (img) {
      return {alt: img.alt, loaded: img.complete && img.naturalWidth > 0,
              width: img.naturalWidth};
    });
    var tables = Array.prototype.map.call(document.querySelectorAll("table"), function (t) {
      var box = t.getBoundingClientRect();
      var scroller = null;
      for (var node = t.parentElement; node; node = node.parentElement) {
        var overflow = getComputedStyle(node).overflowX;
        if (overflow === "auto" || overflow === "scroll") { scroller = node; break; }
      }
      var boxed = scroller !== null && scroller.getBoundingClientRect().right <= page + 1
        && scroller.getBoundingClientRect().left >= -1;
      return {name: t.getAttribute("data-table"), width: box.width,
              wider: box.right > page + 1 || box.left < -1, boxed: boxed,
              scrolls: scroller !== null && scroller.scrollWidth > scroller.clientWidth};
    });
    var verdict = {images: images, tables: tables, problems: problems, page: page,
                   scroll_width: document.documentElement.scrollWidth};
    var out = document.createElement("pre");
    out.id = "VERDICT_ID";
    out.textContent = JSON.stringify(verdict);
    document.body.appendChild(out);
  });
})();
</script>""".replace("VERDICT_ID", VERDICT_ID)


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={WINDOW}",
            "--virtual-time-budget=10000",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )


def browse(page: str, where: Path, name: str) -> dict[str, Any]:
    """Open ``page`` (HTML text) in headless Chromium with the checks added; the verdict, with
    the console messages Chromium logged added to its ``problems``. A screenshot is saved as
    ``NAME.png`` in the artefacts directory."""
    where.mkdir(parents=True, exist_ok=True)
    checked = where / f"{name}.html"
    checked.write_text(page.replace("<head>", "<head>\n" + CHECKS, 1), encoding="utf-8")
    done = _chromium("--dump-dom", checked.as_uri(), profile=where / f"{name}-profile")
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(rf'<pre id="{VERDICT_ID}">(.*?)</pre>', done.stdout, re.S)
    assert found, f"the checks did not run: {done.stdout[-500:]} {done.stderr[-2000:]}"
    verdict: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    # Messages of the page's own scripts; a report has none, so any is a problem.
    verdict["problems"] += [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    artefacts = Path(os.environ.get("CCSIM_ARTEFACTS") or where)
    artefacts.mkdir(parents=True, exist_ok=True)
    shot = artefacts / f"{name}.png"
    original = where / f"{name}-report.html"
    original.write_text(page, encoding="utf-8")
    done = _chromium(f"--screenshot={shot}", original.as_uri(), profile=where / f"{name}-profile")
    assert done.returncode == 0 and shot.read_bytes()[:4] == b"\x89PNG", done.stderr[-2000:]
    return verdict


def assert_fit_to_publish(verdict: dict[str, Any]) -> None:
    assert verdict["images"], "no figure"
    assert [i for i in verdict["images"] if not i["loaded"]] == []
    assert [t for t in verdict["tables"] if t["wider"] and not t["boxed"]] == []
    assert verdict["scroll_width"] <= verdict["page"], "the page scrolls sideways"
    assert verdict["problems"] == []


# ---- the checks themselves --------------------------------------------------------------------


def test_the_browser_checks_catch_broken_figures_wide_tables_and_errors(tmp_path: Path) -> None:
    cells = "".join(f"<td>column-{i}-with-a-long-value</td>" for i in range(60))
    page = (
        "<!DOCTYPE html><html><head><title>bad</title></head><body>"
        '<img alt="broken" src="data:image/png;base64,AAAA">'
        f'<table data-table="wide"><tr>{cells}</tr></table>'
        '<div style="overflow-x: auto"><table data-table="boxed"><tr>'
        f"{cells}</tr></table></div>"
        "<script>console.error('something failed')</script></body></html>"
    )
    verdict = browse(page, tmp_path, "bad")
    assert [i["loaded"] for i in verdict["images"]] == [False]
    by_name = {t["name"]: t for t in verdict["tables"]}
    assert by_name["wide"]["wider"] and not by_name["wide"]["boxed"]
    assert by_name["boxed"]["boxed"] and by_name["boxed"]["scrolls"]
    assert any("something failed" in p for p in verdict["problems"])
    assert any("failed to load <img>" in p for p in verdict["problems"])
    with pytest.raises(AssertionError):
        assert_fit_to_publish(verdict)


# ---- the three reports ------------------------------------------------------------------------


def _report(directory: Path) -> str:
    from ccsim.report import write_report

    return write_report(directory).read_text(encoding="utf-8")


@requires_engine
def test_a_run_report_in_the_browser(tmp_path: Path) -> None:
    (tmp_path / "small.toml").write_text(
        SMALL_DUMBBELL + '\n[trace]\nsample_interval = "50ms"\n', encoding="utf-8"
    )
    done = run_cli("run", "small.toml", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = _report(tmp_path / "out")
    assert str(tmp_path) not in page  # no absolute local path
    verdict = browse(page, tmp_path / "browser", "run")
    assert_fit_to_publish(verdict)
    assert len(verdict["images"]) == 5
    # The flows table (29 columns) is wider than the page: it scrolls in its own box.
    flows = [t for t in verdict["tables"] if t["name"] == "Flows"]
    assert flows and flows[0]["wider"] and flows[0]["scrolls"]


@requires_engine
def test_a_sweep_report_in_the_browser(tmp_path: Path, write_sweep: Any) -> None:
    path = write_sweep(
        'replicates = 2\n[axes]\n"topology.bottleneck_rate" = ["10Mbps", "20Mbps"]\n',
        base=SWEEP_BASE,
    )
    done = run_cli("sweep", path.name, "-o", "out", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = _report(tmp_path / "out")
    assert str(tmp_path) not in page
    verdict = browse(page, tmp_path / "browser", "sweep")
    assert_fit_to_publish(verdict)
    assert {"summary", "Runs", "stack"} <= {t["name"] for t in verdict["tables"]}


@requires_engine
def test_a_study_report_in_the_browser(tmp_path: Path) -> None:
    if "randomized" not in (core.available_algorithms() or set()):
        pytest.skip("the engine lacks randomized, which study R6 runs")
    done = run_cli("study", "R6", "--quick", "--out", "R6", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = _report(tmp_path / "R6")
    assert str(tmp_path) not in page
    verdict = browse(page, tmp_path / "browser", "study")
    assert_fit_to_publish(verdict)
    assert {"verdicts", "comparison", "setup"} <= {t["name"] for t in verdict["tables"]}
