"""A notebook widget (anywidget): the viewer's controls in JupyterLab, classic Notebook and VS Code.

``widget(pattern, "B3/S23")`` returns a widget showing the run with play/pause/step/speed, zoom
(mouse wheel) and pan (drag), the generation and population, and a population chart. Any engine
drives it (``backend="auto"`` picks the GPU when there is one), or pass a
:class:`~tensorca.view.Simulation` built on your own ``step(n)``. Frames travel packed
(:mod:`tensorca.view.protocol`) in the ``frame`` Bytes trait; the page asks for steps with
custom messages ``{"kind": "step", "n": k}`` / ``{"kind": "reset"}``.

anywidget is an optional extra (``pip install 'tensorca[notebook]'``), imported only here, on use.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

from ..errors import MissingDependencyError, UsageError
from .source import Simulation, from_pattern

_ESM_TAIL = """
function tcaWidgetTransport(model) {
  let waiting = [];
  model.on("change:frame", () => {
    const frame = model.get("frame"), pending = waiting;
    waiting = [];
    if (pending.length) pending.forEach((resolve) => resolve(frame));
    else if (model.tcaOnFrame) model.tcaOnFrame(frame);
  });
  const ask = (content) => new Promise((resolve) => {
    waiting.push(resolve);
    model.send(content);
    setTimeout(() => resolve(model.get("frame")), 5000);  // a step that changed nothing
  });
  return {
    info: async () => model.get("info"),
    history: async () => [],
    frame: async () => model.get("frame"),
    step: (n) => ask({ kind: "step", n }),
    reset: () => ask({ kind: "reset" }),
    onFrame: (callback) => { model.tcaOnFrame = callback; },
  };
}

function render({ model, el }) {
  const size = { width: model.get("width"), height: model.get("height") };
  const viewer = new TcaViewer(el, tcaWidgetTransport(model), size);
  viewer.start().catch((err) => { el.textContent = `tensorca widget: ${err.message || err}`; });
  return () => viewer.pause();
}

export default { render };
"""

_CSS = """
.tca-root { font: 13px system-ui, sans-serif; color: inherit; outline: none; }
.tca-bar { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-bottom: 6px; }
.tca-bar button { padding: 2px 8px; cursor: pointer; }
.tca-counter { margin-left: auto; font-variant-numeric: tabular-nums; }
.tca-counter b { margin-right: 1em; }
.tca-board { cursor: grab; touch-action: none; display: block; }
.tca-chart { display: block; margin-top: 4px; }
.tca-status { color: #c03030; min-height: 1.2em; }
"""


def esm() -> str:
    """The widget's ES module: the shared drawing code (``static/core.js``) and the render hook."""
    core = (resources.files("tensorca.view") / "static" / "core.js").read_text(encoding="utf-8")
    return core + _ESM_TAIL


def _anywidget() -> tuple[Any, Any]:
    try:
        import anywidget
        import traitlets
    except ImportError as exc:
        raise MissingDependencyError(
            "the notebook widget needs anywidget", package="anywidget", install="pip install 'tensorca[notebook]'"
        ) from exc
    return anywidget, traitlets


@lru_cache(maxsize=1)
def widget_class() -> type:
    """The ``AnyWidget`` subclass (built on first use, so ``import tensorca`` needs no anywidget).

    Traits synced to the page: ``frame`` (Bytes, the packed current frame), ``info`` (Dict:
    rule, topology, n_states, continuous, palette, title, can_reset), ``generation``,
    ``population``, ``width`` and ``height`` (canvas pixels).
    """
    anywidget, traitlets = _anywidget()

    class CellularAutomatonWidget(anywidget.AnyWidget):
        _esm = esm()
        _css = _CSS
        frame = traitlets.Bytes(b"").tag(sync=True)
        info = traitlets.Dict().tag(sync=True)
        generation = traitlets.Int(0).tag(sync=True)
        population = traitlets.Int(0).tag(sync=True)
        width = traitlets.Int(640).tag(sync=True)
        height = traitlets.Int(400).tag(sync=True)

        def __init__(self, simulation: Simulation, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.simulation = simulation
            self.info = simulation.describe()
            self._publish(simulation.frame())
            self.on_msg(self._on_message)

        def step(self, n: int = 1) -> None:
            """Advance ``n`` generations and show the result."""
            self._publish(self.simulation.step(n))

        def reset(self) -> None:
            """Back to the first frame."""
            self._publish(self.simulation.reset())

        def _publish(self, packed: bytes) -> None:
            current = self.simulation.current
            with self.hold_sync():
                self.generation, self.population = current.generation, current.population
                self.frame = packed

        def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
            kind = content.get("kind") if isinstance(content, dict) else None
            if kind == "step":
                self.step(int(content.get("n", 1)))
            elif kind == "reset":
                self.reset()

    return CellularAutomatonWidget


def widget(source: Any, rule: Any = None, *, backend: str = "auto", width: int = 640, height: int = 400,
           title: str | None = None) -> Any:
    """A notebook widget showing ``source`` run under ``rule``: a :class:`~tensorca.Pattern`, a
    ``(H, W)`` array or tensor, or a :class:`Simulation`. ``width``/``height``: canvas pixels."""
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int) or not 64 <= value <= 4096:
            raise UsageError(f"{name} must be an integer in 64..4096 pixels, got {value!r}")
    simulation = source if isinstance(source, Simulation) else from_pattern(source, rule, backend, title=title)
    return widget_class()(simulation, width=width, height=height)
