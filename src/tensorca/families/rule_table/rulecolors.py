"""``@COLORS`` and ``@NAMES`` sections of a rule file, read as Golly reads them (Help/formats.html).

``@COLORS``: a line of 4 numbers ``state r g b`` sets one state's colour; a line of 6 numbers
``r1 g1 b1 r2 g2 b2`` sets a gradient over the live states 1..n-1. ``@NAMES``: ``state name``.
Text after the numbers is ignored, as are blank lines, ``#`` lines and invalid states (Golly
ignores them silently).

:func:`default_colors` is Golly's default palette for rule-file rules (RuleLoader): state 0
black, states 1..n-1 a gradient from red (255, 0, 0) to yellow (255, 255, 0).
"""

from __future__ import annotations

from ...rules._numbers import small_int
from .sections import Section

__all__ = ["HISTORY_COLOURS", "SUPER_COLOURS", "default_colors", "gradient", "parse_colors", "parse_names"]

RGB = tuple[int, int, int]


def _numbers(line: str) -> list[int]:
    """The leading whitespace-separated integers of ``line`` (stops at the first other word)."""
    values = []
    for word in line.split():
        value = small_int(word)
        if value is None:
            break
        values.append(value)
    return values


def parse_colors(section: Section | None, n_states: int,
                 source: str | None) -> tuple[dict[int, RGB], tuple[RGB, RGB] | None]:
    """``(colours by state, gradient or None)`` from a ``@COLORS`` section (None: no section)."""
    colors: dict[int, RGB] = {}
    grad: tuple[RGB, RGB] | None = None
    for _, raw in (section.lines[1:] if section else ()):
        if raw.lstrip().startswith("#"):
            continue
        values = _numbers(raw)
        if len(values) >= 6 and all(v <= 255 for v in values[:6]):
            grad = ((values[0], values[1], values[2]), (values[3], values[4], values[5]))
            for state, rgb in enumerate(gradient(grad[0], grad[1], n_states)[1:], start=1):
                colors[state] = rgb
        elif len(values) >= 4 and values[0] < n_states and all(v <= 255 for v in values[1:4]):
            colors[values[0]] = (values[1], values[2], values[3])
    return colors, grad


def parse_names(section: Section | None, n_states: int, source: str | None) -> dict[int, str]:
    """State names from a ``@NAMES`` section."""
    names: dict[int, str] = {}
    for _, raw in (section.lines[1:] if section else ()):
        parts = raw.strip().split(None, 1)
        state = small_int(parts[0]) if len(parts) == 2 else None
        if state is not None and state < n_states and not raw.startswith("#"):
            names[state] = parts[1].strip()
    return names


def gradient(start: RGB, end: RGB, n_states: int) -> list[RGB]:
    """Golly's gradient: state 0 black, states 1..n-1 from ``start`` to ``end`` (integer steps)."""
    out: list[RGB] = [(0, 0, 0)]
    live = n_states - 1
    for i in range(live):
        if live == 1:
            out.append(start)
            continue
        # C's integer division (truncation toward zero), as Golly computes its gradients
        out.append(tuple(a + int((b - a) * i / (live - 1)) for a, b in zip(start, end, strict=True)))  # type: ignore[misc]
    return out


#: Golly's default colours of the Super algorithm's [R]Super states 0..25 (Help/Algorithms/Super.html).
SUPER_COLOURS: tuple[RGB, ...] = (
    (48, 48, 48), (0, 255, 0), (0, 0, 160), (255, 216, 255), (255, 0, 0), (255, 255, 0), (96, 96, 96),
    (255, 105, 180), (128, 0, 128), (0, 191, 255), (0, 64, 128), (64, 224, 208), (0, 128, 64),
    (255, 255, 255), (255, 99, 71), (250, 128, 114), (219, 112, 147), (255, 165, 0), (245, 222, 179),
    (0, 255, 255), (192, 192, 192), (192, 255, 128), (255, 182, 193), (0, 255, 127), (1, 1, 1), (255, 0, 127),
)
#: ... and of [R]History states 0..6.
HISTORY_COLOURS: tuple[RGB, ...] = (
    (48, 48, 48), (0, 255, 0), (0, 0, 128), (216, 255, 216), (255, 0, 0), (255, 255, 0), (96, 96, 96),
)


def default_colors(n_states: int) -> list[RGB]:
    """Golly's RuleLoader default palette (see the module docstring)."""
    return gradient((255, 0, 0), (255, 255, 0), n_states)
