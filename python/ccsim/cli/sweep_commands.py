"""``ccsim sweep``, and the commands that read what it (or a run or study) wrote: ``ccsim query``,
``ccsim plot`` and ``ccsim report``."""

from __future__ import annotations

import math
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ccsim.cli.common import EXIT_FAILURE, EXIT_INTERRUPTED, console, fail, recorded_command_line
from ccsim.errors import ScenarioError
from ccsim.sweeps import Sweep, record_command, summarise_runs


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
        fail(
            f"interrupted; finished runs are kept in {target}: run the same command again "
            "to finish the sweep",
            EXIT_INTERRUPTED,
        )
    command = recorded_command_line("sweep") or shlex.join(["ccsim", "sweep", str(sweep_file)])
    record_command(target, command)
    if not quiet:
        console.print(_sweep_summary(result))
        console.print(
            f"{result.distinct_runs} runs ({len(result.points)} points): {result.completed} run "
            f"now{f' ({result.damaged} of them damaged before)' if result.damaged else ''}, "
            f"{result.skipped} already done, {len(result.failures)} failed, in "
            f"{result.wall_s:.1f} s; results in {escape(str(result.store.root))}"
        )
    if result.failures:
        Console(stderr=True, highlight=False).print(failures_table(result))
        sys.exit(EXIT_FAILURE)


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


def _print_plan(loaded: Any) -> None:
    table = Table(title=loaded.describe())
    columns = loaded.columns()
    for column in ["point", *columns, "run"]:
        table.add_column(column)
    for point in loaded.points():
        values = [str(point.params[c]) for c in columns]
        table.add_row(str(point.index), *map(escape, values), point.run_id)
    console.print(table)


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
        console.print(_frame_table(frame, max_rows))


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
        console.print(escape(str(path)))


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
    console.print(f"wrote {escape(str(written))} ({written.stat().st_size / 1024:.0f} KiB)")
