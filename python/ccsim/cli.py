"""The ``ccsim`` command.

Bad input of any kind ends the same way: one line ``error: <message>`` on stderr, exit status 2,
no traceback, nothing written. A failure inside the engine exits with status 1.
"""

from __future__ import annotations

import math
import shlex
import sys
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ccsim import runner
from ccsim.errors import EngineError, ScenarioError
from ccsim.scenario import Scenario
from ccsim.sweeps import Sweep, record_command, summarise_runs
from ccsim.units import format_rate, format_setting

__all__ = ["app", "main"]

#: Exit status for bad input (the same as for a command-line usage error).
EXIT_BAD_INPUT = 2
#: Exit status for a failure inside ccsim itself (or a failed run of a sweep).
EXIT_FAILURE = 1
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
#: At most this many flows are listed after a run; the rest are in flows.parquet.
MAX_FLOW_ROWS = 20
#: The arguments of the running command (set by :func:`main`), recorded in what it writes.
_ARGUMENTS: list[str] | None = None

app = typer.Typer(
    name="ccsim",
    help="Packet-level simulator for TCP congestion control.\n\n"
    "Run a scenario file with `ccsim run SCENARIO.toml` (docs/scenario-format.md); "
    "run many, compared flow by flow, with `ccsim sweep SWEEP.toml` (docs/experiments.md), "
    "then `ccsim query` and `ccsim plot` the results, and `ccsim report` them as one HTML "
    "file (docs/reports.md).",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # help paragraphs are re-wrapped to the terminal
)
_console = Console(highlight=False)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ccsim {runner.version()}")
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
    loaded = _load(scenario, overrides)
    # Imported after the scenario checks so that bad input fails fast (pandas is slow to load).
    from ccsim.results import PCAP_DIR, check_destination

    target = out if out is not None else Path("results") / loaded.name
    check_destination(target)  # before the run, not after it
    try:
        results = runner.run(loaded, progress=not quiet and sys.stderr.isatty())
        # into a temporary directory, renamed into place
        written = results.write(target, command=_command_line("run"))
    except KeyboardInterrupt:
        _fail(f"interrupted; nothing was written to {target}", EXIT_INTERRUPTED)
    if not quiet:
        _print_run_summary(results.summary, results.flows, results.links, written)
        if results.pcap:
            _console.print(
                f"pcap: {len(results.pcap)} file{'s' if len(results.pcap) != 1 else ''} in "
                f"{escape(str(written / PCAP_DIR))} ({', '.join(sorted(results.pcap))})"
            )


@app.command()
def validate(scenario: ScenarioArg, overrides: SetOption = None) -> None:
    """Check a scenario file without running it.

    Checks the format, units, algorithm names and parameters, and asks the engine whether it can
    build the network (for example, that every flow has a route).
    """
    loaded = _load(scenario, overrides)
    try:
        runner.check_with_engine(loaded)
    except ImportError:
        pass  # without the engine, the schema checks are all we can do
    typer.echo(f"ok: {loaded.describe()}")


@app.command()
def algorithms() -> None:
    """List every congestion-control algorithm with its parameters and their defaults."""
    table = Table(title="Congestion-control algorithms", show_lines=True)
    for column in ("algorithm", "recovery", "summary", "parameters (default)"):
        table.add_column(column)
    for info in runner.engine().algorithms():
        params = "\n".join(_describe_param(p) for p in info["params"]) or "-"
        table.add_row(info["name"], info["recovery"], escape(info["summary"]), params)
    _console.print(table)


@app.command()
def sweep(
    sweep_file: Annotated[
        Path,
        typer.Argument(
            metavar="SWEEP",
            help="Sweep file (TOML): a base scenario, axes, seeds and an optional [compare] "
            "table. See docs/experiments.md.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Sweep directory (the result store); default: results/NAME, NAME being the "
            "sweep's name. Runs already in it are not run again.",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-j",
            metavar="N",
            min=1,
            help="Local worker processes; default: one per core. 1 runs everything in this "
            "process.",
            show_default=False,
        ),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="ADDRESS",
            help="Run on a Dask distributed cluster, e.g. tcp://10.0.0.1:8786. The workers "
            "must see DIR (a shared file system) and have this ccsim installed.",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="List the runs the sweep would make, run nothing."),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print nothing but errors and failed runs."),
    ] = False,
) -> None:
    """Run a sweep or a comparative study: many runs of one base scenario.

    Every combination of the axes, the compared algorithms and mixtures, and the seeds is one
    run. Each run is written to DIR/runs/HASH (a hash of its resolved scenario) as soon as it
    finishes, and DIR/catalog.duckdb catalogues them for `ccsim query`. Interrupt it at any
    moment and run the same command again: it runs only what is missing. A failed run is
    reported with its parameters and error and does not stop the others; the exit status is then 1.
    """
    loaded = Sweep.load(sweep_file)
    if dry_run:
        _print_plan(loaded)
        return
    from ccsim.sweep_run import failures_table, run_sweep  # pandas: only to run the sweep

    target = out if out is not None else Path("results") / loaded.name
    show = not quiet and sys.stderr.isatty()
    try:
        result = run_sweep(loaded, target, workers=workers, scheduler=scheduler, progress=show)
    except KeyboardInterrupt:
        _fail(
            f"interrupted; finished runs are kept in {target}: run the same command again "
            "to finish the sweep",
            EXIT_INTERRUPTED,
        )
    command = _command_line("sweep") or shlex.join(["ccsim", "sweep", str(sweep_file)])
    record_command(target, command)
    if not quiet:
        _console.print(_sweep_summary(result))
        _console.print(
            f"{result.distinct_runs} runs ({len(result.points)} points): {result.completed} run "
            f"now{f' ({result.damaged} of them damaged before)' if result.damaged else ''}, "
            f"{result.skipped} already done, {len(result.failures)} failed, in "
            f"{result.wall_s:.1f} s; results in {escape(str(result.store.root))}"
        )
    if result.failures:
        Console(stderr=True, highlight=False).print(failures_table(result))
        sys.exit(EXIT_FAILURE)


@app.command()
def study(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="Study ID (R6) or slug (phase-effects); --list shows them all.",
            show_default=False,
        ),
    ] = None,
    list_all: Annotated[bool, typer.Option("--list", help="List the studies and exit.")] = False,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick", help="Shortened: fewer points and seeds, shorter runs (CI, a first look)."
        ),
    ] = False,
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            metavar="PROFILE",
            help="TCP stack profile to run under: ns2, rfc or linux (default: the paper's, ns2 "
            "for the ns-2 papers, linux for seed 004).",
        ),
    ] = None,
    replicates: Annotated[
        int | None,
        typer.Option(
            "--replicates",
            metavar="N",
            min=1,
            help="Seeds per point (default: the study's, raised up to its cap while a check is "
            "inconclusive; a number given here is kept).",
            show_default=False,
        ),
    ] = None,
    first_seed: Annotated[
        int,
        typer.Option(
            "--first-seed",
            metavar="N",
            min=1,
            help="First seed of the replicates (seeds N, N+1, ...); with --replicates 1, run one "
            "seed on its own to see how a result varies.",
        ),
    ] = 1,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Study directory; default results/studies/ID (-PROFILE, -quick suffixes). "
            "Runs already in it are not run again.",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-j",
            metavar="N",
            min=1,
            help="Local worker processes; default one per core; 1 runs in this process.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a named study of the seed papers and print ours next to the published numbers.

    Prints the setup (assumptions, warm-up and stack profile included), runs it through the
    sweep machinery (parallel, resumable, cached in the study directory), and prints the
    comparison table (our mean over seeds with its 95% confidence interval and n, next to the
    published value) and one verdict per claim. Each check of a claim compares a quantity with
    the claim's criterion with the quantity's uncertainty (its interval over the seeds, paired by
    seed where two protocols are compared); the verdict follows from the checks by one rule
    (docs/studies/README.md): reproduced, partly, inconclusive, not reproduced, reversed (the
    effect goes the other way), or not run. A full run adds seeds while a check is inconclusive,
    up to the study's cap; --quick is a first look, labelled so. Writes ID.csv, ID-runs.csv
    (every run's values), ID.png, ID-verdicts.csv and study.json (what `ccsim report DIR` reads).
    """
    from ccsim import studies  # the studies import pandas and scipy: only for this command

    if list_all:
        table = Table(title="Studies (ccsim study NAME)")
        for column in ("ID", "slug", "title", "algorithms"):
            table.add_column(column)
        for entry in studies.list_studies():
            table.add_row(entry.id, entry.slug, escape(entry.title), ", ".join(entry.algorithms))
        _console.print(table)
        return
    if name is None:
        _fail("a study NAME or --list is needed (see ccsim study --help)", EXIT_BAD_INPUT)
    try:
        studies.run(
            name,
            quick,
            profile=profile,
            replicates=replicates,
            first_seed=first_seed,
            out=out,
            workers=workers,
            console=_console,
            progress=sys.stderr.isatty(),
        )
    except KeyboardInterrupt:
        _fail("interrupted; finished runs are kept: run the same command again", EXIT_INTERRUPTED)


#: The sweep summary's columns: (runs-table column, header, scale, format).
_SWEEP_COLUMNS = (
    ("goodput_bps", "goodput Mb/s", 1e-6, "{:.2f}"),
    ("jain", "Jain", 1.0, "{:.3f}"),
    ("utilization", "util. %", 100.0, "{:.1f}"),
    ("loss_rate", "loss %", 100.0, "{:.2f}"),
    ("timeouts", "timeouts", 1.0, "{:.1f}"),
)


def _sweep_summary(result: Any, max_rows: int = 40) -> Table:
    """For each parameter combination (seeds pooled): the runs done, and the mean over them of
    total goodput, Jain index, bottleneck utilization, loss rate and timeouts, each +- the
    half-width of its 95% confidence interval (Student's t)."""
    columns = [c for c in result.store.manifest()["columns"] if c != "seed"]
    summary = summarise_runs(result.runs, columns, [c for c, *_ in _SWEEP_COLUMNS])
    table = Table(
        title=f"Sweep {result.store.root.name}: mean over replicates +- 95% CI",
        caption="mean +- half-width of the 95% confidence interval of the mean (Student's t over "
        "the n runs done; n/a with one run)",
    )
    for name in [*columns, "n", *(header for _, header, _, _ in _SWEEP_COLUMNS)]:
        table.add_column(name, justify="left" if name in columns else "right")
    groups = (
        list(summary.groupby(columns, sort=False, dropna=False)) if columns else [((), summary)]
    )
    if len(groups) > max_rows:
        table.caption = (
            f'{max_rows} of {len(groups)} rows; all: ccsim query DIR "SELECT * FROM runs"; '
            f"{table.caption}"
        )
    for key, group in groups[:max_rows]:
        values = key if isinstance(key, tuple) else (key,)
        by_metric = group.set_index("metric")
        done = int(by_metric["n"].max())
        cells = [
            _mean_and_interval(by_metric.loc[column], scale, fmt)
            for column, _, scale, fmt in _SWEEP_COLUMNS
        ]
        points = int(by_metric["points"].iloc[0])
        table.add_row(*(escape(str(v)) for v in values), f"{done}/{points}", *cells)
    return table


def _mean_and_interval(row: Any, scale: float, fmt: str) -> str:
    """``mean +- half-width`` of one summary row; ``n/a`` for an undefined half-width."""
    mean, half = float(row["mean"]), float(row["half_width"])
    if math.isnan(mean):
        return "-"
    shown = "n/a" if math.isnan(half) else fmt.format(half * scale)
    return f"{fmt.format(mean * scale)} +- {shown}"


def _command_line(command: str) -> str | None:
    """The running command line (``ccsim ARGS``, quoted for a POSIX shell), if it is ``command``
    run through :func:`main`; None otherwise (ccsim used as a library)."""
    if _ARGUMENTS is None or command not in _ARGUMENTS:
        return None
    return shlex.join(["ccsim", *_ARGUMENTS])


def _print_plan(loaded: Any) -> None:
    table = Table(title=loaded.describe())
    columns = loaded.columns()
    for column in ["point", *columns, "run"]:
        table.add_column(column)
    for point in loaded.points():
        values = [str(point.params[c]) for c in columns]
        table.add_row(str(point.index), *map(escape, values), point.run_id)
    _console.print(table)


@app.command()
def query(
    directory: Annotated[
        Path,
        typer.Argument(
            metavar="DIR",
            help="A sweep directory (from ccsim sweep) or a results directory (from ccsim run).",
            show_default=False,
        ),
    ],
    sql: Annotated[
        str | None,
        typer.Argument(
            metavar="SQL",
            help='The query, e.g. "SELECT cc, avg(goodput_bps) FROM flows GROUP BY cc".',
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="table (default), csv or json (one object per row).",
        ),
    ] = "table",
    max_rows: Annotated[
        int,
        typer.Option("--max-rows", metavar="N", min=1, help="Rows shown in a table."),
    ] = 100,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="Instead of a query, check every run directory of the sweep DIR against the "
            "sizes and SHA-256 checksums recorded when it was written; print each damaged run "
            "on a line. Exit status 1 if any is damaged.",
        ),
    ] = False,
) -> None:
    """Run SQL (DuckDB) on a sweep's catalogue or on one run's tables.

    Tables: runs (one row per run of a sweep: its parameters, status, error and summary
    numbers), and flows, links, series, queues, drops (every finished run's rows, with the run's
    parameters as leading columns). See docs/experiments.md.
    """
    from ccsim.explore import run_query  # pandas and DuckDB: only for this command

    if verify:
        if sql is not None:
            raise ScenarioError("--verify takes no SQL: ccsim query --verify DIR")
        _verify_store(directory)
        return
    if sql is None:
        raise ScenarioError(
            'missing SQL: ccsim query DIR "SELECT ..." (or ccsim query --verify DIR)'
        )
    if output not in ("table", "csv", "json"):
        raise ScenarioError(f'--format "{output}": expected table, csv or json')
    frame = run_query(directory, sql)
    if output == "csv":
        typer.echo(frame.to_csv(index=False), nl=False)
    elif output == "json":
        typer.echo(frame.to_json(orient="records", lines=True), nl=False)
    else:
        _console.print(_frame_table(frame, max_rows))


def _verify_store(directory: Path) -> None:
    """Check every run directory of a sweep against its checksums; print the damaged ones, one
    line each, and a count; exit 1 if any is damaged."""
    from ccsim.store import MANIFEST, Store  # pandas: only for this command

    if not directory.is_dir():
        raise ScenarioError(f"{directory}: no such directory; expected a sweep directory")
    if not (directory / MANIFEST).is_file():
        raise ScenarioError(
            f"{directory}: not a sweep directory (no {MANIFEST}); --verify checks the runs of a "
            "sweep directory written by ccsim sweep"
        )
    store = Store.open(directory)
    store.manifest()  # a damaged manifest is an error of its own
    check = store.check_runs(store.run_directories())
    for run_id, problem in sorted(check.damaged.items()):
        typer.echo(f"damaged: runs/{run_id}: {problem}")
    checked = len(check.done) + len(check.damaged)
    line = (
        f"{checked} run{'s' if checked != 1 else ''} checked: {len(check.done)} intact, "
        f"{len(check.damaged)} damaged"
    )
    if check.legacy:
        line += (
            f" ({len(check.legacy)} intact written before checksums were recorded: their files "
            "open, their contents cannot be checked)"
        )
    if check.damaged:
        line += "; run the sweep again to run the damaged runs anew"
    typer.echo(line)
    if check.damaged:
        sys.exit(EXIT_FAILURE)


def _frame_table(frame: Any, max_rows: int) -> Table:
    table = Table(show_edge=True)
    for column in frame.columns:
        numeric = frame[column].dtype.kind in "iuf"
        table.add_column(escape(str(column)), justify="right" if numeric else "left")
    for row in frame.head(max_rows).itertuples(index=False):
        table.add_row(*(escape(_format_value(v)) for v in row))
    if len(frame) > max_rows:
        table.caption = f"{max_rows} of {len(frame)} rows (--max-rows to see more)"
    else:
        table.caption = f"{len(frame)} row{'s' if len(frame) != 1 else ''}"
    return table


def _format_value(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


PLOT_KINDS = ("cwnd", "throughput", "queue", "flows", "cdf", "metric")


@app.command()
def plot(
    directory: Annotated[
        Path,
        typer.Argument(
            metavar="DIR",
            help="A results directory (from ccsim run, or DIR/runs/HASH of a sweep) or a sweep "
            "directory.",
            show_default=False,
        ),
    ],
    kinds: Annotated[
        list[str] | None,
        typer.Option(
            "--kind",
            "-k",
            metavar="KIND",
            help="Figure to make; may be repeated. For a run: cwnd, throughput, queue (over "
            "time; need trace.sample_interval), flows (goodput per flow), cdf (of flow goodput); "
            "default: all that apply. For a sweep: metric (--y against each numeric parameter, "
            "error bars over seeds) and cdf; default: both.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Where to write the figures; default: DIR/plots.",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help="png or svg.")
    ] = "png",
    x: Annotated[
        str | None,
        typer.Option(
            "--x",
            metavar="COLUMN",
            help="Sweep: the parameter on the x axis (a column of the runs table); default: "
            "every numeric parameter.",
            show_default=False,
        ),
    ] = None,
    y: Annotated[
        list[str] | None,
        typer.Option(
            "--y",
            metavar="COLUMN",
            help="Sweep: the metric on the y axis (goodput_bps, jain, utilization, loss_rate, "
            "drops, timeouts, mean_completion_s...); may be repeated; default: goodput_bps, "
            "jain, utilization, loss_rate.",
            show_default=False,
        ),
    ] = None,
    hue: Annotated[
        str | None,
        typer.Option(
            "--hue",
            metavar="COLUMN",
            help="Sweep: one line per value of this parameter; default: algorithm, if compared.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Draw the standard figures of a run or of a sweep as PNG or SVG files.

    Figures are titled, their axes labelled with units, and sized to be read when printed.
    """
    from ccsim.explore import make_plots  # pandas: only for this command

    if fmt not in ("png", "svg"):
        raise ScenarioError(f'--format "{fmt}": expected png or svg')
    for kind in kinds or []:
        if kind not in PLOT_KINDS:
            raise ScenarioError(f'--kind "{kind}": expected one of: {", ".join(PLOT_KINDS)}')
    written = make_plots(directory, kinds, out, fmt, x=x, y=y, hue=hue)
    for path in written:
        _console.print(escape(str(path)))


@app.command()
def report(
    directory: Annotated[
        Path,
        typer.Argument(
            metavar="DIR",
            help="A results directory (ccsim run), a sweep directory (ccsim sweep) or a study "
            "directory (ccsim study).",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="The HTML file to write; default: DIR/report.html.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML report of a run, a sweep or a study.

    The file holds the setup and assumptions, the stack profile, the tables (means with 95%
    confidence intervals over replicates; a study's verdicts), every figure as an embedded PNG,
    the command that reproduces the results and the ccsim version: it can be mailed or archived
    on its own. See docs/reports.md.
    """
    from ccsim.report import write_report  # pandas and the studies: only for this command

    written = write_report(directory, out)
    _console.print(f"wrote {escape(str(written))} ({written.stat().st_size / 1024:.0f} KiB)")


def _describe_param(param: Mapping[str, Any]) -> str:
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


def _load(path: Path, overrides: Sequence[str] | None) -> Any:
    # Overrides apply before the file is checked: --set flows.0.cc=reno replaces an algorithm
    # that could not be imported.
    return Scenario.load(path, overrides=_parse_overrides(overrides) if overrides else None)


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


# ---- entry point -------------------------------------------------------------------------------


def _raised_by_python_cc(error: BaseException) -> bool:
    """Whether ``error`` reports an exception raised by a congestion-control algorithm written in
    Python (``ccsim.CongestionControlError``)."""
    try:
        from ccsim._core import CongestionControlError  # the engine, which may not be built
    except ImportError:
        return False
    return isinstance(error, CongestionControlError)


def _fail_with_users_traceback(error: BaseException) -> NoReturn:
    """Print the traceback of the user's exception (their file and line, none of ccsim's
    frames), then one ``error:`` line, and exit 1: the user's code failed, not the input."""
    cause = error.__cause__
    if cause is not None:
        traceback.print_exception(type(cause), cause, cause.__traceback__, file=sys.stderr)
    _fail(f"{type(error).__name__}: {error}", EXIT_FAILURE)


def _fail(message: str, status: int) -> NoReturn:
    # One line, whatever the message contains: scripts and tests rely on it.
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(status)


def _click_exceptions() -> ModuleType:
    """The exceptions of the click that typer runs on: recent typer vendors its own copy."""
    try:
        from typer._click import exceptions as vendored

        return vendored
    except ImportError:
        from click import exceptions

        return exceptions


def main(argv: Sequence[str] | None = None) -> None:
    """Run the ``ccsim`` command with ``argv`` (default: the process arguments)."""
    global _ARGUMENTS
    command = typer.main.get_command(app)
    click = _click_exceptions()
    _ARGUMENTS = list(sys.argv[1:] if argv is None else argv)
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
        _fail("interrupted", EXIT_INTERRUPTED)
    except ScenarioError as error:
        _fail(str(error), EXIT_BAD_INPUT)
    except EngineError as error:
        _fail(str(error), EXIT_FAILURE)
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPTED)
    except RecursionError:
        _fail("input nested too deeply", EXIT_BAD_INPUT)
    except ImportError as error:
        _fail(str(error), EXIT_FAILURE)
    except OSError as error:
        # Writing results failed (disk full, permissions): not the input's fault.
        where = f"{error.filename}: " if error.filename else ""
        _fail(f"{where}{error.strerror or error}", EXIT_FAILURE)
    except Exception as error:
        if not _raised_by_python_cc(error):
            raise
        _fail_with_users_traceback(error)
    if status == EXIT_INTERRUPTED:
        # typer turns a KeyboardInterrupt that no command caught into this status, silently.
        _fail("interrupted", EXIT_INTERRUPTED)
    sys.exit(status if isinstance(status, int) else 0)
