"""Every table the ``ccsim`` command prints, in one place: fitted to the terminal, or as CSV,
JSON lines or Markdown.

A table is a list of :class:`Column` objects, each holding its raw values (what CSV, JSON and
Markdown print, exactly) and the text a terminal shows (numbers rounded to the digits that tell
the rows apart, the unit in the header). On a terminal (:func:`print_tables`) a table never cuts
a value: a column with the same value in every row is said once above the table, and when the
rest is still wider than the terminal, the least important columns are left out, and a line
after the table names them and the option that shows them (``--wide``). A terminal gets box
drawing and colour; anything else (a pipe, a file) gets plain text aligned with spaces.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, Literal

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

__all__ = [
    "Column",
    "FormatOption",
    "OutputFormat",
    "OutputTable",
    "WideOption",
    "compact_numbers",
    "format_rate",
    "frame_columns",
    "machine_text",
    "new_console",
    "print_table",
    "print_tables",
    "rate_unit",
    "text_table",
]

Align = Literal["left", "right"]

#: Two spaces between the columns of a plain-text table.
PLAIN_GAP = 2
#: A prose column (``wrap=True``) is never made narrower than this, when it can wrap.
MIN_PROSE_WIDTH = 24
#: Text printed under a row (a column with ``below=True``) is indented by this.
BELOW_INDENT = "    "


class OutputFormat(StrEnum):
    """What a command prints its tables as."""

    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help="table (fitted to the terminal; plain text when not a terminal), csv, json (one "
        "object per line) or markdown. csv, json and markdown hold every row and column, "
        "numbers in full.",
        case_sensitive=False,
    ),
]
WideOption = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Show every column of a table, however wide the terminal (lines may wrap).",
    ),
]


@dataclass
class Column:
    """One column: ``key`` and ``values`` are what the machine formats print; ``cells`` (one
    string per value; default ``str`` of each) and ``name`` + ``unit`` are what a terminal shows.
    """

    key: str
    values: Sequence[Any]
    cells: Sequence[str] | None = None
    name: str | None = None
    unit: str = ""
    align: Align = "left"
    #: Columns are left out for width in decreasing ``drop_rank``; 0 is never left out.
    drop_rank: int = 0
    #: A column with one value in every row is said once above the table instead.
    fold_constant: bool = True
    #: Prose: may wrap at spaces on a terminal (a description, a title), never cut.
    wrap: bool = False
    #: Shown on terminals only (a formatted companion of another column); left out of csv/json.
    display_only: bool = False
    #: How the line that names the columns left out for width calls it (default: the header).
    long_name: str | None = None
    #: On a terminal, printed under each row (indented, wrapped at spaces) instead of beside it.
    below: bool = False
    #: Printed by csv/json/markdown only (the full text behind a shorter terminal column).
    machine_only: bool = False

    def __post_init__(self) -> None:
        if self.cells is None:
            self.cells = ["-" if _missing(v) else str(v) for v in self.values]
        if len(self.cells) != len(self.values):
            raise ValueError(
                f"column {self.key}: {len(self.cells)} cells, {len(self.values)} values"
            )

    @property
    def header(self) -> str:
        name = self.name if self.name is not None else self.key
        return f"{name} {self.unit}" if self.unit else name

    def shown(self) -> list[str]:
        return list(self.cells or [])


@dataclass
class OutputTable:
    """A titled table: its columns (all of equal length) and what is said after it."""

    name: str
    title: str
    columns: list[Column]
    notes: list[str] = field(default_factory=list)
    #: A terminal shows at most this many rows (the machine formats show all), and says so.
    max_rows: int | None = None
    #: How the rows are called in the line that names the columns folded away ("every flow: ").
    row_noun: str = "row"
    #: The option that shows more rows than max_rows, named in the line that says rows are left out.
    more_rows_hint: str = "--format csv shows them all"

    @property
    def rows(self) -> int:
        return len(self.columns[0].values) if self.columns else 0


def text_table(
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    right_aligned: Sequence[str] = (),
    optional: Sequence[str] = (),
    prose: Sequence[str] = (),
    notes: Sequence[str] = (),
    name: str = "table",
) -> OutputTable:
    """A table of text cells (already formatted, e.g. a study's comparison table): columns named
    in ``right_aligned`` align right, those in ``optional`` may be left out for width (the last
    named first), those in ``prose`` may wrap at spaces when leaving columns out is not enough,
    and a column with one value in every row is said once above the table."""
    columns = [
        Column(
            key=column,
            values=[row[i] for row in rows],
            align="right" if column in right_aligned else "left",
            drop_rank=(list(optional).index(column) + 1) if column in optional else 0,
            wrap=column in prose,
        )
        for i, column in enumerate(header)
    ]
    return OutputTable(name=name, title=title, columns=columns, notes=list(notes))


# ---- numbers -------------------------------------------------------------------------------------


def _missing(value: Any) -> bool:
    if value is None or type(value).__name__ == "NAType":
        return True
    try:
        return bool(isinstance(value, float) and math.isnan(value)) or (
            hasattr(value, "dtype") and bool(math.isnan(float(value)))
        )
    except (TypeError, ValueError):
        return False


def _compact(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits, as short as it reads: 0.000316, 52.4, 1.2e+07
    written 1.2e7."""
    text = f"{value:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def compact_numbers(
    values: Sequence[Any], scale: float = 1.0, min_digits: int = 3, max_digits: int = 7
) -> list[str]:
    """Numbers (times ``scale``) in compact form, with the fewest significant digits, from
    ``min_digits``, that keep apart the values that differ (0.0001 and 0.000316 stay apart, where
    two digits after the point would show 0.00 twice); whole numbers as integers; ``-`` for a
    missing value."""
    numbers: list[float | None] = []
    for value in values:
        if _missing(value) or isinstance(value, bool | str):
            numbers.append(None)
            continue
        numbers.append(float(value) * scale)
    present = [x for x in numbers if x is not None]
    if present and all(float(x).is_integer() and abs(x) < 1e15 for x in present):
        return ["-" if x is None else str(int(x)) for x in numbers]
    distinct = {_compact(x, max_digits) for x in present}
    digits = min_digits
    while digits < max_digits and len({_compact(x, digits) for x in present}) < len(distinct):
        digits += 1
    return [_text(values[i]) if x is None else _compact(x, digits) for i, x in enumerate(numbers)]


def _text(value: Any) -> str:
    return "-" if _missing(value) else str(value)


#: Rate units as ccsim prints them, largest first.
RATE_UNITS = (("Gb/s", 1e9), ("Mb/s", 1e6), ("Kb/s", 1e3), ("b/s", 1.0))


def rate_unit(bps_values: Sequence[Any]) -> tuple[str, float]:
    """The unit that shows a column of rates (bit/s) with the largest value at 1 to 999: its
    name and the factor to divide by."""
    present = [abs(float(v)) for v in bps_values if not _missing(v)]
    largest = max(present, default=0.0)
    for unit, factor in RATE_UNITS:
        if largest >= factor:
            return unit, factor
    return "Mb/s", 1e6


def format_rate(bps: float) -> str:
    """One rate as ccsim prints it: ``100 Mb/s``, ``1.5 Gb/s``, ``640 Kb/s``."""
    unit, factor = rate_unit([bps])
    return f"{compact_numbers([bps / factor], max_digits=6)[0]} {unit}"


# ---- machine formats -----------------------------------------------------------------------------


def _records(table: OutputTable) -> list[dict[str, Any]]:
    columns = [c for c in table.columns if not c.display_only]
    return [{c.key: _plain(c.values[i]) for c in columns} for i in range(table.rows)]


def _plain(value: Any) -> Any:
    """A value as JSON and CSV write it: numpy scalars as Python numbers, NaN as missing."""
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _csv(table: OutputTable) -> str:
    buffer = io.StringIO()
    columns = [c.key for c in table.columns if not c.display_only]
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for record in _records(table):
        writer.writerow({k: "" if v is None else v for k, v in record.items()})
    return buffer.getvalue()


def _json_lines(table: OutputTable, label: bool) -> str:
    lines = []
    for record in _records(table):
        shown = {"table": table.name, **record} if label else record
        lines.append(json.dumps(shown, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def _markdown(table: OutputTable) -> str:
    columns = [c for c in table.columns if not c.display_only]

    def cell(value: Any) -> str:
        value = _plain(value)
        text = "" if value is None else str(value)
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")

    lines = [f"**{cell(table.title)}**", ""] if table.title else []
    lines.append("| " + " | ".join(cell(c.key) for c in columns) + " |")
    lines.append("| " + " | ".join("---:" if c.align == "right" else "---" for c in columns) + " |")
    for i in range(table.rows):
        lines.append("| " + " | ".join(cell(c.values[i]) for c in columns) + " |")
    return "\n".join(lines) + "\n"


def machine_text(tables: Sequence[OutputTable], output: OutputFormat) -> str:
    """``tables`` as CSV, JSON lines or Markdown. Several CSV tables are separated by a blank
    line, each after a ``# NAME`` line; several JSON tables give each object a ``table`` key."""
    several = len(tables) > 1
    parts = []
    for table in tables:
        if output is OutputFormat.csv:
            parts.append((f"# {table.name}\n" if several else "") + _csv(table))
        elif output is OutputFormat.json:
            parts.append(_json_lines(table, label=several))
        else:
            parts.append(_markdown(table))
    separator = "" if output is OutputFormat.json else "\n"
    return separator.join(parts)


# ---- the terminal --------------------------------------------------------------------------------


def new_console() -> Console:
    """A console on standard output, made when it is used, so that its width (COLUMNS, or the
    terminal's) and whether it is a terminal are those of this moment."""
    return Console(highlight=False)


@dataclass
class _Fitted:
    columns: list[Column]
    widths: list[int]
    folded: list[Column]
    dropped: list[Column]
    rows: int
    width: int | None
    below: list[Column] = field(default_factory=list)


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


def _natural_width(column: Column, rows: int) -> int:
    cells = column.shown()[:rows]
    if column.wrap:
        words = max((_longest_word(c) for c in cells), default=0)
        full = max((len(c) for c in cells), default=0)
        return max(min(full, MIN_PROSE_WIDTH), words, _longest_word(column.header))
    return max(max((len(c) for c in cells), default=0), _longest_word(column.header))


def _fit(table: OutputTable, width: int | None, boxed: bool) -> _Fitted:
    rows = table.rows if table.max_rows is None else min(table.rows, table.max_rows)
    folded = [
        c
        for c in table.columns
        if c.fold_constant and not c.machine_only and rows > 1 and len(set(c.shown()[:rows])) == 1
    ]
    below = [c for c in table.columns if c.below and not c.machine_only]
    shown = [c for c in table.columns if c not in folded and c not in below and not c.machine_only]

    def total(columns: list[Column], widths: list[int]) -> int:
        if boxed:
            return sum(widths) + 3 * len(columns) + 1
        return sum(widths) + PLAIN_GAP * max(len(columns) - 1, 0)

    dropped: list[Column] = []
    widths = [_natural_width(c, rows) for c in shown]
    while width is not None and total(shown, widths) > width:
        candidates = [c for c in shown if c.drop_rank > 0]
        if not candidates:
            break
        victim = max(candidates, key=lambda c: c.drop_rank)
        index = shown.index(victim)
        dropped.append(victim)
        del shown[index], widths[index]
    # Room left: a header on one line where it fits, then prose on fewer lines.
    spare = (width - total(shown, widths)) if width is not None else 10**6
    # the headers wrapped on most lines first, the cheapest first among those
    by_need = sorted(
        range(len(shown)),
        key=lambda i: (-len(_wrap_words(shown[i].header, widths[i])), len(shown[i].header)),
    )
    for i in by_need:
        grow = max(len(shown[i].header) - widths[i], 0)
        if 0 < grow <= spare:
            widths[i] += grow
            spare -= grow
    for i, column in enumerate(shown):
        if column.wrap and spare > 0:
            full = max((len(c) for c in column.shown()[:rows]), default=0)
            grow = min(max(full - widths[i], 0), spare)
            widths[i] += grow
            spare -= grow
    return _Fitted(shown, widths, folded, dropped, rows, width, below)


def _wrap_words(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _plain_lines(fitted: _Fitted) -> list[str]:
    """The table as plain text: headers (wrapped at spaces, on the bottom lines), then a line per
    row, columns two spaces apart, numbers right-aligned, no trailing spaces."""
    headers = [_wrap_words(c.header, w) for c, w in zip(fitted.columns, fitted.widths, strict=True)]
    height = max((len(h) for h in headers), default=1)
    headers = [[""] * (height - len(h)) + h for h in headers]

    def line(cells: list[str]) -> str:
        parts = [
            cell.rjust(w) if c.align == "right" else cell.ljust(w)
            for cell, c, w in zip(cells, fitted.columns, fitted.widths, strict=True)
        ]
        return (" " * PLAIN_GAP).join(parts).rstrip()

    lines = [line([h[i] for h in headers]) for i in range(height)]
    for row in range(fitted.rows):
        wrapped = [
            _wrap_words(c.shown()[row], w) if c.wrap else [c.shown()[row]]
            for c, w in zip(fitted.columns, fitted.widths, strict=True)
        ]
        for i in range(max(len(w) for w in wrapped)):
            lines.append(line([w[i] if i < len(w) else "" for w in wrapped]))
        for column in fitted.below:
            text = column.shown()[row]
            if fitted.width is None:
                lines.append(BELOW_INDENT + text)
            else:
                width = max(fitted.width - len(BELOW_INDENT), MIN_PROSE_WIDTH)
                lines += [BELOW_INDENT + part for part in _wrap_words(text, width)]
    return lines


def _rich_table(fitted: _Fitted) -> Table:
    table = Table(box=box.HEAVY_HEAD, padding=(0, 1), header_style="bold")
    for column, width in zip(fitted.columns, fitted.widths, strict=True):
        table.add_column(
            escape("\n".join(_wrap_words(column.header, width))),
            justify=column.align,
            width=width,
            no_wrap=not column.wrap,
            overflow="fold",
        )
    for row in range(fitted.rows):
        table.add_row(*(escape(c.shown()[row]) for c in fitted.columns))
    return table


def _folded_line(table: OutputTable, folded: list[Column]) -> str:
    parts = []
    for column in folded:
        name = column.name if column.name is not None else column.key
        value = column.shown()[0]
        parts.append(f"{name} {value}{' ' + column.unit if column.unit else ''}")
    return f"every {table.row_noun}: {', '.join(parts)}"


def _after_lines(table: OutputTable, fitted: _Fitted) -> list[str]:
    lines = []
    if fitted.dropped:
        names = ", ".join(c.long_name or c.header for c in fitted.dropped)
        lines.append(f"left out for width: {names} (--wide shows them, --format csv shows all)")
    if fitted.rows < table.rows:
        lines.append(f"{fitted.rows} of {table.rows} rows shown; {table.more_rows_hint}")
    return lines + table.notes


def print_table(console: Console, table: OutputTable, *, wide: bool = False) -> None:
    """``table`` on ``console``: fitted to its width (unless ``wide``), boxed on a terminal,
    plain text otherwise. Its title comes first, then what every row shares, the table, and the
    lines that say what was left out, then the table's notes."""
    # A column printed under each row does not fit in a box: such a table is plain text.
    boxed = console.is_terminal and not any(c.below for c in table.columns)
    fitted = _fit(table, None if wide else console.width, boxed)
    if table.title:
        console.print(f"[bold]{escape(table.title)}[/bold]")
    if fitted.folded:
        console.print(escape(_folded_line(table, fitted.folded)))
    if fitted.columns and fitted.rows:
        if boxed:
            # Wider than the terminal only when nothing more could be left out: then the lines
            # wrap on the screen rather than rich cutting the values.
            needed = sum(fitted.widths) + 3 * len(fitted.columns) + 1
            width = console.width
            console.width = max(needed, width)  # print() can only narrow the console
            try:
                console.print(_rich_table(fitted), crop=False)
            finally:
                console.width = width
        else:
            # plain text goes out as it is: never re-wrapped
            console.file.write("".join(line + "\n" for line in _plain_lines(fitted)))
    for line in _after_lines(table, fitted):
        console.print(escape(line))


def print_tables(
    tables: Sequence[OutputTable],
    output: OutputFormat = OutputFormat.table,
    *,
    wide: bool = False,
    console: Console | None = None,
) -> None:
    """Print ``tables`` in the ``output`` format: on the console (see :func:`print_table`), or
    as CSV, JSON lines or Markdown on standard output (see :func:`machine_text`)."""
    if output is not OutputFormat.table:
        sys.stdout.write(machine_text(tables, output))
        sys.stdout.flush()
        return
    shown_on = console if console is not None else new_console()
    for table in tables:
        print_table(shown_on, table, wide=wide)


def frame_columns(frame: Any, align_numbers: bool = True) -> list[Column]:
    """Columns of a pandas DataFrame, named as its columns: numbers in compact form (see
    :func:`compact_numbers`), everything else as text."""
    columns = []
    for key in frame.columns:
        values = frame[key].tolist()
        numeric = frame[key].dtype.kind in "iuf"
        columns.append(
            Column(
                key=str(key),
                values=values,
                cells=compact_numbers(values, max_digits=6) if numeric else None,
                align="right" if numeric and align_numbers else "left",
                fold_constant=False,
            )
        )
    return columns
