"""The pieces of a report's HTML: the page and its style, sections, tables (each in its own
horizontally scrolling box; long ones folded), figures, folded blocks, the reproduce section and
the stack-profile table."""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ccsim.report.numbers import column_format, format_number
from ccsim.runner import version as ccsim_version
from ccsim.units import format_setting

if TYPE_CHECKING:
    from matplotlib.figure import Figure


#: Longer tables are cut to this many rows in a report (the rest is in the directory's files).
MAX_TABLE_ROWS = 500
#: Rows of a long table shown open; the others are folded under it.
SHOWN_ROWS = 12

_STYLE = """
.ccsim-report { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b;
  max-width: 72rem; margin: 0 auto; padding: 0 1rem 2rem; line-height: 1.45; }
.ccsim-report h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
.ccsim-report h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; margin-top: 2rem; }
.ccsim-report h3 { font-size: 1.05rem; margin-bottom: 0.3rem; }
.ccsim-report .meta { color: #555; margin-top: 0; }
.ccsim-report pre { background: #f5f5f5; padding: 0.6rem; overflow-x: auto; font-size: 0.85rem; }
.ccsim-report .table-scroll { overflow-x: auto; max-width: 100%; margin: 0.5rem 0 1rem; }
.ccsim-report table.data { border-collapse: collapse; font-size: 0.85rem; }
.ccsim-report table.data caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
.ccsim-report table.data th, .ccsim-report table.data td { border: 1px solid #d0d0d0;
  padding: 0.2rem 0.5rem; vertical-align: top; }
.ccsim-report table.data th { background: #eef1f5; }
.ccsim-report td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.ccsim-report .note { color: #555; font-size: 0.85rem; }
.ccsim-report details { margin: 0.5rem 0 1rem; }
.ccsim-report details > summary { cursor: pointer; color: #0b4f8a; font-weight: 600; }
.ccsim-report dl.key-numbers { display: grid; grid-template-columns: repeat(auto-fill,
  minmax(11rem, 1fr)); gap: 0.6rem; margin: 0.8rem 0 1rem; }
.ccsim-report dl.key-numbers div { background: #f3f6f9; border: 1px solid #dde3ea;
  border-radius: 4px; padding: 0.4rem 0.6rem; }
.ccsim-report dl.key-numbers dt { color: #555; font-size: 0.8rem; }
.ccsim-report dl.key-numbers dd { margin: 0; font-size: 1.15rem; font-weight: 600;
  font-variant-numeric: tabular-nums; }
.ccsim-report figure { margin: 1rem 0; }
.ccsim-report figure img { max-width: 100%; border: 1px solid #e0e0e0; }
.ccsim-report figcaption { color: #555; font-size: 0.85rem; }
.ccsim-report .reproduced { color: #1a7f37; font-weight: 600; }
.ccsim-report .partly { color: #9a6700; font-weight: 600; }
.ccsim-report .not-reproduced { color: #cf222e; font-weight: 600; }
.ccsim-report .reversed { color: #8250df; font-weight: 600; }
.ccsim-report .not-run, .ccsim-report .not-run-in---quick { color: #6e7781; font-weight: 600; }
.ccsim-report .inconclusive { color: #0969da; font-weight: 600; }
"""


# ---- HTML pieces -----------------------------------------------------------------------------------


def escape(text: Any) -> str:
    """Text content, escaped (quotes stay as they are: TOML reads as written)."""
    return html.escape(str(text), quote=False)


def escape_attribute(text: Any) -> str:
    """An attribute value, escaped for a double-quoted attribute."""
    return html.escape(str(text), quote=True)


def html_page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f'<div class="ccsim-report">\n{body}\n</div>\n</body>\n</html>\n'
    )


def html_fragment(body: str) -> str:
    return f'<div class="ccsim-report"><style>{_STYLE}</style>{body}</div>'


def section(title: str, content: str, anchor: str, level: int = 2) -> str:
    return f'<section id="{anchor}">\n<h{level}>{escape(title)}</h{level}>\n{content}\n</section>\n'


def paragraph(text: str, css: str | None = None) -> str:
    klass = f' class="{css}"' if css else ""
    return f"<p{klass}>{escape(text)}</p>\n"


def preformatted(text: str) -> str:
    return f"<pre>{escape(text)}</pre>\n"


def bullet_list(items: Iterable[str]) -> str:
    entries = "".join(f"<li>{escape(item)}</li>" for item in items)
    return f"<ul>{entries}</ul>\n" if entries else ""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_missing(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def _cell(value: Any) -> str:
    """A table cell's text: ``-`` for missing values, numbers in plain decimals (never
    ``2.1e+07``)."""
    if is_missing(value):
        return "-"
    return format_number(value)


def html_table(
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
    caption: str | None = None,
    name: str | None = None,
    note: str | None = None,
    right: Iterable[str] = (),
) -> str:
    """An HTML table in its own horizontally scrolling box (a wide table scrolls there, not the
    page). Numbers, and every cell of the columns named in ``right``, are right-aligned;
    ``name`` is its ``data-table`` attribute, ``note`` a line under it."""
    aligned = {i for i, h in enumerate(header) if h in set(right)}
    label = f' data-table="{escape_attribute(name)}"' if name else ""
    parts = [f'<div class="table-scroll"><table class="data"{label}>']
    if caption:
        parts.append(f"<caption>{escape(caption)}</caption>")
    parts.append("<thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr></thead>")
    parts.append("<tbody>")
    for row in rows:
        cells = []
        for column, value in enumerate(row):
            numeric = _is_number(value) or column in aligned
            text = value if isinstance(value, str) else _cell(value)
            cells.append(
                f'<td class="num">{escape(text)}</td>' if numeric else f"<td>{escape(text)}</td>"
            )
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table></div>")
    if note:
        parts.append(paragraph(note, "note"))
    return "".join(parts) + "\n"


def folded(summary: str, content: str, open_: bool = False) -> str:
    """``content`` under a line the reader clicks to unfold (``<details>``)."""
    opened = " open" if open_ else ""
    return f"<details{opened}><summary>{escape(summary)}</summary>\n{content}</details>\n"


def key_numbers(items: Iterable[tuple[str, str]], name: str = "summary") -> str:
    """The headline numbers of a report, each a label over its value with its unit."""
    entries = "".join(
        f"<div><dt>{escape(label)}</dt><dd>{escape(value)}</dd></div>" for label, value in items
    )
    return f'<dl class="key-numbers" data-summary="{escape_attribute(name)}">{entries}</dl>\n'


def frame_table(
    frame: pd.DataFrame,
    caption: str,
    max_rows: int = MAX_TABLE_ROWS,
    shown_rows: int | None = SHOWN_ROWS,
    order_note: str | None = None,
) -> str:
    """A DataFrame as an HTML table of at most ``max_rows`` rows (the caption says so), with
    human headers and units (:func:`~ccsim.report.numbers.column_format`: ``goodput (Mb/s)``,
    ``21.1``). Beyond ``shown_rows`` rows, the first ones are shown and the others folded under
    them; ``order_note`` says how the rows are ordered."""
    if frame.empty:
        return paragraph(f"{caption}: no rows.", "note")
    kept = frame.head(max_rows)
    values = {c: [None if is_missing(v) else native(v) for v in kept[c]] for c in kept.columns}
    formats = [column_format(str(c), values[c]) for c in kept.columns]
    header = [f.header for f in formats]
    right = [f.header for f in formats if f.numeric]
    rows = [
        [fmt.format(values[c][i]) for fmt, c in zip(formats, kept.columns, strict=True)]
        for i in range(len(kept))
    ]
    notes = [order_note] if order_note else []
    if len(frame) > max_rows:
        notes.append(
            f"The first {max_rows} of {len(frame)} rows; all of them are in the directory's files."
        )
    note = " ".join(notes) or None
    if shown_rows is None or len(rows) <= shown_rows:
        return html_table(header, rows, caption, name=caption, note=note, right=right)
    first = html_table(
        header,
        rows[:shown_rows],
        f"{caption} (the first {shown_rows} of {len(frame)})",
        name=caption,
        right=right,
    )
    rest = html_table(header, rows[shown_rows:], name=f"{caption} (rest)", note=note, right=right)
    return first + folded(f"{caption}: the other {len(rows) - shown_rows} rows", rest)


def native(value: Any) -> Any:
    """numpy scalars as Python numbers (so they format as numbers)."""
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, str):
        try:
            return item()
        except (ValueError, TypeError):
            return value
    return value


def png_of(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def figure_caption(name: str) -> str:
    """A figure's file or key name as words: ``goodput_bps_vs_bottleneck_rate_bps`` ->
    ``goodput vs bottleneck rate``."""
    stem = name.removesuffix(".png")
    words = [part.removesuffix("_bps").removesuffix("_s") for part in stem.split("_vs_")]
    return " vs ".join(w.replace("_", " ") for w in words)


def _image(name: str, png: bytes, caption: str | None = None) -> str:
    data = base64.b64encode(png).decode("ascii")
    text = caption or figure_caption(name)
    return (
        f'<figure data-figure="{escape_attribute(name)}"><img alt="{escape_attribute(text)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{escape(text)}</figcaption></figure>\n'
    )


def figures_section(
    figures: Sequence[tuple[str, bytes]], notes: Sequence[str] = (), level: int = 2
) -> str:
    content = "".join(_image(name, png) for name, png in figures)
    if not figures:
        content += paragraph("No figures.", "note")
    content += "".join(paragraph(note, "note") for note in notes)
    return section(f"Figures ({len(figures)})", content, "figures", level)


# ---- paths: a report names no absolute local path --------------------------------------------------


def relative_path(path: str | os.PathLike[str], start: str | os.PathLike[str]) -> str:
    """``path`` relative to ``start`` (a report's directory, or where a command ran): a report
    that is mailed or published then leaks no local directory, and still says where things are
    next to it."""
    return os.path.relpath(os.path.abspath(path), os.path.abspath(start))


def _relative_token(token: str, start: str | os.PathLike[str]) -> str:
    option, equals, value = token.partition("=")
    if equals and option.startswith("-") and os.path.isabs(value):
        return f"{option}={relative_path(value, start)}"
    return relative_path(token, start) if os.path.isabs(token) else token


def relative_command(command: str, start: str | os.PathLike[str]) -> str:
    """``command`` with each absolute path in it made relative to ``start`` (where it is to be
    run); unchanged, byte for byte, when it names none."""
    try:
        tokens = shlex.split(command)
    except ValueError:  # unbalanced quotes: shown as recorded
        return command
    rewritten = [_relative_token(token, start) for token in tokens]
    return command if rewritten == tokens else shlex.join(rewritten)


def reproduce_section(
    command: str | None,
    cwd: str | None,
    *,
    location: Path,
    note: str | None = None,
    extra: str = "",
    level: int = 2,
) -> str:
    """The command that made the directory and where it was run, its paths relative (to where it
    ran, and that place to the report's directory ``location``)."""
    if command:
        content = preformatted(relative_command(command, cwd or location))
        if cwd:
            where = relative_path(cwd, location)
            text = (
                "Run in the directory of this report."
                if where == "."
                else f"Run in {where} (relative to the directory of this report)."
            )
            content += paragraph(text, "note")
    else:
        content = paragraph("The command that made this directory was not recorded.", "note")
    if note:
        content += paragraph(note, "note")
    return section("Reproduce", content + extra, "reproduce", level)


def version_line(made_with: str | None) -> str:
    made = f"Results made with ccsim {made_with}" if made_with else "ccsim version not recorded"
    return f"{made}; report written by ccsim {ccsim_version()}."


# ---- stack profiles --------------------------------------------------------------------------------


def stack_of(summary: Mapping[str, Any]) -> dict[str, Any]:
    stack = dict(summary.get("stack") or {})
    stack.setdefault("profile", summary.get("profile"))
    return stack


def stack_table(stacks: Mapping[str, Mapping[str, Any]], caption: str) -> str:
    """The knobs of one or more stacks: a column per stack (one ``value`` column if they agree)."""
    distinct: dict[str, Mapping[str, Any]] = {}
    for name, stack in stacks.items():
        if stack and stack not in distinct.values():
            distinct[name] = stack
    if not distinct:
        return paragraph("No finished run records its stack settings yet.", "note")
    names = list(distinct)
    keys = list(dict.fromkeys(k for stack in distinct.values() for k in stack))
    keys.sort(key=lambda k: (k != "profile", k))
    rows = [
        [key.removesuffix("_ns"), *(format_setting(key, distinct[n].get(key)) for n in names)]
        for key in keys
    ]
    header = ["knob", *(n or "value" for n in names)] if len(names) > 1 else ["knob", "value"]
    note = None
    if len(stacks) > 1 and len(names) == 1:
        note = "Every run has these settings."
    table = html_table(header, rows, caption, name="stack", note=note)
    profiles = ", ".join(dict.fromkeys(str(distinct[n].get("profile")) for n in names))
    return folded(f"{caption}: profile {profiles}, {len(keys)} knobs", table)


def run_stacks(run_dirs: Iterable[Path]) -> dict[str, dict[str, Any]]:
    """The stack settings recorded in each run directory's summary.json, by directory name."""
    stacks = {}
    for run_dir in run_dirs:
        try:
            summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        stacks[run_dir.name] = stack_of(summary)
    return stacks
