"""ccsim.metrics on small hand-built tables whose values are computed by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from ccsim import metrics

# ---- fairness and spread ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        ([5, 5, 5, 5], 1.0),
        ([1, 0, 0, 0], 0.25),  # one of four flows gets everything: 1/n
        ([2, 2, 0, 0], 0.5),  # k of n share equally: k/n
        ([1, 2, 3], 36 / 42),  # (1+2+3)^2 / (3 (1+4+9))
        ([0, 0], 1.0),
    ],
)
def test_jain_index(x: list[float], expected: float) -> None:
    assert metrics.jain_index(x) == pytest.approx(expected)


def test_jain_index_rejects_nothing() -> None:
    with pytest.raises(ValueError):
        metrics.jain_index([])


def test_rtt_weighted_jain_index() -> None:
    # Throughput inversely proportional to RTT is fair: x*RTT = (2, 2).
    assert metrics.rtt_weighted_jain_index([2.0, 1.0], [0.1, 0.2]) == pytest.approx(1.0)
    # Equal throughputs, RTTs 1 and 3: products 1 and 3, (1+3)^2 / (2 (1+9)) = 0.8.
    assert metrics.rtt_weighted_jain_index([1.0, 1.0], [1.0, 3.0]) == pytest.approx(0.8)
    # The plain index would call the second case perfectly fair.
    assert metrics.jain_index([1.0, 1.0]) == 1.0
    with pytest.raises(ValueError, match="one per flow"):
        metrics.rtt_weighted_jain_index([1.0, 2.0], [0.1])


def test_throughput_variance() -> None:
    # mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5
    assert metrics.throughput_variance([1, 2, 3, 4]) == pytest.approx(5 / 4)
    assert metrics.throughput_variance([1, 2, 3, 4], ddof=1) == pytest.approx(5 / 3)
    with pytest.raises(ValueError):
        metrics.throughput_variance([1.0], ddof=1)


# ---- window dynamics ---------------------------------------------------------------------------


def test_cwnd_cov_ignores_the_warmup() -> None:
    series = pd.DataFrame(
        {
            "t_s": [0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0, 3.0],
            "flow": [0, 0, 0, 0, 1, 1, 1, 1],
            "cwnd_pkts": [100.0, 10.0, 20.0, 10.0, 7.0, 4.0, 4.0, 4.0],
        }
    )
    cov = metrics.cwnd_cov(series, warmup_s=1.0)
    # flow 0 after warm-up: 10, 20, 10 -> mean 40/3, population std sqrt(200/9) -> sqrt(2)/4
    assert cov[0] == pytest.approx(math.sqrt(2) / 4)
    assert cov[1] == 0.0  # constant window after warm-up; the 7 before it is ignored
    assert metrics.cwnd_cov(series)[1] > 0  # ...and counts without a warm-up


def sawtooth(t: np.ndarray, period: float, low: float, high: float) -> np.ndarray:
    """AIMD-like: a linear rise from low to high, then a halving, every period."""
    return low + (high - low) * ((t % period) / period)


def series_of(*windows: np.ndarray, t: np.ndarray) -> pd.DataFrame:
    return pd.concat(
        [pd.DataFrame({"t_s": t, "flow": i, "cwnd_pkts": w}) for i, w in enumerate(windows)],
        ignore_index=True,
    )


def test_synchronization_of_identical_sawtooths_is_strongly_positive() -> None:
    t = np.arange(0, 50, 0.1)
    w = sawtooth(t, 5.0, 10, 20)
    series = series_of(w, w + 3.0, t=t)  # same phase, different level
    matrix = metrics.cwnd_correlation(series)
    assert matrix.loc[0, 1] == pytest.approx(1.0)
    assert matrix.loc[0, 0] == pytest.approx(1.0)


def test_synchronization_in_anti_phase_is_strongly_negative() -> None:
    t = np.arange(0, 50, 0.1)
    w = sawtooth(t, 5.0, 10, 20)
    # One flow's window rises while the other's falls (their sum stays constant).
    series = series_of(w, 30.0 - w, t=t)
    assert metrics.cwnd_correlation(series).loc[0, 1] == pytest.approx(-1.0)


def test_correlation_pairs_list_the_upper_triangle() -> None:
    t = np.arange(0, 20, 0.1)
    w = sawtooth(t, 4.0, 10, 20)
    noise = np.random.default_rng(3).normal(size=t.size)
    series = series_of(w, 30.0 - w, noise, t=t)
    pairs = metrics.cwnd_correlation_pairs(series)
    assert list(zip(pairs["flow_a"], pairs["flow_b"], strict=True)) == [(0, 1), (0, 2), (1, 2)]
    assert pairs["correlation"][0] == pytest.approx(-1.0)
    assert abs(pairs["correlation"][1]) < 0.2  # independent noise
    assert pairs["correlation"][1] == pytest.approx(-pairs["correlation"][2])


def test_correlation_uses_only_common_sampling_instants() -> None:
    # Flow 1 starts late: its first samples cannot pair with anything.
    series = pd.DataFrame(
        {
            "t_s": [0.0, 1.0, 2.0, 3.0, 2.0, 3.0],
            "flow": [0, 0, 0, 0, 1, 1],
            "cwnd_pkts": [50.0, -50.0, 1.0, 2.0, 5.0, 9.0],
        }
    )
    assert metrics.cwnd_correlation(series).loc[0, 1] == pytest.approx(1.0)


# ---- losses ------------------------------------------------------------------------------------


def drops_table(rows: list[tuple[float, int, int, int, int]]) -> pd.DataFrame:
    """Rows (t_s, link, flow, is_ack, kind)."""
    frame = pd.DataFrame(rows, columns=["t_s", "link", "flow", "is_ack", "kind"])
    frame["seq"] = range(len(frame))
    return frame


FLOWS_RTT = pd.DataFrame({"flow": [0, 1], "mean_rtt_s": [0.1, np.nan], "base_rtt_s": [0.08, 0.1]})

DROPS = drops_table(
    [
        (1.00, 0, 0, 0, 0),  # flow 0: an episode of three drops (gaps 0.02, 0.03 < 0.1)
        (1.02, 0, 0, 0, 0),
        (1.05, 0, 0, 0, 1),
        (1.16, 0, 0, 0, 0),  # more than one RTT after the last: a new episode
        (1.03, 2, 0, 0, 0),  # same flow, another link: its own episode
        (1.01, 0, 1, 0, 0),  # flow 1 (RTT from base_rtt_s: 0.1): single
        (1.50, 0, 1, 0, 0),  # and a burst of two
        (1.55, 0, 1, 0, 0),
        (1.56, 0, 1, 1, 0),  # an ACK: not counted
        (1.57, 0, 1, 0, 2),  # random link loss: not a queue drop
    ]
)


def test_loss_episodes_one_rtt_rule() -> None:
    episodes = metrics.loss_episodes(DROPS, FLOWS_RTT)
    table = sorted(
        zip(episodes["link"], episodes["flow"], episodes["drops"], episodes["start_s"], strict=True)
    )
    assert table == [
        (0, 0, 1, 1.16),
        (0, 0, 3, 1.0),
        (0, 1, 1, 1.01),
        (0, 1, 2, 1.5),
        (2, 0, 1, 1.03),
    ]


def test_burst_losses_per_flow() -> None:
    bursts = metrics.burst_losses(DROPS, FLOWS_RTT).set_index("flow")
    assert bursts.loc[0].tolist() == [3, 1, 3]  # episodes, bursts, drops inside bursts
    assert bursts.loc[1].tolist() == [2, 1, 2]


def test_burst_losses_episode_rule_is_a_parameter() -> None:
    # With a 10 ms rule, no two drops of flow 0 are close enough; flow 1's 50 ms gap is not.
    assert metrics.burst_losses(DROPS, gap_s=0.01)["bursts"].sum() == 0
    # A rule per flow: a huge gap for flow 0 joins its four drops at link 0.
    wide = metrics.burst_losses(DROPS, gap_s=lambda flow: 10.0 if flow == 0 else 0.0)
    assert wide.set_index("flow").loc[0].tolist() == [2, 1, 4]
    # Counting random losses too makes flow 1's burst three drops long.
    with_random = metrics.burst_losses(DROPS, FLOWS_RTT, kinds=(0, 1, 2)).set_index("flow")
    assert with_random.loc[1, "burst_drops"] == 3


def test_default_episode_rule_needs_the_rtts() -> None:
    with pytest.raises(ValueError, match="flows table"):
        metrics.loss_episodes(DROPS)


def test_phase_shares() -> None:
    flows = pd.DataFrame({"flow": [0, 1, 2], "goodput_bps": [3e6, 1e6, 0.0]})
    drops = drops_table([(1.0, 0, 1, 0, 0), (1.1, 0, 1, 0, 0), (1.2, 0, 1, 0, 0),
                         (1.3, 0, 0, 0, 1), (1.4, 5, 0, 0, 0), (1.5, 0, 0, 1, 0)])  # fmt: skip
    shares = metrics.phase_shares(flows, drops, link=0)
    assert shares["throughput_share"].tolist() == pytest.approx([0.75, 0.25, 0.0])
    assert shares["drops"].tolist() == [1, 3, 0]  # link 5 and the ACK are left out
    assert shares["drop_share"].tolist() == pytest.approx([0.25, 0.75, 0.0])
    assert shares["drop_share"].isna().all() == False  # noqa: E712
    assert metrics.phase_shares(flows, drops, link=9)["drop_share"].isna().all()


# ---- flow-by-flow comparison -------------------------------------------------------------------


def flows_table(rows: list[tuple[int, str, str, int, float, float]]) -> pd.DataFrame:
    """Rows (flow, cc, src, generator, start_s, goodput_bps)."""
    frame = pd.DataFrame(rows, columns=["flow", "cc", "src", "generator", "start_s", "goodput_bps"])
    frame["label"] = frame["cc"]
    frame["base_rtt_s"] = 0.1
    return frame


def test_flow_keys_match_generator_transfers_by_source_and_rank() -> None:
    # In run b, source sg0.0 finished its first transfer sooner, so its second transfer got
    # flow index 3 there but 4 in run a.
    a = flows_table([(0, "x", "s0", -1, 0.0, 10.0), (1, "x", "s1", -1, 0.0, 20.0),
                     (2, "x", "sg0.0", 0, 0.0, 1.0), (3, "x", "sg0.1", 0, 0.0, 2.0),
                     (4, "x", "sg0.0", 0, 1.0, 3.0)])  # fmt: skip
    b = flows_table([(0, "r", "s0", -1, 0.0, 5.0), (1, "r", "s1", -1, 0.0, 40.0),
                     (2, "r", "sg0.0", 0, 0.0, 2.0), (3, "r", "sg0.0", 0, 0.7, 6.0),
                     (4, "r", "sg0.1", 0, 0.0, 1.0)])  # fmt: skip
    assert metrics.flow_keys(a).tolist() == [
        "flow 0", "flow 1", "gen 0 sg0.0 #0", "gen 0 sg0.1 #0", "gen 0 sg0.0 #1",
    ]  # fmt: skip
    table = metrics.relative_throughput(a, b).set_index("key")
    assert table.loc["flow 0", "ratio"] == 2.0
    assert table.loc["flow 1", "ratio"] == 0.5
    assert table.loc["gen 0 sg0.0 #1", "ratio"] == 0.5  # 3 / 6: flows 4 and 3
    assert table.loc["gen 0 sg0.0 #1", "flow_ref"] == 3
    assert table.loc["gen 0 sg0.1 #0", "ratio"] == 2.0
    # (2 + 0.5 + 0.5 + 0.5 + 2) / 5
    assert metrics.mean_relative_throughput(a, b) == pytest.approx(1.1)


def test_relative_throughput_drops_unmatched_flows_and_zero_references() -> None:
    a = flows_table([(0, "x", "s0", -1, 0.0, 10.0), (1, "x", "s1", -1, 0.0, 20.0)])
    b = flows_table([(0, "r", "s0", -1, 0.0, 0.0)])
    table = metrics.relative_throughput(a, b)
    assert table["key"].tolist() == ["flow 0"]
    assert np.isnan(table["ratio"][0])


def test_reno_friendliness() -> None:
    mixed = flows_table([(0, "newreno", "s0", -1, 0, 9.0), (1, "reno", "s1", -1, 0, 2.0),
                         (2, "reno", "s2", -1, 0, 4.0)])  # fmt: skip
    reference = flows_table([(0, "reno", "s0", -1, 0, 4.0), (1, "reno", "s1", -1, 0, 4.0),
                             (2, "reno", "s2", -1, 0, 4.0)])  # fmt: skip
    # Reno flows 1 and 2: 2/4 and 4/4 next to NewReno, mean of the ratios 0.75; here the means
    # (3 against 4) give the same.
    assert metrics.reno_friendliness(mixed, reference) == pytest.approx(0.75)
    assert metrics.reno_friendliness_of_means(mixed, reference) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="no 'cubic' flow"):
        metrics.reno_friendliness(mixed, reference, baseline="cubic")


def test_reno_friendliness_is_the_mean_of_per_flow_ratios_not_the_ratio_of_means() -> None:
    # A fast Reno flow that keeps its throughput and a slow one that loses half of it.
    mixed = flows_table([(0, "highspeed", "s0", -1, 0, 50.0), (1, "reno", "s1", -1, 0, 90.0),
                         (2, "reno", "s2", -1, 0, 5.0)])  # fmt: skip
    reference = flows_table([(0, "reno", "s0", -1, 0, 20.0), (1, "reno", "s1", -1, 0, 90.0),
                             (2, "reno", "s2", -1, 0, 10.0)])  # fmt: skip
    # Per flow: 90/90 = 1 and 5/10 = 0.5, mean 0.75; means: 47.5 / 50 = 0.95.
    assert metrics.reno_friendliness(mixed, reference) == pytest.approx(0.75)
    assert metrics.reno_friendliness_of_means(mixed, reference) == pytest.approx(0.95)


# ---- links and distributions -------------------------------------------------------------------


def test_link_utilization() -> None:
    links = pd.DataFrame({"link": [0, 1, 2], "utilization": [0.5, 0.9, 0.1], "drops": [0, 3, 0]})
    assert metrics.link_utilization(links) == 0.9
    assert metrics.link_utilization(links, 2) == 0.1
    assert metrics.link_utilization(links, [0, 2]) == pytest.approx(0.3)
    assert metrics.bottleneck(links)["link"] == 1
    with pytest.raises(ValueError, match=r"no link \[7\]"):
        metrics.link_utilization(links, [0, 7])


def test_ecdf() -> None:
    cdf = metrics.ecdf([3.0, 1.0, 2.0, 2.0, float("nan")])
    assert cdf["value"].tolist() == [1.0, 2.0, 3.0]
    assert cdf["p"].tolist() == [0.25, 0.75, 1.0]


def test_transfer_time_by_size() -> None:
    flows = pd.DataFrame(
        {
            "size_bytes": [500.0, 5000.0, 6000.0, 50000.0, 70000.0, math.inf],
            "completion_s": [0.1, 0.2, 0.4, 1.0, np.nan, np.nan],
        }
    )
    table = metrics.transfer_time_by_size(flows)
    assert table["size_from"].tolist() == [100.0, 1000.0, 10000.0]
    assert table["transfers"].tolist() == [1, 2, 1]  # the unfinished 70 KB one is left out
    assert table["mean_s"].tolist() == pytest.approx([0.1, 0.3, 1.0])
    custom = metrics.transfer_time_by_size(flows, edges=[0, 10_000, 1e6])
    assert custom["transfers"].tolist() == [3, 1]


# ---- analytic oracles (docs/experiments.md, section "Metrics") --------------------------------

# p: ((full, approx, Mathis) for b = 1, (full, approx, Mathis) for b = 2); RTT 0.1 s, T0 1 s.
PFTK_TABLE = {
    0.001: ((376.6, 378.8, 387.3), (265.6, 267.8, 273.9)),
    0.01: ((98.8, 99.9, 122.5), (69.5, 70.7, 86.6)),
    0.03: ((42.1, 41.7, 70.7), (29.8, 29.5, 50.0)),
    0.1: ((12.5, 9.8, 38.7), (9.1, 6.9, 27.4)),
}


def close_to_table(value: float, published: float) -> bool:
    """Within 0.1%, or within the table's rounding (half a unit of its last digit, 0.05), which
    is the wider of the two for the smaller entries (12.5 stands for anything in [12.45, 12.55))."""
    return abs(value - published) <= max(0.001 * published, 0.05 + 1e-9)


@pytest.mark.parametrize("p", sorted(PFTK_TABLE))
@pytest.mark.parametrize("b", [1, 2])
def test_oracles_match_the_reference_table(p: float, b: int) -> None:
    full, approx, mathis = PFTK_TABLE[p][b - 1]
    assert close_to_table(metrics.pftk_throughput(p, 0.1, 1.0, b=b), full)
    assert close_to_table(metrics.pftk_approx_throughput(p, 0.1, 1.0, b=b), approx)
    assert close_to_table(metrics.mathis_throughput(p, 0.1, b=b), mathis)


def test_mathis_example_in_bits() -> None:
    # MSS 1000 B, RTT 0.1 s, p = 0.01 -> 122.5 packets/s = 0.98 Mb/s
    assert metrics.mathis_throughput(0.01, 0.1) * 1000 * 8 / 1e6 == pytest.approx(0.98, abs=0.005)
    assert metrics.mathis_throughput(0.01, 0.1, constant=1.31) == pytest.approx(131.0)


def test_receiver_window_caps_the_models() -> None:
    # A 10-packet window caps throughput at 10 / 0.1 s = 100 packets/s.
    assert metrics.pftk_approx_throughput(0.001, 0.1, 1.0, wmax=10) == pytest.approx(100.0)
    capped = metrics.pftk_throughput(0.001, 0.1, 1.0, wmax=10)
    assert capped < 100.0 < metrics.pftk_throughput(0.001, 0.1, 1.0)


def test_oracles_reject_impossible_probabilities() -> None:
    for p in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError):
            metrics.pftk_throughput(p, 0.1, 1.0)
        with pytest.raises(ValueError):
            metrics.mathis_throughput(p, 0.1)


def test_time_to_cwnd_finds_the_first_sample_at_the_target_and_the_drops_before() -> None:
    series = pd.DataFrame(
        {
            "t_s": [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.4],
            "flow": [0, 0, 0, 0, 1, 1, 1, 1],
            "cwnd_pkts": [10.0, 30.0, 50.0, 20.0, 2.0, 4.0, 8.0, 16.0],
        }
    )
    flows = pd.DataFrame({"flow": [0, 1], "start_s": [0.05, 0.0]})
    drops = pd.DataFrame({"t_s": [0.15, 0.35, 0.2], "flow": [0, 0, 1]})
    out = metrics.time_to_cwnd(series, 50, flows=flows, drops=drops)
    assert out.loc[0, "reached_s"] == 0.3
    assert out.loc[0, "after_start_s"] == pytest.approx(0.25)
    # Flow 0 lost one packet before reaching 50 (the drop at 0.35 s is after); flow 1 never got
    # there, so every drop of its counts.
    assert list(out["drops_before"]) == [1, 1] and list(out["early_loss"]) == [True, True]
    assert np.isnan(out.loc[1, "reached_s"]) and np.isnan(out.loc[1, "after_start_s"])
    no_drops = metrics.time_to_cwnd(series, 16, drops=drops[drops["flow"] == 1])
    assert list(no_drops["reached_s"]) == [0.2, 0.4] and list(no_drops["early_loss"]) == [
        False,
        True,
    ]
    with pytest.raises(ValueError, match="target"):
        metrics.time_to_cwnd(series, 0)
