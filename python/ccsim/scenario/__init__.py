"""Scenarios: the user's TOML file, validated, and resolved into the engine's JSON.

A :class:`Scenario` is a pydantic model of the file format described in docs/scenario-format.md.
Validation happens in two layers:

* the models check each table on its own: types, units (``"100Mbps"``), unknown keys, and
  constraints within one table (RED thresholds, a RED queue needs a packet limit);
* :meth:`Scenario._check_consistency` checks what spans tables: flow endpoints against the
  topology, dumbbell RTTs against the bottleneck delay, algorithm names and parameters against the
  engine's registry, and that every "bdp" buffer has a reference RTT.

Every failure surfaces as one :class:`~ccsim.errors.ScenarioError` whose message names the key path
(``flows[0].rtt``), the value and what was expected.

:meth:`Scenario.resolve` produces the structure of ``crates/ccsim-core/src/spec.rs``: integers in
nanoseconds, bit/s, bytes and packets, flow groups expanded, buffers in packets or bytes.

The package has one module per concern, each importing only those listed before it:

* :mod:`~ccsim.scenario.fields`: the table base and the field types (quantities with units);
* :mod:`~ccsim.scenario.engine`: the engine's algorithm registry and stack profiles;
* :mod:`~ccsim.scenario.stack`: ``[stack]``;
* :mod:`~ccsim.scenario.queues`: queue disciplines and links;
* :mod:`~ccsim.scenario.traffic`: ``[[flows]]`` and ``[[generators]]``;
* :mod:`~ccsim.scenario.algorithms`: algorithm names and parameters checked;
* :mod:`~ccsim.scenario.trace`: ``[trace]``;
* :mod:`~ccsim.scenario.topology`: ``[topology]``;
* :mod:`~ccsim.scenario.limits`: ``[limits]``;
* :mod:`~ccsim.scenario.resolve`: the tables together and the engine's spec they resolve to;
* :mod:`~ccsim.scenario.resources`: what a run holds and writes, checked against ``[limits]``;
* :mod:`~ccsim.scenario.toml_file` and :mod:`~ccsim.scenario.overrides`: files and ``--set``;
* :mod:`~ccsim.scenario.validation_errors`: pydantic's errors as one-line messages;
* :mod:`~ccsim.scenario.model`: :class:`Scenario`.

Everything is re-exported here, so ``from ccsim.scenario import X`` needs no module name.
"""

from __future__ import annotations

from ccsim.scenario.engine import algorithm_registry
from ccsim.scenario.fields import (
    BufferSize,
    Count,
    Flag,
    KeyPath,
    Name,
    PositiveFloat,
    Probability,
    Rate,
    Seed,
    SignedTime,
    Size,
    Threshold,
    Time,
    TransferSize,
)
from ccsim.scenario.limits import (
    DEFAULT_INSPECT_COLUMNS,
    MAX_INSPECT_COLUMNS,
    ByteCount,
    Limits,
)
from ccsim.scenario.model import Scenario
from ccsim.scenario.overrides import parse_override_value
from ccsim.scenario.queues import Auto, Codel, DualPi2, FqCodel, Pie, QueueKind, Red, Step
from ccsim.scenario.resources import (
    PCAP_RECORD_BYTES,
    QUEUE_INSPECT_NAMES,
    SERIES_FLOW_ROW_BYTES,
    SERIES_INSPECT_VALUE_BYTES,
    SERIES_PEAK_COPIES,
    SERIES_QUEUE_ROW_BYTES,
    estimated_pcap_bytes,
    estimated_series_bytes,
)
from ccsim.scenario.stack import MIN_RTO_NS, STACK_ENGINE_NAMES, Stack
from ccsim.scenario.toml_file import MAX_DEPTH
from ccsim.scenario.topology import (
    ACCESS_RATE_FACTOR,
    DEFAULT_ACCESS_BUFFER,
    Dumbbell,
    Explicit,
    ExplicitLink,
    ParkingLot,
    Topology,
)
from ccsim.scenario.trace import FlowId, Pcap, Trace
from ccsim.scenario.traffic import (
    DEFAULT_MSS,
    MAX_CLOCK_DRIFT_PPM,
    MAX_MSS,
    ClosedLoopGenerator,
    FlowGroup,
    Generator,
    GeneratorSize,
    OpenLoopGenerator,
    RttDistribution,
    SizeDistribution,
)

# The names these had when the scenario was one module. ``_algorithms`` is the function itself:
# to replace the registry (tests), patch ``ccsim.scenario.engine.algorithm_registry``, which is
# what the checks call; patching ``_algorithms`` here changes no check.
_algorithms = algorithm_registry
_STACK_ENGINE_NAMES = STACK_ENGINE_NAMES

__all__ = [
    "ACCESS_RATE_FACTOR",
    "DEFAULT_ACCESS_BUFFER",
    "DEFAULT_INSPECT_COLUMNS",
    "DEFAULT_MSS",
    "MAX_CLOCK_DRIFT_PPM",
    "MAX_DEPTH",
    "MAX_INSPECT_COLUMNS",
    "MAX_MSS",
    "MIN_RTO_NS",
    "PCAP_RECORD_BYTES",
    "QUEUE_INSPECT_NAMES",
    "SERIES_FLOW_ROW_BYTES",
    "SERIES_INSPECT_VALUE_BYTES",
    "SERIES_PEAK_COPIES",
    "SERIES_QUEUE_ROW_BYTES",
    "STACK_ENGINE_NAMES",
    "Auto",
    "BufferSize",
    "ByteCount",
    "ClosedLoopGenerator",
    "Codel",
    "Count",
    "DualPi2",
    "Dumbbell",
    "Explicit",
    "ExplicitLink",
    "Flag",
    "FlowGroup",
    "FlowId",
    "FqCodel",
    "Generator",
    "GeneratorSize",
    "KeyPath",
    "Limits",
    "Name",
    "OpenLoopGenerator",
    "ParkingLot",
    "Pcap",
    "Pie",
    "PositiveFloat",
    "Probability",
    "QueueKind",
    "Rate",
    "Red",
    "RttDistribution",
    "Scenario",
    "Seed",
    "SignedTime",
    "Size",
    "SizeDistribution",
    "Stack",
    "Step",
    "Threshold",
    "Time",
    "Topology",
    "Trace",
    "TransferSize",
    "estimated_pcap_bytes",
    "estimated_series_bytes",
    "parse_override_value",
]
