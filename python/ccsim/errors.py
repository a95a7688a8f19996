"""Exceptions raised by ccsim.

Two kinds of failure matter to a user:

* :class:`ScenarioError`: the input is wrong (a missing file, bad TOML, a malformed quantity, an
  unknown algorithm, a flow between nodes that are not connected...). Its message is one line that
  names the key, the value and what was expected. The command line turns it into exit status 2.
* :class:`EngineError`: the simulator itself failed on input it had accepted. That is a bug in
  ccsim, reported with the scenario's name so that it can be reproduced.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

__all__ = ["EngineError", "ScenarioError", "format_path", "show_value"]

PathItem = str | int


def format_path(path: Sequence[PathItem]) -> str:
    """Render a key path the way a user would write it: ``flows[0].rtt``, ``topology.links[2].src``."""
    text = ""
    for item in path:
        if isinstance(item, int):
            text += f"[{item}]"
        else:
            text += f".{item}" if text else str(item)
    return text


def show_value(value: object, limit: int = 60) -> str:
    """Render a value as it would appear in a TOML file, shortened for an error message."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, list | tuple | dict):
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ScenarioError(ValueError):
    """Invalid input: the message names the key path, the value given and what was expected.

    ``detail`` is the message without the key path; ``path`` is the key path as a tuple of keys and
    list indices (empty when the error is not about one key, e.g. an unreadable file).
    """

    def __init__(self, detail: str, path: Sequence[PathItem] = ()) -> None:
        self.detail = detail
        self.path: tuple[PathItem, ...] = tuple(path)
        super().__init__(f"{format_path(self.path)}: {detail}" if self.path else detail)

    def under(self, prefix: Sequence[PathItem]) -> ScenarioError:
        """The same error, with its path placed below ``prefix``."""
        return ScenarioError(self.detail, (*prefix, *self.path))


class EngineError(RuntimeError):
    """The simulation engine crashed on a scenario it had accepted (a bug in ccsim)."""
