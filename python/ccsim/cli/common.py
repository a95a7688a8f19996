"""What every command shares: exit statuses, the help's display of flags, the scenario argument
and --set option, loading a scenario, the recorded command line and the one-line failure."""

from __future__ import annotations

import shlex
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from ccsim.errors import ScenarioError
from ccsim.scenario import Scenario

#: Exit status for bad input (the same as for a command-line usage error).
EXIT_BAD_INPUT = 2
#: Exit status for a failure inside ccsim itself (or a failed run of a sweep).
EXIT_FAILURE = 1
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
#: ``--workers``, shared by the commands that run many simulations (sweep, study, evaluate).
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-j",
        metavar="N",
        min=1,
        help="Local worker processes; default one per core; 1 runs in this process.",
        show_default=False,
    ),
]
#: ``--scheduler``, shared by the commands that run on a Dask cluster (sweep, evaluate).
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="Run on a Dask distributed cluster, e.g. tcp://10.0.0.1:8786. The workers must "
        "see DIR (a shared file system), have this ccsim installed and import every algorithm "
        "named (a Python class's module on their path).",
        show_default=False,
    ),
]
#: The running command's arguments (see :func:`record_arguments`), recorded in what it writes.
_ARGUMENTS: list[str] | None = None


def _flags_without_type(params: list[Any]) -> list[Any]:
    # typer's help shows a type after every option, "<bool>" after a flag that takes no value;
    # an empty metavar leaves the flag on its own, as it is typed (--dry-run, --help).
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class Command(TyperCommand):
    """A command whose help shows its flags as flags (``--quiet``, not ``--quiet <bool>``)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_without_type(list(super().get_params(ctx)))


class Group(TyperGroup):
    """The ``ccsim`` group, its flags shown as :class:`Command` shows them."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_without_type(list(super().get_params(ctx)))


def record_arguments(arguments: list[str]) -> None:
    """Remember the running command's arguments (:func:`ccsim.cli.main` calls this), so what the
    command writes records how to run it again."""
    global _ARGUMENTS
    _ARGUMENTS = arguments


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


def recorded_command_line(command: str) -> str | None:
    """The running command line (``ccsim ARGS``, quoted for a POSIX shell), if it is ``command``
    run through :func:`main`; None otherwise (ccsim used as a library)."""
    if _ARGUMENTS is None or command not in _ARGUMENTS:
        return None
    return shlex.join(["ccsim", *_ARGUMENTS])


def load_scenario(path: Path, overrides: Sequence[str] | None) -> Any:
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


def fail_with_users_traceback(error: BaseException) -> NoReturn:
    """Print the traceback of the user's exception (their file and line, none of ccsim's
    frames), then one ``error:`` line, and exit 1: the user's code failed, not the input."""
    cause = error.__cause__
    if cause is not None:
        traceback.print_exception(type(cause), cause, cause.__traceback__, file=sys.stderr)
    fail(f"{type(error).__name__}: {error}", EXIT_FAILURE)


def fail(message: str, status: int) -> NoReturn:
    # One line, whatever the message contains: scripts and tests rely on it.
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(status)
