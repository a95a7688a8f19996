"""``ccsim run``, ``ccsim validate`` and ``ccsim algorithms``: one scenario, and what it may use."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ccsim import runner
from ccsim.cli.common import (
    EXIT_INTERRUPTED,
    ScenarioArg,
    SetOption,
    console,
    fail,
    load_scenario,
    recorded_command_line,
)
from ccsim.units import format_rate, format_setting

#: At most this many flows are listed after a run; the rest are in flows.parquet.
MAX_FLOW_ROWS = 20


def run(
    scenario: ScenarioArg,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Results directory to write; default: results/NAME, NAME being the "
            "scenario's name. A results directory ccsim wrote there is replaced; any other "
            "existing directory is refused.",
            show_default=False,
        ),
    ] = None,
    overrides: SetOption = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="Print nothing but errors (no summary, no progress bar)."
        ),
    ] = False,
) -> None:
    """Run one scenario, print a summary and write its results directory.

    The directory holds scenario.toml (the scenario with every default filled in, to repeat the
    run), summary.json, flows.parquet and links.parquet, and series/queues/drops.parquet when the
    scenario asks for traces.
    """
    loaded = load_scenario(scenario, overrides)
    # Imported after the scenario checks so that bad input fails fast (pandas is slow to load).
    from ccsim.results import PCAP_DIR, check_destination

    target = out if out is not None else Path("results") / loaded.name
    check_destination(target)  # before the run, not after it
    try:
        results = runner.run(loaded, progress=not quiet and sys.stderr.isatty())
        # into a temporary directory, renamed into place
        written = results.write(target, command=recorded_command_line("run"))
    except KeyboardInterrupt:
        fail(f"interrupted; nothing was written to {target}", EXIT_INTERRUPTED)
    if not quiet:
        _print_run_summary(results.summary, results.flows, results.links, written)
        if results.pcap:
            console.print(
                f"pcap: {len(results.pcap)} file{'s' if len(results.pcap) != 1 else ''} in "
                f"{escape(str(written / PCAP_DIR))} ({', '.join(sorted(results.pcap))})"
            )


def validate(scenario: ScenarioArg, overrides: SetOption = None) -> None:
    """Check a scenario file without running it.

    Checks the format, units, algorithm names and parameters, and asks the engine whether it can
    build the network (for example, that every flow has a route).
    """
    loaded = load_scenario(scenario, overrides)
    try:
        runner.check_with_engine(loaded)
    except ImportError:
        pass  # without the engine, the schema checks are all we can do
    typer.echo(f"ok: {loaded.describe()}")


def algorithms() -> None:
    """List every congestion-control algorithm with its parameters and their defaults."""
    table = Table(title="Congestion-control algorithms", show_lines=True)
    for column in ("algorithm", "recovery", "summary", "parameters (default)"):
        table.add_column(column)
    for info in runner.engine().algorithms():
        params = "\n".join(describe_param(p) for p in info["params"]) or "-"
        table.add_row(info["name"], info["recovery"], escape(info["summary"]), params)
    console.print(table)


def describe_param(param: Mapping[str, Any]) -> str:
    def show(value: float) -> str:
        if param["kind"] == "bool":
            return "true" if value else "false"
        return str(int(value)) if param["kind"] == "int" else f"{value:g}"

    shown = show(param["default"])
    by_profile = param.get("profile_defaults") or {}
    if by_profile:
        shown += "".join(f", {name}: {show(v)}" for name, v in sorted(by_profile.items()))
    if param.get("min") is not None and param.get("max") is not None and param["kind"] != "bool":
        shown += f" ({param['min']:g} to {param['max']:g})"
    doc = f": {param['doc']}" if param.get("doc") else ""
    return escape(f"{param['name']} = {shown}{doc}")


# ---- the summary after a run ------------------------------------------------------------------


def _print_run_summary(summary: Mapping[str, Any], flows: Any, links: Any, written: Path) -> None:
    console.print(_profile_line(summary))
    if len(flows):
        console.print(_flow_table(flows))
    if len(links):
        console.print(_link_table(links))
    console.print(_closing_line(summary, written))


def _profile_line(summary: Mapping[str, Any]) -> str:
    stack = dict(summary.get("stack") or {})
    profile = stack.pop("profile", summary.get("profile"))
    knobs = " ".join(
        f"{key.removesuffix('_ns')}={format_setting(key, value)}" for key, value in stack.items()
    )
    return f"[bold]profile {escape(str(profile))}[/bold]: {escape(knobs)}"


def _cell(row: Mapping[str, Any], column: str, fmt: str = "{}") -> str:
    value = row.get(column)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return fmt.format(value)


def _flow_table(flows: Any) -> Table:
    table = Table(title="Flows")
    for column, justify in [
        ("flow", "right"),
        ("label", "left"),
        ("cc", "left"),
        ("goodput (Mbps)", "right"),
        ("retransmits", "right"),
        ("timeouts", "right"),
    ]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    rows = flows.to_dict("records")
    for row in rows[:MAX_FLOW_ROWS]:
        goodput = row.get("goodput_bps")
        table.add_row(
            _cell(row, "flow"),
            escape(_cell(row, "label")),
            escape(_cell(row, "cc")),
            "-" if goodput is None else f"{goodput / 1e6:.2f}",
            _cell(row, "retransmits"),
            _cell(row, "timeouts"),
        )
    if len(rows) > MAX_FLOW_ROWS:
        table.caption = f"... and {len(rows) - MAX_FLOW_ROWS} more flows in flows.parquet"
    return table


def _link_table(links: Any) -> Table:
    """Links that dropped packets, plus the busiest link (the bottleneck)."""
    rows = links.to_dict("records")
    busiest = max(range(len(rows)), key=lambda i: rows[i].get("utilization") or 0.0)
    shown = [row for i, row in enumerate(rows) if i == busiest or (row.get("drops") or 0) > 0]
    table = Table(title="Links (the busiest, and every link that dropped packets)")
    for column in ("link", "path", "rate", "utilization", "drops", "mean queue (pkts)"):
        table.add_column(column, justify="left" if column == "path" else "right")
    for row in shown:
        rate = row.get("rate_bps")
        table.add_row(
            _cell(row, "link"),
            escape(f"{_cell(row, 'src')} -> {_cell(row, 'dst')}"),
            "-" if rate is None else format_rate(int(rate)),
            _cell(row, "utilization", "{:.1%}"),
            _cell(row, "drops"),
            _cell(row, "mean_queue_pkts", "{:.1f}"),
        )
    return table


def _closing_line(summary: Mapping[str, Any], written: Path) -> str:
    rate = summary.get("events_per_s")
    speed = f" ({rate / 1e6:.2f} M events/s)" if rate else ""
    wall = summary.get("wall_s") or 0.0
    took = f"{wall:.2f} s" if wall >= 1 else f"{wall * 1000:.0f} ms"
    return (
        f"simulated {summary.get('duration_s'):g} s in {took}{speed}; "
        f"results in {escape(str(written))}"
    )
