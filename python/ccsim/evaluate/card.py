"""The report card: the summary as text cells, plain-language readings, figures, CSV and HTML."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ccsim.evaluate.analysis import METRICS, RTT_CONDITION, RTT_RATIO, SummaryRow
from ccsim.evaluate.battery import BATTERY_VERSION, TESTS
from ccsim.evaluate.battery.convergence import CONVERGENCE_JAIN, CONVERGENCE_WINDOW_S, join_time
from ccsim.evaluate.battery.random_loss import LOSSES_FULL, mathis_bps
from ccsim.evaluate.battery.short_flows import SHORT_CLASSES
from ccsim.evaluate.model import Evaluation
from ccsim.report.markup import (
    bullet_list,
    folded,
    html_page,
    html_table,
    key_numbers,
    paragraph,
    png_of,
    preformatted,
    reproduce_section,
    section,
)
from ccsim.studies.evidence import Quantity

__all__ = ["readings", "shown", "summary_cells", "write_csv", "write_html"]


def shown(quantity: Quantity, metric: str, signed: bool = False) -> str:
    """``mean [low, high]`` in the metric's format (the mean alone with too few seeds)."""
    if not quantity.has_data:
        return "-"
    fmt = METRICS[metric].fmt

    def number(value: float, sign: str = "") -> str:
        # A value that rounds to zero is shown as 0, never -0.0.
        text = fmt.format(value)
        return fmt.replace("{:", "{:" + sign).format(0.0 if float(text) == 0 else value)

    text = number(quantity.mean, "+" if signed else "")
    ci = quantity.interval()
    if ci is not None:
        text += " [" + number(ci[0]) + ", " + number(ci[1]) + "]"
    return text


def _against(row: SummaryRow, quantity: Quantity, baseline: str) -> str:
    """How the evaluated algorithm compares with a baseline, from the paired difference: above or
    below when its interval excludes zero and the difference shows at the metric's precision."""
    ci = quantity.interval()
    if ci is None:
        return f"too few seeds to compare with {baseline}"
    fmt = METRICS[row.metric].fmt

    def negligible(value: float) -> bool:
        return float(fmt.format(abs(value))) == 0

    if ci[0] > 0 or ci[1] < 0:
        if negligible(quantity.mean):
            return f"same as {baseline}"
        return f"{'above' if ci[0] > 0 else 'below'} {baseline}"
    if negligible(ci[0]) and negligible(ci[1]):
        return f"same as {baseline}"
    return f"no clear difference from {baseline}"


HARM_METRICS = ("throughput harm", "delay harm")


def _harm(row: SummaryRow) -> str:
    """A harm row's reading, from its own interval: who is harmed, or gains, or neither."""
    rest = row.condition.partition(", ")[2]
    direction, _, baseline = rest.partition(" ")
    who = f"ALG harms {baseline}" if direction == "to" else f"{baseline} harms ALG"
    what = "goodput" if row.metric == "throughput harm" else "RTT"
    ci = row.value.interval()
    if ci is None:
        return "too few seeds"
    if ci[0] > 0:
        return f"{who} ({what})"
    if ci[1] < 0:
        gainer = baseline if direction == "to" else "ALG"
        return f"a gain for {gainer} ({what})"
    return f"no clear harm ({what})"


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
        if row.metric in HARM_METRICS:
            reading.append(_harm(row))
        cells.append("; ".join(reading))
        rows.append(cells)
    return header, rows


def _find(rows: Sequence[SummaryRow], test: str, metric: str, condition: str) -> SummaryRow | None:
    for row in rows:
        if (row.test, row.metric, row.condition) == (test, metric, condition):
            return row
    return None


def readings(evaluation: Evaluation) -> list[str]:
    """Plain-language sentences drawn from the summary's numbers, one per test."""
    rows = evaluation.summary
    name = evaluation.alg.name
    out = []
    util = _find(rows, "single-flow", "utilization", "buffer 1 BDP")
    delay = _find(rows, "single-flow", "mean queue delay", "buffer 1 BDP")
    shallow = _find(rows, "single-flow", "utilization", "buffer 0.1 BDP")
    deep = _find(rows, "single-flow", "mean queue delay", "buffer 10 BDP")
    if util and delay and util.value.has_data and delay.value.has_data:
        text = (
            f"{name} fills {util.value.mean:.0f}% of the link with {delay.value.mean:.1f} ms of "
            "mean queueing delay at 1 BDP"
        )
        if shallow and shallow.value.has_data:
            text += f", {shallow.value.mean:.0f}% at 0.1 BDP"
        if deep and deep.value.has_data:
            text += f"; with a 10 BDP buffer it keeps {deep.value.mean:.0f} ms of queue"
        out.append(text + ".")
    loss = _find(rows, "random-loss", "goodput", "loss 0.001")
    ratio = _find(rows, "random-loss", "goodput / Mathis", "loss 0.001")
    if loss and ratio and loss.value.has_data:
        out.append(
            f"At 0.1% random loss it gets {loss.value.mean:.1f} Mb/s, "
            f"{ratio.value.mean:.1f} times the Mathis rate ({mathis_bps(1e-3) / 1e6:.1f} Mb/s)."
        )
    eight = _find(rows, "intra-fairness", "Jain index", "8 flows")
    sixteen = _find(rows, "intra-fairness", "Jain index", "16 flows")
    exponent = _find(rows, "intra-fairness", "RTT exponent", RTT_CONDITION)
    rtt = _find(rows, "intra-fairness", RTT_RATIO, RTT_CONDITION)
    if eight and eight.value.has_data:
        text = f"Eight flows of {name} reach a Jain index of {eight.value.mean:.2f}"
        if sixteen and sixteen.value.has_data:
            text += f", sixteen {sixteen.value.mean:.2f}"
        if exponent and exponent.value.has_data:
            text += (
                f"; across RTTs of 10-200 ms its goodput goes as RTT to the power "
                f"{shown(exponent.value, 'RTT exponent')} (0 is RTT-fair)"
            )
        if rtt and rtt.value.has_data:
            text += f", a 10 ms flow getting {rtt.value.mean:.1f} times a 200 ms flow's goodput"
        out.append(text + ".")
    converged = _find(rows, "convergence", "convergence time", "second flow joins")
    if converged and converged.value.has_data:
        longest = _convergence_span(evaluation)
        censored = sum(v >= longest - 1e-6 for v in converged.value.values.values())
        window = f"{CONVERGENCE_WINDOW_S:g} s"
        if censored == converged.value.n:
            out.append(
                f"A second {name} flow joining a running one does not reach a fair share (Jain "
                f"index >= {CONVERGENCE_JAIN:g} over every {window} window from then on) within "
                f"the {longest:.0f} s measured."
            )
        else:
            text = (
                f"A second {name} flow joining a running one shares fairly (Jain index >= "
                f"{CONVERGENCE_JAIN:g} over every {window} window from then on) after "
                f"{shown(converged.value, 'convergence time')} s"
            )
            if censored:
                text += (
                    f" (in {censored} of {converged.value.n} seeds not within the "
                    f"{longest:.0f} s measured: a lower bound)"
                )
            out.append(text + ".")
    shares = []
    for row in rows:
        if row.test == "inter-protocol" and row.metric == "share" and row.value.has_data:
            queue, _, opponent = row.condition.partition(", against ")
            shares.append(f"{row.value.mean:.0f}% against {opponent} in {queue}")
    harms = _harm_readings(rows, name, evaluation.baselines)
    start = _find(rows, "rate-step", "time to 90% utilization", "after the start")
    step_up = _find(rows, "rate-step", "time to 90% utilization", "after the step up")
    peak = _find(rows, "rate-step", "queue peak", "after the step down to 20 Mb/s")
    if start and step_up and peak and start.value.has_data:
        out.append(
            f"It reaches 90% of a 100 Mb/s link {start.value.mean:.1f} s after its start and "
            f"{step_up.value.mean:.1f} s after the link steps back up from 20 Mb/s; the step "
            f"down builds a queue of {peak.value.mean:.0f} ms."
        )
    on_paths = [
        f"{row.value.mean:.0f}% of the {row.condition.partition(',')[0]} path"
        + (
            f" at a mean RTT of {METRICS['mean RTT'].fmt.format(rtt.value.mean)} ms"
            if (rtt := _find(rows, "paths", "mean RTT", row.condition)) and rtt.value.has_data
            else ""
        )
        for row in rows
        if row.test == "paths" and row.metric == "capacity used" and row.value.has_data
    ]
    if on_paths:
        out.append(
            f"One {name} flow fills " + ", ".join(on_paths) + " (the base RTTs in the table)."
        )
    short = _short_reading(evaluation)
    if short:
        out.append(short)
    if shares:
        out.append(f"One {name} flow takes " + ", ".join(shares) + " (50% is an even share).")
    out += harms
    return out


def _short_reading(evaluation: Evaluation) -> str | None:
    """The short transfers' median and 95th percentile by size class beside ALG, each with the
    baselines' in brackets."""
    parts = []
    for _, label in SHORT_CLASSES:
        median = _find(evaluation.summary, "short-flows", "median completion time", label)
        p95 = _find(evaluation.summary, "short-flows", "p95 completion time", label)
        if not (median and p95 and median.value.has_data):
            continue
        text = f"{label} in {median.value.mean:.0f} ms (95th percentile {p95.value.mean:.0f} ms"
        others = [
            f"{c.value.mean:.0f} ms beside {c.baseline}: {_against(p95, c.difference, c.baseline)}"
            for c in p95.comparisons
        ]
        parts.append(text + (f"; {'; '.join(others)}" if others else "") + ")")
    if not parts:
        return None
    return (
        f"Web-like transfers beside one long {evaluation.alg.name} flow finish: "
        + ", ".join(parts)
        + "."
    )


def _percent(row: SummaryRow) -> str:
    """``mean% [low, high]``."""
    text = shown(row.value, row.metric)
    return text.replace(" [", "% [", 1) if " [" in text else text + "%"


def _harm_readings(rows: Sequence[SummaryRow], name: str, baselines: Sequence[str]) -> list[str]:
    """One sentence per baseline: the harm each does to the other's goodput and RTT, by queue."""
    out = []
    for baseline in baselines:
        parts: dict[str, list[str]] = {"to": [], "from": []}
        for direction in parts:
            for row in rows:
                if row.test != "inter-protocol" or row.metric != "throughput harm":
                    continue
                queue, _, rest = row.condition.partition(", ")
                if rest != f"{direction} {baseline}" or not row.value.has_data:
                    continue
                text = f"{queue} {_percent(row)}"
                delay = _find(rows, "inter-protocol", "delay harm", row.condition)
                if delay and delay.value.has_data:
                    text += f" and {_percent(delay)}"
                parts[direction].append(text)
        if parts["to"] or parts["from"]:
            text = (
                f"Harm (Ware et al.) to goodput and to RTT, against each competing with itself "
                f"(negative: a gain): {name} to {baseline} " + ("; ".join(parts["to"]) or "-")
            )
            text += f"; {baseline} to {name} " + ("; ".join(parts["from"]) or "-")
            out.append(text + ".")
    return out


def _convergence_span(evaluation: Evaluation) -> float:
    """The longest convergence time the test can measure: from the join to the last window."""
    duration = evaluation.plan.seconds(30, 60)
    return duration - join_time(duration) - CONVERGENCE_WINDOW_S


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
    import matplotlib.pyplot as plt

    name = evaluation.alg.name
    shown_name = f"{name} (ALG)" if name in evaluation.baselines else name
    roles = [("alg", shown_name), *[(b, b) for b in evaluation.baselines]]
    frame = evaluation.measurements_frame()
    out: dict[str, list[tuple[str, bytes]]] = {}
    if frame.empty:
        return out

    def lines(test: str, metric: str, ax: Any, log_x: bool) -> None:
        for role, label in roles:
            chosen = frame[(frame["test"] == test) & (frame["metric"] == metric)]
            chosen = chosen[chosen["role"] == role]
            if chosen.empty:
                continue
            xs, means, errors = [], [], []
            for x, group in chosen.groupby("order"):
                q = Quantity.replicated(zip(group["seed"], group["value"], strict=True))
                ci = q.interval()
                xs.append(x)
                means.append(q.mean)
                errors.append(0.0 if ci is None else (ci[1] - ci[0]) / 2)
            ax.errorbar(xs, means, yerr=errors, marker="o", capsize=3, label=label)
        if log_x:
            ax.set_xscale("log")
        unit = METRICS[metric].unit
        ax.set_ylabel(metric + (f" ({unit})" if unit else ""))
        ax.grid(alpha=0.3)

    def measured(test: str, metric: str) -> bool:
        # A test left out of the run (evaluate's ``tests``) gets no figure.
        return bool(((frame["test"] == test) & (frame["metric"] == metric)).any())

    if measured("single-flow", "utilization"):
        figure, axes = plt.subplots(1, 3, figsize=(13, 3.6))
        for ax, metric in zip(
            axes, ["utilization", "mean queue delay", "p95 queue delay"], strict=True
        ):
            lines("single-flow", metric, ax, log_x=True)
            ax.set_xlabel("buffer (BDP)")
        _legend(axes[0])
        out["single-flow"] = [("single-flow", png_of(figure))]
        plt.close(figure)

    if measured("random-loss", "goodput"):
        figure, ax = plt.subplots(figsize=(6, 4))
        lines("random-loss", "goodput", ax, log_x=True)
        losses = list(LOSSES_FULL)
        ax.plot(losses, [mathis_bps(p) / 1e6 for p in losses], "k--", label="Mathis (C = 0.87)")
        ax.set_yscale("log")
        ax.set_xlabel("random loss rate")
        _legend(ax)
        out["random-loss"] = [("random-loss", png_of(figure))]
        plt.close(figure)

    if measured("intra-fairness", "goodput"):
        figure, ax = plt.subplots(figsize=(6, 4))
        lines("intra-fairness", "goodput", ax, log_x=True)
        ax.set_yscale("log")
        ax.set_xlabel("base RTT (ms), four flows through one bottleneck")
        _legend(ax)
        out["intra-fairness"] = [("rtt-fairness", png_of(figure))]
        plt.close(figure)

    # Bar charts by condition; metrics of one test drawn side by side share a figure.
    bars: list[tuple[str, list[str]]] = [
        ("intra-fairness", ["Jain index"]),
        ("convergence", ["convergence time"]),
        ("inter-protocol", ["share"]),
        ("inter-protocol", ["throughput harm", "delay harm"]),
        ("short-flows", ["median completion time", "p95 completion time"]),
        ("paths", ["capacity used", "mean RTT"]),
        ("rate-step", ["time to 90% utilization"]),
        ("rate-step", ["queue peak"]),
    ]
    for test, metrics in bars:
        drawn = [
            (metric, chosen)
            for metric in metrics
            if not (chosen := frame[(frame["test"] == test) & (frame["metric"] == metric)]).empty
        ]
        if not drawn:
            continue
        widest = max(len(set(chosen["condition"])) for _, chosen in drawn)
        # One metric above the other, so that many conditions stay readable.
        size = (min(max(6, 1.3 * widest), 16), 4 if len(drawn) == 1 else 3.4 * len(drawn))
        figure, axes = plt.subplots(len(drawn), 1, figsize=size, squeeze=False)
        for ax, (metric, chosen) in zip(axes[:, 0], drawn, strict=True):
            _bars(ax, metric, chosen, roles)
        out.setdefault(test, []).append((f"{test}-{'-'.join(metrics)}", png_of(figure)))
        plt.close(figure)
    return out


def _bars(ax: Any, metric: str, chosen: Any, roles: list[tuple[str, str]]) -> None:
    """One bar per role and condition: the mean over seeds with its 95% interval."""
    conditions = list(dict.fromkeys(chosen.sort_values("order", kind="stable")["condition"]))
    width = 0.8 / len(roles)
    for i, (role, label) in enumerate(roles):
        means, errors, at = [], [], []
        for j, condition in enumerate(conditions):
            group = chosen[(chosen["condition"] == condition) & (chosen["role"] == role)]
            if group.empty:
                continue
            q = Quantity.replicated(zip(group["seed"], group["value"], strict=True))
            ci = q.interval()
            at.append(j + i * width)
            means.append(q.mean)
            errors.append(0.0 if ci is None else (ci[1] - ci[0]) / 2)
        if at:
            ax.bar(at, means, width, yerr=errors, capsize=3, label=label)
    ax.set_xticks([j + width * (len(roles) - 1) / 2 for j in range(len(conditions))])
    ax.set_xticklabels([c.replace(", ", "\n") for c in conditions], fontsize=8)
    unit = METRICS[metric].unit
    ax.set_ylabel(metric + (f" ({unit})" if unit else ""))
    if metric == "share":
        ax.axhline(50, color="k", linestyle="--", linewidth=1)
    _legend(ax)


#: This module's code as it was imported: the code that draws the figures (a file edited since
#: does not count until it is imported again).
_CODE = Path(__file__).read_text(encoding="utf-8")


def _cached_figures(evaluation: Evaluation) -> dict[str, list[tuple[str, bytes]]]:
    """The card's figures, also written to ``figures/`` in the output directory. Drawing them
    is most of the time a rerun of a finished evaluation takes, so they are drawn again only
    when what they show may have changed: the measurements, the algorithms' names, the
    battery's version or this module's code (their hash is kept beside the files)."""
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


def _legend(ax: Any) -> None:
    # A test left out of the run (evaluate's ``tests``) leaves its axes empty.
    if ax.get_legend_handles_labels()[0]:
        ax.legend()


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
