"""Studies C1, C2 and C3 (links that change: one flow over a cellular trace, a 100 -> 20 -> 100
Mb/s rate step, ACK aggregation): the configurations and where C1's traces come from, the one-way delays read from a
packet capture, the step measures, the claims on hand-made replicate tables, and each study's
quick run (its table, its files, checks that evaluate; outcomes are not fixed here: quick runs
are a first look, not results).
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from ccsim import studies
from ccsim.studies import core, links
from ccsim.studies.checks import OUTCOMES
from ccsim.studies.core import FAILED, REPRODUCED, REVERSED, Settings, summarise
from ccsim.studies.links import claims as link_claims
from ccsim.studies.links.common import (
    DRAIN_TIME,
    MEDIAN_DELAY,
    P95_DELAY,
    QUEUE_PEAK,
    RAMP_TIME,
    THROUGHPUT,
    default_trace_directory,
)
from ccsim.studies.links.step_run import DRAINED_PKTS, StepRun
from conftest import requires_engine

SEEDS = (1, 2, 3)
FULL = Settings(quick=False, profile="linux")
QUICK = Settings(quick=True, profile="linux")


# ---- configurations ----------------------------------------------------------------------------------


def test_c1_runs_each_algorithm_on_the_synthetic_trace_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(links.TRACES_SETTING, raising=False)
    configs = links.c1_configs(FULL)
    assert [c.keys["algorithm"] for c in configs] == ["cubic", "bbr", "bbr3", "vegas", "fast"]
    assert {c.keys["trace"] for c in configs} == {"synthetic-cellular"}
    topology = configs[0].scenario["topology"]
    assert Path(topology["trace"]) == default_trace_directory() / "synthetic-cellular.down"
    assert Path(topology["reverse_trace"]).name == "synthetic-cellular.up"
    assert configs[0].scenario["trace"]["pcap"] == {"flows": [0]}
    assert configs[0].scenario["flows"][0]["mss"] == 1460  # one 1500-byte packet per opportunity
    assert (configs[0].duration_s, configs[0].warmup_s) == (30.0, 5.0)
    assert links.C1.sweeps(FULL)[0]["seeds"] == [1, 2, 3, 4, 5]


def test_c1_takes_every_trace_of_the_set_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    synthetic = default_trace_directory() / "synthetic-cellular.down"
    shutil.copy(synthetic, tmp_path / "a.down")
    shutil.copy(synthetic, tmp_path / "b.down")
    shutil.copy(synthetic.with_suffix(".up"), tmp_path / "b.up")
    monkeypatch.setenv(links.TRACES_SETTING, str(tmp_path))
    configs = links.c1_configs(QUICK)
    assert [c.name for c in configs[::5]] == ["c1-a-cubic", "c1-b-cubic"]
    assert "reverse_trace" not in configs[0].scenario["topology"]  # no a.up: a fixed-rate uplink
    assert Path(configs[5].scenario["topology"]["reverse_trace"]) == tmp_path / "b.up"
    monkeypatch.setenv(links.TRACES_SETTING, str(tmp_path / "missing"))
    assert links.c1_configs(QUICK) == []


def test_c2_steps_the_rate_down_and_up() -> None:
    configs = links.c2_configs(FULL)
    assert [c.cc for c in configs] == ["cubic", "reno", "bbr", "bbr3", "vegas"]
    topology = configs[0].scenario["topology"]
    assert topology["rate_schedule"] == [["20s", "20Mbps"], ["40s", "100Mbps"]]
    assert topology["bottleneck_rate"] == "100Mbps" and topology["buffer"] == "1bdp"
    assert configs[0].steps_s == (20.0, 40.0) and configs[0].duration_s == 60.0
    assert links.c2_configs(QUICK)[0].steps_s == (8.0, 16.0)


# ---- one-way delays from a capture ------------------------------------------------------------------


def _record(t_s: float, src_port: int, tsval_us: int, tsecr_us: int) -> bytes:
    options = b"\x01\x01\x08\x0a" + struct.pack(">II", tsval_us, tsecr_us)
    tcp = struct.pack(">HHIIBBHHH", src_port, 1024, 0, 0, (32 // 4) << 4, 0x10, 65535, 0, 0)
    ip = bytes([0x45, 0]) + struct.pack(">H", 20 + len(tcp) + len(options)) + bytes(16)
    packet = ip + tcp + options
    seconds = int(t_s)
    header = struct.pack("<IIII", seconds, round((t_s - seconds) * 1e9), len(packet), len(packet))
    return header + packet


def test_one_way_delays_are_each_acks_tsval_less_its_tsecr() -> None:
    capture = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 80, 101)
    capture += _record(1.0, 1024, 1_000_000, 0)  # a data segment: not a delay sample
    capture += _record(1.05, 5001, 1_025_000, 1_000_000)  # answers a segment sent at 1 s
    capture += _record(6.2, 5001, 6_180_000, 6_100_000)
    capture += _record(7.0, 5001, 3, (1 << 32) - 7)  # the microsecond clock wrapped
    assert np.allclose(links.one_way_delays(capture), [0.025, 0.08, 10e-6])
    # Counted from the ACKs back after 5 s (the record times).
    assert np.allclose(links.one_way_delays(capture, since_s=5.0), [0.08, 10e-6])
    assert len(links.one_way_delays(b"")) == 0


# ---- the step measures -----------------------------------------------------------------------------


def _step_run(rate_mbps: np.ndarray, queue: np.ndarray) -> StepRun:
    t = np.round(np.arange(1, len(rate_mbps) + 1) * 0.01, 6)
    return StepRun(t, rate_mbps * 1e6, t, queue, down_s=1.0, up_s=2.0, end_s=3.0)


def test_step_measures_and_their_lower_bounds() -> None:
    t = np.round(np.arange(1, 301) * 0.01, 6)
    rate = np.where(t <= 1.0, 98.0, np.where(t <= 2.0, 19.5, np.where(t < 2.5, 50.0, 95.0)))
    queue = np.where((t > 1.0) & (t < 1.3), 300.0, np.where(t <= 2.0, 5.0, 0.0))
    run = _step_run(rate, queue)
    assert run.ramp_time() == pytest.approx(0.5)
    assert run.queue_peak() == 300.0
    assert run.drain_time() == pytest.approx(0.3)
    assert run.low_utilization() == pytest.approx(19.5 / 20)
    # Never at 90 % after the step up, never drained: the time left (a lower bound).
    stuck = _step_run(np.full(300, 50.0), np.where(t > 1.0, DRAINED_PKTS + 1, 0.0))
    assert stuck.ramp_time() == pytest.approx(1.0)
    assert stuck.drain_time() == pytest.approx(1.0)


# ---- the claims on hand-made tables ------------------------------------------------------------------


def _table(values: dict[tuple[str, str], tuple[float, ...]], keys: list[str]) -> pd.DataFrame:
    records = []
    for (algorithm, metric), per_seed in values.items():
        row = {"algorithm": algorithm} | ({"trace": "t"} if "trace" in keys else {})
        records += [
            row | {"metric": metric, "seed": seed, "value": v}
            for seed, v in zip(SEEDS, per_seed, strict=True)
        ]
    return summarise(records, keys, bounds=links.BOUNDS)


def _c1(delay: dict[str, float], rate: dict[str, float]) -> pd.DataFrame:
    values = {}
    for algorithm in delay:
        values[(algorithm, P95_DELAY)] = tuple(delay[algorithm] * f for f in (0.95, 1.0, 1.05))
        values[(algorithm, THROUGHPUT)] = tuple(rate[algorithm] + d for d in (-0.1, 0.0, 0.1))
    return _table(values, ["trace", "algorithm"])


def test_c1_claims_as_published_and_the_opposite() -> None:
    published = _c1(
        {"cubic": 900.0, "bbr": 300.0, "bbr3": 280.0, "vegas": 80.0, "fast": 100.0},
        {"cubic": 10.0, "bbr": 9.5, "bbr3": 9.0, "vegas": 5.0, "fast": 6.0},
    )
    assert [c.judge(published).verdict for c in links.C1.claims] == [REPRODUCED] * 4
    opposite = _c1(
        {"cubic": 60.0, "bbr": 300.0, "bbr3": 280.0, "vegas": 200.0, "fast": 250.0},
        {"cubic": 5.0, "bbr": 3.0, "bbr3": 3.0, "vegas": 9.0, "fast": 9.5},
    )
    verdicts = [c.judge(opposite).verdict for c in links.C1.claims]
    assert verdicts[0] == verdicts[2] == REVERSED
    # Thresholds missed are failures: bufferbloat and BBR's share have no opposite.
    assert [c.outcome for c in link_claims.c1_cubic_bloat(opposite)] == [FAILED]
    assert {c.outcome for c in link_claims.c1_bbr_throughput(opposite)} == {FAILED}


def _c2(ramp: dict[str, float], drain: dict[str, float], peak: float) -> pd.DataFrame:
    values = {}
    for algorithm in ramp:
        values[(algorithm, RAMP_TIME)] = tuple(ramp[algorithm] + d for d in (-0.05, 0.0, 0.05))
        values[(algorithm, DRAIN_TIME)] = tuple(drain[algorithm] + d for d in (-0.05, 0.0, 0.05))
        values[(algorithm, QUEUE_PEAK)] = (peak, peak, peak)
    return _table(values, ["algorithm"])


def test_c2_claims_as_expected_and_the_opposite() -> None:
    expected = _c2(
        {"cubic": 0.2, "reno": 1.0, "bbr": 0.6, "bbr3": 0.7, "vegas": 7.0},
        {"cubic": 20.0, "reno": 20.0, "bbr": 2.0, "bbr3": 3.0, "vegas": 5.0},
        peak=334.0,
    )
    assert [c.judge(expected).verdict for c in links.C2.claims] == [REPRODUCED] * 5
    opposite = _c2(
        {"cubic": 2.0, "reno": 1.0, "bbr": 3.0, "bbr3": 4.0, "vegas": 0.5},
        {"cubic": 1.0, "reno": 1.0, "bbr": 2.0, "bbr3": 3.0, "vegas": 5.0},
        peak=50.0,
    )
    verdicts = [c.judge(opposite).verdict for c in links.C2.claims]
    assert verdicts[:4] == [REVERSED] * 4
    assert [c.outcome for c in link_claims.c2_bbr_overshoot(opposite)] == [FAILED, FAILED]


def test_c3_configurations_aggregate_the_ack_direction_only() -> None:
    configs = links.c3_configs(FULL)
    assert len(configs) == 6 * 6
    plain = [c for c in configs if c.keys["level"] == 1]
    assert all("reverse_aggregation" not in c.scenario["topology"] for c in plain)
    top = next(c for c in configs if c.name == "c3-bbr-no-extra-acked-128")
    assert top.scenario["topology"]["reverse_aggregation"] == {
        "max_packets": 256,
        "max_time": "10ms",
        "access_delay": {"dist": "uniform", "min": "32ms", "max": "96ms"},
    }
    assert "aggregation" not in top.scenario["topology"]
    assert top.scenario["flows"][0]["params"] == {"ack_aggregation": False}
    assert top.scenario["flows"][0]["label"] == "bbr-no-extra-acked"
    quick = links.c3_configs(QUICK)
    assert {c.keys["level"] for c in quick} == {1, 128} and len(quick) == 4


def _c3(ratio: dict[str, float], top: int = 128) -> pd.DataFrame:
    """Each sender at 50 Mb/s on the plain ACK path and ``ratio`` of it at every other level."""
    records = []
    for algorithm, share in ratio.items():
        for level in (1, 16, top):
            base = 50.0 if level == 1 else 50.0 * share
            records += [
                {"algorithm": algorithm, "level": level, "metric": THROUGHPUT}
                | {"seed": seed, "value": base + d}
                for seed, d in zip(SEEDS, (-0.2, 0.0, 0.2), strict=True)
            ]
    return summarise(records, ["algorithm", "level"], bounds=links.BOUNDS)


def test_c3_claims_as_the_sources_say_and_the_opposite() -> None:
    expected = _c3(
        {"cubic": 0.97, "reno": 0.95, "bbr": 0.96, "bbr3": 0.97}
        | {"bbr-no-extra-acked": 0.3, "bbr3-no-extra-acked": 0.4}
    )
    assert [c.judge(expected).verdict for c in links.C3.claims] == [REPRODUCED] * 3
    opposite = _c3(
        {"cubic": 0.5, "reno": 0.4, "bbr": 0.5, "bbr3": 0.6}
        | {"bbr-no-extra-acked": 0.98, "bbr3-no-extra-acked": 0.99}
    )
    outcomes = [[c.outcome for c in c.checks] for c in (v.judge(opposite) for v in links.C3.claims)]
    assert set(outcomes[0]) == set(outcomes[2]) == {FAILED}
    assert outcomes[1] == [REVERSED, FAILED, REVERSED, FAILED]


# ---- quick runs -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("link-studies")


def _quick(sid: str, out: Path) -> studies.StudyReport:
    report = studies.run(sid, quick=True, out=out / sid, workers=2)
    assert report.replicates == 3 and report.settings.profile == "linux"
    for name in (f"{sid}.csv", f"{sid}-runs.csv", f"{sid}.png", f"{sid}-figures.png"):
        assert (report.directory / name).stat().st_size > 0, name
    metadata = json.loads((report.directory / "study.json").read_text())
    assert [v["verdict"] for v in metadata["verdicts"]] == [v.verdict for v in report.verdicts]
    for verdict in report.verdicts:
        assert verdict.verdict in core.VERDICTS
        assert {c.outcome for c in verdict.checks} <= set(OUTCOMES)
    table = report.table[report.table["runs"] > 0]
    for metric, (low, high) in links.BOUNDS.items():
        values = table[table["metric"] == metric]["ours"]
        assert ((values >= low - 1e-12) & (values <= high + 1e-12)).all(), metric
    return report


@requires_engine
def test_c1_quick(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """C1 quick on the synthetic trace: every delay at least the 20 ms base one-way delay, the
    95th percentile above the median, no flow above the trace's capacity."""
    monkeypatch.delenv(links.TRACES_SETTING, raising=False)
    report = _quick("C1", out)
    table = report.table[report.table["runs"] > 0]
    assert set(table["algorithm"]) == {"cubic", "bbr", "bbr3", "vegas", "fast"}
    p95 = table[table["metric"] == P95_DELAY].set_index("algorithm")["ours"]
    median = table[table["metric"] == MEDIAN_DELAY].set_index("algorithm")["ours"]
    assert (median >= 20.0).all() and (p95 >= median).all()
    share = table[table["metric"] == "share of the trace's capacity"]["ours"]
    assert (share <= 1.0 + 1e-9).all()
    assert [len(v.checks) for v in report.verdicts] == [4, 1, 2, 2]


@requires_engine
def test_c2_quick(out: Path) -> None:
    """C2 quick: every flow fills the 20 Mb/s link; the queue peak never above the buffer."""
    report = _quick("C2", out)
    table = report.table[report.table["runs"] > 0]
    peak = table[table["metric"] == QUEUE_PEAK]["ours"]
    assert (peak <= link_claims.C2_BUFFER_PKTS).all()
    low = table[table["metric"] == "utilization at the low rate"]["ours"]
    assert (low > 0.8).all()
    assert [len(v.checks) for v in report.verdicts] == [2, 1, 1, 3, 2]


@requires_engine
def test_c3_quick(out: Path) -> None:
    """C3 quick: two levels, BBR with and without its allowance, three seeds; no flow above the
    link."""
    report = studies.run("C3", quick=True, out=out / "C3", workers=2)
    assert report.replicates == 3 and report.settings.profile == "linux"
    for name in ("C3.csv", "C3-runs.csv", "C3.png"):
        assert (report.directory / name).stat().st_size > 0, name
    table = report.table[report.table["runs"] > 0]
    assert set(table["level"]) == {1, 128}
    share = table[table["metric"] == "share of the link"]["ours"]
    assert ((share > 0.0) & (share <= 1.0)).all()
    for verdict in report.verdicts:
        assert verdict.verdict in core.VERDICTS


def test_the_packaged_synthetic_trace_is_the_examples_one() -> None:
    examples = Path(__file__).resolve().parents[1] / "examples" / "traces"
    for name in ("synthetic-cellular.down", "synthetic-cellular.up"):
        assert (default_trace_directory() / name).read_bytes() == (examples / name).read_bytes()
