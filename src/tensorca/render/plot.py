"""Population over time as a PNG (matplotlib, imported only when used).

The figure is a :class:`matplotlib.figure.Figure` with its own canvas: no pyplot, no global
backend switch, so plotting here leaves a notebook's or an application's matplotlib untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import MissingDependencyError


def write_population_plot(path: str, populations: Sequence[float], title: str = "population") -> None:
    """Plot ``populations[g]`` against generation ``g`` and save it (PNG by the extension); float
    values (a continuous rule's mass) are labelled mass."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise MissingDependencyError("plotting needs matplotlib", package="matplotlib",
                                     install="pip install 'tensorca[render]'") from exc
    fig = Figure(figsize=(6, 3.2), dpi=100)
    ax = fig.subplots()
    ax.plot(range(len(populations)), list(populations), linewidth=1.2, color="#d9a400")
    ax.set_xlabel("generation")
    ax.set_ylabel("mass" if any(isinstance(v, float) for v in populations) else "population")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
