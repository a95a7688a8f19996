"""The outcome of one run: pandas tables, a summary, and their files on disk.

A results directory holds::

    scenario.toml     the scenario with every default filled in (run it again to repeat the run)
    summary.json      name, seed, profile and stack settings, durations, event counts, version,
                      and the command that made the directory (``command``, ``cwd``) when
                      ``ccsim run`` wrote it
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

from ccsim.errors import ScenarioError
from ccsim.scenario import Scenario

__all__ = ["PCAP_DIR", "TABLES", "Results", "check_destination", "table_to_frame"]

#: Every table a run produces, in the order they are written.
TABLES = ("flows", "links", "series", "queues", "drops")
#: The subdirectory of a results directory that holds the pcap files.
PCAP_DIR = "pcap"
# Written even when empty, so a results directory always has them.
_ALWAYS_WRITTEN = ("flows", "links")

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
        """The summary, the stack profile and the flows and links tables, for Jupyter."""
        from ccsim.report import results_html

        return results_html(self)

    # ---- files ------------------------------------------------------------------------------

    def write(self, directory: str | os.PathLike[str], *, command: str | None = None) -> Path:
        """Write the results directory; returns its path.

        Everything is written into a temporary directory beside the target, which then replaces
        the target in one rename: a failure leaves the old directory (or none) in place.
        An existing target is replaced only if it is itself a results directory. ``command``, the
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
            _swap_into_place(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return target

    def _write_files(self, directory: Path) -> None:
        (directory / "scenario.toml").write_text(self.scenario.to_toml(), encoding="utf-8")
        summary = json.dumps(self._summary, indent=2, allow_nan=False)
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
        """Read a results directory written by :meth:`write`."""
        import pyarrow.parquet as pq

        directory = Path(directory)
        if not (directory / "summary.json").is_file():
            raise ScenarioError(f"{directory}: not a ccsim results directory (no summary.json)")
        scenario = Scenario.load(directory / "scenario.toml")
        summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
        tables = {}
        for name in TABLES:
            path = directory / f"{name}.parquet"
            tables[name] = pq.read_table(path).to_pandas() if path.exists() else pd.DataFrame()
        pcap = {
            path.stem: path.read_bytes() for path in sorted(directory.glob(f"{PCAP_DIR}/*.pcap"))
        }
        return cls(scenario, tables, summary, pcap)


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write a table so that the same data always gives the same bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    # The pandas metadata (index description, pandas version) is what could vary between runs
    # and installs; the columns alone carry the data.
    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
    pq.write_table(table, path, compression="zstd")


def check_destination(directory: str | os.PathLike[str]) -> None:
    """Raise :class:`ScenarioError` unless ``directory`` is new or an earlier results directory.

    :meth:`Results.write` replaces its target, so it refuses to replace anything else.
    """
    target = Path(directory)
    if not target.exists():
        return
    if not target.is_dir():
        raise ScenarioError(
            f"{target}: exists and is not a directory; expected a results directory path"
        )
    if any(target.iterdir()) and not (target / "summary.json").is_file():
        raise ScenarioError(
            f"{target}: exists and is not a ccsim results directory; "
            "expected a new path or an earlier results directory"
        )


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
