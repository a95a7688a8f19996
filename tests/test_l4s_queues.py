"""L4S in the single-queue AQMs and the two queues of DualPI2, from the user's side: FQ-CoDel's and
CoDel's ``ce_threshold`` (with FQ-CoDel's ECN selector and mask) and PIE's ``l4s_step`` resolve to
the engine's keys only when written, bad values name their key; ``ccsim run`` prints a row per
DualPI2 queue, and ``ccsim plot --kind queue`` draws a line per queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ccsim
import pandas as pd
import pytest
from ccsim.cli.run_summary import dualpi2_table
from ccsim.errors import ScenarioError
from ccsim.scenario import Scenario
from conftest import requires_engine
from test_cli_tables import assert_fits, invoke, row_line


@pytest.fixture(autouse=True)
def _registry(request: pytest.FixtureRequest) -> None:
    if "engine" not in request.node.name:
        request.getfixturevalue("fake_registry")


def dumbbell(queue: str, table: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    topology: dict[str, Any] = {
        "kind": "dumbbell",
        "bottleneck_rate": "40Mbps",
        "bottleneck_delay": "5ms",
        "queue": queue,
        "buffer": "1000pkts",
    }
    if table is not None:
        topology[queue] = table
    data: dict[str, Any] = {
        "duration": "2s",
        "topology": topology,
        "flows": [{"cc": "newreno", "rtt": "40ms"}],
    }
    data.update(top)
    return data


def resolved_queue(data: dict[str, Any]) -> dict[str, Any]:
    queue: dict[str, Any] = Scenario.model_validate(data).resolve()["topology"]["forward"]["queue"]
    return queue


# ---- the options ---------------------------------------------------------------------------


@pytest.mark.parametrize("queue", ["codel", "fq_codel", "pie"])
def test_unwritten_options_leave_the_engine_spec_as_before(queue: str) -> None:
    spec = resolved_queue(dumbbell(queue))
    assert not {"ce_threshold_ns", "ce_threshold_selector", "ce_threshold_mask"} & set(spec)
    assert "l4s_step_ns" not in spec


def test_fq_codel_ce_threshold_with_the_ect1_selector() -> None:
    table = {"ce_threshold": "1ms", "ce_threshold_selector": 1, "ce_threshold_mask": 3}
    spec = resolved_queue(dumbbell("fq_codel", table))
    assert (spec["ce_threshold_ns"], spec["ce_threshold_selector"], spec["ce_threshold_mask"]) == (
        1_000_000,
        1,
        3,
    )
    # Mask 0 (Linux's default): every ECN-capable packet; the engine's default, so not written.
    spec = resolved_queue(dumbbell("fq_codel", {"ce_threshold": "500us"}))
    assert spec["ce_threshold_ns"] == 500_000 and "ce_threshold_mask" not in spec


def test_codel_ce_threshold_and_pie_l4s_step() -> None:
    assert resolved_queue(dumbbell("codel", {"ce_threshold": "1ms"}))["ce_threshold_ns"] == 10**6
    assert resolved_queue(dumbbell("pie", {"l4s_step": "2ms"}))["l4s_step_ns"] == 2 * 10**6


@pytest.mark.parametrize(
    ("queue", "table", "key", "words"),
    [
        (
            "fq_codel",
            {"ce_threshold": "1ms", "ce_threshold_mask": 4},
            "topology.fq_codel.ce_threshold_mask",
            "less than or equal to 3",
        ),
        (
            "fq_codel",
            {"ce_threshold": "1ms", "ce_threshold_selector": 1, "ce_threshold_mask": 2},
            "topology.fq_codel.ce_threshold_selector",
            "1 has bits outside ce_threshold_mask (2); expected selector & mask == selector",
        ),
        (
            "fq_codel",
            {"ce_threshold_selector": 1, "ce_threshold_mask": 3},
            "topology.fq_codel.ce_threshold_mask",
            '3 without ce_threshold; expected a ce_threshold such as "1ms"',
        ),
        ("codel", {"ce_threshold": "-1ms"}, "topology.codel.ce_threshold", "negative"),
        ("codel", {"ce_threshold_mask": 3}, "topology.codel.ce_threshold_mask", "unknown key"),
        ("pie", {"l4s_step": "1 parsec"}, "topology.pie.l4s_step", "not a time"),
    ],
)
def test_bad_values_name_the_key(queue: str, table: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        Scenario.model_validate(dumbbell(queue, table))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(key + ": ") and words in message, message


# ---- the DualPI2 queues table ----------------------------------------------------------------


def dualpi2_samples(link: int = 0) -> pd.DataFrame:
    """Five samples 10 ms apart of a DualPI2 link: L delays 0-4 ms, C delays 10-50 ms."""
    rows = []
    for k in range(5):
        rows.append(
            {
                "t_s": k * 0.01,
                "link": link,
                "queue_pkts": 3 * k,
                "l_delay_s": k * 1e-3,
                "c_delay_s": (k + 1) * 10e-3,
                "l_len_pkts": float(k),
                "c_len_pkts": 2.0 * k,
                "l_out": 100.0 * k,
                "c_out": 10.0 * k,
                "l_marks": 7.0 * k,
                "c_marks": 0.0,
                "l_drops": 0.0,
                "c_drops": float(k),
                "l_in": 100.0 * k,
            }
        )
    return pd.DataFrame(rows)


def test_the_table_has_a_row_per_queue_computed_by_hand() -> None:
    links = pd.DataFrame({"link": [0], "utilization": [0.9]})
    table = dualpi2_table(dualpi2_samples(), links)
    assert table is not None
    values = {c.key: list(c.values) for c in table.columns}
    assert values["queue"] == ["L", "C"]
    # means 2 ms and 30 ms; 95th percentiles (linear) 3.8 ms and 48 ms
    assert values["mean_delay_s"] == pytest.approx([0.002, 0.030])
    assert values["p95_delay_s"] == pytest.approx([0.0038, 0.048])
    assert values["mean_len_pkts"] == pytest.approx([2.0, 4.0])
    assert (values["packets"], values["marks"], values["drops"]) == ([400, 40], [28, 0], [0, 4])
    assert table.title == "Queues (DualPI2 on link 0)" and "every 10 ms" in table.notes[0]
    # Other disciplines: no table
    assert (
        dualpi2_table(pd.DataFrame({"t_s": [0.0], "link": [0], "queue_pkts": [1]}), links) is None
    )


@requires_engine
def test_engine_run_prints_two_queue_rows_for_dualpi2(tmp_path: Path) -> None:
    data = dumbbell(
        "dualpi2",
        profile="linux",
        flows=[{"cc": "cubic", "rtt": "40ms"}, {"cc": "dctcp", "rtt": "40ms"}],
        trace={"sample_interval": "10ms"},
    )
    path = tmp_path / "dualpi2.toml"
    path.write_text(Scenario.model_validate(data).to_toml(), encoding="utf-8")
    out = invoke("run", path, "--out", tmp_path / "run")
    assert_fits(out)
    section = out.split("Queues (DualPI2 on link 0)\n", 1)[1]
    queues = ccsim.Results.load(tmp_path / "run").queues
    forward = queues[queues["link"] == 0]
    for prefix, name in (("l", "L"), ("c", "C")):
        cells = row_line(section, name).split()
        assert len(cells) == 7, cells  # queue, mean, p95, length, packets, marks, drops
        assert int(cells[4]) == int(forward[f"{prefix}_out"].iloc[-1])
        assert int(cells[6]) == int(forward[f"{prefix}_drops"].iloc[-1])
    # Without sampling, one line says how to see the queues' delays.
    del data["trace"]
    path.write_text(Scenario.model_validate(data).to_toml(), encoding="utf-8")
    out = invoke("run", path, "--out", tmp_path / "unsampled")
    assert "Queues (" not in out and "set [trace] sample_interval" in " ".join(out.split())


@requires_engine
def test_engine_run_of_another_queue_prints_no_queue_table(tmp_path: Path) -> None:
    data = dumbbell("fq_codel", {"ce_threshold": "1ms"}, trace={"sample_interval": "10ms"})
    path = tmp_path / "fq.toml"
    path.write_text(Scenario.model_validate(data).to_toml(), encoding="utf-8")
    out = invoke("run", path, "--out", tmp_path / "run")
    assert "Queues (" not in out and "DualPI2" not in out


# ---- the queue figure --------------------------------------------------------------------------


def test_the_queue_figure_draws_the_l_and_c_queues_as_two_lines() -> None:
    pytest.importorskip("matplotlib")
    from ccsim import plots

    figure = plots.queue_figure(dualpi2_samples())
    delay, length = figure.axes
    assert [line.get_label() for line in delay.get_lines()] == ["link 0 L queue", "link 0 C queue"]
    assert [line.get_label() for line in length.get_lines()] == ["link 0 L queue", "link 0 C queue"]
    assert delay.get_ylabel() == "queue delay (ms)"
    assert length.get_ylabel() == "queue length (packets)"
    l_delay = delay.get_lines()[0].get_ydata()
    assert list(l_delay) == pytest.approx([0.0, 1.0, 2.0, 3.0, 4.0])  # in ms


def test_the_queue_figure_of_another_queue_is_one_line_as_before() -> None:
    pytest.importorskip("matplotlib")
    from ccsim import plots

    samples = pd.DataFrame({"t_s": [0.0, 0.01], "link": [0, 0], "queue_pkts": [1, 2]})
    figure = plots.queue_figure(samples)
    (axes,) = figure.axes
    assert [line.get_label() for line in axes.get_lines()] == ["link 0"]
    assert axes.get_title() == "Queue length"


@requires_engine
def test_engine_example_l4s_prints_both_queues_and_draws_them(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from ccsim import plots
    from conftest import EXAMPLES

    out = invoke("run", EXAMPLES / "l4s.toml", "--out", tmp_path / "l4s", "--set", "duration=8s")
    assert_fits(out)
    flows = ccsim.Results.load(tmp_path / "l4s").flows
    assert list(flows["cc"]) == ["prague", "cubic"] and (flows["goodput_bps"] > 5e6).all()
    section = out.split("Queues (DualPI2 on link 0)\n", 1)[1]
    l_row, c_row = row_line(section, "L").split(), row_line(section, "C").split()
    assert float(l_row[1]) < 1.0 < float(c_row[1]), (l_row, c_row)  # mean delay, ms
    assert int(l_row[4]) > 0 and int(c_row[4]) > 0  # both queues carried the flows' packets
    queues = ccsim.Results.load(tmp_path / "l4s").queues
    delay, length = plots.queue_figure(queues, link=0).axes
    assert len(delay.get_lines()) == len(length.get_lines()) == 2


@requires_engine
def test_engine_run_as_csv_adds_the_dualpi2_queues_table(tmp_path: Path) -> None:
    import io

    data = dumbbell(
        "dualpi2",
        flows=[{"cc": "newreno", "rtt": "40ms"}],
        trace={"sample_interval": "10ms"},
    )
    path = tmp_path / "dualpi2.toml"
    path.write_text(Scenario.model_validate(data).to_toml(), encoding="utf-8")
    text = invoke("run", path, "--out", tmp_path / "run", "-f", "csv")
    sections = dict(part.split("\n", 1) for part in text.strip("\n").split("\n\n"))
    assert set(sections) == {"# flows", "# links", "# queues"}
    queues = pd.read_csv(io.StringIO(sections["# queues"]))
    assert list(queues["queue"]) == ["L", "C"]
    assert {"mean_delay_s", "p95_delay_s", "packets", "marks", "drops"} <= set(queues.columns)
