"""``[trace]``: what a run records beyond the per-flow and per-link counters (sampled series,
drops, pcap files)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, model_validator

from ccsim.errors import ScenarioError, show_value
from ccsim.scenario.fields import Flag, Name, Table, Time

FlowId = Annotated[int, Field(strict=True, ge=0, lt=2**32)]


class Pcap(Table):
    """Packet capture (``[trace] pcap``): pcap files of the named flows and links."""

    #: Flow ids (as in the flows table) captured at their sender's host.
    flows: list[FlowId] = Field(default_factory=list)
    #: Links named "SRC->DST" by their node names, captured as packets enter them.
    links: list[Name] = Field(default_factory=list)

    @model_validator(mode="after")
    def _names_and_ids_once(self) -> Pcap:
        for i, link in enumerate(self.links):
            src, arrow, dst = link.partition("->")
            if not (arrow and src and dst):
                raise ScenarioError(
                    f'{show_value(link)} is not a link name; expected "SRC->DST" with node '
                    'names, like "R1->R2"',
                    ("links", i),
                )
        for key, values in (("flows", self.flows), ("links", self.links)):
            for i, value in enumerate(values):
                if value in values[:i]:
                    raise ScenarioError(
                        f"{show_value(value)} appears twice; expected each once", (key, i)
                    )
        return self

    def resolve(self) -> dict[str, Any]:
        """The engine's ``PcapSpec``."""
        return {"flows": list(self.flows), "links": list(self.links)}


class Trace(Table):
    """What to record beyond the per-flow and per-link counters."""

    sample_interval: Time | None = None
    drops: Flag = False
    pcap: Pcap | None = None

    @model_validator(mode="after")
    def _positive_interval(self) -> Trace:
        if self.sample_interval == 0:
            raise ScenarioError(
                '"0s" is zero; expected an interval like "10ms"', ("sample_interval",)
            )
        return self

    def resolve(self) -> dict[str, Any]:
        """The engine's ``TraceSpec``."""
        spec: dict[str, Any] = {"sample_interval_ns": self.sample_interval, "drops": self.drops}
        # Only when asked for, so that the resolved scenario of a run without capture is as before.
        if self.pcap is not None:
            spec["pcap"] = self.pcap.resolve()
        return spec
