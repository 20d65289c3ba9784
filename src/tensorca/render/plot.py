"""Population over time as a PNG (matplotlib, Agg backend, imported only when used)."""

from __future__ import annotations

from typing import Sequence

from ..errors import GridError


def write_population_plot(path: str, populations: Sequence[int], title: str = "population") -> None:
    """Plot ``populations[g]`` against generation ``g`` and save it (PNG by the extension)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise GridError("plotting needs matplotlib (pip install 'tensorca[render]')") from exc
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    try:
        ax.plot(range(len(populations)), list(populations), linewidth=1.2, color="#d9a400")
        ax.set_xlabel("generation")
        ax.set_ylabel("population")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
