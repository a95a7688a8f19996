"""L4S: scalable senders with classic ones, studies Q1-Q3 (docs/studies/l4s.md).

* Q1: one scalable flow (Prague, DCTCP) against 1, 4, 8 CUBIC flows in DualPI2 at 40 Mb/s,
  50 ms and 100 Mb/s, 20 ms: the per-flow rate ratio, Jain's index, each queue's delay, marks
  and drops, against RFC 9332's design goals and the DualQ papers' results.
* Q2: one scalable flow against one CUBIC flow in a single queue (drop-tail FIFO, RED marking
  classic ECN, FQ-CoDel): the unfairness that motivated the dual queue, and FQ's isolation.
* Q3: RTT independence among Prague flows of 5-100 ms, with and without its RTT scaling.

Every study runs under the ``linux`` profile. Configurations of ``prague`` are declared and
run once the engine has it; until then they are left out and their claims are "not run".

The package: ``common`` (sources, paths, metric names, the dumbbell scenario), ``workload``
(each study's configurations and sweeps), ``analysis`` (runs to tables), ``claims`` (the
claims and their checks) and ``declarations`` (the studies).
"""

from __future__ import annotations

from ccsim.studies.l4s.analysis import RunMeasures, measure_run
from ccsim.studies.l4s.common import BOUNDS, DCTCP, PRAGUE, PROFILE
from ccsim.studies.l4s.declarations import Q1, Q2, Q3, STUDIES
from ccsim.studies.l4s.workload import (
    Config,
    prague_scaling_param,
    q1_configs,
    q2_configs,
    q3_configs,
)

__all__ = [
    "BOUNDS",
    "DCTCP",
    "PRAGUE",
    "PROFILE",
    "Q1",
    "Q2",
    "Q3",
    "STUDIES",
    "Config",
    "RunMeasures",
    "measure_run",
    "prague_scaling_param",
    "q1_configs",
    "q2_configs",
    "q3_configs",
]
