"""The notebook widget's Python side: traits, the step/reset message handler, packed frames.
Runs only where anywidget is installed; without it, a clear MissingDependencyError."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tensorca.errors import MissingDependencyError, UsageError
from tensorca.view import unpack, widget, widget_class
from tensorca.view.notebook_widget import esm


def glider() -> np.ndarray:
    grid = np.zeros((16, 16), np.uint8)
    grid[0, 1] = grid[1, 2] = grid[2, 0] = grid[2, 1] = grid[2, 2] = 1
    return grid


def test_esm_carries_the_shared_viewer_and_a_render_hook():
    code = esm()
    assert "class TcaViewer" in code and "export default { render }" in code
    assert "http:" not in code and "https:" not in code and "import " not in code.split("export default")[0]


def test_widget_state_and_messages():
    pytest.importorskip("anywidget")
    w = widget(glider(), "B3/S23", backend="numpy", width=320, height=240)
    assert (w.generation, w.population, w.width, w.height) == (0, 5, 320, 240)
    assert w.info["rule"] == "B3/S23" and w.info["can_reset"]
    assert np.array_equal(unpack(w.frame).cells, glider())
    w._on_message(w, {"kind": "step", "n": 4}, [])
    assert w.generation == 4 and np.array_equal(unpack(w.frame).cells, np.roll(glider(), (1, 1), axis=(0, 1)))
    w.step(2)
    assert unpack(w.frame).generation == 6
    w._on_message(w, {"kind": "reset"}, [])
    assert w.generation == 0 and unpack(w.frame).generation == 0
    w._on_message(w, "noise", [])  # ignored
    with pytest.raises(UsageError, match="width"):
        widget(glider(), "B3/S23", width=10)


def test_missing_anywidget_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "anywidget", None)
    widget_class.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match=r"tensorca\[notebook\]"):
            widget_class()
    finally:
        widget_class.cache_clear()
