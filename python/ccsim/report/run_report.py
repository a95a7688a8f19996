"""The report of one run's results directory: its headline numbers, tables and figures first;
the setup, stack profile, reproducing command and the full scenario after them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ccsim import plots
from ccsim.report.markup import (
    escape,
    figures_section,
    folded,
    frame_table,
    html_table,
    is_missing,
    key_numbers,
    paragraph,
    png_of,
    preformatted,
    reproduce_section,
    section,
    stack_of,
    stack_table,
    version_line,
)
from ccsim.report.numbers import (
    format_count,
    format_duration,
    format_number,
    format_percent,
    format_rate,
)
from ccsim.results import Results
from ccsim.store import run_metrics

# ---- a run -----------------------------------------------------------------------------------------


def run_facts(scenario: Any, summary: Mapping[str, Any]) -> str:
    """The run itself: scenario, seed, simulated and wall time, the engine's work."""
    rows = [
        ["scenario", scenario.describe()],
        ["seed", summary.get("seed")],
        ["simulated", _shown(format_duration, summary.get("duration_s"))],
        ["ended at", _shown(format_duration, summary.get("sim_end_s"))],
        ["events", summary.get("events")],
        ["packet hops", summary.get("packet_hops")],
        ["wall time", _shown(format_duration, summary.get("wall_s"))],
        ["events per second", _shown(format_number, summary.get("events_per_s"), 3)],
    ]
    return html_table(["", ""], [r for r in rows if not is_missing(r[1])], "Run", name="run")


def _shown(formatter: Any, value: Any, *args: Any) -> Any:
    """``formatter(value)``, or the missing value itself (so the row is left out)."""
    return value if is_missing(value) else formatter(value, *args)


def run_key_numbers(results: Results) -> str:
    """The run's headline numbers, as a sweep's catalogue counts them (``run_metrics``)."""
    metrics = run_metrics(results)
    items = [("total goodput", format_rate(metrics["goodput_bps"]))]
    if metrics["jain"] is not None and metrics["flows"] > 1:
        items.append(("Jain's fairness index", format_number(metrics["jain"], 3)))
    if metrics["utilization"] is not None:
        items.append(("bottleneck utilisation", format_percent(metrics["utilization"])))
    items += [
        ("loss rate (drops / sent)", format_percent(metrics["loss_rate"])),
        ("drops", format_count(metrics["drops"])),
        ("retransmits", format_count(metrics["retransmits"])),
        ("timeouts", format_count(metrics["timeouts"])),
    ]
    if metrics["mean_completion_s"] is not None:
        items.append(("mean transfer time", format_duration(metrics["mean_completion_s"])))
    items += [
        ("flows", format_count(metrics["flows"])),
        ("simulated", format_duration(results.summary.get("duration_s"))),
    ]
    return key_numbers(items)


def busiest_first(links: pd.DataFrame) -> pd.DataFrame:
    """The links, the busiest first: highest utilisation, then most drops (the bottlenecks a
    reader looks for among many access links)."""
    keys = [c for c in ("utilization", "drops") if c in links]
    if not keys:
        return links
    return links.sort_values(keys, ascending=False, kind="stable")


def run_body(directory: Path, location: Path | None = None) -> tuple[str, str]:
    """The title and body of the report of ``directory``, to be written in ``location`` (its
    paths relative to it; ``directory`` itself by default)."""
    location = directory if location is None else location
    results = Results.load(directory)
    summary = results.summary
    name = results.scenario.name
    title = f"ccsim run {name}"
    parts = [
        f"<h1>{escape(title)}</h1>",
        paragraph(f"{results.scenario.describe()}; seed {summary.get('seed')}.", "meta"),
        paragraph(version_line(summary.get("ccsim_version")), "meta"),
    ]
    numbers = run_key_numbers(results) + paragraph(
        "A single run: no confidence intervals. Goodput is summed over the flows; the "
        "utilisation is the busiest link's; the loss rate is data drops over packets sent.",
        "note",
    )
    parts.append(section("Summary", numbers, "summary"))
    tables = frame_table(results.flows, "Flows")
    tables += frame_table(
        busiest_first(results.links),
        "Links",
        order_note="The busiest links first (highest utilisation, then most drops).",
    )
    parts.append(section("Tables", tables, "tables"))
    figures = [(kind, png_of(figure)) for kind, figure in plots.run_figures(results).items()]
    parts.append(figures_section(figures))
    setup = run_facts(results.scenario, summary)
    setup += paragraph(
        "Assumptions: those of the scenario (at the end of this report) and of its stack "
        "profile; a single run, so no confidence intervals.",
        "note",
    )
    setup += stack_table({"": stack_of(summary)}, caption="Stack profile")
    parts.append(section("Setup", setup, "setup"))
    parts.append(
        reproduce_section(
            summary.get("command"),
            summary.get("cwd"),
            location=location,
            note="scenario.toml in the results directory holds the scenario with every default "
            "filled in, so, run there, `ccsim run scenario.toml --out .` also repeats the run "
            "exactly.",
        )
    )
    scenario = folded(
        "scenario.toml: the scenario as run, every default filled in",
        preformatted(results.scenario.to_toml()),
    )
    parts.append(section("Scenario", scenario, "scenario"))
    return title, "".join(parts)
