"""Seeing patterns: notebook pictures (:func:`show`, :func:`to_png`), a local web viewer
(:func:`serve`) and a notebook widget (:func:`widget`, needs ``anywidget``).

    import tensorca.view
    tensorca.view.show(grid)                                  # a PNG in a notebook
    tensorca.view.serve(tensorca.load("glider.rle"))          # http://127.0.0.1:<port>/ until Ctrl-C
    tensorca.view.widget(tensorca.random_soup(256, 256), "B3/S23")   # play/step/zoom in a notebook

The pictures load eagerly (NumPy only); the server (``http.server``) and the widget load on first use.
"""

from importlib import import_module
from typing import Any

from .display import pattern_html, pattern_png, repr_html, show, to_png
from .protocol import Frame, pack, unpack

_LAZY = {"ViewerServer": "server", "serve": "server", "Simulation": "source", "from_pattern": "source",
         "widget": "notebook_widget", "widget_class": "notebook_widget"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tensorca.view' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)


__all__ = [
    "Frame", "Simulation", "ViewerServer", "from_pattern", "pack", "pattern_html", "pattern_png", "repr_html",
    "serve", "show", "to_png", "unpack", "widget", "widget_class",
]
