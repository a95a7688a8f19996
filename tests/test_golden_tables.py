"""Golden tables: the flows and links tables of a few reference scenarios, kept as CSV files in
tests/golden/ and compared line by line, so that a change of behaviour shows as a table diff a
reviewer can read (and a change that must not alter results shows that it did not).

After a change that is meant to alter results, rewrite the files and commit them with it:

    CCSIM_UPDATE_GOLDEN=1 python3 -m pytest tests/test_golden_tables.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import ccsim
import pytest
from conftest import EXAMPLES, requires_engine

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE_ENV = "CCSIM_UPDATE_GOLDEN"

#: name -> (example file, overrides): short runs of the examples, one per topology and stack
#: profile, each exercising a different part of the engine (DropTail and loss recovery, a
#: parking lot with cross traffic, AQM and ECN, Linux's stack with SACK and delayed ACKs, and
#: Linux 6.x's with RACK-TLP, PRR, undo and quick ACKs).
REFERENCES: dict[str, tuple[str, dict[str, str]]] = {
    "dumbbell-ns2": ("dumbbell.toml", {"duration": "5s"}),
    "dumbbell-linux-sack": ("dumbbell.toml", {"duration": "5s", "profile": "linux-sack"}),
    "dumbbell-linux": ("dumbbell.toml", {"duration": "5s", "profile": "linux"}),
    "parking-lot": ("parking_lot.toml", {"duration": "5s"}),
    "aqm": ("aqm.toml", {"duration": "5s"}),
}


def _tables(name: str) -> dict[str, str]:
    example, overrides = REFERENCES[name]
    scenario = ccsim.Scenario.load(EXAMPLES / example, overrides=overrides)
    results = ccsim.run(scenario)
    # Floats are written with Python's shortest round-trip form: the same bits, the same text.
    return {
        "flows": results.flows.to_csv(index=False, lineterminator="\n"),
        "links": results.links.to_csv(index=False, lineterminator="\n"),
    }


@requires_engine
@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_reference_tables_are_unchanged(name: str) -> None:
    for table, text in _tables(name).items():
        path = GOLDEN / f"{name}.{table}.csv"
        if os.environ.get(UPDATE_ENV):
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            continue
        assert path.is_file(), f"{path} is missing: run with {UPDATE_ENV}=1 to write it"
        expected = path.read_text(encoding="utf-8")
        if text != expected:
            diff = "".join(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    text.splitlines(keepends=True),
                    fromfile=f"{path.name} (golden)",
                    tofile=f"{path.name} (this run)",
                    n=0,
                )
            )
            pytest.fail(f"{name}: the {table} table changed:\n{diff}", pytrace=False)
