"""Sweep files: parsing, ranges, expansion into points, mixtures and run identities.

Nothing here runs the engine; algorithm names are checked against conftest's stand-in registry.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from ccsim.errors import ScenarioError
from ccsim.sweeps import Sweep, expand_range, run_id
from conftest import EXAMPLES, SMALL_DUMBBELL

pytestmark = pytest.mark.usefixtures("fake_registry")

FOUR_FLOWS = """
name = "four"
seed = 3
duration = "2s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"

[[flows]]
cc = "newreno"
count = 3
rtt = "40ms"
start_jitter = "500ms"

[[flows]]
label = "long"
cc = "newreno"
rtt = "80ms"
size = "50KB"
[flows.params]
beta = 0.6
"""


def make_sweep(extra: str, base: str = FOUR_FLOWS, tmp_path: Path | None = None) -> Sweep:
    """A sweep over ``base`` (written next to it) with ``extra`` TOML."""
    assert tmp_path is not None
    (tmp_path / "base.toml").write_text(base)
    (tmp_path / "sweep.toml").write_text(f'scenario = "base.toml"\n{extra}')
    return Sweep.load(tmp_path / "sweep.toml")


# ---- ranges ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"start": 10, "stop": 50, "step": 10}, [10, 20, 30, 40, 50]),
        ({"start": 0.1, "stop": 0.3, "step": 0.1}, [0.1, 0.2, 0.3]),  # not 0.30000000000000004
        ({"start": 1, "stop": 2, "step": 0.5}, [1.0, 1.5, 2.0]),
        ({"start": 0.001, "stop": 0.1, "num": 3, "scale": "log"}, [0.001, 0.01, 0.1]),
        ({"start": 0, "stop": 1, "num": 5}, [0.0, 0.25, 0.5, 0.75, 1.0]),
        ({"start": "10Mbps", "stop": "30Mbps", "step": "10Mbps"}, ["10Mbps", "20Mbps", "30Mbps"]),
        ({"start": "20ms", "stop": "80ms", "num": 3}, ["20ms", "50ms", "80ms"]),
        ({"start": 5, "stop": 1, "step": -2}, [5, 3, 1]),
        ({"start": "10Mb/s", "stop": "30Mb/s", "num": 3}, ["10Mb/s", "20Mb/s", "30Mb/s"]),
    ],
)
def test_ranges(spec: dict[str, Any], expected: list[Any]) -> None:
    assert expand_range(spec) == expected


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ({"start": "10Mbps", "stop": "1Gbps", "step": "10Mbps"}, "mixes units"),
        ({"start": 1, "stop": 5, "step": -1}, "never goes from start to stop"),
        ({"start": 1, "stop": 5}, "exactly one of step or num"),
        ({"start": 0, "stop": 1, "num": 3, "scale": "log"}, "positive start and stop"),
        ({"stop": 1, "num": 3}, "no start"),
        ({"start": 1, "stop": 2, "num": 3, "scale": "cubic"}, 'expected "linear" or "log"'),
    ],
)
def test_bad_ranges(spec: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ScenarioError, match=fragment):
        expand_range(spec)


# ---- axes, seeds and points --------------------------------------------------------------------


def test_grid_points_and_columns(tmp_path: Path) -> None:
    sweep = make_sweep(
        """
replicates = 2
[axes]
topology.bottleneck_rate = ["10Mbps", "20Mbps"]
"flows.0.rtt" = { start = "40ms", stop = "60ms", step = "20ms" }
""",
        tmp_path=tmp_path,
    )
    assert sweep.name == "sweep"  # from the file name
    assert sweep.columns() == ["bottleneck_rate", "rtt", "seed"]
    points = sweep.points()
    assert len(points) == 2 * 2 * 2
    assert [p.params for p in points[:3]] == [
        {"bottleneck_rate": "10Mbps", "rtt": "40ms", "seed": 3},  # seeds from the base's seed
        {"bottleneck_rate": "10Mbps", "rtt": "40ms", "seed": 4},
        {"bottleneck_rate": "10Mbps", "rtt": "60ms", "seed": 3},
    ]
    last = points[-1].scenario
    assert last.topology.bottleneck_rate == 20_000_000
    assert last.flows[0].rtt == 60_000_000 and last.seed == 4
    assert last.name == "sweep"
    assert len({p.run_id for p in points}) == 8  # all different runs


def test_explicit_seeds_names_and_set(tmp_path: Path) -> None:
    sweep = make_sweep(
        """
name = "named"
seeds = [11, 7]
[set]
trace.sample_interval = "10ms"
[axes."flows.0.count"]
name = "n"
values = [1, 2]
""",
        tmp_path=tmp_path,
    )
    assert sweep.name == "named" and sweep.columns() == ["n", "seed"]
    points = sweep.points()
    assert [(p.params["n"], p.params["seed"]) for p in points] == [(1, 11), (1, 7), (2, 11), (2, 7)]
    assert all(p.scenario.trace.sample_interval == 10_000_000 for p in points)
    assert points[2].scenario.flow_count == 3  # 2 + the "long" flow


def test_same_last_word_gives_full_names(tmp_path: Path) -> None:
    sweep = make_sweep(
        '[axes]\n"flows.0.rtt" = ["40ms", "60ms"]\n"flows.1.rtt" = ["80ms", "90ms"]\n',
        tmp_path=tmp_path,
    )
    assert sweep.columns() == ["flows_0_rtt", "flows_1_rtt", "seed"]


def test_run_id_follows_the_resolved_scenario(tmp_path: Path) -> None:
    sweep = make_sweep('[axes]\n"topology.loss" = [0.0, 0.01]\n', tmp_path=tmp_path)
    first, second = sweep.points()
    again = make_sweep('[axes]\n"topology.loss" = [0.0, 0.01]\n', tmp_path=tmp_path).points()[0]
    assert first.run_id == again.run_id and len(first.run_id) == 16
    assert first.run_id != second.run_id
    assert run_id(first.scenario.with_overrides({"seed": "99"})) != first.run_id


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ("replicates = 0", "replicates: 0 is not a count"),
        ("replicates = 2\nseeds = [1]", "either replicates or seeds"),
        ("seeds = [1, 1]", "repeats a seed"),
        ("bogus = 1", "bogus: unknown key"),
        ('[axes]\n"seed" = [1, 2]', "cannot be an axis"),
        ('[axes]\n"topology.loss" = []', "is empty"),
        ('[axes]\n"topology.loss" = [0.1, 0.1]', "repeats a value"),
        ('[axes]\n"topology.loss" = 0.1', "not a list of values or a range"),
        ('[axes]\n"topology.loss" = [0.0, 2.0]', "sweep point loss=2.0 seed=3: topology.loss"),
        ('[axes]\n"topology.bottleneck_rat" = ["1Mbps"]', "topology.bottleneck_rat: unknown key"),
        ('[axes."topology.loss"]\nname = "run_id"\nvalues = [0.1]', "not a usable column name"),
        # A run's summary numbers are catalogue columns too: an axis may not take their names.
        ('[axes."topology.loss"]\nname = "drops"\nvalues = [0.1]', "not a usable column name"),
    ],
)
def test_bad_sweeps(extra: str, fragment: str, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=_literal(fragment)):
        make_sweep(extra, tmp_path=tmp_path)


def _literal(text: str) -> str:
    import re

    return re.escape(text)


def test_a_scenario_file_given_as_a_sweep_file_says_so_and_shows_a_sweep(tmp_path: Path) -> None:
    scenario_file = tmp_path / "base.toml"
    scenario_file.write_text(FOUR_FLOWS)
    with pytest.raises(ScenarioError) as caught:
        Sweep.load(scenario_file)
    message = str(caught.value)
    assert message.startswith(f"{scenario_file}: is a scenario file (it has [topology] and ")
    assert f"not a sweep file: run it with ccsim run {scenario_file}" in message
    assert "\n" not in message
    # The sweep the message shows is one that loads, over this very file.
    shown = re.search(r"the two lines (scenario = .*) and (axes = \{.*\}) \(", message)
    assert shown is not None
    (tmp_path / "sweep.toml").write_text(f"{shown[1]}\n{shown[2]}\n")
    sweep = Sweep.load(tmp_path / "sweep.toml")
    assert [axis.key for axis in sweep.axes] == ["topology.loss"]
    assert len(sweep.points()) == 2


def test_a_scenario_given_as_a_sweep_dict_says_so() -> None:
    generators_only = {"duration": "1s", "generators": [{"kind": "open_loop"}]}
    with pytest.raises(ScenarioError, match=r"^this is a scenario file \(it has \[\[generators"):
        Sweep.from_dict(generators_only)
    # A sweep whose inline [scenario] has the same tables is a sweep: its errors are the scenario's.
    with pytest.raises(ScenarioError, match=r"^scenario\.topology: required key is missing"):
        Sweep.from_dict({"scenario": generators_only})


def test_missing_and_inline_base(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="scenario: required key is missing"):
        Sweep.from_toml("replicates = 2")
    with pytest.raises(ScenarioError, match=r"nope\.toml: no such file"):
        Sweep.from_toml('scenario = "nope.toml"', directory=tmp_path)
    inline = Sweep.from_dict({"name": "inline", "scenario": _toml_dict(SMALL_DUMBBELL)})
    assert inline.points()[0].scenario.flow_count == 3
    with pytest.raises(ScenarioError, match=r"scenario\.topology\.bottleneck_rate"):
        Sweep.from_dict(
            {"scenario": {**_toml_dict(SMALL_DUMBBELL), "topology": {"kind": "dumbbell"}}}
        )


def _toml_dict(text: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(text)


# ---- comparative studies -----------------------------------------------------------------------

COMPARE = """
replicates = 2
[axes]
"topology.bottleneck_rate" = ["10Mbps", "20Mbps"]
[compare]
algorithms = ["newreno", { name = "newreno-0.7", cc = "newreno", params = { beta = 0.7 } }]
mixtures = ["all", "half", "one", { name = "last", flows = [3] }]
"""


def flow_ccs(point: Any) -> list[tuple[str, dict[str, float]]]:
    return [(f["cc"], f["cc_params"]) for f in point.scenario.resolve()["flows"]]


def test_comparative_points_and_reference_runs(tmp_path: Path) -> None:
    sweep = make_sweep(COMPARE, tmp_path=tmp_path)
    assert sweep.columns() == ["bottleneck_rate", "algorithm", "mixture", "seed"]
    points = sweep.points()
    # per rate: 2 algorithms x 4 mixtures + the all-Reno reference, x 2 seeds
    assert len(points) == 2 * (2 * 4 + 1) * 2
    references = [p for p in points if p.params["algorithm"] == "reno"]
    assert {p.params["mixture"] for p in references} == {"all"}
    for point in points:
        reference = next(
            r for r in references
            if r.params["seed"] == point.params["seed"]
            and r.params["bottleneck_rate"] == point.params["bottleneck_rate"]
        )  # fmt: skip
        assert point.reference == reference.run_id
    assert flow_ccs(references[0]) == [("reno", {})] * 4  # the base's params are dropped


def find(points: list[Any], **params: Any) -> Any:
    return next(p for p in points if all(p.params[k] == v for k, v in params.items()))


def test_mixtures_choose_flows(tmp_path: Path) -> None:
    points = make_sweep(COMPARE, tmp_path=tmp_path).points()
    x = ("newreno", {"beta": 0.7})
    reno = ("reno", {})
    chosen = {
        mixture: flow_ccs(find(points, algorithm="newreno-0.7", mixture=mixture, seed=3))
        for mixture in ("all", "half", "one", "last")
    }
    assert chosen["all"] == [x, x, x, x]
    assert chosen["half"] == [x, reno, x, reno]
    assert chosen["one"] == [x, reno, reno, reno]
    assert chosen["last"] == [reno, reno, reno, x]


def test_compared_runs_share_the_workload(tmp_path: Path) -> None:
    """Only the algorithm (and a default label) may differ between the runs of one workload."""
    points = make_sweep(COMPARE, tmp_path=tmp_path).points()
    same = dict(bottleneck_rate="10Mbps", seed=4)
    specs = [
        find(points, algorithm=a, mixture=m, **same).scenario.resolve()
        for a, m in [("reno", "all"), ("newreno", "all"), ("newreno-0.7", "half")]
    ]
    for spec in specs:
        for flow in spec["flows"]:
            del flow["cc"], flow["cc_params"], flow["label"]
        assert spec == specs[0]
    labels = [
        f["label"]
        for f in find(points, algorithm="newreno", mixture="half", **same).scenario.resolve()[
            "flows"
        ]
    ]
    assert labels == ["newreno", "reno", "newreno", "long"]  # a label the user gave stays


def test_same_scenario_same_run(tmp_path: Path) -> None:
    sweep = make_sweep(
        '[compare]\nalgorithms = ["reno", "newreno"]\nmixtures = ["all", "half"]\n',
        tmp_path=tmp_path,
    )
    points = sweep.points()
    assert len(points) == 4  # the reference (reno, all) is one of the cells: not added twice
    # "half Reno, half Reno" is all Reno: one run, two points
    assert (
        find(points, algorithm="reno", mixture="half").run_id
        == find(points, algorithm="reno", mixture="all").run_id
    )
    assert "4 points, 3 distinct runs" in sweep.describe()


BESIDE_CC = """
from ccsim import CongestionControl

class Halving(CongestionControl):
    def on_ack(self, ack):
        self.cwnd += 1 / self.cwnd

    def on_congestion(self, event):
        self.ssthresh = self.cwnd = max(self.cwnd / 2, 2)
"""


def test_compared_algorithm_from_a_module_beside_the_scenario_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """[compare] finds a module beside the base scenario file, as `ccsim run` of that file
    would, though neither the base nor the current directory names it."""
    module = f"compared_beside_{os.getpid()}"
    here = tmp_path / "scenarios"
    here.mkdir()
    (here / f"{module}.py").write_text(BESIDE_CC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the directory found is appended to it
    try:
        sweep = make_sweep(
            f'[compare]\nalgorithms = ["{module}:Halving"]\nmixtures = ["half"]\n',
            tmp_path=here,
        )
        half = find(sweep.points(), algorithm=f"{module}:Halving", mixture="half")
        assert [cc for cc, _ in flow_ccs(half)] == [f"{module}:Halving", "reno"] * 2
    finally:
        sys.modules.pop(module, None)


@pytest.mark.parametrize(
    ("compare", "fragment"),
    [
        ("algorithms = []", "expected a list of algorithms"),
        ('algorithms = ["renoo"]', 'unknown algorithm "renoo"'),
        ('algorithms = ["reno", "reno"]', "two algorithms are named 'reno'"),
        ('algorithms = ["newreno"]\nmixtures = ["most"]', '"most" is not a mixture'),
        ('algorithms = ["newreno"]\nmixtures = [{ name = "x", flows = [9] }]', "names flow 9"),
        ('algorithms = [{ cc = "newreno", params = { gamma = 1 } }]', "has no parameter"),
        ('algorithms = ["newreno"]\nextra = 1', "compare.extra: unknown key"),
    ],
)
def test_bad_compare_tables(compare: str, fragment: str, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=_literal(fragment)):
        make_sweep(f"[compare]\n{compare}\n", tmp_path=tmp_path)


def test_manifest_data_round_trips(tmp_path: Path) -> None:
    sweep = make_sweep(COMPARE, tmp_path=tmp_path)
    again = Sweep.from_dict(sweep.to_data())
    assert [(p.params, p.run_id, p.reference) for p in again.points()] == [
        (p.params, p.run_id, p.reference) for p in sweep.points()
    ]


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("sweep_*.toml")))
def test_example_sweeps_load(example: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import ccsim.scenario.engine

    # No registry: any algorithm name is accepted.
    monkeypatch.setattr(ccsim.scenario.engine, "algorithm_registry", lambda: None)
    sweep = Sweep.load(EXAMPLES / example)
    assert len(sweep.points()) > 1
