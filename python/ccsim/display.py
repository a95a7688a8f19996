"""How ccsim's objects show themselves in Jupyter: the HTML is drawn by a renderer registered here.

:class:`~ccsim.results.Results` belongs to the library and :class:`~ccsim.studies.StudyReport`
to the lab, but both are drawn by :mod:`ccsim.report`, which sits above them: their
``_repr_html_`` asks :func:`html`, and the report module registers its renderers here when it is
imported. Neither of them imports the report, so the library does not depend on the lab.

The package (``ccsim/__init__.py``) names the report as the module to import on the first display,
so a notebook that never imported :mod:`ccsim.report` still shows the same HTML; that import is
deferred to the first display because the report needs pandas, which ``ccsim --help`` does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["html", "load_renderers_with", "register_html"]

_RENDERERS: dict[type, Callable[[Any], str]] = {}
_load_renderers: Callable[[], object] | None = None


def register_html(kind: type, renderer: Callable[[Any], str]) -> None:
    """Draw objects of ``kind`` (and its subclasses) as HTML with ``renderer``."""
    _RENDERERS[kind] = renderer


def load_renderers_with(loader: Callable[[], object]) -> None:
    """Call ``loader`` (once) when an object is displayed before any renderer of its kind was
    registered: the loader imports the module that registers them."""
    global _load_renderers
    _load_renderers = loader


def html(shown: object) -> str:
    """``shown`` as HTML, by the renderer registered for its type."""
    global _load_renderers
    renderer = _renderer_for(type(shown))
    if renderer is None and _load_renderers is not None:
        loader, _load_renderers = _load_renderers, None
        loader()
        renderer = _renderer_for(type(shown))
    if renderer is None:
        raise LookupError(f"no HTML renderer is registered for {type(shown).__qualname__}")
    return renderer(shown)


def _renderer_for(kind: type) -> Callable[[Any], str] | None:
    for klass in kind.__mro__:
        if klass in _RENDERERS:
            return _RENDERERS[klass]
    return None
