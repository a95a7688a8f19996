"""What every TCP-Fusion study shares: the link, the algorithms compared and the metric names."""

from __future__ import annotations

SOURCE = "seed 002 (TCP-Fusion with RTT fairness)"
MSS = 1000
RTT = "40ms"
#: Goodput ceiling of the 100 Mb/s bottleneck with 1000-byte payloads in 1040-byte packets.
CAPACITY_MBPS = 100.0 * MSS / (MSS + 40)
PROPOSAL = "fusion-rf"
#: The paper's winners on the lossy link (Fig. 3): the proposal, Adaptive Reno and FAST.
WINNERS = (PROPOSAL, "areno", "fast")
#: Every other algorithm of Fig. 3 (Fusion is left out: the paper says the proposal equals it).
OTHERS = (
    "reno",
    "newreno",
    "libra",
    "compound",
    "westwood",
    "highspeed",
    "scalable",
    "bic",
    "cubic",
    "htcp",
)
ALGORITHMS = ("reno", "newreno", "fusion", PROPOSAL, "areno", "fast", "libra", *OTHERS[3:])
QUICK_ALGORITHMS = ("reno", "fusion", PROPOSAL, "areno", "fast", "libra", "scalable")
LOSSES = (1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
QUICK_LOSSES = (3e-6, 1e-4, 1e-3, 1e-2)
#: The lossy range where the paper's winners are judged (Fig. 3's spread between curves).
LOSSY = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
#: Every access link's queue: ns-2's default DropTail (``limit_ 50``, which counts the packet in
#: transmission: 49 waiting, ccsim's count); the paper states only the router's buffer, "equal
#: to the BDP".
ACCESS_BUFFER = "49pkts"
GOODPUT = "goodput Mb/s"
RANDOM_LOSSES = "random losses per run (expected)"
DROPS = "drops per run (random + queue)"
