"""A low-earth-orbit satellite path as link schedules: the bottleneck's rate and delay change at
every satellite handover, with a short outage (and, optionally, a burst of loss) at each.

What the model takes from measurements, and what it does not:

* **Handovers every 15 s.** Starlink's scheduler re-allocates satellites to terminals on a 15 s
  cycle, at the same seconds of every minute (Tanveer et al., "Making Sense of Constellations",
  CoNEXT 2023 companion; Mohan et al., "A Multifaceted Look at Starlink Performance", WWW 2024,
  arXiv 2310.09242). ``interval`` and ``phase`` (the first handover's time) set it.
* **Latency and rate move at the handover, and hold between.** Each interval draws its one-way
  bottleneck delay and its rate independently and uniformly within the given ranges. The
  defaults (10-30 ms of one-way delay, so 20-60 ms of base RTT with short access links; 50-200
  Mb/s) lie within what the measurements report for Starlink (a minimum RTT of 20 ms and a median
  near 50 ms to European servers, 100-300 Mb/s downstream: Michel et al., "A First Look at
  Starlink Performance", IMC 2022). They are illustrative ranges, not fitted to any trace: a
  recorded trace replayed with ``trace = ...`` is the way to reproduce one terminal's path.
* **An outage at each handover.** The link stops for ``outage`` (default 50 ms); packets wait in
  the queue or are dropped by it. Kassem et al. ("A Browser-side View of Starlink Connectivity",
  IMC 2022) saw loss bursts of up to 50% of packets around handovers; ``handover_loss`` adds such
  a burst (a loss probability for ``loss_burst`` after the outage). Neither length is measured
  here; set them from the measurement you reproduce.

The draws come from a NumPy generator seeded with ``seed``: the same arguments give the same
schedules on any machine, and the run's own ``seed`` stays independent of the path's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ccsim.units import parse_rate, parse_time

__all__ = ["as_overrides", "leo_path"]

NS_PER_S = 1_000_000_000


def _time(ns: int) -> str:
    """A time as a scenario writes it, exactly (``"12.05s"``)."""
    text = f"{ns / NS_PER_S:.9f}".rstrip("0").rstrip(".")
    return f"{text}s"


def _delay(ns: int) -> str:
    return f"{ns / 1e6:g}ms"


def _rate(bps: int) -> str:
    return f"{bps / 1e6:g}Mbps"


def leo_path(
    duration: str | int,
    *,
    seed: int = 1,
    interval: str | int = "15s",
    phase: str | int = "12s",
    delay_range: tuple[str, str] = ("10ms", "30ms"),
    rate_range: tuple[str, str] = ("50Mbps", "200Mbps"),
    outage: str | int = "50ms",
    handover_loss: float = 0.0,
    loss_burst: str | int = "200ms",
    reverse: bool = False,
) -> dict[str, Any]:
    """The topology keys of a LEO bottleneck for a run of ``duration``: ``rate_schedule``,
    ``delay_schedule`` and (with ``handover_loss``) ``loss_schedule``, each with the prefix
    ``reverse_`` too when ``reverse`` (the same path both ways). Times as in scenario files
    (``"15s"``) or nanoseconds. Use them as overrides of a dumbbell scenario::

        scenario = ccsim.Scenario.load("examples/leo.toml").with_overrides(
            {f"topology.{k}": v for k, v in leo_path("60s").items()})
    """
    run_ns = _ns(duration, "duration")
    every = _ns(interval, "interval")
    first = _ns(phase, "phase")
    gap = _ns(outage, "outage")
    burst = _ns(loss_burst, "loss_burst")
    low_delay, high_delay = (_ns(d, "delay_range") for d in delay_range)
    low_rate, high_rate = (parse_rate(r, ("rate_range",)) for r in rate_range)
    if every <= gap + (burst if handover_loss > 0 else 0):
        raise ValueError(f"interval: {interval!r} is not longer than the outage and loss burst")
    if not (low_delay <= high_delay and low_rate <= high_rate):
        raise ValueError("delay_range and rate_range: expected (low, high) with low <= high")
    if not 0.0 <= handover_loss < 1.0:
        raise ValueError(f"handover_loss: {handover_loss}; expected a probability in [0, 1)")
    rng = np.random.default_rng(seed)

    def draw() -> tuple[int, int]:
        # Rounded to 0.1 ms and 0.1 Mb/s: the schedule reads as it would be written by hand.
        delay = round(float(rng.uniform(low_delay, high_delay)) / 100_000) * 100_000
        rate = round(float(rng.uniform(low_rate, high_rate)) / 100_000) * 100_000
        return delay, rate

    delay, rate = draw()
    rates: list[list[Any]] = [["0s", _rate(rate)]]
    delays: list[list[Any]] = [["0s", _delay(delay)]]
    losses: list[list[Any]] = []
    handovers = range(first, run_ns, every) if every > 0 else range(0)
    for at in handovers:
        delay, rate = draw()
        rates.append([_time(at), 0])
        rates.append([_time(at + gap), _rate(rate)])
        delays.append([_time(at + gap), _delay(delay)])
        if handover_loss > 0:
            losses.append([_time(at + gap), handover_loss])
            losses.append([_time(at + gap + burst), 0.0])
    keys: dict[str, Any] = {"rate_schedule": rates, "delay_schedule": delays}
    if losses:
        keys["loss_schedule"] = losses
    if reverse:
        keys.update({f"reverse_{k}": v for k, v in list(keys.items())})
    return keys


def _ns(value: str | int, what: str) -> int:
    if isinstance(value, bool) or (isinstance(value, float) and not math.isfinite(value)):
        raise ValueError(f'{what}: {value!r}; expected a time like "15s"')
    if isinstance(value, int):
        return value
    return parse_time(value, (what,))


def as_overrides(keys: Mapping[str, Any]) -> dict[str, Any]:
    """``leo_path``'s keys as scenario overrides of the ``[topology]`` table."""
    return {f"topology.{k}": v for k, v in keys.items()}
