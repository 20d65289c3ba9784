"""Pictures for notebooks: cells -> PNG bytes and a small HTML card, and :func:`show` for any grid.

``to_png`` fits a ``(H, W)`` grid into at most ``max_px`` pixels a side. A small grid is zoomed
(each cell ``k x k`` pixels, grid lines between cells once ``k >= 8``); a big one is shrunk by an
integer factor ``f`` with a max-pool, so a pixel is on when any cell of its ``f x f`` block is (a
lone glider in a huge universe stays visible). Discrete states use the render palette (or an
``@COLORS`` table); floats in ``[0, 1]`` (Lenia) use a colormap. The PNG is palette-indexed, so a
4096 x 4096 soup encodes in a few milliseconds. Ising spins (``-1/+1``), sandpile heights and
Potts states draw as states; Flow Lenia's mass (floats that pass 1) is scaled by its largest value.

    import tensorca
    tensorca.show(tensorca.run(grid, "B3/S23", 100), generation=100)   # in a notebook cell: the picture
    tensorca.show(tensorca.run(pattern, generations=100))    # a Pattern carries its generation

The card beside the picture states the pattern's own size (a tree-backed pattern: its bounding
box), generation, population (float cells: mass) and, apart, the picture's pixels and scale.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import numpy as np

from ..errors import GridError, MemoryBudgetError, UsageError
from .colours import GRID, colormap, state_colours

#: Cells drawn at most this many pixels a side, so a glider is not a 1024-pixel poster.
MAX_CELL_PX = 32
#: Grid lines appear from this cell size up.
GRID_FROM_PX = 8
#: Most cells of a tree-backed pattern's bounding box that :func:`region_png` reads (in stripes).
REGION_MAX_CELLS = 2**32
#: Cells materialised per stripe when a tree-backed pattern is drawn.
STRIPE_CELLS = 2**24


def as_numpy(x: Any) -> np.ndarray:
    """A NumPy view of ``x``: an array, a torch tensor (moved to the CPU; torch is never imported
    here) or anything :func:`numpy.asarray` takes. Booleans become ``uint8``."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        x = x.detach().cpu().numpy()
    arr = np.asarray(x)
    return arr.astype(np.uint8) if arr.dtype == np.bool_ else arr


def pool_max(cells: np.ndarray, factor: int) -> np.ndarray:
    """Max over ``factor x factor`` blocks: ``(H, W)`` -> ``(ceil(H/f), ceil(W/f))``, same dtype.

    Ragged last blocks are pooled over the cells they have. Strided ``np.maximum`` over the ``f``
    row and ``f`` column phases: ~30x faster than ``reshape(...).max(axis=(1, 3))`` on uint8.
    """
    if factor <= 1:
        return cells
    rows = cells[0::factor].copy()
    for i in range(1, factor):
        part = cells[i::factor]
        np.maximum(rows[: len(part)], part, out=rows[: len(part)])
    out = rows[:, 0::factor].copy()
    for j in range(1, factor):
        part = rows[:, j::factor]
        n = part.shape[1]
        np.maximum(out[:, :n], part, out=out[:, :n])
    return out


def fit(shape: tuple[int, int], max_px: int = 1024, max_cell_px: int = MAX_CELL_PX) -> tuple[int, int]:
    """``(shrink, zoom)`` for a ``(H, W)`` grid: shrink by ``shrink`` (>= 1) then draw each cell
    ``zoom x zoom`` pixels, so the picture is at most ``max_px`` a side and cells at least 1 px."""
    if isinstance(max_px, bool) or not isinstance(max_px, (int, np.integer)) or max_px < 1:
        raise UsageError(f"max_px must be a positive integer, got {max_px!r}")
    side = max(int(shape[0]), int(shape[1]), 1)
    if side > max_px:
        return -(-side // max_px), 1
    return 1, max(1, min(max_px // side, max_cell_px))


def _discrete_indices(cells: np.ndarray, n_states: int, shrink: int) -> tuple[np.ndarray, int]:
    """Pooled ``uint8`` states and the number of states. Pooling prefers live (1) over decaying
    states (2, 3, ...) over dead (0): keys ``(n - s) % n`` are pooled, and the map is its own inverse."""
    if cells.dtype != np.uint8:
        low, high = (int(cells.min()), int(cells.max())) if cells.size else (0, 0)
        if low == -1 and high <= 1 and not (cells == 0).any():  # Ising spins: down dead, up live
            cells = (cells > 0).astype(np.uint8)
        elif low < 0 and high - low <= 255:  # other signed states: the lowest is colour 0
            cells = cells.astype(np.int64) - low
        elif low < 0 or high > 255:
            raise GridError(f"cell states must lie in 0..255 (or span at most 256 values from a negative "
                            f"lowest, as Ising spins do), got {low}..{high}")
        cells = cells.astype(np.uint8)
    pooled = pool_max(cells, shrink)
    n = max(int(n_states), int(pooled.max()) + 1 if pooled.size else 0, 2)
    if shrink > 1 and n > 2:
        flip = ((n - np.arange(256)) % n).astype(np.uint8)
        pooled = flip[pool_max(flip[cells], shrink)]
    return pooled, n


def _float_indices(cells: np.ndarray, shrink: int) -> np.ndarray:
    """Pooled floats in ``[0, 1]`` (NaN as 0) quantised to ``0..254``; 255 is left for grid lines.
    Values above 1 (Flow Lenia's mass gathers past 1 a cell) scale the picture by the largest one."""
    values = np.nan_to_num(pool_max(cells, shrink).astype(np.float32, copy=False), nan=0.0, posinf=0.0, neginf=0.0)
    top = float(values.max()) if values.size else 0.0
    if top > 1.0:
        values = values / np.float32(top)
    return np.rint(np.clip(values, 0.0, 1.0) * 254.0).astype(np.uint8)


def picture(cells: Any, *, n_states: int = 2, max_px: int = 1024, palette: np.ndarray | None = None,
            colormap_name: str = "viridis", max_cell_px: int = MAX_CELL_PX) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, colours)``: a ``(h, w)`` uint8 image of palette indices (at most ``max_px`` a
    side) and its ``(k, 3)`` uint8 colours, the last row the grid colour. See :func:`to_png`."""
    arr = as_numpy(cells)
    if arr.ndim != 2:
        raise GridError(f"a picture takes one (H, W) grid, got shape {arr.shape}")
    shrink, zoom = fit(arr.shape, max_px, max_cell_px)
    if arr.dtype.kind == "f":
        index = _float_indices(arr, shrink)
        colours = colormap(colormap_name)[np.rint(np.arange(255) * 255 / 254).astype(np.intp)]
    elif arr.dtype.kind in "biu":
        index, n = _discrete_indices(arr, n_states, shrink)
        colours = state_colours(n, palette)
    else:
        raise GridError(f"cells must be integer states or floats in [0, 1], got dtype {arr.dtype}")
    if index.size == 0:
        index = np.zeros((1, 1), np.uint8)
    grid_index = len(colours)
    lines = zoom >= GRID_FROM_PX and grid_index < 256
    if zoom > 1:
        index = np.repeat(np.repeat(index, zoom, axis=0), zoom, axis=1)
        if lines:
            index[::zoom, :] = grid_index
            index[:, ::zoom] = grid_index
    return index, np.vstack([colours, np.array([GRID], np.uint8)])[:256]


def to_png(cells: Any, *, n_states: int = 2, max_px: int = 1024, palette: np.ndarray | None = None,
           colormap_name: str = "viridis", max_cell_px: int = MAX_CELL_PX) -> bytes:
    """PNG bytes of a ``(H, W)`` grid.

    ``cells``: uint8 (or any integer, bool) states ``0..255`` (sandpile heights, Potts states;
    Ising spins ``-1/+1`` as states 0 and 1; other signed states spanning at most 256 values: the
    lowest is colour 0),
    or floats in ``[0, 1]`` drawn with ``colormap_name`` (``viridis``, ``magma``, ``gray``;
    floats above 1, Flow Lenia's mass, are scaled by the largest); a NumPy array or a torch tensor.
    ``n_states``: colours to allot (raised to the largest state + 1). ``palette``: ``(n, 3)``
    uint8 colours per state (a rule table's ``@COLORS``). At most ``max_px`` pixels a side, cells
    at most ``max_cell_px`` and at least 1 pixel; bigger grids are max-pooled (any-on).
    """
    return _encode(*picture(cells, n_states=n_states, max_px=max_px, palette=palette,
                            colormap_name=colormap_name, max_cell_px=max_cell_px))


def _encode(index: np.ndarray, colours: np.ndarray) -> bytes:
    """Palette-indexed PNG bytes of ``(h, w)`` uint8 indices into ``(k, 3)`` colours."""
    from PIL import Image  # Pillow is a core dependency; imported on use to keep `import tensorca` light

    image = Image.fromarray(np.ascontiguousarray(index))
    image.putpalette(colours.tobytes(), "RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def repr_html(cells: Any, *, rule_text: str, topology_text: str, generation: int | None, population: int,
              mass: float | None = None, n_states: int = 2, palette: np.ndarray | None = None,
              colormap_name: str = "viridis", max_px: int = 1024) -> str:
    """An HTML card: the PNG inline (base64) and a table of rule, topology, size, generation
    (``None``: unknown), population or, for float states, mass and non-zero cells, and the
    picture's own size and scale. Strings are HTML-escaped."""
    arr = as_numpy(cells)
    index, colours = picture(arr, n_states=n_states, max_px=max_px, palette=palette, colormap_name=colormap_name)
    shrink, zoom = fit(arr.shape, max_px)
    height, width = (int(arr.shape[0]), int(arr.shape[1])) if arr.ndim == 2 else (0, 0)
    rows = _rows(rule_text, topology_text, ("size", f"{width:,} x {height:,}"), generation, population, mass,
                 _scale_text(index.shape, shrink, zoom))
    return _card(_encode(index, colours), rows)


def _rows(rule_text: str, topology_text: str, size: tuple[str, str], generation: int | None, population: int,
          mass: float | None, scale: str) -> list[tuple[str, str]]:
    """The card's ``(name, value)`` rows. Float cells have a mass (the sum of their values), not a
    population: their count of non-zero cells is named for what it is."""
    rows = [("rule", rule_text), ("topology", topology_text), size,
            ("generation", "unknown" if generation is None else f"{int(generation):,}")]
    if mass is None:
        rows.append(("population", f"{int(population):,}"))
    else:
        rows += [("mass", f"{float(mass):.6g}"), ("non-zero cells", f"{int(population):,}")]
    return rows + [("picture", scale)]


def _scale_text(shape: tuple[int, ...], shrink: int, zoom: int) -> str:
    """The picture's pixel size and scale: ``782 x 783 px, 1 px = 32 x 32 cells (max of each)``."""
    if shrink > 1 and zoom > 1:
        per = f"{zoom} x {zoom} px = {shrink:,} x {shrink:,} cells (max of each)"
    elif shrink > 1:
        per = f"1 px = {shrink:,} x {shrink:,} cells (max of each)"
    else:
        per = f"1 cell = {zoom} x {zoom} px"
    return f"{int(shape[1]):,} x {int(shape[0]):,} px, {per}"


def _card(png: bytes, rows: list[tuple[str, str]]) -> str:
    """The HTML of a PNG (inline, base64) beside a table of ``(name, value)`` rows (escaped)."""
    data = base64.b64encode(png).decode("ascii")
    table = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{html.escape(k)}</th>"
                    f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>" for k, v in rows)
    return ("<div class='tensorca-pattern' style='display:flex;gap:1em;align-items:flex-start'>"
            f"<img src='data:image/png;base64,{data}' alt='cells' "
            "style='image-rendering:pixelated;max-width:100%'/>"
            f"<table style='font-family:monospace'>{table}</table></div>")


def region_png(crop: Any, box: tuple[int, int, int, int] | None, *, n_states: int = 2, max_px: int = 1024,
               palette: np.ndarray | None = None, max_cells: int = REGION_MAX_CELLS) -> bytes:
    """PNG of a pattern known by ``crop(x, y, w, h) -> (h, w) uint8`` and its bounding ``box``
    ``(x, y, w, h)``: see :func:`region_pixels`."""
    pooled, _ = region_pixels(crop, box, max_px=max_px, max_cells=max_cells)
    return to_png(pooled, n_states=n_states, max_px=max_px, palette=palette)


def region_pixels(crop: Any, box: tuple[int, int, int, int] | None, *, max_px: int = 1024,
                  max_cells: int = REGION_MAX_CELLS) -> tuple[np.ndarray, int]:
    """``(pooled, shrink)``: the bounding ``box`` ``(x, y, w, h)`` of a pattern known by
    ``crop(x, y, w, h) -> (h, w) uint8``, max-pooled by ``shrink`` to at most ``max_px`` a side.
    The box is read in stripes of about :data:`STRIPE_CELLS` cells, each pooled at once, so memory
    stays at one stripe. States are pooled by value (tree-backed patterns are two-state). Boxes
    over ``max_cells`` are refused with :class:`MemoryBudgetError`.
    """
    if box is None:
        return np.zeros((1, 1), np.uint8), 1
    x, y, w, h = (int(v) for v in box)
    if w * h > max_cells:
        raise MemoryBudgetError(f"drawing a {w}x{h} bounding box reads {w * h} cells, over max_cells={max_cells}; "
                                "show a window of it instead", needed=w * h, available=max_cells)
    shrink, _ = fit((h, w), max_px)
    rows = max(1, STRIPE_CELLS // max(w, 1) // shrink) * shrink  # whole pooling blocks per stripe
    parts = [pool_max(np.asarray(crop(x, y + top, w, min(rows, h - top)), np.uint8), shrink)
             for top in range(0, h, rows)]
    return np.vstack(parts), shrink


def tree_pixels(x: Any, max_px: int = 1024) -> tuple[np.ndarray, int]:
    """``(pooled, shrink)`` of a tree-backed pattern (a tree-backed :class:`~tensorca.Pattern` or a
    HashLife :class:`~tensorca.hashlife.Universe`): its bounding box max-pooled by ``shrink`` cells
    a pixel side to at most ``max_px`` a side. Drawn by the tree's own ``picture`` when it has one
    (cost follows the pixels: a 2^40-generation breeder draws), else read through ``crop``."""
    if not callable(getattr(x, "picture", None)):
        return region_pixels(x.crop, x.bounding_box(), max_px=max_px)
    pooled = np.asarray(x.picture(max_px), np.uint8)
    box = x.bounding_box()
    return pooled, 1 if box is None else _block_side((int(box[2]), int(box[3])), pooled.shape)


def _block_side(size: tuple[int, int], shape: tuple[int, ...]) -> int:
    """Cells a pixel side of a tree picture: a ``(w, h)`` box drawn as ``(ph, pw)`` pixels of
    ``2**s`` cells aligned on the tree, so each side spans ``ceil(n / 2**s)`` pixels or one more;
    the smallest such ``2**s`` (unambiguous unless the picture is at most 3 pixels long)."""
    sides = ((size[0], int(shape[1])), (size[1], int(shape[0])))
    for s in range(63):
        if all(0 <= p - 1 - ((n - 1) >> s) <= 1 for n, p in sides):
            return 1 << s
    return 1 << 62


def _tree_backed(x: Any) -> bool:
    """A pattern held as a tree: a :class:`~tensorca.Pattern` says so (asking for its ``cells``
    would materialise them); anything else answers ``crop`` and ``bounding_box`` but has no ``cells``."""
    flag = getattr(x, "tree_backed", None)
    if isinstance(flag, bool):
        return flag
    return not hasattr(x, "cells") and callable(getattr(x, "crop", None)) and callable(getattr(x, "bounding_box", None))


def _rule_text(rule: Any, continuous: bool = False) -> str:
    """The rule as the card names it; without one, what :func:`tensorca.run` would use (float
    cells have no default rule)."""
    if rule is None:
        return "not given" if continuous else "B3/S23 (default)"
    canonical = getattr(rule, "canonical", None)
    return canonical() if callable(canonical) else str(rule)


def _rule_colours(rule: Any) -> tuple[int, bool]:
    """``(n_states, continuous)`` of a rule value or rule text (2 and discrete when unknown)."""
    if isinstance(rule, str):
        from ..rules.spec import resolve  # the one resolver of rule text

        rule = resolve(rule)[0]
    space = getattr(rule, "state_space", None)
    if space is not None and not space.discrete:
        return 0, True
    return int(getattr(rule, "n_states", 2) or 2), False


def pattern_png(pattern: Any, **kw: Any) -> bytes:
    """PNG bytes of a :class:`~tensorca.Pattern` (``Pattern._repr_png_``): as :func:`show` draws it
    (``kw`` as :class:`Shown`); a tree-backed pattern is drawn from its tree."""
    return Shown(pattern, **kw)._repr_png_()


def pattern_html(pattern: Any, **kw: Any) -> str:
    """The HTML card of a :class:`~tensorca.Pattern` (``Pattern._repr_html_``): as :func:`show`
    draws it (``kw`` as :class:`Shown`)."""
    return Shown(pattern, **kw)._repr_html_()


class Shown:
    """What :func:`show` returns: IPython draws it with ``_repr_png_`` / ``_repr_html_``.

    ``rule``, ``topology``, ``generation``: what the card says, when ``x`` (an array) does not carry
    them itself or to override a pattern's; without either, the generation reads "unknown".
    """

    def __init__(self, x: Any, *, rule: Any = None, topology: Any = None, generation: int | None = None,
                 n_states: int | None = None, palette: np.ndarray | None = None,
                 colormap_name: str = "viridis", max_px: int = 1024) -> None:
        self._x = x  # converted on first display: a GPU tensor stays put until someone looks
        self.rule, self.topology = rule, topology
        self.generation = None if generation is None else int(generation)
        self.n_states, self.palette = n_states, palette
        self.colormap_name, self.max_px = colormap_name, max_px

    def cells(self) -> np.ndarray:
        """The ``(H, W)`` grid (a batch of one is squeezed)."""
        cells = getattr(self._x, "cells", None)
        arr = as_numpy(self._x if cells is None else cells)
        if arr.ndim == 3 and arr.shape[0] == 1:
            arr = arr[0]
        if arr.ndim != 2:
            raise GridError(f"show takes one (H, W) grid or a batch of one, got shape {arr.shape}; "
                            "pick one with x[i]")
        return arr

    def _style(self) -> dict[str, Any]:
        rule = self._rule()
        n = max(self.n_states if self.n_states is not None else _rule_colours(rule)[0], 2)
        palette = self.palette
        if palette is None and rule is not None and getattr(rule, "state_space", None) is not None \
                and rule.state_space.discrete:
            palette = state_colours(n, rule=rule)  # the rule's own colours, as render uses
        return {"n_states": n, "palette": palette, "colormap_name": self.colormap_name,
                "max_px": self.max_px}

    def _rule(self) -> Any:
        return self.rule if self.rule is not None else getattr(self._x, "rule", None)

    def _generation(self) -> int | None:
        """The generation given, else the pattern's own; ``None`` when neither says (an array)."""
        if self.generation is not None:
            return self.generation
        own = getattr(self._x, "generation", None)
        return None if own is None or int(own) < 0 else int(own)  # a Universe view's -1: unknown

    def _pixels(self) -> tuple[np.ndarray, np.ndarray, int, int]:
        """``(indices, colours, shrink, zoom)``: the picture (as :func:`picture`) and its scale."""
        style = self._style()
        if _tree_backed(self._x):
            cells, shrink = tree_pixels(self._x, style["max_px"])
        else:
            cells, shrink = self.cells(), 1
        more, zoom = fit(cells.shape, style["max_px"])
        index, colours = picture(cells, **style)
        return index, colours, shrink * more, zoom

    def _repr_png_(self) -> bytes:
        index, colours, _, _ = self._pixels()
        return _encode(index, colours)

    def _repr_html_(self) -> str:
        index, colours, shrink, zoom = self._pixels()
        scale = _scale_text(index.shape, shrink, zoom)
        if _tree_backed(self._x):
            box = self._x.bounding_box()
            size = ("bounding box", "empty" if box is None
                    else f"{box[2]:,} x {box[3]:,} at ({box[0]:,}, {box[1]:,})")
            topology = self.topology if self.topology is not None else "unbounded (tree)"
            rows = _rows(_rule_text(self._rule()), str(topology), size, self._generation(),
                         int(self._x.population), None, scale)
            return _card(_encode(index, colours), rows)
        arr = self.cells()
        topology = self.topology if self.topology is not None else getattr(self._x, "topology", None)
        if topology is None:
            topology = f"torus {arr.shape[1]} x {arr.shape[0]}"
        continuous = arr.dtype.kind == "f"
        mass = float(arr.sum(dtype=np.float64)) if continuous else None
        rows = _rows(_rule_text(self._rule(), continuous), str(topology),
                     ("size", f"{arr.shape[1]:,} x {arr.shape[0]:,}"), self._generation(),
                     int(np.count_nonzero(arr > 0) if continuous else np.count_nonzero(arr)), mass, scale)
        return _card(_encode(index, colours), rows)


def show(x: Any, **kw: Any) -> Shown:
    """A displayable view of ``x``: a ``(H, W)`` array or tensor of states (or floats in [0, 1]; Ising
    spins, sandpile heights and Flow Lenia mass as :func:`to_png` says), a batch of one, or a
    :class:`~tensorca.Pattern` (a tree-backed one is drawn from its tree). ``kw``:
    ``rule``, ``topology``, ``generation``, ``n_states``, ``palette``, ``colormap_name``, ``max_px``
    (see :class:`Shown`, :func:`to_png`). An array carries no generation: pass ``generation=``, or
    the card says "unknown". In a notebook the last expression ``tensorca.show(grid)`` draws;
    nothing is converted until then."""
    return Shown(x, **kw)
