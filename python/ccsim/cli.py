"""The ``ccsim`` command.

Bad input of any kind ends the same way: one line ``error: <message>`` on stderr, exit status 2,
no traceback, nothing written. A failure inside the engine exits with status 1.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ccsim.errors import EngineError, ScenarioError
from ccsim.units import format_rate, format_time

__all__ = ["app", "main"]

#: Exit status for bad input (the same as for a command-line usage error).
EXIT_BAD_INPUT = 2
#: Exit status for a failure inside ccsim itself.
EXIT_FAILURE = 1
#: At most this many flows are listed after a run; the rest are in flows.parquet.
MAX_FLOW_ROWS = 20

app = typer.Typer(
    name="ccsim",
    help="Packet-level simulator for TCP congestion control.\n\n"
    "Run a scenario file with `ccsim run SCENARIO.toml`; "
    "see docs/scenario-format.md for the format.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # help paragraphs are re-wrapped to the terminal
)
_console = Console(highlight=False)


def _print_version(value: bool) -> None:
    if value:
        from ccsim.runner import version

        typer.echo(f"ccsim {version()}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print ccsim's version and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """Packet-level simulator for TCP congestion control."""


ScenarioArg = Annotated[
    Path,
    typer.Argument(
        metavar="SCENARIO",
        help="Scenario file (TOML). See docs/scenario-format.md.",
        show_default=False,
    ),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override one key of the scenario, e.g. --set topology.loss=0.01 or "
        "--set flows.0.cc=cubic. The value is read as TOML when it parses as TOML "
        '(numbers, true/false, ["lists"]) and as a string otherwise ("100Mbps"). '
        "May be repeated.",
        show_default=False,
    ),
]


@app.command()
def run(
    scenario: ScenarioArg,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Results directory to write; default: results/NAME, NAME being the "
            "scenario's name. An earlier results directory there is replaced.",
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
    loaded = _load(scenario, overrides)
    # Imported after the scenario checks so that bad input fails fast (pandas is slow to load).
    from ccsim.results import check_destination
    from ccsim.runner import run as run_scenario

    target = out if out is not None else Path("results") / loaded.name
    check_destination(target)  # before the run, not after it
    results = run_scenario(loaded, progress=not quiet and sys.stderr.isatty())
    written = results.write(target)
    if not quiet:
        _print_run_summary(results.summary, results.flows, results.links, written)


@app.command()
def validate(scenario: ScenarioArg, overrides: SetOption = None) -> None:
    """Check a scenario file without running it.

    Checks the format, units, algorithm names and parameters, and asks the engine whether it can
    build the network (for example, that every flow has a route).
    """
    from ccsim.runner import check_with_engine

    loaded = _load(scenario, overrides)
    try:
        check_with_engine(loaded)
    except ImportError:
        pass  # without the engine, the schema checks are all we can do
    typer.echo(f"ok: {loaded.describe()}")


@app.command()
def algorithms() -> None:
    """List every congestion-control algorithm with its parameters and their defaults."""
    from ccsim.runner import engine

    table = Table(title="Congestion-control algorithms", show_lines=True)
    for column in ("algorithm", "recovery", "summary", "parameters (default)"):
        table.add_column(column)
    for info in engine().algorithms():
        params = "\n".join(_describe_param(p) for p in info["params"]) or "-"
        table.add_row(info["name"], info["recovery"], escape(info["summary"]), params)
    _console.print(table)


def _describe_param(param: Mapping[str, Any]) -> str:
    default = param["default"]
    if param["kind"] == "bool":
        shown = "true" if default else "false"
    elif param["kind"] == "int":
        shown = str(int(default))
    else:
        shown = f"{default:g}"
    if param.get("min") is not None and param.get("max") is not None and param["kind"] != "bool":
        shown += f" ({param['min']:g} to {param['max']:g})"
    doc = f": {param['doc']}" if param.get("doc") else ""
    return escape(f"{param['name']} = {shown}{doc}")


def _load(path: Path, overrides: Sequence[str] | None) -> Any:
    from ccsim.scenario import Scenario

    scenario = Scenario.load(path)
    if overrides:
        scenario = scenario.with_overrides(_parse_overrides(overrides))
    return scenario


def _parse_overrides(items: Sequence[str]) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ScenarioError(
                f'--set "{item}": expected KEY=VALUE, e.g. --set topology.loss=0.01'
            )
        parsed[key.strip()] = value.strip()
    return parsed


# ---- the summary after a run ------------------------------------------------------------------


def _print_run_summary(summary: Mapping[str, Any], flows: Any, links: Any, written: Path) -> None:
    _console.print(_profile_line(summary))
    if len(flows):
        _console.print(_flow_table(flows))
    if len(links):
        _console.print(_link_table(links))
    _console.print(_closing_line(summary, written))


def _profile_line(summary: Mapping[str, Any]) -> str:
    stack = dict(summary.get("stack") or {})
    profile = stack.pop("profile", summary.get("profile"))
    knobs = " ".join(
        f"{key.removesuffix('_ns')}={_knob(key, value)}" for key, value in stack.items()
    )
    return f"[bold]profile {escape(str(profile))}[/bold]: {escape(knobs)}"


def _knob(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if key.endswith("_ns") and isinstance(value, int):
        return format_time(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


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


# ---- entry point -------------------------------------------------------------------------------


def _fail(message: str, status: int) -> NoReturn:
    # One line, whatever the message contains: scripts and tests rely on it.
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(status)


def _click_exceptions() -> ModuleType:
    """The exceptions of the click that typer runs on: recent typer vendors its own copy."""
    try:
        from typer._click import exceptions
    except ImportError:
        from click import exceptions
    return exceptions


def main(argv: Sequence[str] | None = None) -> None:
    """Run the ``ccsim`` command with ``argv`` (default: the process arguments)."""
    command = typer.main.get_command(app)
    click = _click_exceptions()
    try:
        status = command.main(args=argv, prog_name="ccsim", standalone_mode=False)
    except click.NoArgsIsHelpError as error:
        typer.echo(error.ctx.get_help() if error.ctx else "")
        sys.exit(EXIT_BAD_INPUT)
    except click.UsageError as error:
        hint = f" (see {error.ctx.command_path} --help)" if error.ctx else ""
        _fail(error.format_message() + hint, EXIT_BAD_INPUT)
    except click.ClickException as error:
        _fail(error.format_message(), error.exit_code)
    except typer.Abort:
        _fail("interrupted", 130)
    except ScenarioError as error:
        _fail(str(error), EXIT_BAD_INPUT)
    except EngineError as error:
        _fail(str(error), EXIT_FAILURE)
    except ImportError as error:
        _fail(str(error), EXIT_FAILURE)
    except OSError as error:
        # Writing results failed (disk full, permissions): not the input's fault.
        where = f"{error.filename}: " if error.filename else ""
        _fail(f"{where}{error.strerror or error}", EXIT_FAILURE)
    sys.exit(status if isinstance(status, int) else 0)
