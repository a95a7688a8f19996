"""The machinery every named study shares, in one namespace for the studies to import from.

Each concern has its module; this one gathers their names:

* :mod:`ccsim.studies.model`: what a study is (:class:`Study`, :class:`Settings`,
  :class:`FigureSpec`), what its analysis reads (:class:`Context`) and what running it gives
  (:class:`StudyReport`);
* :mod:`ccsim.studies.evidence`: quantities measured over replicates and their intervals;
* :mod:`ccsim.studies.checks`: claims, the checks that test them and the verdicts graded from
  the checks;
* :mod:`ccsim.studies.tables`: the comparison table (built from per-run values, its intervals,
  its text form);
* :mod:`ccsim.studies.running`: :func:`run_study` (the sweeps, the analysis, more replicates
  while a check is inconclusive);
* :mod:`ccsim.studies.figures`, :mod:`ccsim.studies.files` and :mod:`ccsim.studies.console`: the
  figure, the files of a study directory and the printout.
"""

from __future__ import annotations

from ccsim.studies.checks import (
    FAILED,
    HELD,
    INCONCLUSIVE,
    NO_DATA,
    NOT_REPRODUCED,
    NOT_RUN,
    NOT_RUN_QUICK,
    PARTLY,
    REPRODUCED,
    REVERSED,
    VERDICTS,
    Check,
    Claim,
    ClaimResult,
    band,
    compare,
    grade,
    within,
)
from ccsim.studies.console import VERDICT_COLOURS, print_report, print_setup, timing_line
from ccsim.studies.evidence import (
    ANY,
    CI_LEVEL,
    CORRELATION,
    MIN_REPLICATES,
    NONNEGATIVE,
    UNIT,
    Bounds,
    Quantity,
    Replicates,
    interval,
    measure,
)
from ccsim.studies.figures import MAX_BAR_LABELS, study_figure
from ccsim.studies.files import STUDY_METADATA, default_directory, study_command
from ccsim.studies.model import Context, FigureSpec, Settings, Study, StudyReport
from ccsim.studies.running import available_algorithms, prune, run_study, seeds_per_point
from ccsim.studies.tables import (
    SHOWN_COLUMNS,
    VALUE_COLUMNS,
    format_interval,
    metric_records,
    per_run,
    shown_rows,
    summarise,
    value,
    with_intervals,
)

__all__ = [
    "ANY",
    "CI_LEVEL",
    "CORRELATION",
    "FAILED",
    "HELD",
    "INCONCLUSIVE",
    "MAX_BAR_LABELS",
    "MIN_REPLICATES",
    "NONNEGATIVE",
    "NOT_REPRODUCED",
    "NOT_RUN",
    "NOT_RUN_QUICK",
    "NO_DATA",
    "PARTLY",
    "REPRODUCED",
    "REVERSED",
    "SHOWN_COLUMNS",
    "STUDY_METADATA",
    "UNIT",
    "VALUE_COLUMNS",
    "VERDICTS",
    "VERDICT_COLOURS",
    "Bounds",
    "Check",
    "Claim",
    "ClaimResult",
    "Context",
    "FigureSpec",
    "Quantity",
    "Replicates",
    "Settings",
    "Study",
    "StudyReport",
    "available_algorithms",
    "band",
    "compare",
    "default_directory",
    "format_interval",
    "grade",
    "interval",
    "measure",
    "metric_records",
    "per_run",
    "print_report",
    "print_setup",
    "prune",
    "run_study",
    "seeds_per_point",
    "shown_rows",
    "study_command",
    "study_figure",
    "summarise",
    "timing_line",
    "value",
    "with_intervals",
    "within",
]
