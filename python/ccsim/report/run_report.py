"""The report of one run's results directory."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim import plots
from ccsim.report.markup import (
    _e,
    _figures_section,
    _frame_table,
    _missing,
    _paragraph,
    _png_of,
    _pre,
    _reproduce_section,
    _section,
    _stack_of,
    _stack_table,
    _table,
    _version_line,
)
from ccsim.results import Results

if TYPE_CHECKING:
    pass


# ---- a run -----------------------------------------------------------------------------------------


def _run_facts(scenario: Any, summary: Mapping[str, Any]) -> str:
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
    return _table(["", ""], [r for r in rows if not _missing(r[1])], "Run", name="run")


def _run_body(directory: Path) -> tuple[str, str]:
    results = Results.load(directory)
    summary = results.summary
    name = results.scenario.name
    title = f"ccsim run {name}"
    parts = [
        f"<h1>{_e(title)}</h1>",
        _paragraph(_version_line(summary.get("ccsim_version")), "meta"),
    ]
    scenario_file = directory / "scenario.toml"
    again = shlex.join(["ccsim", "run", str(scenario_file), "--out", str(directory)])
    parts.append(
        _reproduce_section(
            summary.get("command"),
            summary.get("cwd"),
            note="scenario.toml holds the scenario with every default filled in, so this also "
            f"repeats the run exactly: {again}",
        )
    )
    setup = _run_facts(results.scenario, summary)
    setup += _paragraph(
        "Assumptions: those of the scenario below and of its stack profile (the knobs in the "
        "next section); a single run, so no confidence intervals.",
        "note",
    )
    setup += "<h3>scenario.toml</h3>" + _pre(results.scenario.to_toml())
    parts.append(_section("Setup", setup, "setup"))
    parts.append(
        _section(
            "Stack profile",
            _stack_table({"": _stack_of(summary)}, caption=f"Profile {summary.get('profile')}"),
            "stack",
        )
    )
    tables = _frame_table(results.flows, "Flows") + _frame_table(results.links, "Links")
    parts.append(_section("Tables", tables, "tables"))
    figures = [(kind, _png_of(figure)) for kind, figure in plots.run_figures(results).items()]
    parts.append(_figures_section(figures))
    return title, "".join(parts)
