"""The report of one run's results directory."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim import plots
from ccsim.report.markup import (
    escape,
    figures_section,
    frame_table,
    html_table,
    is_missing,
    paragraph,
    png_of,
    preformatted,
    reproduce_section,
    section,
    stack_of,
    stack_table,
    version_line,
)
from ccsim.results import Results

if TYPE_CHECKING:
    pass


# ---- a run -----------------------------------------------------------------------------------------


def run_facts(scenario: Any, summary: Mapping[str, Any]) -> str:
    rows = [
        ["scenario", scenario.describe()],
        ["seed", summary.get("seed")],
        ["simulated (s)", summary.get("duration_s")],
        ["ended at (s)", summary.get("sim_end_s")],
        ["events", summary.get("events")],
        ["packet hops", summary.get("packet_hops")],
        ["wall time (s)", summary.get("wall_s")],
        ["events per second", summary.get("events_per_s")],
    ]
    return html_table(["", ""], [r for r in rows if not is_missing(r[1])], "Run", name="run")


def run_body(directory: Path) -> tuple[str, str]:
    results = Results.load(directory)
    summary = results.summary
    name = results.scenario.name
    title = f"ccsim run {name}"
    parts = [
        f"<h1>{escape(title)}</h1>",
        paragraph(version_line(summary.get("ccsim_version")), "meta"),
    ]
    scenario_file = directory / "scenario.toml"
    again = shlex.join(["ccsim", "run", str(scenario_file), "--out", str(directory)])
    parts.append(
        reproduce_section(
            summary.get("command"),
            summary.get("cwd"),
            note="scenario.toml holds the scenario with every default filled in, so this also "
            f"repeats the run exactly: {again}",
        )
    )
    setup = run_facts(results.scenario, summary)
    setup += paragraph(
        "Assumptions: those of the scenario below and of its stack profile (the knobs in the "
        "next section); a single run, so no confidence intervals.",
        "note",
    )
    setup += "<h3>scenario.toml</h3>" + preformatted(results.scenario.to_toml())
    parts.append(section("Setup", setup, "setup"))
    parts.append(
        section(
            "Stack profile",
            stack_table({"": stack_of(summary)}, caption=f"Profile {summary.get('profile')}"),
            "stack",
        )
    )
    tables = frame_table(results.flows, "Flows") + frame_table(results.links, "Links")
    parts.append(section("Tables", tables, "tables"))
    figures = [(kind, png_of(figure)) for kind, figure in plots.run_figures(results).items()]
    parts.append(figures_section(figures))
    return title, "".join(parts)
