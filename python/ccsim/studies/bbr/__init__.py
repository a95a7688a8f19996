"""BBR against CUBIC, and BBR v3 against v1: studies B1-B4 (docs/studies/bbr.md).

* B1: one BBR flow against one CUBIC flow (and two against two) over buffers of 0.1 to 16 BDP
  at 100 Mb/s and 1 Gb/s, RTT 40 ms: BBR's share, each one's retransmissions, the queueing
  delay (Hock et al., ICNP 2017; Cao et al., IMC 2019).
* B2: one BBR flow against N = 1..16 CUBIC flows in deep buffers, next to Ware et al.'s
  closed-form model of BBR's in-flight cap (IMC 2019; :func:`ware_share`).
* B3: RTT fairness among 2-10 BBR flows with RTTs of 10-100 ms, v1 and v3 (Hock et al.).
* B4: v3 against v1: coexistence with CUBIC and Reno, retransmissions, queueing, fairness among
  themselves (the BBRv3 release's stated aims).

Every study runs under the ``linux`` profile. Configurations of ``bbr3`` are declared and run
once the engine has the algorithm; until then they are left out and their claims are "not run".

The package: ``common`` (sources, link, metric names, the dumbbell scenario), ``workload``
(each study's configurations and sweeps), ``analysis`` (runs to tables, Ware et al.'s model),
``claims`` (the claims and their checks) and ``declarations`` (the studies).
"""

from __future__ import annotations

from ccsim.studies.bbr.analysis import RunMeasures, measure_run, ware_share
from ccsim.studies.bbr.common import BOUNDS, PROFILE, V1, V3
from ccsim.studies.bbr.declarations import B1, B2, B3, B4, STUDIES
from ccsim.studies.bbr.workload import (
    Config,
    b1_configs,
    b2_configs,
    b3_configs,
    b3_rtts_ms,
    b4_configs,
)

__all__ = [
    "B1",
    "B2",
    "B3",
    "B4",
    "BOUNDS",
    "PROFILE",
    "STUDIES",
    "V1",
    "V3",
    "Config",
    "RunMeasures",
    "b1_configs",
    "b2_configs",
    "b3_configs",
    "b3_rtts_ms",
    "b4_configs",
    "measure_run",
    "ware_share",
]
