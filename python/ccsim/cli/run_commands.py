"""``ccsim run``, ``ccsim validate`` and ``ccsim algorithms``: one scenario, and what it may use."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ccsim import runner
from ccsim.cli.algorithm_tables import algorithms
from ccsim.cli.common import (
    EXIT_INTERRUPTED,
    ScenarioArg,
    SetOption,
    fail,
    load_scenario,
    recorded_command_line,
)
from ccsim.cli.run_summary import dualpi2_table, print_run_summary
from ccsim.cli.tables import (
    FormatOption,
    OutputFormat,
    OutputTable,
    WideOption,
    frame_columns,
    new_console,
    print_tables,
)

__all__ = ["algorithms", "run", "validate"]


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
    output: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """Run one scenario, print a summary and write its results directory.

    The directory holds scenario.toml (the scenario with every default filled in, to repeat the
    run), summary.json, flows.parquet and links.parquet, and series/queues/drops.parquet when the
    scenario asks for traces. The summary: the stack profile, the flows and the busiest links,
    Jain's fairness index, and why flows configured alike ended far apart when they did
    (docs/scenario-format.md). --format csv, json or markdown prints the whole flows and links
    tables instead.
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
    if quiet:
        return
    dualpi2 = "dualpi2" in queue_kinds(loaded)
    if output is not OutputFormat.table:
        tables = [
            OutputTable("flows", "Flows", frame_columns(results.flows)),
            OutputTable("links", "Links", frame_columns(results.links)),
        ]
        queues = dualpi2_table(results.queues, results.links) if dualpi2 else None
        print_tables(tables + ([queues] if queues is not None else []), output)
        return
    console = new_console()
    print_run_summary(
        console,
        results.summary,
        results.flows,
        results.links,
        written,
        groups=flow_groups(loaded, results.flows),
        recoveries=recoveries(loaded),
        wide=wide,
        queues=results.queues,
        dualpi2=dualpi2,
    )
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


def flow_groups(scenario: Any, flows: Any) -> list[list[int]]:
    """The flow numbers of each ``[[flows]]`` table of ``scenario`` (flows configured alike), as
    the flows table numbers them: its bulk flows in order, table after table. Empty when the
    table does not match the scenario's tables (then nothing is compared)."""
    bulk = flows[flows["generator"] < 0] if "generator" in flows.columns else flows
    numbers, ccs = bulk["flow"].tolist(), bulk["cc"].tolist()
    groups, start = [], 0
    for group in scenario.flows:
        members = numbers[start : start + group.count]
        if len(members) != group.count or any(
            cc != group.cc for cc in ccs[start : start + group.count]
        ):
            return []
        groups.append([int(n) for n in members])
        start += group.count
    return groups


def queue_kinds(scenario: Any) -> set[str]:
    """The queue disciplines of ``scenario``'s core links (a dumbbell's or parking lot's
    ``queue``, every explicit link's)."""
    topology = scenario.topology
    links = getattr(topology, "links", None)
    if links is not None:
        return {link.queue for link in links}
    return {topology.queue}


def recoveries(scenario: Any) -> dict[str, str]:
    """The loss recovery each algorithm of ``scenario`` runs when the stack leaves it to the
    algorithm: the engine registry's for a built-in one (NewReno where a ``newreno`` parameter
    asks for it), the class's ``recovery`` for one written in Python."""
    from ccsim import pycc

    registry = {info["name"]: info["recovery"] for info in runner.engine().algorithms()}
    found: dict[str, str] = {}
    for transfer in [*scenario.flows, *getattr(scenario, "generators", [])]:
        cc, params = transfer.cc, transfer.params or {}
        if cc in found:
            continue
        if cc in registry:
            found[cc] = "newreno" if params.get("newreno") else registry[cc]
        elif pycc.is_python_cc(cc):
            try:
                found[cc] = str(pycc.resolve(cc).recovery)
            except Exception:  # the run imported it; this is only to say what it used
                continue
    return found
