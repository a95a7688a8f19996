"""Links that change: studies C1, C2 and C3 (docs/studies/links.md).

* C1: CUBIC, BBR, BBRv3, Vegas and FAST, one flow at a time, over a cellular link replaying a
  Mahimahi-format trace: throughput against the 95th percentile of the one-way delay, the
  Pantheon-style figure. The traces come from a directory (``$CCSIM_CELLULAR_TRACES``; unset,
  the synthetic trace shipped with the package, as examples/traces/ holds it).
* C2: the changing-bandwidth test of the TCP evaluation suite, 100 -> 20 -> 100 Mb/s with a rate
  schedule: the time to 90 % after the step up, the queue peak and the time to drain after the
  step down, for CUBIC, Reno, BBR, BBRv3 and Vegas.
* C3: ACK aggregation: one flow of CUBIC, Reno, BBR or BBRv3 (and the BBRs without their
  ACK-aggregation allowance) over a 50 Mb/s path whose ACK direction sends in bursts of about
  1 to 128 ACKs: throughput against the aggregation level.

All run under the ``linux`` profile. The package: ``common`` (sources, algorithms, metric
names, the traces' directory, the dumbbell), ``workload`` (configurations and sweeps),
``analysis`` (runs to tables; C1's one-way delays from each run's packet capture), ``claims``,
``figures`` and ``declarations`` (the studies).
"""

from __future__ import annotations

from ccsim.studies.links.analysis import one_way_delays
from ccsim.studies.links.common import BOUNDS, PROFILE, TRACES_SETTING, trace_directory, traces
from ccsim.studies.links.declarations import C1, C2, C3, STUDIES
from ccsim.studies.links.workload import Config, c1_configs, c2_configs, c3_configs

__all__ = [
    "BOUNDS",
    "C1",
    "C2",
    "C3",
    "PROFILE",
    "STUDIES",
    "TRACES_SETTING",
    "Config",
    "c1_configs",
    "c2_configs",
    "c3_configs",
    "one_way_delays",
    "trace_directory",
    "traces",
]
