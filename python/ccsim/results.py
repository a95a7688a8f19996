"""The outcome of one run: pandas tables, a summary, and their files on disk.

A results directory holds::

    scenario.toml     the scenario with every default filled in (run it again to repeat the run)
    summary.json      name, seed, profile and stack settings, durations, event counts, version,
                      and the command that made the directory (``command``, ``cwd``) when
                      ``ccsim run`` wrote it; ``"written_by": "ccsim"`` and ``results_format``
                      mark the directory as ccsim's own (what :meth:`Results.write` may replace)
    flows.parquet     one row per flow
    links.parquet     one row per link direction
    series.parquet    sampled cwnd/ssthresh/srtt/rate per flow   (only when sampled), and
                      cc_* columns: what the algorithms report of their own state
    queues.parquet    sampled queue lengths per monitored link    (only when sampled)
    drops.parquet     every drop                                  (only when logged)
    pcap/             one pcap file per capture point of ``[trace] pcap``: link-<src>-<dst>.pcap,
                      flow-<id>.pcap                              (only when captured)

Parquet files are byte-identical for the same scenario and seed: no pandas index or schema
metadata is stored and the compression is fixed.

Writing replaces an existing directory only if ccsim wrote it and it holds nothing else (see
:func:`check_destination`); reading a damaged directory raises :class:`ScenarioError` naming the
file and what is wrong with it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ccsim import display
from ccsim.errors import ScenarioError
from ccsim.scenario import Scenario

__all__ = [
    "PCAP_DIR",
    "RESULTS_FORMAT",
    "TABLES",
    "WRITTEN_BY",
    "Results",
    "check_destination",
    "table_to_frame",
]

#: Every table a run produces, in the order they are written.
TABLES = ("flows", "links", "series", "queues", "drops")
#: The subdirectory of a results directory that holds the pcap files.
PCAP_DIR = "pcap"
# Written even when empty, so a results directory always has them.
_ALWAYS_WRITTEN = ("flows", "links")
#: summary.json's ``written_by``: the mark of a directory ccsim wrote (and so may replace).
WRITTEN_BY = "ccsim"
#: summary.json's ``results_format``: the layout of the directory, raised if it ever changes in a
#: way that readers (and the check of what may be replaced) must know about.
RESULTS_FORMAT = 1
# Keys about the directory, not about the run: written into summary.json, left out of
# Results.summary.
_MARKER_KEYS = ("written_by", "results_format")
# Keys every summary.json has carried since the first release: with the check that the directory
# holds only ccsim's files, how a directory written before the marker is recognised.
_LEGACY_SUMMARY_KEYS = ("name", "seed", "ccsim_version")
# Files that ccsim writes into a results directory: the run's own, those a sweep adds to its runs
# (for a run copied out of a sweep), and the default outputs of `ccsim report DIR` and `ccsim plot
# DIR`.
_CCSIM_FILES = frozenset(
    {"scenario.toml", "summary.json", "metrics.json", "checksums.json", "report.html"}
    | {f"{name}.parquet" for name in TABLES}
)
_PLOTS_DIR = "plots"
# The figures `ccsim plot DIR` writes into DIR/plots (ccsim.plots.run_figures' kinds).
_PLOT_FILE = re.compile(r"(cwnd|throughput|queue|flows|cdf)\.(png|svg)")
# A sweep directory holds this manifest and a runs/ directory (ccsim.store); its runs are written
# only by the sweep, through its .staging/ directory.
_SWEEP_MANIFEST = "sweep.json"
_SWEEP_STAGING = ".staging"

# The engine sends numeric columns as little-endian raw bytes, named like "f64", "u32", "u8".
_NUMERIC_DTYPE = re.compile(r"([fiu])(8|16|32|64)")


def table_to_frame(table: Mapping[str, Any]) -> pd.DataFrame:
    """Turn one engine table ``{"names", "dtypes", "data"}`` into a DataFrame.

    Columns are taken as they come, so new engine columns appear without changes here.
    """
    columns: dict[str, Any] = {}
    for name, dtype, data in zip(table["names"], table["dtypes"], table["data"], strict=True):
        if dtype == "str":
            columns[name] = pd.Series(list(data), dtype="str")
        elif match := _NUMERIC_DTYPE.fullmatch(dtype):
            numpy_dtype = f"<{match.group(1)}{int(match.group(2)) // 8}"
            # frombuffer gives a read-only view of the bytes; copy so the frame owns its data.
            columns[name] = np.frombuffer(data, dtype=numpy_dtype).copy()
        else:
            raise ValueError(f"column {name!r} has unknown dtype {dtype!r}")
    return pd.DataFrame(columns)


class Results:
    """Tables and summary of one run (from :func:`ccsim.run` or :meth:`Results.load`)."""

    def __init__(
        self,
        scenario: Scenario,
        tables: Mapping[str, pd.DataFrame],
        summary: Mapping[str, Any],
        pcap: Mapping[str, bytes] | None = None,
    ):
        self.scenario = scenario
        self._tables = {name: tables.get(name, pd.DataFrame()) for name in TABLES}
        self._summary = dict(summary)
        self._pcap = dict(pcap or {})

    @classmethod
    def from_engine(
        cls, scenario: Scenario, output: Mapping[str, Any], *, wall_s: float, version: str
    ) -> Results:
        """Build from the dict returned by ``_core.Simulation.finish()``."""
        tables = {name: table_to_frame(table) for name, table in output["tables"].items()}
        stats = output["stats"]
        summary = {
            "name": scenario.name,
            "seed": scenario.seed,
            "profile": scenario.profile,
            "stack": dict(output["stack"]),
            "duration_s": scenario.duration / 1e9,
            "sim_end_s": stats["sim_end_ns"] / 1e9,
            "wall_s": wall_s,
            "events": stats["events"],
            "packet_hops": stats["packet_hops"],
            "events_per_s": stats["events"] / wall_s if wall_s > 0 else None,
            "ccsim_version": version,
        }
        return cls(scenario, tables, summary, output.get("pcap"))

    # ---- the tables -------------------------------------------------------------------------

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow: goodput, retransmits, timeouts, completion time..."""
        return self._tables["flows"]

    @property
    def links(self) -> pd.DataFrame:
        """One row per link direction: utilization, drops, queue lengths..."""
        return self._tables["links"]

    @property
    def series(self) -> pd.DataFrame:
        """Sampled cwnd, ssthresh, srtt and rate per flow (empty unless ``trace.sample_interval``).

        Algorithms that report their own state add ``cc_<name>`` columns (Vegas ``cc_diff``, CUBIC
        ``cc_w_max`` and ``cc_k``...), sorted by name, NaN in rows of flows that do not report
        the name; a run whose algorithms report nothing has none.
        """
        return self._tables["series"]

    @property
    def queues(self) -> pd.DataFrame:
        """Sampled queue lengths of monitored links (empty unless ``trace.sample_interval``)."""
        return self._tables["queues"]

    @property
    def drops(self) -> pd.DataFrame:
        """Every dropped packet (empty unless ``trace.drops``)."""
        return self._tables["drops"]

    @property
    def pcap(self) -> dict[str, bytes]:
        """The pcap files of ``[trace] pcap`` by name (``"link-R1-R2"``, ``"flow-3"``), one per
        capture point, in the scenario's order; empty without capture. See docs/pcap.md."""
        return dict(self._pcap)

    def write_pcap(self, directory: str | os.PathLike[str]) -> list[Path]:
        """Write the pcap files into ``directory`` (created if needed) as ``<name>.pcap``;
        returns their paths. Each file is written beside its final name and renamed into place."""
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, data in self._pcap.items():
            path = target / f"{name}.pcap"
            staging = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
            try:
                staging.write_bytes(data)
                os.replace(staging, path)
            except BaseException:
                staging.unlink(missing_ok=True)
                raise
            paths.append(path)
        return paths

    @property
    def summary(self) -> dict[str, Any]:
        """Name, seed, profile, resolved stack settings, durations, event counts and version."""
        return dict(self._summary)

    def __repr__(self) -> str:
        return (
            f"<Results {self.scenario.name}: {len(self.flows)} flows, {len(self.links)} links, "
            f"{self._summary.get('duration_s')} s simulated>"
        )

    def _repr_html_(self) -> str:
        """The summary, the stack profile and the flows and links tables, for Jupyter (drawn by
        :mod:`ccsim.report`, registered in :mod:`ccsim.display`)."""
        return display.html(self)

    # ---- files ------------------------------------------------------------------------------

    def write(self, directory: str | os.PathLike[str], *, command: str | None = None) -> Path:
        """Write the results directory; returns its path.

        Everything is written into a temporary directory beside the target, which then replaces
        the target in one rename: a failure leaves the old directory (or none) in place.
        An existing target is replaced only if ccsim wrote it and it holds nothing else; a
        directory of a sweep is never written (see :func:`check_destination`). ``command``, the
        command line that made the run, is recorded in summary.json (``command``, and the
        working directory as ``cwd``).
        """
        if command is not None:
            self._summary["command"] = command
            self._summary["cwd"] = os.getcwd()
        target = Path(directory).absolute()
        check_destination(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Not tempfile.mkdtemp: its directories are private (0700); results should get the
        # permissions of any new directory.
        staging = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        staging.mkdir()
        try:
            self._write_files(staging)
            # Again: the target may have changed while the files were written.
            check_destination(target)
            _swap_into_place(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return target

    def _write_files(self, directory: Path) -> None:
        (directory / "scenario.toml").write_text(self.scenario.to_toml(), encoding="utf-8")
        marked = {"written_by": WRITTEN_BY, "results_format": RESULTS_FORMAT}
        summary = json.dumps(marked | self._summary, indent=2, allow_nan=False)
        (directory / "summary.json").write_text(summary + "\n", encoding="utf-8")
        trace = self.scenario.trace
        # A table the scenario asked for is written even when empty (a run without drops still
        # has its drops.parquet), so readers can tell "none" from "not traced".
        traced = {
            "series": trace.sample_interval is not None,
            "queues": trace.sample_interval is not None,
            "drops": trace.drops,
        }
        for name in TABLES:
            frame = self._tables[name]
            if (
                name in _ALWAYS_WRITTEN
                or len(frame) > 0
                or (traced.get(name) and len(frame.columns))
            ):
                _write_parquet(frame, directory / f"{name}.parquet")
        if self._pcap:
            self.write_pcap(directory / PCAP_DIR)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Results:
        """Read a results directory written by :meth:`write`.

        A missing, truncated or damaged file raises :class:`ScenarioError` naming it.
        """
        directory = Path(directory)
        if not (directory / "summary.json").is_file():
            raise ScenarioError(f"{directory}: not a ccsim results directory (no summary.json)")
        scenario = Scenario.load(directory / "scenario.toml")
        summary = _read_summary(directory / "summary.json")
        tables = {}
        for name in TABLES:
            path = directory / f"{name}.parquet"
            if path.exists():
                tables[name] = _read_parquet(path)
            elif name in _ALWAYS_WRITTEN:
                raise ScenarioError(
                    f"{path}: missing; every results directory has it (this one was not written "
                    "completely, or the file was removed): run the scenario again"
                )
            else:
                tables[name] = pd.DataFrame()
        pcap = {
            path.stem: path.read_bytes() for path in sorted(directory.glob(f"{PCAP_DIR}/*.pcap"))
        }
        return cls(scenario, tables, summary, pcap)


def _read_summary(path: Path) -> dict[str, Any]:
    """A results directory's summary.json, without the keys that mark the directory."""
    summary = read_json_object(
        path, "the summary ccsim wrote", remedy="run the scenario again", missing=None
    )
    return {key: value for key, value in summary.items() if key not in _MARKER_KEYS}


def read_json_object(
    path: Path, expected: str, *, remedy: str, missing: str | None
) -> dict[str, Any]:
    """The JSON object in ``path`` (a file ccsim wrote: ``expected`` says which); a file that
    is missing (when ``missing`` says what was expected instead), not UTF-8, not JSON or not an
    object raises :class:`ScenarioError` in one line, ending with ``remedy`` where it helps."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if missing is None:
            raise
        raise ScenarioError(f"{path}: no such file; expected {missing}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not a UTF-8 text file; expected {expected}") from None
    except ValueError as error:
        reason = error.args[0] if error.args else "invalid"
        raise ScenarioError(
            f"{path}: not valid JSON ({reason}; truncated or damaged); expected {expected}: "
            f"{remedy}"
        ) from None
    if not isinstance(data, dict):
        raise ScenarioError(
            f"{path}: holds a JSON {type(data).__name__}; expected a JSON object, {expected}: "
            f"{remedy}"
        )
    return data


def _read_parquet(path: Path) -> pd.DataFrame:
    """One table of a results directory; a damaged file raises :class:`ScenarioError`."""
    # pyarrow is slow to import: only where Parquet is written or read
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pandas()
    except (pa.ArrowException, OSError) as error:
        # A damaged file makes pyarrow raise ArrowInvalid or an OSError without errno; an OSError
        # with one (permission denied, an I/O error) is the machine's, not the file's.
        if isinstance(error, OSError) and error.errno is not None:
            raise
        reason = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
        # pyarrow's messages start with "Could not open Parquet input source '<path>': ".
        reason = re.sub(r"^Could not open Parquet input source '.*?': ", "", reason)
        raise ScenarioError(
            f"{path}: not a readable Parquet file ({reason}); expected the table ccsim wrote "
            "(the file is truncated or damaged): run the scenario again"
        ) from None


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write a table so that the same data always gives the same bytes."""
    # pyarrow is slow to import: only where Parquet is written or read
    import pyarrow as pa
    import pyarrow.parquet as pq

    # The pandas metadata (index description, pandas version) is what could vary between runs
    # and installs; the columns alone carry the data.
    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
    pq.write_table(table, path, compression="zstd")


def check_destination(directory: str | os.PathLike[str]) -> None:
    """Raise :class:`ScenarioError` unless ``directory`` may be written by :meth:`Results.write`.

    That is a new path, an empty directory, or a results directory that ccsim wrote and that
    holds nothing but ccsim's files: :meth:`Results.write` replaces its target whole, and ccsim
    never deletes what it did not write. Refused besides: a symbolic link (replacing it would
    change what the user linked) and any path inside a sweep directory (its runs are the
    sweep's record, written only by the sweep).
    """
    target = Path(directory)
    if target.is_symlink():
        raise ScenarioError(
            f"{target}: is a symbolic link (to {os.readlink(target)}); expected a directory "
            "path: give the directory itself, or a new path"
        )
    store = _enclosing_sweep(target)
    if store is not None:
        raise ScenarioError(
            f"{target}: inside the sweep directory {store}, whose runs only `ccsim sweep` "
            "writes; expected a path outside it"
        )
    if not target.exists():
        return
    if not target.is_dir():
        raise ScenarioError(
            f"{target}: exists and is not a directory; expected a results directory path"
        )
    entries = sorted(target.iterdir())
    if not entries:
        return  # nothing in it to lose
    not_ccsim = _why_not_written_by_ccsim(target / "summary.json")
    if not_ccsim:
        raise ScenarioError(
            f"{target}: exists and is not a ccsim results directory (not written by ccsim: "
            f"{not_ccsim}); expected a new path or a results directory ccsim wrote"
        )
    foreign = [entry.name for entry in entries if not _is_ccsim_entry(entry)]
    if foreign:
        shown = ", ".join(foreign[:3]) + (
            f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        )
        raise ScenarioError(
            f"{target}: holds {shown}, which ccsim did not write; expected a results directory "
            "holding only ccsim's files, as it replaces it whole: move them elsewhere or write "
            "to another path"
        )


def _why_not_written_by_ccsim(summary_path: Path) -> str | None:
    """None when summary.json says ccsim wrote its directory, else why not."""
    if not summary_path.is_file():
        return "no summary.json"
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "its summary.json is not ccsim's JSON"
    if not isinstance(summary, dict):
        return "its summary.json is not ccsim's"
    if summary.get("written_by") == WRITTEN_BY:
        return None
    # Directories written before the marker have none. Their summary.json has always had these
    # keys; the caller also requires every entry to be a file ccsim writes, so a directory of
    # another tool would have to copy both ccsim's summary and its file names to be replaced,
    # and even then nothing but files named like ccsim's would go.
    if "written_by" not in summary and all(key in summary for key in _LEGACY_SUMMARY_KEYS):
        return None
    return f'its summary.json has no "written_by": "{WRITTEN_BY}"'


def _is_ccsim_entry(entry: Path) -> bool:
    """Whether ``entry`` (in a results directory) is something ccsim writes there."""
    if entry.is_symlink():
        return False
    if entry.name in _CCSIM_FILES:
        return entry.is_file()
    if entry.name == PCAP_DIR and entry.is_dir():
        return all(
            p.is_file() and not p.is_symlink() and p.suffix == ".pcap" for p in entry.iterdir()
        )
    if entry.name == _PLOTS_DIR and entry.is_dir():
        return all(
            p.is_file() and not p.is_symlink() and _PLOT_FILE.fullmatch(p.name)
            for p in entry.iterdir()
        )
    return False


def _enclosing_sweep(target: Path) -> Path | None:
    """The sweep directory that ``target`` is or is inside, unless it is in the sweep's own
    staging area (where the sweep writes its runs before renaming them into runs/)."""
    path = Path(os.path.abspath(target))  # ".." resolved as written, links not followed
    for ancestor in (path, *path.parents):
        if (ancestor / _SWEEP_MANIFEST).is_file() and (ancestor / "runs").is_dir():
            inside = path.relative_to(ancestor).parts
            return None if inside[:1] == (_SWEEP_STAGING,) else ancestor
    return None


def _swap_into_place(staging: Path, target: Path) -> None:
    """Rename ``staging`` to ``target``, replacing an existing ``target`` directory."""
    if not target.exists():
        os.rename(staging, target)
        return
    # A directory cannot be renamed over a non-empty one, so move the old one aside first.
    old = target.with_name(f".{target.name}.{uuid.uuid4().hex}.old")
    os.rename(target, old)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
