"""What one generation of the ``torch`` engine moves through memory: kernels and bytes a cell.

Counted, not timed. An eager step is run once on a small grid under a dispatch mode that sees
every ATen operation. Each operation that is not a view is one kernel launch. Its traffic is the
bytes of the grid-sized tensors it reads and writes: tables and scalars under ``MIN_NUMEL``
elements stay in cache and are left out. A compiled step (``torch:compile``) is counted from
Inductor's own metrics while it compiles (the kernels it generated) and from the profiler (the
ATen operations its graph still calls, each a pass of its own). Its bytes are given as the floor
of any one-pass kernel, one read and one write of each uint8 cell (2 B), since a fused kernel's
halo reads hit cache.

The ceiling of a variant is ``bandwidth / bytes a cell``: what it could reach if it moved its
bytes at the device's copy bandwidth and did nothing else. On an H200 (4.3 TB/s measured copy,
read + write) an eager B3/S23 step moving 47 B a cell tops out near 0.09 T cell updates/s.

Examples::

    PYTHONPATH=src python benchmarks/torch_traffic.py --rule B3/S23 --markdown
    PYTHONPATH=src python benchmarks/torch_traffic.py --variants torch,torch:index,torch:compile \\
        --bandwidth 4.3e12
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_summary import MEASURED_BANDWIDTH as H200_COPY_BANDWIDTH  # one figure for both scripts

from tensorca.engines import get_engine
from tensorca.engines.base import Engine
from tensorca.errors import TensorcaError
from tensorca.rules import parse_rule
from tensorca.topology import Topology

#: Tensors with fewer elements than this are tables or scalars that stay in cache: not traffic.
MIN_NUMEL = 1024
#: Bytes a cell of a one-pass kernel over uint8 cells: each cell read once and written once.
ONE_PASS_BYTES = 2.0
#: Operations that only allocate: no kernel, no traffic.
_ALLOCATIONS = frozenset({"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided"})


@dataclass
class Traffic:
    """One generation of one variant: ``kernels`` launched and ``bytes_per_cell`` moved.

    ``floor`` is True where ``bytes_per_cell`` is the one-pass floor rather than a count
    (compiled steps; ``kernels`` is None where they were not compiled to be counted); ``ops``
    names the counted operations in order (eager steps)."""

    variant: str
    kernels: int | None
    bytes_per_cell: float
    floor: bool = False
    ops: list[str] = field(default_factory=list)

    def moved(self) -> str:
        """Bytes a cell as printed: ``">= 2"`` for a floor, else the count to 0.1 B."""
        return f">= {self.bytes_per_cell:.0f}" if self.floor else f"{self.bytes_per_cell:.1f}"

    def ceiling(self, bandwidth: float) -> float:
        """Cell updates/s if the step moved its bytes at ``bandwidth`` bytes/s and did nothing else."""
        return bandwidth / self.bytes_per_cell


class _KernelCounter(TorchDispatchMode):
    """Records every non-view ATen call with the bytes of its grid-sized tensor arguments and results."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func.overloadpacket.__name__
        if not func.is_view and name not in _ALLOCATIONS:
            # Each tensor once: an in-place result is its argument (copy_ reads one, writes the other).
            tensors = {id(t): t for t in tree_leaves((args, kwargs, out)) if isinstance(t, torch.Tensor)}
            moved = sum(t.numel() * t.element_size() for t in tensors.values() if t.numel() >= MIN_NUMEL)
            self.calls.append((name, moved))
        return out


def variant_engine(spec: str) -> Engine:
    """``dense-conv``, ``torch``, or ``torch:opt[+opt]`` with opts index, conv, count, compile, graphs."""
    name, _, opts = spec.partition(":")
    engine = get_engine(name)
    if not opts:
        return engine
    options: dict = {}
    for opt in opts.split("+"):
        if opt in ("index", "conv", "count"):
            options["path"] = opt
        elif opt == "compile":
            options["compile"] = True
        elif opt == "graphs":
            options["cuda_graphs"] = True
        else:
            raise SystemExit(f"unknown variant option {opt!r} in {spec!r}")
    return engine.with_options(**options)  # type: ignore[attr-defined]


def _grid(side: int, device: torch.device) -> torch.Tensor:
    gen = torch.Generator().manual_seed(0)
    return (torch.rand((1, side, side), generator=gen) < 0.3).to(torch.uint8).to(device)


def count_eager(spec: str, engine: Engine, rule, device: torch.device, side: int = 256) -> Traffic:
    """Kernels and bytes a cell of one generation of ``engine`` on a ``side``^2 torus (eager): the
    calls of a two-generation run less those of a one-generation run, so that what a run does once
    (copying its input, checks) is not counted."""
    if side * side < 16 * MIN_NUMEL:
        raise ValueError(f"side {side} is too small to tell grid tensors from tables; use >= 128")
    cells = _grid(side, device)
    topology = Topology.torus(side, side)
    engine.advance(cells, rule, topology, 1)  # builds and caches the step outside the count
    runs = []
    for generations in (1, 2):
        counter = _KernelCounter()
        with counter:
            engine.advance(cells, rule, topology, generations)
        runs.append(counter.calls)
    block = one_generation(*runs)
    return Traffic(spec, len(block), sum(moved for _, moved in block) / (side * side), ops=[n for n, _ in block])


def one_generation(once: list, twice: list) -> list:
    """The calls a second generation adds: ``twice`` is ``once`` with one block inserted (the
    setup, one generation, the teardown against the setup, two generations, the teardown)."""
    extra = len(twice) - len(once)
    prefix = 0
    while prefix < len(once) and once[prefix] == twice[prefix]:
        prefix += 1
    for split in range(prefix, -1, -1):
        if extra > 0 and twice[split + extra :] == once[split:]:
            return twice[split : split + extra]
    raise RuntimeError("a two-generation run is not a one-generation run with one more generation's calls")


def count_compiled(spec: str, engine: Engine, rule, device: torch.device, side: int = 256) -> Traffic:
    """Kernels one generation of a compiled ``engine`` runs: those Inductor generates (the FX graph
    cache is turned off so that they are generated here) and the ATen operations the compiled
    graph calls outside them (``ops``: e.g. an ``aten::cat`` that was not fused, each a pass over
    memory of its own). Bytes are the one-pass floor."""
    import torch._inductor.config as inductor_config
    from torch._inductor import metrics
    from torch.profiler import ProfilerActivity, profile

    cells = _grid(side, device)
    topology = Topology.torus(side, side)
    metrics.reset()
    with inductor_config.patch(fx_graph_cache=False):
        engine.advance(cells, rule, topology, 1)
    generated = int(metrics.generated_kernel_count)
    step = engine.step_function(rule, topology, device, cells.shape[0])  # type: ignore[attr-defined]
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        step(cells)
    externs = [event.name.removeprefix("aten::") for event in prof.events()
               if event.cpu_parent is not None and event.cpu_parent.name.startswith("## Call CompiledFxGraph")
               and event.name.startswith("aten::") and not _is_view_or_allocation(event.name.removeprefix("aten::"))]
    return Traffic(spec, generated + len(externs), ONE_PASS_BYTES, floor=True, ops=externs)


def _is_view_or_allocation(name: str) -> bool:
    """True for an ATen operation that launches no kernel (a view, an allocation)."""
    if name in _ALLOCATIONS:
        return True
    packet = getattr(torch.ops.aten, name, None)
    overload = getattr(packet, "default", None)
    return bool(getattr(overload, "is_view", False))


def count_variant(spec: str, rule, device: torch.device, side: int = 256, compile_kernels: bool = True) -> Traffic:
    """:func:`count_eager` or :func:`count_compiled`, by the variant's options. A variant with CUDA
    graphs replays the eager step's kernels, so the eager step is counted. ``compile_kernels=False``
    gives a compiled variant's floor without compiling it (``kernels`` None)."""
    engine = variant_engine(spec)
    options = getattr(engine, "options", None)
    if getattr(options, "compile", False):
        if not compile_kernels:
            return Traffic(spec, None, ONE_PASS_BYTES, floor=True)
        return count_compiled(spec, engine, rule, device, side)
    if getattr(options, "cuda_graphs", False):
        engine = engine.with_options(cuda_graphs=False)  # type: ignore[attr-defined]
    return count_eager(spec, engine, rule, device, side)


def copy_bandwidth(device: torch.device, megabytes: int | None = None, repeats: int = 5) -> float:
    """Bytes/s of a device-to-device copy (read + write counted), the median of ``repeats``, of
    ``megabytes`` (default 1024 on CUDA, many times its L2; 256 elsewhere)."""
    if megabytes is None:
        megabytes = 1024 if device.type == "cuda" else 256
    source = torch.empty(megabytes << 20, dtype=torch.uint8, device=device)
    target = torch.empty_like(source)
    times = []
    for _ in range(repeats + 1):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        began = time.perf_counter()
        target.copy_(source)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append(time.perf_counter() - began)
    times = sorted(times[1:])
    return 2 * source.numel() / times[len(times) // 2]


def markdown(rows: list[Traffic], bandwidth: float, label: str) -> str:
    lines = [f"| variant | kernels a generation | bytes a cell | ceiling at {label} (G cell updates/s) |",
             "| --- | ---: | ---: | ---: |"]
    for row in rows:
        kernels = "-" if row.kernels is None else row.kernels
        lines.append(f"| {row.variant} | {kernels} | {row.moved()} | {row.ceiling(bandwidth) / 1e9:,.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="where the step runs (the count is the same anywhere)")
    parser.add_argument("--rule", default="B3/S23")
    parser.add_argument("--variants", default="dense-conv,torch,torch:index,torch:compile")
    parser.add_argument("--side", type=int, default=256, help="side of the counted torus")
    parser.add_argument("--bandwidth", type=float, default=None,
                        help=f"bytes/s for the ceiling; default: measured copy on a CUDA --device, "
                             f"else an H200's {H200_COPY_BANDWIDTH:.1e}")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    rule = parse_rule(args.rule)
    if args.bandwidth is not None:
        bandwidth, label = args.bandwidth, f"{args.bandwidth / 1e12:.2f} TB/s"
    elif device.type == "cuda":
        bandwidth = copy_bandwidth(device)
        label = f"{bandwidth / 1e12:.2f} TB/s (copy measured on {torch.cuda.get_device_name(device)})"
    else:
        bandwidth, label = H200_COPY_BANDWIDTH, f"{H200_COPY_BANDWIDTH / 1e12:.1f} TB/s (H200 copy)"
    rows, skipped = [], []
    for spec in args.variants.split(","):
        try:
            rows.append(count_variant(spec, rule, device, args.side))
        except TensorcaError as exc:  # a variant that does not run this rule
            skipped.append(f"{spec}: {exc}")
    print(f"rule {rule.canonical()}, torus, one generation of a {args.side}^2 grid counted on {device}, "
          f"torch {torch.__version__}")
    if args.markdown:
        print(markdown(rows, bandwidth, label))
    else:
        for row in rows:
            print(f"{row.variant:18s} {row.kernels!s:>3s} kernels {row.moved():>6s} B/cell  "
                  f"ceiling {row.ceiling(bandwidth) / 1e9:8,.0f} G/s  {' '.join(row.ops)}")
    for line in skipped:
        print(f"not counted: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
