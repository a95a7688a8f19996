"""``ccsim study``: the seed papers' studies, listed, run and judged."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ccsim.cli.common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, WorkersOption, fail
from ccsim.cli.tables import (
    Column,
    FormatOption,
    OutputFormat,
    OutputTable,
    WideOption,
    new_console,
    print_tables,
)


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
            help="TCP stack profile to run under: ns2, rfc, linux-sack or linux (default: the paper's, ns2 "
            "for the ns-2 papers, linux-sack for seed 004).",
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
    workers: WorkersOption = None,
    output: FormatOption = OutputFormat.table,
    wide: WideOption = False,
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
    --format csv, json or markdown applies to --list; --wide to --list and the comparison table.
    """
    from ccsim import studies  # the studies import pandas and scipy: only for this command

    if list_all:
        entries = studies.list_studies()
        table = OutputTable(
            "studies",
            "Studies (ccsim study NAME)",
            [
                Column("id", [e.id for e in entries], name="ID", fold_constant=False),
                Column("slug", [e.slug for e in entries], fold_constant=False, drop_rank=1),
                Column("title", [e.title for e in entries], wrap=True, fold_constant=False),
                Column("algorithms", [", ".join(e.algorithms) for e in entries], wrap=True,
                       fold_constant=False, drop_rank=2),
            ],
        )  # fmt: skip
        print_tables([table], output, wide=wide)
        return
    if name is None:
        fail("a study NAME or --list is needed (see ccsim study --help)", EXIT_BAD_INPUT)
    try:
        studies.run(
            name,
            quick,
            profile=profile,
            replicates=replicates,
            first_seed=first_seed,
            out=out,
            workers=workers,
            console=new_console(),
            progress=sys.stderr.isatty(),
            wide=wide,
        )
    except KeyboardInterrupt:
        fail("interrupted; finished runs are kept: run the same command again", EXIT_INTERRUPTED)
