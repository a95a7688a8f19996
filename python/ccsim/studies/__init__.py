"""Named studies: the experiments of the seed papers, one command each.

>>> from ccsim import studies
>>> [s.id for s in studies.list_studies()][:3]                     # doctest: +SKIP
['R1', 'R2', 'R3']
>>> report = studies.run("phase-effects", quick=True)             # doctest: +SKIP
>>> report.table, [v.verdict for v in report.verdicts]            # doctest: +SKIP

A study is found by its ID (``R6``, case-insensitive) or its slug (``phase-effects``). It runs
through the sweep machinery into ``results/studies/<ID>/`` (resumable and cached: running it
again only runs what is missing), prints ours next to the published numbers, and writes
``<ID>.csv``, ``<ID>.png`` and ``<ID>-verdicts.csv`` there. docs/studies/ reports the results.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ccsim.errors import ScenarioError
from ccsim.studies.bbr import STUDIES as BBR
from ccsim.studies.core import Settings, Study, StudyReport, run_study
from ccsim.studies.free_drop import STUDIES as FREE_DROP
from ccsim.studies.highspeed_parking_lot import STUDIES as HIGHSPEED_PARKING_LOT
from ccsim.studies.l4s import STUDIES as L4S
from ccsim.studies.links import STUDIES as LINKS
from ccsim.studies.randomized_tcp import STUDIES as RANDOMIZED_TCP
from ccsim.studies.sync_tcp import STUDIES as SYNC_TCP
from ccsim.studies.tcp_fusion import STUDIES as TCP_FUSION

__all__ = ["PROFILES", "Settings", "Study", "StudyReport", "get", "list_studies", "run"]

#: The stack profiles a study can be re-run under.
PROFILES = ("ns2", "rfc", "linux-sack", "linux")

#: Paper by paper (seeds 000-004), each paper's studies in their order.
_REGISTRY: tuple[Study, ...] = (
    *RANDOMIZED_TCP,
    *FREE_DROP,
    *TCP_FUSION,
    *SYNC_TCP,
    *HIGHSPEED_PARKING_LOT,
    *BBR,
    *L4S,
    *LINKS,
)


def list_studies() -> list[Study]:
    """Every registered study, paper by paper (seeds 000-004, docs/studies/), in study order."""
    return list(_REGISTRY)


def get(name: str) -> Study:
    """The study with this ID (``R6``, any case) or slug (``phase-effects``)."""
    wanted = name.strip().lower()
    for study in _REGISTRY:
        if wanted in (study.id.lower(), study.slug):
            return study
    known = ", ".join(f"{s.id} ({s.slug})" for s in _REGISTRY)
    raise ScenarioError(f"unknown study {name!r}; expected one of: {known}")


def run(
    name: str,
    quick: bool = False,
    *,
    profile: str | None = None,
    replicates: int | None = None,
    first_seed: int = 1,
    out: str | Path | None = None,
    workers: int | None = None,
    console: Any = None,
    progress: bool = False,
    wide: bool = False,
) -> StudyReport:
    """Run the study ``name`` and return its report (table, verdicts, files written).

    ``quick`` shortens it (fewer points and seeds, shorter runs) for CI and a first look;
    ``profile`` re-runs it under another TCP stack profile (default: the study's own, ns2 for the
    ns-2 papers, linux for L1); ``replicates`` overrides the number
    of seeds, and ``first_seed`` (default 1) is the first of them (seeds ``first_seed`` ..
    ``first_seed + n - 1``; run one seed at a time to see how a result varies). Results go to
    ``out`` (default ``results/studies/<ID>``, with ``-<profile>`` and ``-quick`` suffixes when
    not the full ns2 run). ``console``: a rich Console to print the setup, the table and the
    verdicts to; the table is fitted to its width unless ``wide``.
    """
    study = get(name)
    profile = profile or study.profile
    if profile not in PROFILES:
        raise ScenarioError(f"unknown profile {profile!r}; expected one of: {', '.join(PROFILES)}")
    if replicates is not None and replicates < 1:
        raise ScenarioError(f"replicates: {replicates} is not >= 1")
    if first_seed < 1:
        raise ScenarioError(f"first_seed: {first_seed} is not >= 1")
    settings = Settings(quick=quick, profile=profile, replicates=replicates, first_seed=first_seed)
    return run_study(
        study, settings, out, workers=workers, console=console, progress=progress, wide=wide
    )
