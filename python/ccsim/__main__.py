"""``python -m ccsim`` and the ``ccsim`` command."""

from __future__ import annotations

import sys

#: The exit status of an interrupted command (128 + SIGINT), as ccsim.cli.common says it.
_INTERRUPTED = 130


def run() -> None:
    """The ``ccsim`` command: import the CLI, then run it. A Ctrl-C while the CLI's imports load
    (typer, rich, the engine: a noticeable moment on a cold start) exits with the same one line
    as a Ctrl-C during a command, not a traceback through the import machinery."""
    try:
        from ccsim.cli import main  # deferred so that an interrupt here is caught, see above
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(_INTERRUPTED)
    main()


if __name__ == "__main__":
    run()
