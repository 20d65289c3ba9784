"""The bench plot: CUPS against cells per generation (log-log), one line per engine/device.

Solid lines are the grid sweep (one square grid, side doubling), dashed lines the batch sweep
(batches of 64^2 grids). Vertical dotted lines mark the crossovers: where the fastest engine
changes. Needs matplotlib (the ``render`` extra).
"""

from __future__ import annotations

from pathlib import Path

from .sweep import BenchReport


def plot(report: BenchReport, path: str | Path, title: str | None = None) -> Path:
    """Write the plot of ``report`` to ``path`` (PNG or anything matplotlib infers from the suffix)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=110)
    colours: dict[str, str] = {}
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for sweep, style in (("grid", "-o"), ("batch", "--s")):
        lines: dict[str, list] = {}
        for row in report.rows:
            if row.sweep == sweep and row.variant == "eager":
                lines.setdefault(f"{row.engine}@{row.device}", []).append((row.cells, row.cups))
        for key, points in sorted(lines.items()):
            points.sort()
            colour = colours.setdefault(key, palette[len(colours) % len(palette)])
            label = key if sweep == "grid" else f"{key} (batch of 64^2)"
            ax.plot([p[0] for p in points], [p[1] for p in points], style, color=colour, label=label,
                    markersize=4, linewidth=1.6 if sweep == "grid" else 1.0)
    for cross in report.crossovers:
        ax.axvline(cross["cells"], color="grey", linestyle=":", linewidth=1)
        ax.annotate(f"{cross['from'].split('@')[0]} -> {cross['to'].split('@')[0]}\n({cross['sweep']})",
                    xy=(cross["cells"], 1), xycoords=("data", "axes fraction"),
                    xytext=(3, -4), textcoords="offset points", fontsize=7, va="top", color="dimgrey")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cells per generation (batch x height x width)")
    ax.set_ylabel("cell updates per second (CUPS)")
    gpu = report.machine.get("gpu")
    where = gpu or f"{report.machine.get('cpu', 'CPU')}, {report.machine.get('cpus')} CPUs"
    ax.set_title(title or f"tensorca bench: {report.rule} on a torus ({where})", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
