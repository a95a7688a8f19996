"""Pacing and rate samples in the Python congestion-control API (ccsim.pycc): a class that
returns a pacing rate has its segments enter the bottleneck 1/rate apart; one that
``sets_cwnd_on_every_ack`` sees every ACK and keeps its window through recovery; the counts an
ACK and its rate sample carry add up to what the flow delivered and lost; ``take_app_limited``
flags the samples of the flight it marks; the tutorial's BBR-like example runs and paces."""

from __future__ import annotations

import io
import math
import sys
from collections.abc import Callable
from typing import Any

import ccsim
import dpkt
import numpy as np
import pandas as pd
import pytest
from ccsim import CongestionControlError
from conftest import EXAMPLES, requires_engine

pytestmark = [requires_engine, pytest.mark.usefixtures("python_cc_path")]

# One flow on 10 Mb/s, 20 ms RTT, one BDP of buffer (24 segments of 1000 bytes, 1040 on the
# wire: the link carries 1201.9 segments per second).
ONE_FLOW = """
name = "one"
seed = 3
duration = "4s"
profile = "linux-sack"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
buffer = "1bdp"

[[flows]]
cc = "newreno"
rtt = "20ms"
mss = 1000
"""


def one_flow(cc: str, **overrides: Any) -> ccsim.Scenario:
    return ccsim.Scenario.from_toml(ONE_FLOW).with_overrides({"flows.0.cc": cc} | overrides)


# ---- pacing ----------------------------------------------------------------------------------

PACED = """
import ccsim

class Paced(ccsim.CongestionControl):
    # A window that never limits, and a pacing rate that changes at switch_s.
    sets_cwnd_on_every_ack = True

    def __init__(self, rate: float = 400.0, later: float = 800.0, switch_s: float = 1.5) -> None:
        self.rate, self.later, self.switch_ns = rate, later, switch_s * 1e9
        self.now = 0

    def on_ack(self, ack):
        self.now = ack.now
        self.cwnd = 100.0

    def on_congestion(self, event):
        pass

    def pacing_rate(self):
        return self.later if self.now >= self.switch_ns else self.rate
"""


def bottleneck_arrivals(results: Any) -> np.ndarray:
    """Times (ns) the flow's data segments reached the bottleneck's queue, from its capture."""
    return data_times(results.pcap["link-R1-R2"])


def data_times(capture: bytes) -> np.ndarray:
    """Times (ns) of the data segments (those with a payload) of a pcap capture."""
    times = []
    for t, buf in dpkt.pcap.Reader(io.BytesIO(capture)):
        ip = dpkt.ip.IP(buf)
        if ip.len > 4 * ip.hl + 4 * ip.data.off:  # a payload (the capture keeps the headers only)
            times.append(int(t * 10**9))  # t: a Decimal, exact to the ns
    return np.array(times)


def test_a_pacing_rate_spaces_the_segments_at_the_bottleneck(
    module: Callable[[str], str],
) -> None:
    name = module(PACED)
    results = ccsim.run(one_flow(f"{name}:Paced", **{"trace.pcap": '{ links = ["R1->R2"] }'}))
    assert results.flows.loc[0, "drops"] == 0  # both rates are below the link's
    arrivals = bottleneck_arrivals(results)
    gaps = np.diff(arrivals)
    at = arrivals[1:]
    # The first 10 segments leave unpaced (sch_fq's initial quantum); then 2.5 ms apart, then,
    # from the first ACK after 1.5 s, 1.25 ms.
    assert gaps[:9].max() < 1e6
    early = gaps[(at > 0.2e9) & (at < 1.5e9)]
    late = gaps[at > 1.6e9]
    assert len(early) > 500 and len(late) > 1500
    assert np.abs(early - 2_500_000).max() <= 1, np.unique(early)
    assert np.abs(late - 1_250_000).max() <= 1, np.unique(late)


@pytest.mark.parametrize("returned", ["0.0", "-5", "float('nan')", "math.inf", "'fast'"])
def test_a_pacing_rate_that_is_not_a_rate_stops_the_run(
    module: Callable[[str], str], returned: str
) -> None:
    paced = PACED.replace("return self.later if", f"return {returned} if self.now > 0 else None #")
    name = module(f"import math\n{paced}")
    with pytest.raises(CongestionControlError) as caught:
        ccsim.run(one_flow(f"{name}:Paced"))
    shown = repr(eval(returned, {"math": math}))
    assert str(caught.value).startswith(f'pacing_rate of "{name}:Paced" (flow labelled')
    assert str(caught.value).endswith(
        f"raised ValueError: returned {shown}: expected None or a rate in segments per second, "
        "finite and above 0"
    )


# ---- every ACK, and what it carries -------------------------------------------------------------

RECORDER = """
import ccsim

class Recorder(ccsim.CongestionControl):
    # Reno's halving, but the window is its own on every ACK: in recovery it holds.
    sets_cwnd_on_every_ack = True
    acks: list = []
    events: list = []

    def on_ack(self, ack):
        rs = ack.delay.rate
        type(self).acks.append(dict(
            now=ack.now, acked=ack.acked, delivered_now=ack.delivered_now,
            newly_lost=ack.newly_lost, ca_state=ack.ca_state, ece=ack.ece,
            prior_in_flight=ack.prior_in_flight, in_flight=ack.in_flight, cwnd=self.cwnd,
            rs=rs is not None,
            **({} if rs is None else dict(
                rs_delivered=rs.delivered, rs_interval=rs.interval, rs_valid=rs.valid,
                rs_rate=rs.rate(), rs_app_limited=rs.app_limited,
                rs_retransmission=rs.retransmission, rs_prior_delivered=rs.prior_delivered,
                rs_tx_in_flight=rs.tx_in_flight, rs_lost=rs.lost,
                rs_delivered_ce=rs.delivered_ce,
            )),
        ))
        if ack.ca_state != "open":
            return
        if self.cwnd < self.ssthresh:
            self.cwnd += ack.delivered_now
        else:
            self.cwnd += ack.delivered_now / self.cwnd

    def on_congestion(self, event):
        type(self).events.append((event.now, event.kind))
        self.ssthresh = max(self.cwnd / 2, 2.0)
        self.cwnd = self.ssthresh
"""


def recorded(name: str) -> tuple[pd.DataFrame, list[tuple[int, str]]]:
    cls = sys.modules[name].Recorder
    return pd.DataFrame(cls.acks), cls.events


def test_every_ack_reaches_on_ack_and_its_counts_add_up(module: Callable[[str], str]) -> None:
    name = module(RECORDER)
    results = ccsim.run(one_flow(f"{name}:Recorder", **{"flows.0.size": "3000KB"}))
    flow = results.flows.iloc[0]
    acks, events = recorded(name)
    assert flow["completed"] and flow["timeouts"] == 0 and flow["drops"] > 20
    # Duplicate ACKs and recovery's ACKs come to on_ack too.
    assert (acks["acked"] == 0).sum() > 20
    assert {"open", "recovery"} <= set(acks["ca_state"])
    assert len(events) == flow["window_cuts"] and {k for _, k in events} == {"loss"}
    # Every segment was delivered once, by one ACK or another; each loss was marked once.
    assert acks["delivered_now"].sum() == 3000
    assert acks["newly_lost"].sum() == flow["retransmits"] == flow["drops"]
    # The flight before an ACK is the one after the previous ACK and the sends between.
    assert (acks["prior_in_flight"] >= acks["in_flight"]).all()
    lost_or_delivered = acks["delivered_now"] + acks["newly_lost"]
    assert (acks["prior_in_flight"] - acks["in_flight"] == lost_or_delivered).all()


def test_the_rate_samples_are_what_the_sender_counted(module: Callable[[str], str]) -> None:
    name = module(RECORDER)
    ccsim.run(one_flow(f"{name}:Recorder", **{"flows.0.size": "3000KB"}))
    acks, _ = recorded(name)
    delivered = acks["delivered_now"].cumsum()
    lost = acks["newly_lost"].cumsum()
    sampled = acks[acks["rs"]]
    assert len(sampled) > 0.9 * len(acks)
    # delivered: since the sampled segment left, this ACK's included.
    assert (
        sampled["rs_prior_delivered"] + sampled["rs_delivered"] == delivered[sampled.index]
    ).all()
    # lost: what the ACKs marked lost since then (the count after the last ACK before it left).
    for i, row in sampled.iterrows():
        before = delivered.searchsorted(row["rs_prior_delivered"], side="right") - 1
        lost_then = lost.iloc[before] if before >= 0 else 0.0
        assert row["rs_lost"] == lost.iloc[i] - lost_then, (i, row.to_dict())
    assert sampled["rs_lost"].max() > 0 and (sampled["rs_delivered_ce"] == 0).all()
    valid = sampled[sampled["rs_valid"]]
    assert len(valid) > 0.5 * len(sampled)
    rate = valid["rs_delivered"] * 1e9 / valid["rs_interval"]
    assert np.allclose(valid["rs_rate"].astype(float), rate, rtol=1e-12)
    assert sampled[~sampled["rs_valid"]]["rs_rate"].isna().all()
    assert valid["rs_rate"].max() <= 1202 * 1.05  # never much above the link
    assert (sampled["rs_tx_in_flight"] >= 1).all()
    assert sampled["rs_tx_in_flight"].max() <= acks["cwnd"].max() + 1
    assert sampled["rs_retransmission"].any() and not sampled["rs_app_limited"].any()


def test_a_window_set_on_every_ack_holds_through_recovery(module: Callable[[str], str]) -> None:
    name = module(RECORDER)
    results = ccsim.run(one_flow(f"{name}:Recorder", **{"profile": "linux"}))
    acks, events = recorded(name)
    in_recovery = acks[acks["ca_state"] == "recovery"]
    assert len(in_recovery) > 50
    # In each recovery the window is what on_congestion left, ssthresh: the algorithm's, not
    # what the sender's recovery (PRR under linux, inflation under reno) would make of it.
    ends = [at for at, _ in events[1:]] + [acks["now"].max() + 1]
    for (at, _), end in zip(events, ends, strict=True):
        episode = acks[(acks["now"] >= at) & (acks["now"] < end)]
        held = episode[episode["ca_state"] == "recovery"]["cwnd"]
        assert held.nunique() == 1, held.unique()
    assert results.flows.loc[0, "timeouts"] == 0


ECN = """
import ccsim
from {recorder} import Recorder

class EcnRecorder(Recorder):
    needs_ecn = True
"""


def test_ecn_marked_deliveries_are_counted(module: Callable[[str], str]) -> None:
    recorder = module(RECORDER)
    name = module(ECN.format(recorder=recorder))
    scenario = one_flow(
        f"{name}:EcnRecorder", **{"topology.queue": "step", "topology.step": {"k": "5pkts"}}
    )
    ccsim.run(scenario)
    acks, events = recorded(recorder)
    assert "ecn" in {k for _, k in events}
    assert "cwr" in set(acks["ca_state"])
    sampled = acks[acks["rs"]]
    ce = acks["delivered_now"].where(acks["ece"], 0.0).cumsum()
    delivered = acks["delivered_now"].cumsum()
    for i, row in sampled.iterrows():
        before = delivered.searchsorted(row["rs_prior_delivered"], side="right") - 1
        ce_then = ce.iloc[before] if before >= 0 else 0.0
        assert row["rs_delivered_ce"] == ce.iloc[i] - ce_then, (i, row.to_dict())
    assert sampled["rs_delivered_ce"].max() > 0


APP_LIMITED = """
from {recorder} import Recorder

class Marker(Recorder):
    marked = None

    def on_ack(self, ack):
        super().on_ack(ack)
        self.mark_now = ack.now >= 1_000_000_000 and type(self).marked is None
        if self.mark_now:
            type(self).marked = len(type(self).acks) - 1, ack.in_flight

    def take_app_limited(self):
        return self.mark_now
"""


def test_take_app_limited_flags_the_flight_it_marks(module: Callable[[str], str]) -> None:
    recorder = module(RECORDER)
    name = module(APP_LIMITED.format(recorder=recorder))
    ccsim.run(one_flow(f"{name}:Marker"))
    acks, _ = recorded(recorder)
    index, in_flight = sys.modules[name].Marker.marked
    delivered = acks["delivered_now"].cumsum()
    start = delivered.iloc[index]
    mark = start + in_flight
    sampled = acks[acks["rs"]]
    flagged = sampled[sampled["rs_app_limited"]]
    assert len(flagged) > 5
    # Segments sent from the marking until the marked flight was delivered, and only those.
    assert flagged["rs_prior_delivered"].between(start, mark).all()
    inside = sampled[sampled["rs_prior_delivered"].between(start, mark - 1)]
    assert inside["rs_app_limited"].all()


# ---- the tutorial's BBR-like example -----------------------------------------------------------


def test_the_bbr_like_example_fills_the_link_with_a_short_queue() -> None:
    scenario = ccsim.Scenario.load(EXAMPLES / "python_cc" / "bbr_like.toml")
    results = ccsim.run(scenario)
    flow = results.flows.iloc[0]
    links = results.links
    bottleneck = links[(links["src"] == "R1") & (links["dst"] == "R2")].iloc[0]
    # Its bandwidth estimate is the link's (1201.9 segments per second) once STARTUP has found
    # it, and it paces near that estimate, so the link stays busy with a short queue.
    late = results.series[results.series["t_s"] > 1.0]
    assert np.allclose(late["cc_bw"], 10e6 / (8 * 1040), rtol=0.01)
    assert set(late["cc_gain"]) == {0.75, 1.0, 1.25}
    assert bottleneck["utilization"] > 0.97 and bottleneck["mean_queue_pkts"] < 3
    assert flow["drops"] < 10 and flow["timeouts"] == 0
    assert flow["goodput_bps"] > 0.9 * 10e6 * 1000 / 1040
    # A window of two BDPs: about 51 segments at 1201.9 segments/s and 21.3 ms.
    assert late["cwnd_pkts"].between(40, 60).all()


LOGGED = """
from examples.python_cc.bbr_like import BbrLike

class Logged(BbrLike):
    # The example, noting when its pacing rate changes.
    changes: list = []
    now = 0

    def on_ack(self, ack):
        self.now = ack.now
        super().on_ack(ack)

    def on_congestion(self, event):
        self.now = event.now
        super().on_congestion(event)

    def pacing_rate(self):
        rate = super().pacing_rate()
        if not Logged.changes or Logged.changes[-1][1] != rate:
            Logged.changes.append((self.now, rate))
        return rate
"""


def test_the_bbr_like_example_paces_at_the_rate_it_sets(module: Callable[[str], str]) -> None:
    # Under linux-sack: the linux profile adds send-time noise (against phase lock) to each
    # departure, paced or not.
    name = module(LOGGED)
    scenario = ccsim.Scenario.load(EXAMPLES / "python_cc" / "bbr_like.toml").with_overrides(
        {
            "flows.0.cc": f"{name}:Logged",
            "profile": "linux-sack",
            "duration": "3s",
            "trace.pcap": '{ flows = [0], links = ["R1->R2"] }',
        }
    )
    results = ccsim.run(scenario)
    entered = bottleneck_arrivals(results)
    sent = data_times(results.pcap["flow-0"])[: len(entered)]
    changes = sys.modules[name].Logged.changes
    at = np.array([t for t, _ in changes])
    rates = [rate for _, rate in changes]
    # Once STARTUP's queue has drained, each segment enters the bottleneck 1/rate after the
    # previous one, the rate being what pacing_rate() said when that one left: 0.75 x the link's
    # rate (below it), 1 x or 1.25 x.
    after = np.flatnonzero(sent > 0.5e9)[:-1]
    in_effect = [rates[i] for i in np.searchsorted(at, sent[after], side="right") - 1]
    expected = np.array([int(1e9 / rate) for rate in in_effect])
    gaps = entered[after + 1] - entered[after]
    assert len(gaps) > 2500
    assert (gaps == expected).all()
    below = np.array(in_effect) < 10e6 / (8 * 1040)
    assert below.sum() > 300


def test_the_tutorial_shows_the_example_as_it_is() -> None:
    source = (EXAMPLES / "python_cc" / "bbr_like.py").read_text(encoding="utf-8")
    shown = (EXAMPLES.parent / "docs" / "python-cc.md").read_text(encoding="utf-8")
    assert source[source.index("class BbrLike") :].rstrip() + "\n```" in shown
