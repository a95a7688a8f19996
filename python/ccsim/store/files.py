"""Names and writing of the files in a sweep directory (see :mod:`ccsim.store`): the layout's
file names, temporary files that tell a live writer from a dead one, and atomic replacement."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

MANIFEST = "sweep.json"
CATALOG = "catalog.duckdb"
METRICS = "metrics.json"
#: In each run directory: every other file's size and SHA-256, written last.
RUN_CHECKSUMS = "checksums.json"
#: Where a damaged run directory goes when its run is written again.
DAMAGED = "damaged"
MANIFEST_FORMAT = 1
CHECKSUMS_FORMAT = 1
RUN_ID_PATTERN = re.compile(r"[0-9a-f]{16}")
# What a sweep directory holds besides its manifest.
STORE_ENTRIES = {"runs", "errors", ".staging", ".lock", CATALOG, "plots", DAMAGED}
# Files every run directory holds (Results.write writes the first four, save_run metrics.json).
RUN_FILES = ("scenario.toml", "summary.json", "flows.parquet", "links.parquet", METRICS)


# Temporary files of the catalogue and the manifest: ".NAME.PID.HEX.tmp" (and DuckDB's ".wal"
# beside one); files of an earlier format have no PID.
TEMPORARY_FILE_PATTERN = re.compile(
    rf"\.(?:{re.escape(CATALOG)}|{re.escape(MANIFEST)})\.(?:(\d+)\.)?[0-9a-f]{{32}}\.tmp(?:\.wal)?"
)


def temporary_name(name: str) -> str:
    """A temporary file name beside ``name``, carrying this process's id so that a later sweep
    can tell a dead writer's leftovers from a live writer's file."""
    return f".{name}.{os.getpid()}.{uuid.uuid4().hex}.tmp"


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (0: unknown, treated as dead)."""
    if pid <= 0 or pid == os.getpid():
        return pid == os.getpid()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists but is not ours, or cannot tell: leave its files alone
    return True


def describe_error(error: BaseException) -> str:
    """An error in one line: an OSError's reason and file, the first line of anything else."""
    if isinstance(error, OSError) and error.strerror:
        return f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    lines = str(error).strip().splitlines()
    return lines[0].strip() if lines else type(error).__name__


def write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(temporary_name(path.name))
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
