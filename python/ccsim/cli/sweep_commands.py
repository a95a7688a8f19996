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

from ccsim.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    SchedulerOption,
    WorkersOption,
    fail,
    recorded_command_line,
)
from ccsim.cli.tables import (
    Column,
    FormatOption,
    OutputFormat,
    OutputTable,
    WideOption,
    compact_numbers,
    format_rate,
    frame_columns,
    new_console,
    print_table,
    print_tables,
    rate_unit,
)
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
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="List the runs the sweep would make, run nothing."),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print nothing but errors and failed runs."),
    ] = False,
    output: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """Run a sweep or a comparative study: many runs of one base scenario.

    Every combination of the axes, the compared algorithms and mixtures, and the seeds is one
    run. Each run is written to DIR/runs/HASH (a hash of its resolved scenario) as soon as it
    finishes, and DIR/catalog.duckdb catalogues them for `ccsim query`. Interrupt it at any
    moment and run the same command again: it runs only what is missing. A failed run is
    reported with its parameters and error and does not stop the others; the exit status is then 1.
    --format csv, json or markdown prints the summary (or the --dry-run plan) as data: every
    row, the means and the half-widths of their 95% intervals in full.
    """
    loaded = Sweep.load(sweep_file)
    if dry_run:
        print_tables([_plan_table(loaded)], output, wide=wide)
        return
    from ccsim.sweep_run import run_sweep  # pandas: only to run the sweep

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
        print_tables([sweep_summary_table(result)], output, wide=wide)
        if output is OutputFormat.table:
            new_console().print(
                f"{result.distinct_runs} runs ({len(result.points)} points): {result.completed} "
                f"run now{f' ({result.damaged} of them damaged before)' if result.damaged else ''}"
                f", {result.skipped} already done, {len(result.failures)} failed, in "
                f"{result.wall_s:.1f} s; results in {escape(str(result.store.root))}"
            )
    if result.failures:
        print_table(Console(stderr=True, highlight=False), _failures_table(result))
        sys.exit(EXIT_FAILURE)


#: The sweep summary's metrics: (runs-table column, name, unit, scale (None: a rate, its unit
#: chosen by its values), rank among the means to leave out for width (0: never)).
_SWEEP_METRICS = (
    ("goodput_bps", "goodput", "", None, 0),
    ("jain", "Jain", "", 1.0, 2),
    ("utilization", "util.", "%", 100.0, 1),
    ("loss_rate", "loss", "%", 100.0, 3),
    ("timeouts", "timeouts", "", 1.0, 4),
)
#: A confidence interval is left out before any mean: its rank is this plus its mean's.
_INTERVAL_RANK = 10


def _plus_minus() -> str:
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower()
    return "±" if encoding.startswith("utf") else "+-"


def _parameter_column(key: str, values: list[Any]) -> Column:
    """A sweep parameter: numbers with the digits that tell its values apart, rates in Mb/s."""
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    cells = compact_numbers(values, max_digits=9) if numeric else None
    if not numeric and key.endswith("rate"):
        from ccsim.units import parse_rate

        try:
            cells = [format_rate(parse_rate(v)) for v in values]
        except (ScenarioError, TypeError, ValueError):
            cells = None
    return Column(key, values, cells, align="right" if numeric else "left")


def sweep_summary_table(result: Any, max_rows: int = 40) -> OutputTable:
    """For each parameter combination (seeds pooled): the runs done, and the mean over them of
    total goodput, Jain index, bottleneck utilization, loss rate and timeouts, each with the
    half-width of its 95% confidence interval (Student's t)."""
    columns = [c for c in result.store.manifest()["columns"] if c != "seed"]
    summary = summarise_runs(result.runs, columns, [c for c, *_ in _SWEEP_METRICS])
    groups = (
        list(summary.groupby(columns, sort=False, dropna=False)) if columns else [((), summary)]
    )
    keys = [k if isinstance(k, tuple) else (k,) for k, _ in groups]
    by_metric = [group.set_index("metric") for _, group in groups]
    done = [int(g["n"].max()) for g in by_metric]
    points = [int(g["points"].iloc[0]) for g in by_metric]
    table_columns = [_parameter_column(c, [k[i] for k in keys]) for i, c in enumerate(columns)]
    table_columns += [
        Column("n", done, [f"{d}/{p}" for d, p in zip(done, points, strict=True)],
               name="runs", align="right", fold_constant=False),
        Column("points", points, machine_only=True),
    ]  # fmt: skip
    sign = _plus_minus()
    for metric, name, unit, scale, rank in _SWEEP_METRICS:
        means = [float(g.loc[metric, "mean"]) for g in by_metric]
        halves = [float(g.loc[metric, "half_width"]) for g in by_metric]
        if scale is None:
            unit, factor = rate_unit(means)
            scale = 1 / factor
        mean_cells = compact_numbers(means, scale)
        half_cells = [
            "-" if math.isnan(h) else f"{sign}{c}"
            for h, c in zip(halves, compact_numbers(halves, scale, min_digits=2), strict=True)
        ]
        table_columns += [
            Column(f"{metric}_mean", means, mean_cells, name=name, unit=unit, align="right",
                   drop_rank=rank, fold_constant=False),
            Column(f"{metric}_ci95", halves, half_cells, name="95% CI", align="right",
                   long_name=f"{name} 95% CI", drop_rank=_INTERVAL_RANK + rank, fold_constant=False),
        ]  # fmt: skip
    return OutputTable(
        "summary",
        f"Sweep {result.store.root.name}: mean over replicates +- 95% CI",
        table_columns,
        notes=[
            "mean, and the half-width of the 95% confidence interval of the mean (Student's t "
            "over the runs done; - with one run)"
        ],
        max_rows=max_rows,
        more_rows_hint='all: --format csv, or ccsim query DIR "SELECT * FROM runs"',
    )


def _plan_table(loaded: Any) -> OutputTable:
    columns = loaded.columns()
    points = list(loaded.points())
    table_columns = [Column("point", [p.index for p in points], align="right",
                            fold_constant=False)]  # fmt: skip
    table_columns += [_parameter_column(c, [p.params[c] for p in points]) for c in columns]
    table_columns.append(Column("run", [p.run_id for p in points], fold_constant=False))
    return OutputTable("plan", loaded.describe(), table_columns)


def _failures_table(result: Any) -> OutputTable:
    failures = result.failures
    return OutputTable(
        "failures",
        "Failed runs",
        [
            Column("run", [f.run_id for f in failures], fold_constant=False),
            Column("parameters", ["; ".join(f.points) for f in failures], wrap=True,
                   fold_constant=False),
            Column("error", [f.error for f in failures], wrap=True, fold_constant=False),
        ],
    )  # fmt: skip


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
    output: FormatOption = OutputFormat.table,
    wide: WideOption = False,
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
    frame = run_query(directory, sql)
    if output is OutputFormat.csv:
        typer.echo(frame.to_csv(index=False), nl=False)
    elif output is OutputFormat.json:
        typer.echo(frame.to_json(orient="records", lines=True), nl=False)
    else:
        table = OutputTable(
            "query",
            "",
            frame_columns(frame),
            notes=[f"{len(frame)} row{'s' if len(frame) != 1 else ''}"],
            max_rows=max_rows,
            more_rows_hint="--max-rows to see more, or --format csv",
        )
        print_tables([table], output, wide=wide)


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
        new_console().print(escape(str(path)))


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
    new_console().print(f"wrote {escape(str(written))} ({written.stat().st_size / 1024:.0f} KiB)")
