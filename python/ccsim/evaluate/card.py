"""The report card: the summary as text cells, plain-language readings, figures, CSV and HTML."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from pathlib import Path
from typing import Any

from ccsim.evaluate.battery import BATTERY_VERSION, METRICS, TESTS
from ccsim.evaluate.battery.common import Summary, SummaryRow
from ccsim.evaluate.battery.drawing import Drawing
from ccsim.evaluate.model import Evaluation
from ccsim.report.markup import (
    bullet_list,
    folded,
    html_page,
    html_table,
    key_numbers,
    paragraph,
    preformatted,
    reproduce_section,
    section,
)
from ccsim.studies.evidence import Quantity

__all__ = ["readings", "shown", "summary_cells", "write_csv", "write_html"]


def shown(quantity: Quantity, metric: str, signed: bool = False) -> str:
    """``mean [low, high]`` in the metric's format (the mean alone with too few seeds)."""
    return METRICS[metric].shown(quantity, signed)


def _against(row: SummaryRow, quantity: Quantity, baseline: str) -> str:
    """How the evaluated algorithm compares with a baseline, from the paired difference: above or
    below when its interval excludes zero and the difference shows at the metric's precision."""
    return METRICS[row.metric].against(quantity, baseline)


def summary_cells(evaluation: Evaluation) -> tuple[list[str], list[list[str]]]:
    """The summary table's header and rows, as text: metric, condition, the algorithm's value,
    then for each baseline its value and the paired difference, then a reading."""
    name = evaluation.alg.name
    header = [
        "test",
        "metric",
        "condition",
        f"{name} (ALG)" if name in evaluation.baselines else name,
    ]
    for baseline in evaluation.baselines:
        header += [baseline, f"- {baseline}"]
    header.append("reading")
    rows = []
    for row in evaluation.summary:
        metric = row.metric + (f" ({row.unit})" if row.unit else "")
        cells = [row.test, metric, row.condition, shown(row.value, row.metric)]
        by_name = {c.baseline: c for c in row.comparisons}
        reading = []
        for baseline in evaluation.baselines:
            comparison = by_name.get(baseline)
            if comparison is None:
                cells += ["", ""]
                continue
            cells += [
                shown(comparison.value, row.metric),
                shown(comparison.difference, row.metric, signed=True),
            ]
            reading.append(_against(row, comparison.difference, baseline))
        row_reading = TESTS[row.test].row_reading
        if row_reading is not None and (said := row_reading(row)) is not None:
            reading.append(said)
        cells.append("; ".join(reading))
        rows.append(cells)
    return header, rows


def readings(evaluation: Evaluation) -> list[str]:
    """Plain-language sentences drawn from the summary's numbers, test by test."""
    out = []
    for test in TESTS.values():
        if test.readings is None:
            continue
        rows = [row for row in evaluation.summary if row.test == test.name]
        summary = Summary(rows, evaluation.alg.name, evaluation.baselines, evaluation.plan)
        out += test.readings(summary)
    return out


def write_csv(evaluation: Evaluation, path: Path) -> None:
    """The summary, one line per test, metric, condition and algorithm: mean, interval, seeds,
    and for baselines the paired difference (evaluated minus baseline) with its interval."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        ["battery_version", "test", "metric", "unit", "condition", "algorithm", "role",
         "mean", "ci_low", "ci_high", "n", "difference", "difference_low", "difference_high"]
    )  # fmt: skip

    def numbers(q: Quantity) -> list[Any]:
        ci = q.interval()
        low, high = ci if ci is not None else (math.nan, math.nan)
        return [_num(q.mean), _num(low), _num(high), q.n]

    for row in evaluation.summary:
        start = [BATTERY_VERSION, row.test, row.metric, row.unit, row.condition]
        writer.writerow([*start, evaluation.alg.name, "alg", *numbers(row.value), "", "", ""])
        for c in row.comparisons:
            writer.writerow(
                [*start, c.baseline, "baseline", *numbers(c.value), *numbers(c.difference)[:3]]
            )
    path.write_text(buffer.getvalue(), encoding="utf-8")


def _num(value: float) -> str:
    return "" if math.isnan(value) else f"{value:.6g}"


# ---- figures -----------------------------------------------------------------------------------


def _figures(evaluation: Evaluation) -> dict[str, list[tuple[str, bytes]]]:
    import matplotlib

    matplotlib.use("Agg")

    name = evaluation.alg.name
    shown_name = f"{name} (ALG)" if name in evaluation.baselines else name
    roles = [("alg", shown_name), *[(b, b) for b in evaluation.baselines]]
    frame = evaluation.measurements_frame()
    out: dict[str, list[tuple[str, bytes]]] = {}
    if frame.empty:
        return out
    for test in TESTS.values():
        if test.figures is None:
            continue
        figures = test.figures(Drawing(test.name, frame[frame["test"] == test.name], roles))
        if figures:
            out[test.name] = figures
    return out


#: The code that draws the figures, as it was imported (a file edited since does not count
#: until it is imported again): this module and the battery's.
_CODE = "".join(
    path.read_text(encoding="utf-8")
    for path in [Path(__file__), *sorted((Path(__file__).parent / "battery").glob("*.py"))]
)


def _cached_figures(evaluation: Evaluation) -> dict[str, list[tuple[str, bytes]]]:
    """The card's figures, also written to ``figures/`` in the output directory. Drawing them
    is most of the time a rerun of a finished evaluation takes, so they are drawn again only
    when what they show may have changed: the measurements, the algorithms' names, the
    battery's version or the code that draws them (their hash is kept beside the files)."""
    directory = evaluation.directory / "figures"
    digest = hashlib.sha256()
    for part in (
        BATTERY_VERSION,
        _CODE,
        json.dumps([evaluation.alg.name, evaluation.baselines, evaluation.plan.time_scale]),
        evaluation.measurements_frame().to_csv(index=False),
    ):
        digest.update(part.encode("utf-8"))
    key = digest.hexdigest()
    index = directory / "figures.json"
    try:
        recorded = json.loads(index.read_text(encoding="utf-8"))
        if recorded["key"] == key:
            return {
                test: [(name, (directory / _png_name(name)).read_bytes()) for name in names]
                for test, names in recorded["figures"].items()
            }
    except (OSError, ValueError, KeyError, TypeError):
        pass  # none yet, or unreadable: draw them
    figures = _figures(evaluation)
    directory.mkdir(exist_ok=True)
    for stale in directory.glob("*.png"):  # drawn for measurements that are gone
        stale.unlink()
    for pngs in figures.values():
        for name, png in pngs:
            (directory / _png_name(name)).write_bytes(png)
    listing = {test: [name for name, _ in pngs] for test, pngs in figures.items()}
    index.write_text(json.dumps({"key": key, "figures": listing}, indent=1) + "\n", "utf-8")
    return figures


def _png_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name) + ".png"


def _image(name: str, png: bytes) -> str:
    import base64

    data = base64.b64encode(png).decode("ascii")
    return f'<figure data-figure="{name}"><img alt="{name}" src="data:image/png;base64,{data}"></figure>\n'


def write_html(evaluation: Evaluation, path: Path) -> None:
    """The report card: one self-contained HTML file (figures inline)."""
    alg = evaluation.alg
    title = f"ccsim evaluate {alg.name}"
    numbers = [
        ("battery", f"v{BATTERY_VERSION}" + (" quick" if evaluation.plan.quick else " full")),
        ("algorithm", alg.cc + (f" {dict(alg.params)}" if alg.params else "")),
        ("baselines", ", ".join(evaluation.baselines) or "none"),
        ("seeds", ", ".join(str(s) for s in evaluation.plan.seeds)),
        ("runs", f"{evaluation.runs} ({evaluation.ran} run now)"),
    ]
    body = [f"<h1>{title}</h1>\n", key_numbers(numbers)]
    notes = [
        "Each value is the mean over seeds with its 95% confidence interval (Student's t). "
        "The columns '- BASELINE' are the evaluated algorithm minus the baseline, paired by "
        "seed: every algorithm ran under the same seeds, so the same random losses and start "
        "times."
    ]
    if evaluation.plan.time_scale != 1:
        notes.append(f"Run lengths scaled by {evaluation.plan.time_scale:g} (a test setting).")
    if len(evaluation.tests_run()) < len(TESTS):
        notes.append(
            f"Only part of battery v{BATTERY_VERSION} ran (--tests): "
            f"{', '.join(evaluation.tests_run())}."
        )
    if evaluation.failures:
        notes.append(f"{len(evaluation.failures)} runs failed: {evaluation.failures[0]}")
    header, rows = summary_cells(evaluation)
    body.append(
        section(
            "Summary",
            bullet_list(readings(evaluation))
            + html_table(header, rows, name="summary")
            + "".join(paragraph(n, "note") for n in notes),
            "summary",
        )
    )
    figures = _cached_figures(evaluation)
    for test in TESTS.values():
        content = paragraph(test.why) + paragraph(f"Source: {test.source}.", "note")
        content += "".join(_image(name, png) for name, png in figures.get(test.name, []))
        files = [s for s in evaluation.sweeps if s.test == test.name]
        for sweep in files:
            text = (evaluation.directory / "scenarios" / f"{sweep.name}.toml").read_text()
            content += folded(f"scenarios/{sweep.name}.toml", preformatted(text))
        body.append(section(f"{test.name}: {test.title}", content, test.name))
    body.append(
        reproduce_section(
            evaluation.command,
            evaluation.cwd,
            location=path.parent,
            note="Runs already in the directory are not run again.",
        )
    )
    path.write_text(html_page(title, "".join(body)), encoding="utf-8")
