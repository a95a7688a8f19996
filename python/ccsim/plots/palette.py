"""One look per algorithm in every figure: its colour, and a line style and marker when it must
share that colour with another series of the same figure.

The colours are Okabe and Ito's colour-blind-safe set (yellow left out: it vanishes on white).
Each engine algorithm has its own colour, written down here so that it never moves when an
algorithm is added: :data:`ALGORITHM_COLOURS`, ordered so that the algorithms a study compares
side by side (the parking lot's seven, Sync-TCP's five, the Randomized TCP trio...) have distinct
colours. Seven colours do not go round 27 algorithms: when two series of one figure share a
colour, the later one (in :data:`ALGORITHM_COLOURS`' order, then by name) also gets a dashed,
dotted or dash-dot line and its own marker (:func:`looks`).

A series that is not an algorithm (a configuration such as "FD w=8", an RTT such as "40 ms")
gets the colour its name picks (a checksum, the same in every run) or, when a series of the same
figure has that one, the next free one; it depends on the figure's series, not their order. Labels are read as algorithms where they name one: ``"HSTCP"``, ``"Paced Reno"``,
``"Randomized alpha=1"``, ``"cubic (ccsim)"`` (:func:`algorithm_of`).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "ALGORITHM_COLOURS",
    "COLOURS",
    "NEUTRAL",
    "Look",
    "algorithm_of",
    "colour_of",
    "looks",
]

# Okabe & Ito (2008), "Color Universal Design": the colours by name.
BLACK = "#000000"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
GREEN = "#009E73"
PURPLE = "#CC79A7"
ORANGE = "#E69F00"
SKY = "#56B4E9"

#: The colours in the order series that are not algorithms take them (by checksum).
COLOURS = (BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, BLACK)
#: Grey for what is no series of its own: reference lines, the paper's values without a series.
NEUTRAL = "#7F7F7F"

#: Each engine algorithm's colour. Groups drawn together in the studies get distinct colours:
#: the parking lot (reno, highspeed, scalable, bic, htcp, compound, areno), Sync-TCP's (reno,
#: highspeed, cubic, sync-tcp, sync-tcp-hs), Fusion's (reno, fusion, fusion-rf), Randomized
#: TCP's (reno, paced, randomized; iiad, sqrt, randomized), Free-Drop's (newreno, freedrop).
ALGORITHM_COLOURS: dict[str, str] = {
    "reno": BLACK,
    "cubic": BLUE,
    "highspeed": VERMILLION,
    "bic": GREEN,
    "htcp": PURPLE,
    "scalable": ORANGE,
    "compound": SKY,
    "areno": BLUE,
    "newreno": BLACK,
    "westwood": SKY,
    "fusion": ORANGE,
    "fusion-rf": GREEN,
    "fast": PURPLE,
    "libra": VERMILLION,
    "sync-tcp": GREEN,
    "sync-tcp-hs": PURPLE,
    "paced": ORANGE,
    "randomized": SKY,
    "iiad": VERMILLION,
    "sqrt": BLUE,
    "freedrop": VERMILLION,
    "vegas": ORANGE,
    "dctcp": VERMILLION,
    "hybla": GREEN,
    "illinois": PURPLE,
    "yeah": BLUE,
    "binomial": SKY,
    # The BBR studies draw it beside cubic (blue) and reno (black).
    "bbr": VERMILLION,
    # B4 draws v3 beside v1 (vermillion), cubic (blue) and reno (black).
    "bbr3": GREEN,
    # The L4S studies draw it beside cubic (blue), dctcp (vermillion), reno (black) and bbr3 (green).
    "prague": ORANGE,
}
_ORDER = {name: i for i, name in enumerate(ALGORITHM_COLOURS)}

#: Other names of the algorithms, as the papers and the studies' labels write them.
_ALIASES = {
    "hstcp": "highspeed",
    "hs-tcp": "highspeed",
    "highspeed-tcp": "highspeed",
    "h-tcp": "htcp",
    "hamilton": "htcp",
    "ctcp": "compound",
    "compound-tcp": "compound",
    "adaptive-reno": "areno",
    "a-reno": "areno",
    "tcp-fusion": "fusion",
    "new-reno": "newreno",
    "free-drop": "freedrop",
    "stcp": "scalable",
    "westwood+": "westwood",
    "tcp-westwood": "westwood",
    "cubic-tcp": "cubic",
}

#: Line styles and markers of the second, third... series of one figure sharing a colour.
LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P")


@dataclass(frozen=True)
class Look:
    """How one series is drawn: ``colour``, ``linestyle`` and ``marker`` (matplotlib's)."""

    colour: str
    linestyle: str = "-"
    marker: str = "o"

    def line(self) -> dict[str, Any]:
        """Keyword arguments of ``Axes.plot`` for a line without markers."""
        return {"color": self.colour, "linestyle": self.linestyle}

    def points(self) -> dict[str, Any]:
        """Keyword arguments of ``Axes.plot``/``errorbar`` for a line with markers."""
        return {"color": self.colour, "linestyle": self.linestyle, "marker": self.marker}


_SUFFIX = re.compile(r"\s*\((ccsim|paper|fluid|mean|sim)[^)]*\)\s*$", re.IGNORECASE)


def _canonical(word: str) -> str | None:
    word = word.strip().lower().replace(" ", "-").replace("_", "-")
    if word in ALGORITHM_COLOURS:
        return word
    return _ALIASES.get(word)


def algorithm_of(label: object) -> str | None:
    """The algorithm a label names, or None: the whole label ("HSTCP", "newreno", "Sync-TCP HS"
    -> "sync-tcp-hs"), without a trailing "(ccsim)"/"(paper)", or else its first word naming
    one ("Paced Reno" -> "paced", "Randomized alpha=1" -> "randomized")."""
    text = _SUFFIX.sub("", str(label)).strip()
    whole = _canonical(text)
    if whole is not None:
        return whole
    words = text.split()
    return _canonical(words[0]) if len(words) > 1 else None


def colour_of(label: object) -> str:
    """The colour of a series: its algorithm's (:func:`algorithm_of`), else one chosen by its
    name's checksum (stable across runs and machines, unlike ``hash``)."""
    algorithm = algorithm_of(label)
    if algorithm is not None:
        return ALGORITHM_COLOURS[algorithm]
    return COLOURS[zlib.crc32(str(label).encode()) % len(COLOURS)]


def _rank(label: object) -> tuple[int, str]:
    algorithm = algorithm_of(label)
    return (_ORDER[algorithm] if algorithm else len(_ORDER), str(label))


Label = TypeVar("Label", bound=Hashable)


def looks(
    labels: Iterable[Label], algorithms: Mapping[Label, str] | None = None
) -> dict[Label, Look]:
    """The look of each series of one figure (every panel: pass all the figure's labels).

    Each label takes its colour (``algorithms`` may name a label's algorithm where the label
    does not); labels sharing a colour are told apart, in algorithm order then by name, by line
    style and marker: the first keeps a solid line and a circle."""
    algorithms = algorithms or {}
    unique = list(dict.fromkeys(labels))
    named = {label: algorithm_of(algorithms.get(label, label)) for label in unique}
    colour = {label: ALGORITHM_COLOURS[a] for label, a in named.items() if a is not None}
    # Other series, in name order: the colour their name picks, or the next one no series of
    # this figure has yet, so that a few configurations never share a colour needlessly.
    for label in sorted((lb for lb, a in named.items() if a is None), key=str):
        first = COLOURS.index(colour_of(label))
        free = [
            COLOURS[(first + i) % len(COLOURS)]
            for i in range(len(COLOURS))
            if COLOURS[(first + i) % len(COLOURS)] not in colour.values()
        ]
        colour[label] = free[0] if free else COLOURS[first]
    seen: dict[str, int] = {}
    result: dict[Label, Look] = {}
    for label in sorted(unique, key=lambda lb: _rank(algorithms.get(lb, lb))):
        nth = seen.get(colour[label], 0)
        seen[colour[label]] = nth + 1
        result[label] = Look(
            colour[label], LINE_STYLES[nth % len(LINE_STYLES)], MARKERS[nth % len(MARKERS)]
        )
    return {label: result[label] for label in unique}
