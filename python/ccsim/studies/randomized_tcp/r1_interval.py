"""R1: the randomization interval (the paper's Figures 2-5)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from ccsim.studies.core import (
    CORRELATION,
    NONNEGATIVE,
    UNIT,
    Check,
    Claim,
    Context,
    FigureSpec,
    Quantity,
    Settings,
    Study,
    compare,
    measure,
    summarise,
)
from ccsim.studies.randomized_tcp.common import (
    COMMON,
    RANDOMIZED,
    SOURCE,
    dumbbell_scenario,
    note_access_queues,
    rank_correlation,
    run_records,
    sweep_definition,
)

# ---- R1 --------------------------------------------------------------------------------------


#: Fig. 2/3's buffer is "one-fourth the delay bandwidth product" (section V.A): 1/4 of the BDP at
#: 100 ms in 500 B packets, rounded to the nearest packet (halves up).
R1_RATES = {"1Mbps": "6pkts", "2Mbps": "13pkts", "4Mbps": "25pkts"}
#: Fig. 4: 1/4 BDP to 1 BDP at 4 Mb/s and 100 ms (25 is Fig. 2's 4 Mb/s curve, run there).
R1_BUFFERS = ("25pkts", "50pkts", "75pkts", "100pkts")
#: Section V: "a bottleneck link of 1 Mb/s, all other links of bandwidth 4 Mb/s" (not 4x the
#: bottleneck, section IV's rule), for every variant of R1.
R1_ACCESS = "4Mbps"
R1_RTTS = "4Mbps rtt 80-120ms"


def _r1_bandwidth_case(rate: str, n: int) -> str:
    return f"{rate} buf {R1_RATES[rate]} N={n}"


def _r1_sweeps(s: Settings) -> list[dict[str, Any]]:
    intervals = s.pick([round(0.1 * k, 1) for k in range(11)], [0.0, 0.5, 1.0])
    algorithms: list[dict[str, Any]] = [
        {"name": f"I={i}", "cc": "randomized", "params": {"interval": i}} for i in intervals
    ]
    compare_ = {"algorithms": algorithms, "baseline": RANDOMIZED, "reference": False}
    # Diagnostic, not the paper's algorithm: the bandwidth curves with alpha = 1 at every I (the
    # paper's increase scaling grows with I, from 1 at I = 0 to about 1.3-1.4 at I = 1).
    plain = [
        {
            "name": f"I={i} a=1",
            "cc": "randomized",
            "params": {"interval": i, "scale_increase": False},
        }
        for i in intervals
    ]
    seeds = s.seeds(3, 3)
    duration = s.pick("100s", "20s")
    counts = s.pick([30, 50], [30])
    flows = [{"cc": "randomized", "rtt": "100ms", "count": counts[0]}]

    def scenario(rate: str, buffer: str, delay: str, fl: Any) -> dict[str, Any]:
        data = dumbbell_scenario(rate, fl, duration=duration, delay=delay, buffer=buffer)
        data["topology"]["access_rate"] = R1_ACCESS
        return data

    sweeps = []
    # One sweep per rate: the buffer goes with the rate (axes always form a full grid).
    for rate in R1_RATES:
        for name, algs in (("bandwidth", algorithms), ("diagnostic", plain)):
            if name == "diagnostic" and s.quick and rate != "1Mbps":
                continue
            sweeps.append(
                sweep_definition(
                    f"{name}-{rate}",
                    scenario(rate, R1_RATES[rate], "40ms", flows),
                    seeds,
                    axes={"flows.0.count": counts},
                    compare={**compare_, "algorithms": algs},
                )
            )
    if s.quick:
        return sweeps
    # Fig. 4: 30 flows (the paper's); its 25-packet curve is the 4 Mb/s curve above.
    sweeps.append(
        sweep_definition(
            "buffer",
            scenario("4Mbps", "50pkts", "40ms", [{**flows[0], "count": 30}]),
            seeds,
            axes={"topology.buffer": list(R1_BUFFERS[1:])},
            compare=compare_,
        )
    )
    for n in counts:
        rtts = [{"cc": "randomized", "rtt": f"{80 + i * 40 / n:g}ms"} for i in range(n)]
        sweeps.append(
            sweep_definition(
                f"rtt-{n}",
                scenario("4Mbps", "25pkts", "30ms", rtts),
                seeds,
                compare=compare_,
            )
        )
    return sweeps


def _r1_case(sweep: str, point: pd.Series) -> str:
    """The curve a point of R1 belongs to."""
    if sweep.startswith("bandwidth-"):
        return _r1_bandwidth_case(sweep.removeprefix("bandwidth-"), int(point["count"]))
    if sweep.startswith("diagnostic-"):
        rate = sweep.removeprefix("diagnostic-")
        return f"{rate} buf {R1_RATES[rate]} alpha=1 (diag) N={int(point['count'])}"
    if sweep == "buffer":
        return f"4Mbps buf {point.get('buffer')} N=30"
    return f"{R1_RTTS} N={int(sweep.split('-')[1])}"


R1_BOUNDS = {"loss rate": UNIT, "throughput Mb/s": NONNEGATIVE, "timeouts": NONNEGATIVE}


def _r1_analyse(c: Context) -> pd.DataFrame:
    records = []
    for sweep in c.results:
        for point, _ in c.points(sweep):
            interval = float(str(point["algorithm"]).removeprefix("I=").split()[0])
            records += run_records(
                {"case": _r1_case(sweep, point), "I": interval},
                point,
                (
                    ("loss rate", point["loss_rate"]),
                    ("throughput Mb/s", point["goodput_bps"] / 1e6),
                    ("timeouts", point["timeouts"]),
                ),
            )
    note_access_queues(c)
    return summarise(records, ["case", "I"], bounds=R1_BOUNDS)


#: Throughput "increases or remains almost the same": at I = 1 at most this much below I = 0.
R1_THROUGHPUT_TOLERANCE = 0.02


def r1_curve(table: pd.DataFrame, case: str, label: str) -> list[Check]:
    """One curve of Fig. 2-5: as I rises to 1, loss rate and timeouts fall (Spearman's rank
    correlation with I over the I values run, per seed, below 0) and throughput at I = 1 is at
    most 2% below its value at I = 0 (reversed: further below)."""
    rows = table[(table["case"] == case) & (table["metric"] == "loss rate") & (table["runs"] > 0)]
    grid = sorted(float(i) for i in rows["I"].unique())
    if len(grid) < 3 or grid[0] != 0.0 or grid[-1] != 1.0:
        return [Check.no_data(f"{label}: a curve over I from 0 to 1")]
    checks = []
    for metric in ("loss rate", "timeouts"):
        curve = [measure(table, metric, case=case, I=i) for i in grid]
        rho = Quantity.combine(rank_correlation(grid), *curve, bounds=CORRELATION)
        checks.append(
            compare(
                f"{label}: rank correlation of {metric} with I ({len(grid)} values of I)",
                rho,
                "<",
                0.0,
            )
        )
    at_one = measure(table, "throughput Mb/s", case=case, I=1.0)
    at_zero = measure(table, "throughput Mb/s", case=case, I=0.0)
    checks.append(
        compare(
            f"{label}: throughput at I = 1 relative to I = 0",
            at_one / at_zero - 1.0,
            ">",
            -R1_THROUGHPUT_TOLERANCE,
            required=f"> -{R1_THROUGHPUT_TOLERANCE:g} (higher, or within 2% below)",
        )
    )
    return checks


def _r1_figure(curves: Sequence[tuple[str, str]]) -> Callable[[pd.DataFrame], list[Check]]:
    def evaluate(table: pd.DataFrame) -> list[Check]:
        return [check for case, label in curves for check in r1_curve(table, case, label)]

    return evaluate


_R1_FIG2 = [(_r1_bandwidth_case(r, 30), f"{r}, {R1_RATES[r]}") for r in R1_RATES]
_R1_FIG3 = [(_r1_bandwidth_case(r, 50), f"{r}, {R1_RATES[r]}") for r in R1_RATES]
_R1_FIG4 = [(f"4Mbps buf {b} N=30", f"buffer {b}") for b in R1_BUFFERS]
_R1_FIG5 = [(f"{R1_RTTS} N={n}", f"{n} flows") for n in (30, 50)]
_R1_CRITERION = (
    "per curve: Spearman rank correlation (per seed, over the I values run) of loss rate with I "
    "< 0 and of timeouts with I < 0 (each reversed if > 0); throughput at I = 1 / at I = 0 - 1 "
    "> -0.02 (reversed if below)"
)

R1 = Study(
    id="R1",
    slug="randomization-interval",
    title="Randomization interval sweep (Fig. 2-5)",
    source=f"{SOURCE}, Fig. 2-5",
    setup="Dumbbell, RTT 100 ms, access links 4 Mb/s (section V); Randomized TCP with I = 0..1 "
    "(step 0.1; I = 0 is Paced); Fig. 2/3: 30/50 flows, bottleneck 1/2/4 Mb/s with a buffer of "
    "1/4 BDP, 6/13/25 packets; Fig. 4: 30 flows, buffer 25..100 packets at 4 Mb/s; Fig. 5: "
    "30/50 flows, per-flow RTT 80 + i*40/N ms at 4 Mb/s, 25 packets.",
    warmup=(
        "none: loss rate, throughput and timeouts over each whole run (flows start in the first "
        "second)"
    ),
    assumptions=(
        *COMMON[:2],
        (
            "access links 4 Mb/s whatever the bottleneck (section V: 'all other links of bandwidth "
            "4 Mb/s'; at a 4 Mb/s bottleneck they run at its rate), ns-2's default queue (limit_ "
            "50: 49 waiting)"
        ),
        "bottleneck buffers in packets as the paper counts them; 1/4 BDP rounded to the nearest "
        "packet",
        *COMMON[3:],
        "run length 100 s (the paper gives none); bandwidths of Fig. 2/3: 1, 2 and 4 Mb/s",
        (
            "I = 0 runs the randomized algorithm with interval 0 (Paced spacing with Randomized's "
            "increase rule, as the paper's 'I = 0 is Paced' reads)"
        ),
        "quick: Fig. 2 only (30 flows), I = 0, 0.5, 1, 20 s",
    ),
    sweeps=_r1_sweeps,
    analyse=_r1_analyse,
    claims=(
        Claim(
            "Fig. 2 (30 flows, 1/2/4 Mb/s): as I rises to 1, loss rates and timeouts fall while "
            "throughput rises or stays almost the same",
            _R1_CRITERION,
            _r1_figure(_R1_FIG2),
        ),
        Claim(
            "Fig. 3 (50 flows, 1/2/4 Mb/s): I = 1 is the best for almost all cases",
            _R1_CRITERION,
            _r1_figure(_R1_FIG3),
        ),
        Claim(
            "Fig. 4 (30 flows, buffer 1/4 to 1 BDP): I = 1 gives the best throughput, loss rate "
            "and timeouts",
            _R1_CRITERION,
            _r1_figure(_R1_FIG4),
        ),
        Claim(
            "Fig. 5 (30 and 50 flows, RTT 80-120 ms): I = 1 suits almost all the metrics",
            _R1_CRITERION,
            _r1_figure(_R1_FIG5),
        ),
    ),
    figure=FigureSpec(
        "loss, throughput, timeouts vs randomization interval",
        x="I",
        hue="case",
        xlabel="randomization interval I",
    ),
    algorithms=("randomized",),
    max_replicates=24,
)
