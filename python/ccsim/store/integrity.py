"""Whether a run directory holds what was written (see :mod:`ccsim.store`): checksums.json,
written last, lists every other file's size and SHA-256; runs written before checksums were
recorded are checked by their files being there and opening."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ccsim.results import TABLES
from ccsim.store.files import (
    CHECKSUMS_FORMAT,
    RUN_CHECKSUMS,
    RUN_FILES,
    describe_error,
    write_atomically,
)


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def write_checksums(directory: Path) -> None:
    """Record every file of a run directory (but this record) with its size and SHA-256."""
    files = {}
    for path in sorted(directory.rglob("*")):
        name = path.relative_to(directory).as_posix()
        if path.is_file() and name != RUN_CHECKSUMS:
            files[name] = {"bytes": path.stat().st_size, "sha256": _sha256(path)}
    record = {"format": CHECKSUMS_FORMAT, "files": files}
    write_atomically(directory / RUN_CHECKSUMS, json.dumps(record, indent=1) + "\n")


def _read_checksums(path: str) -> dict[str, tuple[int, str]]:
    """The files checksums.json lists: name -> (size, SHA-256); ValueError if malformed."""
    with open(path, encoding="utf-8") as handle:
        record = json.load(handle)
    if not isinstance(record, dict) or record.get("format") != CHECKSUMS_FORMAT:
        raise ValueError(f"not format {CHECKSUMS_FORMAT}")
    files = record.get("files")
    if not isinstance(files, dict):
        raise ValueError("no table of files")
    listed = {}
    for name, entry in files.items():
        parts = name.split("/")
        if not name or name.startswith("/") or ".." in parts or "" in parts:
            raise ValueError(f"lists {name!r}, outside the run directory")
        size = entry.get("bytes") if isinstance(entry, dict) else None
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        if type(size) is not int or not isinstance(digest, str):
            raise ValueError(f"{name}: expected bytes and sha256")
        listed[name] = (size, digest)
    return listed


def run_damage(directory: Path, *, checksums: bool) -> tuple[str | None, frozenset[str], bool]:
    """What is wrong with a run directory (None: nothing), the files the run wrote, and whether
    it records checksums. Checks every size; with ``checksums``, reads and hashes every file."""
    # Plain strings, not Paths: this runs for every run of a sweep at every query.
    where = os.fspath(directory)
    try:
        listed = _read_checksums(os.path.join(where, RUN_CHECKSUMS))
    except FileNotFoundError:
        return *_unrecorded_run_damage(directory, thorough=checksums), False
    except (OSError, ValueError) as error:
        return f"{RUN_CHECKSUMS} cannot be read ({describe_error(error)})", frozenset(), True
    written = frozenset(listed)
    for name in RUN_FILES:
        if name not in listed:
            return f"{RUN_CHECKSUMS} does not list {name}", written, True
    for name, (size, _) in listed.items():
        try:
            found = os.stat(os.path.join(where, name)).st_size
        except FileNotFoundError:
            return f"{name} is missing", written, True
        except OSError as error:
            return f"{name} cannot be read ({describe_error(error)})", written, True
        if found != size:
            return f"{name} is {found} bytes; expected {size}", written, True
    if checksums:
        for name, (_, digest) in listed.items():
            try:
                if _sha256(Path(where, name)) != digest:
                    changed = (
                        f"{name}: its SHA-256 differs from the one recorded when it was written"
                    )
                    return changed, written, True
            except OSError as error:
                return f"{name} cannot be read ({describe_error(error)})", written, True
    return None, written, True


def _unrecorded_run_damage(directory: Path, *, thorough: bool) -> tuple[str | None, frozenset[str]]:
    """For a run written before checksums were recorded: what is wrong, if its files are not
    all there, not all hold something, or do not open (JSON that parses; Parquet that ends as
    Parquet does, or with ``thorough``, whose footer reads), and the files in its directory. A
    changed byte that keeps a file readable cannot be seen."""
    try:
        names = frozenset(path.name for path in directory.iterdir())
    except OSError as error:
        return f"cannot be listed ({describe_error(error)})", frozenset()
    if not names:
        return "the directory is empty", names
    for name in RUN_FILES:
        if name not in names:
            return f"{name} is missing", names
        try:
            if (directory / name).stat().st_size == 0:
                return f"{name} is empty", names
            if name.endswith(".json") and not isinstance(
                json.loads((directory / name).read_text(encoding="utf-8")), dict
            ):
                return f"{name} does not hold a JSON object", names
        except (OSError, ValueError) as error:
            return f"{name} cannot be read ({describe_error(error)})", names
    for table in TABLES:
        if f"{table}.parquet" in names:
            problem = _parquet_problem(directory / f"{table}.parquet", thorough=thorough)
            if problem is not None:
                return f"{table}.parquet {problem}", names
    return None, names


def _parquet_problem(path: Path, *, thorough: bool) -> str | None:
    """Why ``path`` is not a whole Parquet file, if it is not: it must begin and end with the
    magic bytes, its footer fit in it, and with ``thorough``, its footer must read."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
            size = handle.seek(0, os.SEEK_END)
            if size < 12:
                return f"is {size} bytes, too short for Parquet"
            handle.seek(size - 8)
            tail = handle.read(8)
    except OSError as error:
        return f"cannot be read ({describe_error(error)})"
    footer = int.from_bytes(tail[:4], "little")
    if head != b"PAR1" or tail[4:] != b"PAR1" or footer > size - 12:
        return "does not begin and end as Parquet does (truncated?)"
    if thorough:
        import pyarrow.parquet as pq  # slow to import: only where Parquet is read

        try:
            pq.read_metadata(path)
        except (OSError, ValueError) as error:
            return f"cannot be read as Parquet ({describe_error(error)})"
    return None
