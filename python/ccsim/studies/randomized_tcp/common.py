"""What every Randomized-TCP study shares: the paper's stack, its dumbbell, one seed per run, the
configurations most studies compare, the helpers that turn runs into records and records into
the comparison table, and the sensitivity grids.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from ccsim.studies.checks import grade
from ccsim.studies.core import (
    Bounds,
    Claim,
    Context,
    summarise,
)

MSS = 500
#: The side of a comparison where the claim's winner is (lower is better: ``<``).
Side = Literal["<", ">"]
#: ns-2's default queue (``Queue set limit_ 50``, DropTail: 49 waiting packets and the one in
#: transmission; ccsim's limit counts the waiting ones): every link whose buffer the paper does
#: not give.
NS2_QUEUE = "49pkts"
COMMON = (
    "MSS 500 B = ns-2 packetSize_ 500: 500 B payload + 40 B headers on the wire (ccsim mss = 500)",
    "delayed ACKs off (the ns2 profile's default), Reno loss recovery, ACKs 40 B",
    (
        "access links 4x the bottleneck rate; every queue DropTail; bottleneck buffers in packets "
        "as the paper counts them; access links (both directions) ns-2's default queue, limit_ "
        "50 (49 waiting + 1 in transmission; the paper gives none)"
    ),
    "flows start uniformly at random in the first second; replicates differ in the seed only",
    (
        "no send overhead and no router jitter (ns-2's default overhead_ = 0): the phase effects "
        "they would break up are part of what the paper studies (docs/phase-effects.md)"
    ),
)
RANDOMIZED = {"name": "randomized", "cc": "randomized", "params": {"interval": 1.0}}
PACED = "paced"
#: Diagnostic only (not the paper's algorithm): Randomized TCP without the (RTT_eff/R)^2 scaling
#: of its increase (alpha = 1, Reno's one segment per RTT), to measure what the scaling does.
RANDOMIZED_A1 = {
    "name": "randomized-a1",
    "cc": "randomized",
    "params": {"interval": 1.0, "scale_increase": False},
}
DIAGNOSTIC = "Randomized alpha=1 (diagnostic)"
#: The paper's usual comparison: every flow Reno, every flow Paced, every flow Randomized.
COMPARE_THREE = {"algorithms": ["reno", PACED, RANDOMIZED], "baseline": "reno"}
#: The study's name of each configuration of :data:`COMPARE_THREE`, by (algorithm, mixture).
THREE_NAMES = {
    ("reno", "all"): "Reno",
    ("paced", "all"): "Paced",
    ("randomized", "all"): "Randomized",
}
#: Every flow Reno against every flow Randomized, by (algorithm, mixture).
RENO_RANDOMIZED_NAMES = {("reno", "all"): "Reno", ("randomized", "all"): "Randomized"}
SOURCE = "seed 000 (Randomized TCP)"
#: The routers of a dumbbell: a link between two of them is the bottleneck, any other an access
#: link.
DUMBBELL_ROUTERS = frozenset({"R1", "R2"})


def dumbbell_scenario(
    rate: str,
    flows: Sequence[Mapping[str, Any]],
    *,
    duration: str,
    buffer: str = "25pkts",
    delay: str = "20ms",
    trace: Mapping[str, Any] | None = None,
    generators: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """A dumbbell scenario (as data) with the paper's packet size, ns-2's default queue on the
    access links and start jitter."""
    data: dict[str, Any] = {
        "name": "study",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate": rate,
            "bottleneck_delay": delay,
            "buffer": buffer,
            "access_buffer": NS2_QUEUE,
        },
    }
    if flows:
        data["flows"] = [{"mss": MSS, "start_jitter": "1s", **f} for f in flows]
    if generators:
        data["generators"] = [{"mss": MSS, **g} for g in generators]
    if trace:
        data["trace"] = dict(trace)
    return data


def sweep_definition(
    name: str, scenario: dict[str, Any], seeds: list[int], **parts: Any
) -> dict[str, Any]:
    """A sweep of ``scenario`` over ``seeds`` as the study runner takes it (``parts``: its
    ``axes``, ``compare``, ...)."""
    return {"name": name, "scenario": scenario, "seeds": seeds, **parts}


def config_name(point: pd.Series, names: Mapping[tuple[str, str], str]) -> str | None:
    """The study's name of a comparative point's (algorithm, mixture), None if not one of its."""
    return names.get((point.get("algorithm"), point.get("mixture")))


def run_seed(point: pd.Series) -> int:
    """The seed of a run: the replicate its values belong to."""
    return int(point["seed"])


def run_records(
    key: Mapping[str, Any], point: pd.Series, values: Iterable[tuple[str, float]]
) -> list[dict[str, Any]]:
    """One record per ``(metric, value)`` of a run: the study's ``key`` columns, the metric, the
    run's seed (its replicate) and the value as a float, in the column order summarise keeps."""
    seed = run_seed(point)
    return [{**key, "metric": metric, "seed": seed, "value": float(v)} for metric, v in values]


@dataclass(frozen=True)
class Run:
    """One finished run of one of a study's configurations: the sweep it is from, the study's
    name of its configuration, its point (the catalogue's row) and a loader of its tables."""

    sweep: str
    config: str
    point: pd.Series
    load: Callable[[str], pd.DataFrame]

    def records(
        self, key: Mapping[str, Any], values: Iterable[tuple[str, float]]
    ) -> list[dict[str, Any]]:
        """:func:`run_records` of this run."""
        return run_records(key, self.point, values)


def named_runs(
    c: Context, names: Mapping[tuple[str, str], str], sweeps: Iterable[str] | None = None
) -> Iterator[Run]:
    """Every finished run of ``sweeps`` (default: all of the study's, in order) whose
    (algorithm, mixture) is one of ``names``; the others (a sweep's reference runs the study
    does not compare) are skipped."""
    for sweep in c.results if sweeps is None else sweeps:
        for point, load in c.points(sweep):
            config = config_name(point, names)
            if config is not None:
                yield Run(sweep, config, point, load)


def named_records(
    c: Context,
    names: Mapping[tuple[str, str], str],
    measure_run: Callable[[Run], list[dict[str, Any]]],
    sweeps: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """``measure_run``'s records of every run of ``sweeps`` (default: all of the study's, in
    order) whose configuration is one of ``names`` (:func:`named_runs`), in run order."""
    return [record for run in named_runs(c, names, sweeps) for record in measure_run(run)]


def comparison_table(
    c: Context,
    names: Mapping[tuple[str, str], str],
    measure_run: Callable[[Run], list[dict[str, Any]]],
    keys: Sequence[str],
    published: Mapping[tuple[Any, ...], float] | None = None,
    bounds: Mapping[str, Bounds] | None = None,
    routers: frozenset[str] = DUMBBELL_ROUTERS,
) -> pd.DataFrame:
    """A study's comparison table: ``measure_run``'s records of every run of its configurations
    (:func:`named_runs`) summarised by ``keys`` (:func:`~ccsim.studies.tables.summarise`), with
    the access links' queues noted (:func:`note_access_queues`, ``routers`` being the routers
    of its topology)."""
    records = [record for run in named_runs(c, names) for record in measure_run(run)]
    note_access_queues(c, routers)
    return summarise(records, keys, published, bounds=bounds)


def kbps(x: float) -> float:
    return x / 1e3


def note_access_queues(c: Context, routers: frozenset[str] = DUMBBELL_ROUTERS) -> None:
    """Note the deepest queue and the drops of the access links (every link not between two of
    ``routers``) over all runs of the study: they have ns-2's default queue, which the paper does
    not state, so the note shows whether it ever mattered."""
    deepest, drops, runs = 0, 0, 0
    for sweep in c.results:
        for _, load in c.points(sweep):
            links = load("links")
            access = links[~(links["src"].isin(routers) & links["dst"].isin(routers))]
            if access.empty:
                continue
            deepest = max(deepest, int(access["max_queue_pkts"].max()))
            drops += int(access["drops"].sum())
            runs += 1
    if runs:
        c.notes.append(
            f"access links ({NS2_QUEUE} DropTail): deepest queue {deepest} packets, "
            f"{drops} drops in {runs} runs"
        )


def rank_correlation(xs: Sequence[float]) -> Callable[..., float]:
    """Spearman's rank correlation of the values passed with ``xs`` (NaN if they are all
    equal): a per-seed statistic for :meth:`Quantity.combine`."""

    def correlation(*ys: float) -> float:
        from scipy import stats

        if len(set(ys)) < 2:
            return math.nan
        return float(stats.spearmanr(list(xs), list(ys))[0])

    return correlation


def within_range(values: Iterable[float], low: float, high: float) -> list[float]:
    """The values in [low, high] (with a little room for rounding)."""
    return [v for v in values if low - 1e-9 <= v <= high + 1e-9]


def grade_sensitivity(
    c: Context,
    study: str,
    claims: Sequence[Claim],
    table: pd.DataFrame,
    keys: Sequence[str],
    scope: str,
) -> None:
    """Grade ``claims`` at every setting of a sensitivity sweep: ``table`` is a comparison table
    with the setting's ``keys`` in front of the study's own. Writes ``<study>-sensitivity.csv``
    (one line per setting and claim, with every check) and notes, per claim and per check,
    whether the outcome is the same at every setting ("robust") or which settings differ."""
    lines = []
    #: (claim, check) -> setting -> outcome; claim -> setting -> verdict.
    outcomes: dict[tuple[int, int], dict[str, str]] = {}
    verdicts: dict[int, dict[str, str]] = {}
    for values, rows in table.groupby(list(keys), sort=True):
        values = values if isinstance(values, tuple) else (values,)
        name = " ".join(_setting(k, v) for k, v in zip(keys, values, strict=True))
        sub = rows.drop(columns=list(keys)).reset_index(drop=True)
        for i, claim in enumerate(claims):
            checks = list(claim.evaluate(sub))
            verdicts.setdefault(i, {})[name] = grade(checks)
            for j, check in enumerate(checks):
                outcomes.setdefault((i, j), {})[name] = check.outcome
            lines.append(
                dict(zip(keys, values, strict=True))
                | {
                    "claim": claim.text,
                    "verdict": verdicts[i][name],
                    "checks": "; ".join(f"[{x.outcome}] {x.text}" for x in checks),
                }
            )
    path = study_directory(c) / f"{study}-sensitivity.csv"
    pd.DataFrame(lines).to_csv(path, index=False)
    for i, claim in enumerate(claims):
        c.notes.append(
            f"{study} sensitivity ({scope}), claim {i + 1} '{claim.text}': "
            + _spread(verdicts.get(i, {}))
        )
        for (ci, j), by_setting in sorted(outcomes.items()):
            if ci == i:
                c.notes.append(f"  check {j + 1}: {_spread(by_setting)}")
    c.notes.append(f"{study} sensitivity, every setting's verdicts and checks: {path}")


def _setting(key: str, value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return key.replace(" ", "-") if value else ""
    if isinstance(value, float):
        return f"{key}={value:g}"
    return f"{key}={value}"


def study_directory(c: Context) -> Path:
    """The study's directory (where its CSV and figure go): two up from a sweep's store."""
    store = next(r for r in c.results.values() if r is not None).store
    return Path(store.root).parent.parent


def _spread(by_setting: Mapping[str, str]) -> str:
    """``robust: held at all 24 settings`` or the commonest result and the settings that differ."""
    counts = pd.Series(list(by_setting.values())).value_counts()
    common, n = str(counts.index[0]), int(counts.iloc[0])
    if n == len(by_setting):
        return f"robust: {common} at all {n} settings"
    others = "; ".join(f"{o} at {s.strip()}" for s, o in by_setting.items() if o != common)
    return f"depends on them: {common} at {n} of {len(by_setting)} settings; {others}"
