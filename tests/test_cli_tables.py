"""The tables the ``ccsim`` command prints: fitted to 80 columns without cutting a value, plain
text when not on a terminal, and as CSV, JSON lines and Markdown holding the values in full."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ccsim.cli import app
from ccsim.cli.run_summary import fairness_lines
from ccsim.cli.tables import (
    Column,
    OutputFormat,
    OutputTable,
    compact_numbers,
    machine_text,
    print_table,
    text_table,
)
from conftest import EXAMPLES, requires_engine
from rich.console import Console
from typer.testing import CliRunner

WIDTH = 80
BOX_CHARACTERS = set("┏┓┗┛┃━│─┌┐└┘┡┩╇┳┻╋")


def invoke(*args: str | Path, cwd: Path | None = None) -> str:
    """``ccsim ARGS`` in this process, standard output captured (not a terminal), 80 columns."""
    runner = CliRunner()
    result = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def assert_fits(text: str) -> None:
    """Every line within 80 columns, no ellipsis (a cut value), no box drawing (not a terminal)."""
    for line in text.splitlines():
        assert len(line) <= WIDTH, line
    assert "…" not in text and "..." not in text
    assert not BOX_CHARACTERS & set(text)


def row_line(text: str, first: str) -> str:
    """The one line whose first token is ``first``."""
    found = [line for line in text.splitlines() if line.split()[:1] == [first]]
    assert len(found) == 1, (first, text)
    return found[0]


def close(shown: str, value: float, digits: int = 3) -> bool:
    """Whether the shown number is ``value`` to ``digits`` significant digits."""
    return math.isclose(float(shown), value, rel_tol=10 ** (1 - digits) / 2 + 1e-12)


# ---- ccsim run -------------------------------------------------------------------------------------


@requires_engine
def test_run_summary_fits_80_columns_and_explains_the_spread(tmp_path: Path) -> None:
    out = invoke("run", EXAMPLES / "dumbbell.toml", "--out", tmp_path / "run")
    assert_fits(out)
    flows = pd.read_parquet(tmp_path / "run" / "flows.parquet")
    lines = out.splitlines()
    header = lines.index(next(line for line in lines if line.split()[:1] == ["flow"]))
    columns = lines[header].split()
    assert "Mb/s" in columns and "Mbps" not in out
    # one line per flow, every cell whole: the numbers parse and match the flows table
    for row in flows.itertuples():
        cells = row_line(out.split("Links (")[0], str(row.flow)).split()
        assert len(cells) == 6, cells  # flow, goodput, retransmits, timeouts, fast rtx, mean RTT
        assert close(cells[1], row.goodput_bps / 1e6)
        assert cells[2:4] == [str(row.retransmits), str(row.timeouts)]
    # the columns every flow shares are said once
    assert "every flow: cc newreno, base RTT 20 ms" in out
    words = " ".join(out.split())
    assert "recovery=per algorithm (newreno: NewReno)" in words
    assert "recovery=none" not in words

    from ccsim.metrics import jain_index

    jain = re.search(r"Jain's fairness index of the goodputs: ([\d.]+) over 10 flows", words)
    assert jain and float(jain.group(1)) == round(jain_index(flows.goodput_bps), 3)
    # the slowest flows are named, with what the flows table shows and the docs section
    slowest = flows.nsmallest(2, "goodput_bps")
    assert max(flows.goodput_bps) > 2 * min(flows.goodput_bps)  # the run this test relies on
    why = re.search(r"why: flows (\d+) and (\d+) got", words)
    assert why and {int(why.group(1)), int(why.group(2))} == set(slowest.flow)
    assert "without SACK" in words and '"Why identical flows differ"' in words


def _flows(goodputs: list[float], timeouts: list[int], retransmits: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "flow": range(len(goodputs)),
            "cc": "reno",
            "generator": -1,
            "goodput_bps": goodputs,
            "timeouts": timeouts,
            "retransmits": retransmits,
            "fast_retransmits": [5] * len(goodputs),
        }
    )


SUMMARY = {"profile": "ns2", "stack": {"profile": "ns2", "recovery": None}}


def test_flows_configured_alike_far_apart_are_explained_by_their_timeouts() -> None:
    flows = _flows([10e6, 11e6, 9e6, 2e6], timeouts=[0, 1, 0, 6], retransmits=[10, 12, 9, 14])
    lines = fairness_lines(flows, [[0, 1, 2, 3]], SUMMARY, {"reno": "reno"})
    assert lines[0].startswith("Jain's fairness index of the goodputs: 0.8")
    assert len(lines) == 2
    why = lines[1]
    assert why.startswith("why: flow 3 got 2 Mb/s, the 3 other reno flows configured alike 9 to 11")
    assert "timed out 6 times, the others 0 to 1" in why
    assert "retransmitted" not in why  # 14 per 11 recoveries is no longer than the others'
    assert "Reno recovery" in why and "docs/scenario-format.md" in why


def test_flows_alike_and_close_get_no_explanation_and_groups_get_their_own_index() -> None:
    flows = _flows([10e6, 11e6, 3e6, 3.2e6], timeouts=[0, 0, 0, 0], retransmits=[1, 1, 1, 1])
    lines = fairness_lines(flows, [[0, 1], [2, 3]], SUMMARY, {"reno": "reno"})
    assert len(lines) == 1  # over all flows the spread is large, but within each group it is not
    assert "0.998 among flows 0-1 (reno)" in lines[0]


# ---- ccsim sweep -----------------------------------------------------------------------------------


@requires_engine
def test_sweep_summary_keeps_axis_values_apart_at_80_columns(tmp_path: Path, write_sweep) -> None:
    path = write_sweep(
        'replicates = 2\n[axes]\n"topology.loss" = [0.0001, 0.000316]\n'
        '[compare]\nalgorithms = ["newreno"]\n'
    )
    out = invoke("sweep", path, "--out", tmp_path / "out", "-j", "1")
    assert_fits(out)
    data = [line for line in out.splitlines() if "2/2" in line]
    assert len(data) == 4  # 2 loss rates x (reno, newreno), one line each
    assert sorted(line.split()[0] for line in data) == ["0.0001", "0.0001", "0.000316", "0.000316"]
    for line in data:
        assert line.split()[1] in ("reno", "newreno")
    csv_text = invoke("sweep", path, "--out", tmp_path / "out", "-j", "1", "--format", "csv")
    summary = pd.read_csv(io.StringIO(csv_text))
    assert sorted(summary["loss"]) == [0.0001, 0.0001, 0.000316, 0.000316]
    for line, row in zip(data, summary.itertuples(), strict=True):
        assert close(line.split()[3], row.goodput_bps_mean / 1e6)


# ---- ccsim algorithms ------------------------------------------------------------------------------


@requires_engine
def test_algorithms_list_one_line_each_within_80_columns() -> None:
    from ccsim.runner import engine

    registry = engine().algorithms()
    out = invoke("algorithms")
    assert_fits(out)
    from ccsim.cli.algorithm_tables import FAMILIES

    for info in registry:
        line = row_line(out, info["name"])
        assert FAMILIES[info["name"]] in line  # whole, however long
        assert line.rstrip().endswith(info["summary"].split(" (")[0].split(":")[0])
    assert len(out.splitlines()) <= len(registry) + 4
    assert "left out for width: recovery (--wide" in " ".join(out.split())
    wide = invoke("algorithms", "--wide")
    assert all(info["recovery"] in row_line(wide, info["name"]).split() for info in registry)


@requires_engine
def test_one_algorithm_shows_every_parameter_in_full() -> None:
    from ccsim.runner import engine

    cubic = next(a for a in engine().algorithms() if a["name"] == "cubic")
    out = invoke("algorithms", "cubic")
    assert_fits(out)
    words = " ".join(out.split())
    for param in cubic["params"]:
        assert row_line(out, param["name"])
        assert " ".join(param["doc"].split()) in words
    assert "linux: true" in row_line(out, "hystart")
    records = [
        json.loads(line) for line in invoke("algorithms", "cubic", "-f", "json").splitlines()
    ]
    assert [r["parameter"] for r in records] == [p["name"] for p in cubic["params"]]
    assert [r["default"] for r in records] == [p["default"] for p in cubic["params"]]


# ---- a study's comparison table --------------------------------------------------------------------


@requires_engine
def test_a_study_run_prints_its_table_whole_within_80_columns(tmp_path: Path) -> None:
    from ccsim.studies.tables import shown_rows

    text = invoke("study", "F4", "--quick", "--out", tmp_path)
    assert_fits(text)
    header, rows = shown_rows(pd.read_csv(tmp_path / "F4.csv"))
    lines = text.splitlines()
    left_line = next((line for line in lines if line.startswith("left out for width: ")), "")
    left_out = left_line.removeprefix("left out for width: ").split(" (")[0].split(", ")
    shared = next((line for line in lines if line.startswith("every row: ")), "")
    # a column is on each row's line unless left out for width or said once for every row
    shown = [i for i, c in enumerate(header) if c not in left_out and f" {c} " not in shared]
    assert header.index("ours") in shown and header.index("metric") in shown
    for cells in rows:
        # every shown cell of the row whole on one line, in order
        pattern = r"\s+".join(re.escape(cells[i]) for i in shown)
        assert any(re.search(pattern, line) for line in lines), (cells, text)


def _comparison_frame() -> pd.DataFrame:
    from ccsim.studies.tables import VALUE_COLUMNS

    rows = []
    for i, (protocol, rtt) in enumerate([("reno", 40), ("examples.python_cc.reno:Reno", 100)]):
        rows.append(
            {
                "protocol": protocol,
                "rtt_ms": rtt,
                "metric": "normalised throughput per flow",
                "ours": 0.123456 * (i + 1),
                "sd": 0.01,
                "ci_low": 0.1,
                "ci_high": 0.15 * (i + 1),
                "runs": 5,
                "published": 0.31622,
                "replicates": None,
            }
        )
    return pd.DataFrame(rows, columns=["protocol", "rtt_ms", *VALUE_COLUMNS])


@pytest.mark.parametrize("terminal", [False, True])
def test_a_study_table_keeps_every_cell_whole(terminal: bool) -> None:
    from ccsim.studies.tables import SHOWN_COLUMNS, shown_rows

    header, rows = shown_rows(_comparison_frame())
    table = text_table(
        "R0: ccsim vs published",
        header,
        rows,
        right_aligned=SHOWN_COLUMNS[1:],
        optional=("published", "n", "95% CI"),
    )
    buffer = io.StringIO()
    print_table(Console(file=buffer, width=WIDTH, force_terminal=terminal), table)
    text = re.sub(r"\x1b\[[0-9;]*m", "", buffer.getvalue())
    assert all(len(line) <= WIDTH for line in text.splitlines()), text
    assert "…" not in text and (("┃" in text) == terminal)
    # what is the same in every row is said once, the rest is on the row's line
    shared = next(line for line in text.splitlines() if line.startswith("every row: "))
    assert "metric normalised throughput per flow" in shared and "published 0.3162" in shared
    for cells in rows:
        line = next(line for line in text.splitlines() if cells[0] in line)
        for cell in cells:
            assert cell in line or cell in shared, (cell, line)


def test_columns_left_out_for_width_are_named_with_the_option() -> None:
    columns = [Column("key", ["a", "b"], fold_constant=False)]
    columns += [
        Column(f"metric_{i}", [1.5, 2.5], name=f"metric number {i}", drop_rank=i)
        for i in range(1, 12)
    ]
    buffer = io.StringIO()
    print_table(Console(file=buffer, width=WIDTH), OutputTable("t", "T", columns))
    text = buffer.getvalue()
    assert all(len(line) <= WIDTH for line in text.splitlines())
    left_out = " ".join(text.split()).split("left out for width: ")[1]
    assert "metric number 11" in left_out and "--wide" in left_out
    assert "metric number 1," not in left_out


# ---- csv, json, markdown ---------------------------------------------------------------------------


def _values_table() -> OutputTable:
    values: dict[str, list[Any]] = {
        "name": ["reno", "a|b, c", "examples.python_cc.reno:Reno"],
        "loss": [0.0001, 0.00031622776601683794, float("nan")],
        "count": [1, 20, 300],
    }
    return OutputTable(
        "values",
        "Values",
        [Column(key, column, compact_numbers(column) if key != "name" else None)
         for key, column in values.items()],
    )  # fmt: skip


def test_csv_json_and_markdown_hold_the_values_in_full() -> None:
    table = _values_table()
    from_csv = pd.read_csv(io.StringIO(machine_text([table], OutputFormat.csv)))
    records = [json.loads(line) for line in machine_text([table], OutputFormat.json).splitlines()]
    markdown = machine_text([table], OutputFormat.markdown).splitlines()
    rows = [line for line in markdown if line.startswith("| ")][2:]
    from_markdown = [
        [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", row)[1:-1]]
        for row in rows
    ]
    for i, column in enumerate(table.columns):
        for j, value in enumerate(column.values):
            missing = isinstance(value, float) and math.isnan(value)
            assert (records[j][column.key] is None) if missing else records[j][column.key] == value
            shown = from_csv[column.key][j]
            assert (pd.isna(shown)) if missing else shown == value
            assert from_markdown[j][i] == ("" if missing else str(value))


@requires_engine
def test_run_as_csv_and_json_is_the_flows_and_links_tables(tmp_path: Path) -> None:
    scenario = EXAMPLES / "dumbbell.toml"
    text = invoke("run", scenario, "--out", tmp_path / "a", "--set", "duration=2s", "-f", "csv")
    flows = pd.read_parquet(tmp_path / "a" / "flows.parquet")
    sections = dict(part.split("\n", 1) for part in text.strip("\n").split("\n\n"))
    from_csv = pd.read_csv(io.StringIO(sections["# flows"]))
    pd.testing.assert_series_equal(from_csv["goodput_bps"], flows["goodput_bps"])
    assert list(from_csv["cc"]) == list(flows["cc"])
    json_text = invoke(
        "run", scenario, "--out", tmp_path / "b", "--set", "duration=2s", "-f", "json"
    )
    records = [json.loads(line) for line in json_text.splitlines()]
    assert [r["goodput_bps"] for r in records if r["table"] == "flows"] == list(flows.goodput_bps)
    assert sum(r["table"] == "links" for r in records) == len(
        pd.read_parquet(tmp_path / "b" / "links.parquet")
    )


# ---- help ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "sweep", "query", "study", "algorithms"])
def test_help_shows_flags_without_a_type(command: str) -> None:
    out = invoke(command, "--help")
    assert "<bool>" not in out
    assert "--format" in out and "--wide" in out


def test_a_table_that_cannot_fit_is_wider_rather_than_cut() -> None:
    long = "examples.python_cc.delay_threshold:DelayThresholdReno"
    table = OutputTable("t", "T", [Column("cc", [long, "reno"]), Column("x", [long, "y"])])
    for terminal in (False, True):
        buffer = io.StringIO()
        print_table(Console(file=buffer, width=WIDTH, force_terminal=terminal), table)
        text = buffer.getvalue()
        assert "…" not in text
        assert sum(line.count(long) for line in text.splitlines()) == 2  # each whole on a line
