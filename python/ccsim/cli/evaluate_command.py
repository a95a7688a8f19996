"""``ccsim evaluate``: the standard battery for one algorithm, beside baselines, as a report card."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer
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
    new_console,
    print_tables,
)


def evaluate(
    alg: Annotated[
        str,
        typer.Argument(
            metavar="ALG",
            help="The algorithm: a built-in name (cubic), a Python class as module:Class, or "
            "path/to/file.py:Class.",
            show_default=False,
        ),
    ],
    params: Annotated[
        list[str] | None,
        typer.Option(
            "--params",
            metavar="K=V",
            help="A parameter of ALG (its [flows.params]), e.g. --params beta=0.7; repeat it, "
            "or separate several with commas.",
            show_default=False,
        ),
    ] = None,
    against: Annotated[
        str,
        typer.Option(
            "--against",
            metavar="A,B",
            help="Baselines, comma-separated built-in names, run under the same seeds.",
        ),
    ] = "cubic,reno",
    quick: Annotated[
        bool,
        typer.Option("--quick", help="Fewer points and seeds, shorter runs (under 2 minutes)."),
    ] = False,
    tests: Annotated[
        str | None,
        typer.Option(
            "--tests",
            metavar="T,U",
            help="Run only these tests of the battery, comma-separated (single-flow, "
            "delay-throughput, random-loss, intra-fairness, multi-bottleneck, convergence, "
            "inter-protocol, short-flows, rate-step, paths, basic-scenarios, standard-tcp); "
            "default: all.",
            show_default=False,
        ),
    ] = None,
    cellular_trace: Annotated[
        Path | None,
        typer.Option(
            "--cellular-trace",
            metavar="FILE.down",
            help="The paths test's cellular link: a recorded trace in Mahimahi's format (its "
            ".up twin, when beside it, carries the ACKs); default: ccsim's synthetic trace.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Output directory; default results/evaluate/ALG (-quick). Runs already in it "
            "are not run again.",
            show_default=False,
        ),
    ] = None,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    output: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """Evaluate a congestion-control algorithm with the standard battery (docs/evaluate.md).

    Runs each test of the versioned battery (one flow against buffer size and against random
    loss, many transfers' delay against throughput as the buffer grows, fairness among 2-16 of its own flows and across RTTs of 10-200 ms, a flow across three
    bottlenecks, convergence and ramp-up of a second flow, sharing with each baseline and the
    harm done both ways in DropTail, FQ-CoDel and DualPI2, short transfers' completion times
    beside it, start-up and adaptation to a rate step, the evaluation suite's long, satellite and
    data-centre paths with cellular, Wi-Fi and LEO links, the suite's dumbbell of nine RTTs
    carrying transfers both ways at three loads, and its gain and loss beside standard TCP) for
    ALG and for each --against baseline under the same seeds, then prints the summary: each
    metric's mean over seeds with its 95% interval, and ALG minus each baseline, paired by
    seed. Writes DIR/report.html (the report card), DIR/summary.csv,
    DIR/measurements.csv (every run's values), DIR/scenarios/ (each test's sweep file) and
    DIR/sweeps/ (the result stores). Interrupted, the same command runs only what is missing.
    """
    from ccsim.evaluate import BATTERY_VERSION, parse_params
    from ccsim.evaluate import evaluate as run_evaluation
    from ccsim.evaluate.card import readings, summary_cells

    items = [part for item in params or [] for part in item.split(",") if part.strip()]
    parsed = parse_params(items)
    baselines = [name.strip() for name in against.split(",") if name.strip()]
    command = recorded_command_line("evaluate") or shlex.join(["ccsim", "evaluate", alg])
    try:
        evaluation = run_evaluation(
            alg,
            params=parsed,
            against=baselines,
            quick=quick,
            out=out,
            workers=workers,
            scheduler=scheduler,
            progress=sys.stderr.isatty(),
            command=command,
            tests=None if tests is None else [t.strip() for t in tests.split(",") if t.strip()],
            cellular_trace=cellular_trace,
        )
    except KeyboardInterrupt:
        fail("interrupted; finished runs are kept: run the same command again", EXIT_INTERRUPTED)
    header, rows = summary_cells(evaluation)
    keys = ["test", "metric", "condition", "alg"]
    for baseline in evaluation.baselines:
        keys += [baseline, f"minus_{baseline}"]
    keys.append("reading")
    columns = []
    for i, (key, name) in enumerate(zip(keys, header, strict=True)):
        values = [row[i] for row in rows]
        wrap = key == "reading"
        # On a narrow terminal the test goes first, then the baselines' own values; ALG's values,
        # the paired differences and the reading stay.
        rank = 2 if key == "test" else 1 if key in evaluation.baselines else 0
        columns.append(
            Column(
                key, values, name=name, fold_constant=False, wrap=wrap, below=wrap, drop_rank=rank
            )
        )
    table = OutputTable(
        "evaluate",
        f"ccsim evaluate {evaluation.alg.name}: battery v{BATTERY_VERSION}"
        + (" (quick)" if quick else ""),
        columns,
        notes=[
            "Mean over seeds [95% interval]; '- B' is ALG minus baseline B, paired by seed.",
            *readings(evaluation),
        ],
    )
    print_tables([table], output, wide=wide)
    if output is OutputFormat.table:
        new_console().print(
            f"battery v{BATTERY_VERSION}: {evaluation.runs} runs ({evaluation.ran} run now, "
            f"{evaluation.skipped} already done, {len(evaluation.failures)} failed) in "
            f"{evaluation.wall_s:.1f} s; report card {escape(str(evaluation.directory / 'report.html'))}"
        )
    if evaluation.failures:
        for failure in evaluation.failures[:5]:
            print(f"failed: {failure}", file=sys.stderr)
        sys.exit(EXIT_FAILURE)
