"""Queue disciplines and links: the parameter table of each queue kind (``red``, ``codel``,
``fq_codel``, ``pie``, ``dualpi2``, ``step``), the checks a link's queue settings share, and the engine's
``QueueSpec`` and ``LinkParams`` they resolve to."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from ccsim.errors import ScenarioError, show_value
from ccsim.scenario.fields import (
    BufferSize,
    Count,
    Flag,
    Table,
    Threshold,
    Time,
    time_at_least,
)
from ccsim.units import Buffer

QueueKind = Literal["droptail", "red", "codel", "fq_codel", "pie", "dualpi2", "step"]
#: RED's thresholds and weight: a number, or "auto" for ns-2's automatic value.
Auto = Literal["auto"]


class Red(Table):
    """RED parameters (ns-2 names and defaults); thresholds in packets. ``"auto"``: ns-2's
    automatic value (min_th = max(5, half of 5 ms of packets), max_th = 3 min_th,
    w_q = 1 - exp(-1/C) with C packets per second)."""

    min_th: Threshold | Auto = 5.0
    max_th: Threshold | Auto = 15.0
    max_p: Annotated[float, Field(strict=True, gt=0, le=1)] = 0.1
    w_q: Annotated[float, Field(strict=True, gt=0, le=1)] | Auto = 0.002
    gentle: Flag = True
    wait: Flag = True
    mean_pktsize: Count = 500
    #: ns-2's byte mode: the average follows bytes / mean_pktsize, small packets dropped less.
    byte_mode: Flag = False
    #: Mark ECN-capable packets (CE) instead of dropping them early.
    ecn: Flag = False

    @model_validator(mode="after")
    def _thresholds_ordered(self) -> Red:
        if self.min_th == "auto" or self.max_th == "auto":
            return self
        if self.max_th <= self.min_th:
            raise ScenarioError(
                f"{show_value(self.max_th)} is not above min_th ({self.min_th}); "
                "expected max_th > min_th",
                ("max_th",),
            )
        return self


class Codel(Table):
    """CoDel parameters (RFC 8289)."""

    target: Annotated[Time, time_at_least(1)] = "5ms"  # type: ignore[assignment]
    interval: Annotated[Time, time_at_least(1)] = "100ms"  # type: ignore[assignment]
    #: Mark ECN-capable packets (CE) instead of dropping them.
    ecn: Flag = False
    #: Linux's ce_threshold: mark CE every ECN-capable packet sent after waiting longer than
    #: this, whatever CoDel's own state (absent: off).
    ce_threshold: Time | None = None


#: The IP ECN field's bits, for FQ-CoDel's ce_threshold selector and mask.
EcnBits = Annotated[int, Field(strict=True, ge=0, le=3)]


class FqCodel(Codel):
    """FQ-CoDel parameters (RFC 8290): CoDel's, the number of flow queues and the DRR quantum,
    and Linux's ce_threshold selector and mask (on the IP ECN field: CE 3, ECT(0) 2, ECT(1) 1):
    with a nonzero mask the threshold marks only packets whose field ANDed with the mask equals
    the selector (selector 1, mask 3: ECT(1), the L4S identifier)."""

    flows: Annotated[int, Field(strict=True, ge=1, le=65_536)] = 1024
    #: Bytes a queue may send per round (default: one packet, MSS + 40 bytes of headers).
    quantum: Annotated[int, Field(strict=True, ge=1, le=2**20)] | None = None
    ce_threshold_selector: EcnBits = 0
    ce_threshold_mask: EcnBits = 0

    @model_validator(mode="after")
    def _selector_within_mask(self) -> FqCodel:
        selector, mask = self.ce_threshold_selector, self.ce_threshold_mask
        if selector & ~mask:
            raise ScenarioError(
                f"{selector} has bits outside ce_threshold_mask ({mask}); "
                "expected selector & mask == selector (selector 1, mask 3: ECT(1) only)",
                ("ce_threshold_selector",),
            )
        if mask and self.ce_threshold is None:
            raise ScenarioError(
                f'{mask} without ce_threshold; expected a ce_threshold such as "1ms"',
                ("ce_threshold_mask",),
            )
        return self


class Pie(Table):
    """PIE parameters (RFC 8033); alpha and beta in 1/s."""

    target: Annotated[Time, time_at_least(1)] = "15ms"  # type: ignore[assignment]
    tupdate: Annotated[Time, time_at_least(1)] = "15ms"  # type: ignore[assignment]
    alpha: Annotated[float, Field(strict=True, ge=0, le=1e6, allow_inf_nan=False)] = 0.125
    beta: Annotated[float, Field(strict=True, ge=0, le=1e6, allow_inf_nan=False)] = 1.25
    max_burst: Time = "150ms"  # type: ignore[assignment]
    #: Mark ECN-capable packets (CE) instead of dropping them while the probability is <= 10 %.
    ecn: Flag = False
    #: ccsim's L4S step (Linux's PIE has none): mark CE every ECT(1) packet sent after waiting
    #: longer than this, RFC 9332's native L4S marking inside the one queue (absent: off).
    l4s_step: Time | None = None


#: DualPI2's classification masks (Linux's names): the IP ECN bits that send a packet to the L
#: queue. ``l4s_ect``: ECT(1) and CE (RFC 9331); ``cla_ect``: ECT(0) and CE; ``any_ect``: both.
DUALPI2_ECN_MASKS: dict[str, int] = {"l4s_ect": 1, "cla_ect": 2, "any_ect": 3}


class DualPi2(Table):
    """DualPI2 parameters (RFC 9332; defaults of Linux's sch_dualpi2): the PI2 controller's
    ``target``, ``tupdate`` and gains ``alpha``, ``beta`` (Hz), the L queue's ``step_thresh``
    (sojourn time) applied to packets that find ``min_qlen_step`` packets in it, the coupling
    factor ``coupling`` (k), the classic queue's scheduler weight ``c_weight`` (percent),
    ``drop_overload`` (past k p' = 1 the L queue drops like the classic; off: p' is capped at 1/k),
    ``drop_early`` (decide at enqueue instead of dequeue) and ``classify``. The buffer is the
    packet limit of both queues together."""

    target: Time = "15ms"  # type: ignore[assignment]
    tupdate: Annotated[Time, time_at_least(1)] = "16ms"  # type: ignore[assignment]
    alpha: Annotated[float, Field(strict=True, ge=0, le=1e6, allow_inf_nan=False)] = 0.16
    beta: Annotated[float, Field(strict=True, ge=0, le=1e6, allow_inf_nan=False)] = 3.2
    step_thresh: Time = "1ms"  # type: ignore[assignment]
    min_qlen_step: Annotated[int, Field(strict=True, ge=0, le=10_000_000)] = 0
    coupling: Annotated[float, Field(ge=0.001, le=1000, allow_inf_nan=False)] = 2.0
    c_weight: Annotated[int, Field(strict=True, ge=0, le=100)] = 10
    drop_overload: Flag = True
    drop_early: Flag = False
    classify: Literal["l4s_ect", "cla_ect", "any_ect"] = "l4s_ect"


class Step(Table):
    """Step marking for DCTCP: an arrival that finds ``k`` (packets or bytes) waiting is marked
    CE if ECN-capable (else dropped); behind it the queue is a tail drop at ``buffer``."""

    k: BufferSize = "20pkts"  # type: ignore[assignment]
    ecn: Flag = True


#: The parameter table of each queue kind that has one.
_QUEUE_TABLES: dict[str, type[Table]] = {
    "red": Red,
    "codel": Codel,
    "fq_codel": FqCodel,
    "pie": Pie,
    "dualpi2": DualPi2,
    "step": Step,
}


def check_queue(model: Any) -> None:
    """Fill in the table of the model's queue kind (defaults when absent) and reject tables of
    other kinds and buffers in bytes for disciplines limited in packets."""
    for kind in _QUEUE_TABLES:
        if kind != model.queue and getattr(model, kind) is not None:
            raise ScenarioError(
                f'given but queue is "{model.queue}"; expected queue = "{kind}"', (kind,)
            )
    table = _QUEUE_TABLES.get(model.queue)
    if table is None:
        return
    if getattr(model, model.queue) is None:
        setattr(model, model.queue, table())
    if model.queue != "step" and model.buffer.unit == "bytes":
        name = {
            "red": "RED",
            "codel": "CoDel",
            "fq_codel": "FQ-CoDel",
            "pie": "PIE",
            "dualpi2": "DualPI2",
        }[model.queue]
        raise ScenarioError(
            f'"{model.buffer}" is a size in bytes, but a {name} queue is limited in packets; '
            'expected a buffer like "100pkts" or "1bdp"',
            ("buffer",),
        )


def _auto(value: float | str) -> float:
    """RED's "auto" is 0 in the engine."""
    return 0.0 if value == "auto" else float(value)


def queue_spec(
    model: Any, buffer: Buffer, rate_bps: int, rtt: Fraction | None, packet: int
) -> dict[str, Any]:
    """The engine's ``QueueSpec`` for the model's queue (``model`` None: a tail drop)."""
    limit_pkts, limit_bytes = buffer.limits(rate_bps, rtt, packet)
    queue = "droptail" if model is None else model.queue
    if queue == "droptail":
        return {"kind": "droptail", "limit_pkts": limit_pkts, "limit_bytes": limit_bytes}
    t = getattr(model, queue)
    if queue == "red":
        spec = {
            "kind": "red",
            "limit_pkts": limit_pkts,
            "min_th": _auto(t.min_th),
            "max_th": _auto(t.max_th),
            "max_p": t.max_p,
            "w_q": _auto(t.w_q),
            "gentle": t.gentle,
            "wait": t.wait,
            "mean_pktsize": t.mean_pktsize,
        }
        # Only when set, so that existing RED scenarios resolve as before.
        spec |= {k: True for k in ("byte_mode", "ecn") if getattr(t, k)}
        return spec
    if queue in ("codel", "fq_codel"):
        spec = {
            "kind": queue,
            "limit_pkts": limit_pkts,
            "target_ns": t.target,
            "interval_ns": t.interval,
            "ecn": t.ecn,
        }
        if queue == "fq_codel":
            spec |= {"flows": t.flows, "quantum_bytes": t.quantum or packet}
        # Only when set, so that existing CoDel scenarios resolve as before.
        if t.ce_threshold is not None:
            spec["ce_threshold_ns"] = t.ce_threshold
            if queue == "fq_codel" and t.ce_threshold_mask:
                spec["ce_threshold_selector"] = t.ce_threshold_selector
                spec["ce_threshold_mask"] = t.ce_threshold_mask
        return spec
    if queue == "pie":
        spec = {
            "kind": "pie",
            "limit_pkts": limit_pkts,
            "target_ns": t.target,
            "tupdate_ns": t.tupdate,
            "alpha": t.alpha,
            "beta": t.beta,
            "max_burst_ns": t.max_burst,
            "ecn": t.ecn,
        }
        if t.l4s_step is not None:
            spec["l4s_step_ns"] = t.l4s_step
        return spec
    if queue == "dualpi2":
        return {
            "kind": "dualpi2",
            "limit_pkts": limit_pkts,
            "target_ns": t.target,
            "tupdate_ns": t.tupdate,
            "alpha": t.alpha,
            "beta": t.beta,
            "step_thresh_ns": t.step_thresh,
            "min_qlen_step": t.min_qlen_step,
            "coupling": float(t.coupling),
            "c_weight_pct": t.c_weight,
            "drop_overload": t.drop_overload,
            "drop_early": t.drop_early,
            "ecn_mask": DUALPI2_ECN_MASKS[t.classify],
        }
    k_pkts, k_bytes = t.k.limits(rate_bps, rtt, packet)
    return {
        "kind": "step",
        "limit_pkts": limit_pkts,
        "limit_bytes": limit_bytes,
        "k_pkts": k_pkts,
        "k_bytes": k_bytes,
        "ecn": t.ecn,
    }


def _loss_spec(p: float) -> dict[str, Any]:
    return {"kind": "bernoulli", "p": p} if p > 0 else {"kind": "none"}


def link_params(
    rate: int, delay: int, queue: dict[str, Any], loss: float, jitter: int = 0
) -> dict[str, Any]:
    """The engine's ``LinkParams`` (one direction of a link)."""
    return {
        "rate_bps": rate,
        "delay_ns": delay,
        "queue": queue,
        "loss": _loss_spec(loss),
        "jitter_ns": jitter,
    }
