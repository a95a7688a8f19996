"""Type stubs for ccsim._core, the compiled engine (crates/ccsim-py).

The module is private: ccsim.run() and ccsim.scenario use it; users should not need to.
The dict shapes below are TypedDicts for the type checker only; at run time they are plain dicts.
"""

from typing import Any, Literal, TypedDict, final

__all__ = ["Simulation", "algorithms", "queue_kinds", "stack_profiles", "version"]

class ParamInfo(TypedDict):
    name: str
    default: float
    kind: Literal["float", "int", "bool"]
    min: float
    max: float
    doc: str
    #: Defaults that differ under a stack profile, by profile name (e.g. {"linux": 1.0}).
    profile_defaults: dict[str, float]

class AlgorithmInfo(TypedDict):
    name: str
    summary: str
    recovery: str
    params: list[ParamInfo]

class Table(TypedDict):
    """Columns of one result table. ``data[i]`` is a list of str when ``dtypes[i] == "str"``, else
    little-endian raw bytes of that dtype ("f64", "u64", "i64", "u32", "u8")."""

    names: list[str]
    dtypes: list[Literal["f64", "u64", "i64", "u32", "u8", "str"]]
    data: list[bytes | list[str]]

class RunStats(TypedDict):
    events: int
    packet_hops: int
    sim_end_ns: int

class RunOutput(TypedDict):
    """Tables "flows", "links", "series", "queues", "drops" (the last three empty unless traced)."""

    tables: dict[str, Table]
    stats: RunStats
    stack: dict[str, Any]

def version() -> str:
    """The engine's version (the ccsim release it was built from)."""

def algorithms() -> list[AlgorithmInfo]:
    """Every congestion-control algorithm in the engine's registry, with its parameters."""

def stack_profiles() -> dict[str, dict[str, Any]]:
    """Each stack profile's resolved configuration (the engine's StackConfig), by profile name:
    every knob the engine accepts, keyed as in a run's ``stack`` dict (``min_rto_ns``...)."""

def queue_kinds() -> list[str]:
    """The queue disciplines the engine accepts (the ``kind`` of a queue)."""

@final
class Simulation:
    """One run of a resolved scenario (see ccsim.Scenario.resolve)."""

    def __new__(cls, spec_json: str) -> Simulation:
        """Build the network and traffic. Raises ValueError for a spec the engine rejects."""

    def advance(self, until_ns: int) -> bool:
        """Run until simulated time ``until_ns`` (GIL released); True once the run is over.
        Python signal handlers run every few milliseconds, so Ctrl-C raises KeyboardInterrupt
        promptly. An engine failure raises RuntimeError."""

    @property
    def now_ns(self) -> int:
        """Current simulated time, nanoseconds."""

    @property
    def duration_ns(self) -> int:
        """Simulated time at which the run ends, nanoseconds."""

    @property
    def events(self) -> int:
        """Events processed so far."""

    def finish(self) -> RunOutput:
        """Run to the end if needed and return the result tables and statistics."""
