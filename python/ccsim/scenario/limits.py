"""``[limits]``: bounds on quantities that multiply into memory or events (flows, transfers,
buffered packets, sampled rows, series and pcap bytes, inspect columns)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer

from ccsim.scenario.fields import Table
from ccsim.units import format_size, parse_size


def _byte_count(value: Any) -> Any:
    """A limit in bytes: a whole number of bytes, or a size like ``"4GiB"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return parse_size(value)


ByteCount = Annotated[
    int,
    BeforeValidator(_byte_count),
    Field(strict=True, ge=1),
    PlainSerializer(format_size),
]

#: The engine's default bound on distinct inspect names per table (RunLimits::default).
DEFAULT_INSPECT_COLUMNS = 64
#: The most the engine accepts (RunLimits::MAX_INSPECT_COLUMNS).
MAX_INSPECT_COLUMNS = 65_536


class Limits(Table):
    """``[limits]``: bounds on quantities that multiply into memory or events.

    The defaults stop typing mistakes (``count = 1000000``, ``rate = 1e300``) before they exhaust
    the machine; a scenario that means it raises them, up to what the engine can hold.
    """

    #: Flows in all: every flow of every group, closed-loop slots, open-loop sources.
    flows: Annotated[int, Field(strict=True, ge=1, le=2**24)] = 100_000
    #: Transfers open-loop generators are expected to start (rate x time they are active).
    transfers: Annotated[int, Field(strict=True, ge=1, le=2**28)] = 1_000_000
    #: Packets any one queue may hold (a buffer in bytes counts in packets of the largest MSS).
    buffer_pkts: Annotated[int, Field(strict=True, ge=1, le=2**40)] = 10_000_000
    #: Rows of the sampled series: flows (and monitored links) x duration / sample_interval.
    samples: Annotated[int, Field(strict=True, ge=1, le=10**12)] = 100_000_000
    #: Memory the sampled series take at their peak, estimated from their rows and columns
    #: (:func:`estimated_series_bytes`): a 24 GiB machine holds this and the rest of a run.
    series_bytes: ByteCount = 4 * 2**30
    #: Bytes of the pcap files of ``[trace] pcap`` together, estimated at the captured links'
    #: rates (:func:`estimated_pcap_bytes`); a run holds about twice this in memory.
    pcap_bytes: ByteCount = 10**9
    #: Distinct names the algorithms' ``inspect()`` may report in one run (and the queue
    #: disciplines' in the queues table): each name is a column as long as the whole table.
    #: The engine enforces it as the columns are created.
    inspect_columns: Annotated[int, Field(strict=True, ge=1, le=MAX_INSPECT_COLUMNS)] = (
        DEFAULT_INSPECT_COLUMNS
    )

    def resolve(self) -> dict[str, Any] | None:
        """What the engine enforces itself (the engine's ``RunLimits``), or None when that is
        its default: the resolved scenario, and so the run id, of a run with default limits is
        what it was before the engine enforced any."""
        if self.inspect_columns == DEFAULT_INSPECT_COLUMNS:
            return None
        return {"inspect_columns": self.inspect_columns}
