"""The ``ccsim`` command.

Bad input of any kind ends the same way: one line ``error: <message>`` on stderr, exit status 2,
no traceback, nothing written. A failure inside the engine exits with status 1.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Annotated

import typer

from ccsim import runner
from ccsim.cli import (
    common,
    conformance_command,
    evaluate_command,
    run_commands,
    study_command,
    sweep_commands,
)
from ccsim.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    fail,
    fail_with_users_traceback,
)
from ccsim.errors import EngineError, ScenarioError

__all__ = ["app", "main"]

app = typer.Typer(
    name="ccsim",
    help="Packet-level simulator for TCP congestion control.\n\n"
    "Run a scenario file with `ccsim run SCENARIO.toml` (docs/scenario-format.md); "
    "run many, compared flow by flow, with `ccsim sweep SWEEP.toml` (docs/experiments.md), "
    "then `ccsim query` and `ccsim plot` the results, and `ccsim report` them as one HTML "
    "file (docs/reports.md).",
    add_completion=False,
    cls=common.Group,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # help paragraphs are re-wrapped to the terminal
)


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


# ---- commands ----------------------------------------------------------------------------------

# Each command is a plain function of its module, registered here (so that no command module
# imports this one) in the order ``ccsim --help`` lists them.
app.command(cls=common.Command)(run_commands.run)
app.command(cls=common.Command)(run_commands.validate)
app.command(cls=common.Command)(run_commands.algorithms)
app.command(cls=common.Command)(sweep_commands.sweep)
app.command(cls=common.Command)(study_command.study)
app.command(cls=common.Command)(conformance_command.conformance)
app.command(cls=common.Command)(evaluate_command.evaluate)
app.command(cls=common.Command)(sweep_commands.query)
app.command(cls=common.Command)(sweep_commands.plot)
app.command(cls=common.Command)(sweep_commands.report)


# ---- entry point -------------------------------------------------------------------------------


def _raised_by_python_cc(error: BaseException) -> bool:
    """Whether ``error`` reports an exception raised by a congestion-control algorithm written in
    Python (``ccsim.CongestionControlError``)."""
    try:
        from ccsim._core import CongestionControlError  # the engine, which may not be built
    except ImportError:
        return False
    return isinstance(error, CongestionControlError)


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
    command = typer.main.get_command(app)
    click = _click_exceptions()
    common.record_arguments(list(sys.argv[1:] if argv is None else argv))
    try:
        status = command.main(args=argv, prog_name="ccsim", standalone_mode=False)
    except click.NoArgsIsHelpError as error:
        typer.echo(error.ctx.get_help() if error.ctx else "")
        sys.exit(EXIT_BAD_INPUT)
    except click.UsageError as error:
        hint = f" (see {error.ctx.command_path} --help)" if error.ctx else ""
        fail(error.format_message() + hint, EXIT_BAD_INPUT)
    except click.ClickException as error:
        fail(error.format_message(), error.exit_code)
    except typer.Abort:
        fail("interrupted", EXIT_INTERRUPTED)
    except ScenarioError as error:
        fail(str(error), EXIT_BAD_INPUT)
    except EngineError as error:
        fail(str(error), EXIT_FAILURE)
    except KeyboardInterrupt:
        fail("interrupted", EXIT_INTERRUPTED)
    except RecursionError:
        fail("input nested too deeply", EXIT_BAD_INPUT)
    except ImportError as error:
        fail(str(error), EXIT_FAILURE)
    except OSError as error:
        # Writing results failed (disk full, permissions): not the input's fault.
        where = f"{error.filename}: " if error.filename else ""
        fail(f"{where}{error.strerror or error}", EXIT_FAILURE)
    except Exception as error:
        if not _raised_by_python_cc(error):
            raise
        fail_with_users_traceback(error)
    if status == EXIT_INTERRUPTED:
        # typer turns a KeyboardInterrupt that no command caught into this status, silently.
        fail("interrupted", EXIT_INTERRUPTED)
    sys.exit(status if isinstance(status, int) else 0)
