"""``ccsim conformance``: the checks of this build against published laws and specifications."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from ccsim.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, fail
from ccsim.cli.tables import Column, FormatOption, OutputFormat, OutputTable, print_tables


def _replacements(items: list[str]) -> dict[str, str]:
    from ccsim import runner

    known = {info["name"] for info in runner.engine().algorithms()}
    out = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or ":" not in path:
            fail(
                f'--use "{item}": expected NAME=module:Class, e.g. --use reno=myreno:MyReno',
                EXIT_BAD_INPUT,
            )
        if name not in known:
            fail(
                f'--use "{item}": {name!r} is not a built-in algorithm; expected one of {", ".join(sorted(known))}',
                EXIT_BAD_INPUT,
            )
        out[name] = path
    return out


def conformance(
    use: Annotated[
        list[str] | None,
        typer.Option(
            "--use",
            metavar="NAME=module:Class",
            help="Check a Python algorithm in place of the built-in NAME (its checks run against "
            "yours). May be repeated.",
        ),
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            metavar="PREFIX",
            help="Run only the checks whose id starts with PREFIX (cubic, reno.mathis).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Check this build of ccsim against what is known: algorithms' published response functions
    (RFC 5681, 9438, 3649, 8257, Kelly's Scalable, H-TCP), the Mathis law, Free-Drop's law,
    DCTCP under step marking, BBR's PROBE_RTT rhythm, DualPI2's coupling, loss recovery's packet
    exchanges (RFC 5681, 8985, 6937, 6298) and the seed studies' robust verdicts
    (docs/conformance.md). Each line: what is checked, the reference and its source, ours, the
    tolerance, pass or fail. Exit status 1 when a check fails."""
    from ccsim import conformance as suite

    uses = _replacements(use or [])
    started = time.perf_counter()
    outcomes = suite.run(uses, only)
    if not outcomes:
        fail(
            f"--only {' '.join(only or [])}: no check matches; expected a prefix of a check id",
            EXIT_BAD_INPUT,
        )
    passed = sum(o.passed for o in outcomes)
    notes = [
        f"conformance suite v{suite.VERSION}: {passed} of {len(outcomes)} checks passed "
        f"in {time.perf_counter() - started:.1f} s"
        + (f" (with {', '.join(f'{k}={v}' for k, v in uses.items())})" if uses else "")
    ]
    notes += [f"{o.id}: {o.error}" for o in outcomes if o.error]
    table = OutputTable(
        name="conformance",
        title="Conformance",
        columns=[
            Column("id", [o.id for o in outcomes], name="check"),
            Column("what", [o.what for o in outcomes], drop_rank=2),
            Column(
                "reference",
                [o.reference for o in outcomes],
                cells=[f"{o.reference:.4g}" for o in outcomes],
                align="right",
            ),
            Column(
                "ours",
                [o.ours for o in outcomes],
                cells=[f"{o.ours:.4g}" for o in outcomes],
                align="right",
            ),
            Column("tolerance", [o.tolerance for o in outcomes], align="right"),
            Column("result", ["pass" if o.passed else "FAIL" for o in outcomes]),
            Column("source", [o.source for o in outcomes], drop_rank=3),
        ],
        notes=notes,
        row_noun="check",
    )
    print_tables([table], OutputFormat.json if as_json else output)
    if passed < len(outcomes):
        raise typer.Exit(EXIT_FAILURE)
