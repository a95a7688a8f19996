"""``ccsim algorithms``: the list of congestion-control algorithms, one line each, and one
algorithm's parameters in full."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import typer
from rich.markup import escape

from ccsim import runner
from ccsim.cli.run_summary import RECOVERY_NAMES
from ccsim.cli.tables import (
    Column,
    FormatOption,
    OutputFormat,
    OutputTable,
    WideOption,
    compact_numbers,
    new_console,
    print_table,
    print_tables,
)
from ccsim.errors import ScenarioError

__all__ = ["FAMILIES", "algorithms", "describe_param"]

#: The family of each built-in algorithm, as the table of docs/algorithms.md names it.
FAMILIES = {
    "areno": "hybrid",
    "bbr": "rate-based (model)",
    "bbr3": "rate-based (model) + loss/ECN",
    "bic": "loss, high speed",
    "binomial": "loss, binomial",
    "compound": "hybrid, high speed",
    "cubic": "loss, high speed",
    "dctcp": "ECN, data center",
    "fast": "delay, high speed",
    "freedrop": "loss",
    "fusion": "hybrid",
    "fusion-rf": "hybrid",
    "highspeed": "loss, high speed",
    "htcp": "loss, high speed",
    "hybla": "loss, long RTT",
    "iiad": "loss, binomial",
    "illinois": "hybrid",
    "libra": "loss, RTT-fair",
    "newreno": "loss",
    "paced": "loss, paced",
    "prague": "ECN (L4S, scalable)",
    "randomized": "loss, paced",
    "reno": "loss",
    "scalable": "loss, high speed",
    "sqrt": "loss, binomial",
    "sync-tcp": "delay (one-way) + loss",
    "sync-tcp-hs": "delay (one-way) + loss, high speed",
    "vegas": "delay",
    "westwood": "loss + rate estimate",
    "yeah": "hybrid, high speed",
}


def algorithms(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="An algorithm: show its parameters in full (default, range, per-profile "
            "defaults, description).",
            show_default=False,
        ),
    ] = None,
    output: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """List the congestion-control algorithms (name, family, loss recovery, title), or one
    algorithm's parameters with their defaults and ranges.

    Every algorithm, its parameters and sources: docs/algorithms.md. Set parameters per flow in
    [flows.params].
    """
    registry = runner.engine().algorithms()
    if name is None:
        print_tables([_list_table(registry)], output, wide=wide)
        return
    info = next((a for a in registry if a["name"] == name), None)
    if info is None:
        names = ", ".join(a["name"] for a in registry)
        raise ScenarioError(f'unknown algorithm "{name}"; expected one of: {names}')
    table = _parameter_table(info)
    if output is not OutputFormat.table:
        print_tables([table], output)
        return
    console = new_console()
    console.print(f"[bold]{escape(info['name'])}[/bold]: {escape(info['summary'])}")
    recovery = RECOVERY_NAMES.get(info["recovery"], info["recovery"])
    console.print(
        f"family: {FAMILIES.get(name, '-')}; loss recovery: {recovery} (unless \\[stack] "
        "recovery sets one for every flow)"
    )
    if info.get("inspect"):
        state = ", ".join(f"cc_{v}" for v in info["inspect"])
        console.print(f"state in the series table: {escape(state)}")
    if table.rows:
        print_table(console, table, wide=wide)
    else:
        console.print("no parameters")


def _title(summary: str) -> str:
    """An algorithm's title: its summary up to the sources in parentheses or the colon."""
    ends = [i for i in (summary.find(" ("), summary.find(":")) if i > 0]
    return summary[: min(ends)] if ends else summary


def _list_table(registry: list[Mapping[str, Any]]) -> OutputTable:
    names = [a["name"] for a in registry]
    columns = [
        Column("name", names, fold_constant=False),
        Column("family", [FAMILIES.get(n, "-") for n in names], fold_constant=False, drop_rank=1),
        Column("recovery", [a["recovery"] for a in registry], fold_constant=False, drop_rank=3),
        Column(
            "title",
            [_title(a["summary"]) for a in registry],
            fold_constant=False,
            display_only=True,
            drop_rank=2,
        ),
        Column("summary", [a["summary"] for a in registry], machine_only=True),
        Column(
            "parameters",
            [" ".join(p["name"] for p in a["params"]) for a in registry],
            machine_only=True,
        ),
    ]
    return OutputTable(
        "algorithms",
        "Congestion-control algorithms",
        columns,
        notes=["ccsim algorithms NAME shows an algorithm's parameters; docs/algorithms.md"],
    )


def _show(param: Mapping[str, Any], value: float) -> str:
    if param["kind"] == "bool":
        return "true" if value else "false"
    return str(int(value)) if param["kind"] == "int" else compact_numbers([value], max_digits=9)[0]


def _range(param: Mapping[str, Any]) -> str:
    if param["kind"] == "bool":
        return "true/false"
    if param.get("min") is None or param.get("max") is None:
        return "-"
    return f"{_show(param, param['min'])} to {_show(param, param['max'])}"


def _by_profile(param: Mapping[str, Any]) -> str:
    by_profile = param.get("profile_defaults") or {}
    return ", ".join(f"{name}: {_show(param, v)}" for name, v in sorted(by_profile.items()))


def _parameter_table(info: Mapping[str, Any]) -> OutputTable:
    params = info["params"]
    columns = [
        Column("parameter", [p["name"] for p in params], fold_constant=False),
        Column("kind", [p["kind"] for p in params], machine_only=True),
        Column(
            "default",
            [p["default"] for p in params],
            [_show(p, p["default"]) for p in params],
            fold_constant=False,
        ),
        Column("min", [p.get("min") for p in params], machine_only=True),
        Column("max", [p.get("max") for p in params], machine_only=True),
        Column(
            "range",
            [_range(p) for p in params],
            fold_constant=False,
            display_only=True,
            drop_rank=1,
        ),
        Column(
            "profile_defaults",
            [_by_profile(p) for p in params],
            name="per profile",
            fold_constant=False,
            drop_rank=2,
            # a terminal shows it only for an algorithm with defaults that depend on the profile
            machine_only=not any(p.get("profile_defaults") for p in params),
        ),
        Column("description", [p.get("doc") or "" for p in params], below=True),
    ]
    return OutputTable(f"{info['name']}-parameters", f"Parameters of {info['name']}", columns)


def describe_param(param: Mapping[str, Any]) -> str:
    """One parameter on one line: ``name = default, profile: default (min to max): doc``."""
    shown = _show(param, param["default"])
    by_profile = _by_profile(param)
    if by_profile:
        shown += f", {by_profile}"
    if param.get("min") is not None and param.get("max") is not None and param["kind"] != "bool":
        shown += f" ({param['min']:g} to {param['max']:g})"
    doc = f": {param['doc']}" if param.get("doc") else ""
    return f"{param['name']} = {shown}{doc}"
