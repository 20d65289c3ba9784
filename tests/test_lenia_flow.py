"""Flow Lenia (mass-conserving Lenia by reintegration tracking) against an independent, cell-by-cell
reading of Plantec et al.'s equations; mass conservation; NumPy vs torch; autograd; the notation;
the bundled creature."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tensorca.errors import GridError, RuleError, TensorcaError, TopologyError, UsageError
from tensorca.lenia import FlowLenia, Kernel, flow_creature, flow_creature_names, parse_flow, run_flow
from tensorca.lenia.flow import numpy_flow, numpy_step

torch = pytest.importorskip("torch")

TEXT = ("FlowLenia(R=13,T=5,C=1,gn=1,theta=1,n=2,dd=5,sigma=0.65;c=0>0,b=[1],m=0.15,s=0.015,h=1,r=1,kn=1)")
#: Two channels, three kernels, small reach: for the slow independent implementation and gradcheck.
SMALL = ("FlowLenia(R=3,T=4,C=2,gn=2,theta=1.5,n=2,dd=2,sigma=0.6;c=0>0,b=[1],m=0.4,s=0.15,h=1;"
         "c=1>0,b=[1,1/2],m=0.3,s=0.2,h=0.5,r=0.8;c=0>1,b=[1],m=0.5,s=0.2,h=0.8)")


# -- an independent implementation: direct sums, one cell at a time ------------------------------------


def slow_step(a: np.ndarray, world: FlowLenia) -> np.ndarray:
    """One step of ``(C, H, W)`` mass from the paper's equations: the kernel convolution as a direct sum,
    the Sobel gradient by index, and each source cell's square intersected with every cell of the torus."""
    channels, height, width = a.shape
    lenia = world.lenia()
    affinity = np.zeros_like(a)
    for i, k in enumerate(world.kernels):
        window = lenia._window(i)
        window = window / window.sum()
        reach = window.shape[0] // 2
        for y in range(height):
            for x in range(width):
                u = sum(window[j + reach, i2 + reach] * a[k.source, (y + j) % height, (x + i2) % width]
                        for j in range(-reach, reach + 1) for i2 in range(-reach, reach + 1))
                bump = math.exp(-((u - k.m) ** 2) / (2 * k.s**2)) if world.gn == 2 else \
                    max(0.0, 1 - (u - k.m) ** 2 / (9 * k.s**2)) ** 4
                affinity[k.target, y, x] += k.h * (2 * bump - 1)

    def sobel(f: np.ndarray, y: int, x: int) -> tuple[float, float]:
        def at(j: int, i: int) -> float:
            return f[(y + j) % height, (x + i) % width]
        gy = sum(w * (at(1, i) - at(-1, i)) for i, w in ((-1, 1), (0, 2), (1, 1)))
        gx = sum(w * (at(j, 1) - at(j, -1)) for j, w in ((-1, 1), (0, 2), (1, 1)))
        return gy, gx

    total = a.sum(axis=0)
    out = np.zeros_like(a)
    limit, sigma = world.dd - world.sigma, world.sigma
    for c in range(channels):
        for y in range(height):
            for x in range(width):
                alpha = min(1.0, (total[y, x] / world.theta) ** world.n)
                (uy, ux), (ty, tx) = sobel(affinity[c], y, x), sobel(total, y, x)
                my = y + min(limit, max(-limit, ((1 - alpha) * uy - alpha * ty) / world.T))
                mx = x + min(limit, max(-limit, ((1 - alpha) * ux - alpha * tx) / world.T))
                for py in range(height):
                    for px in range(width):
                        # the unit square of (py, px), or of the image of it nearest the target
                        dy = (py - my + height / 2) % height - height / 2
                        dx = (px - mx + width / 2) % width - width / 2
                        oy = max(0.0, min(dy + 0.5, sigma) - max(dy - 0.5, -sigma))
                        ox = max(0.0, min(dx + 0.5, sigma) - max(dx - 0.5, -sigma))
                        out[c, py, px] += a[c, y, x] * oy * ox / (4 * sigma**2)
    return out


def test_matches_the_equations_cell_by_cell():
    world = parse_flow(SMALL)
    start = np.random.default_rng(1).random((2, 9, 11)) * 1.2
    assert np.abs(numpy_step(start, world) - slow_step(start, world)).max() < 1e-12


def test_mass_climbs_the_affinity():
    # alpha ~ 0 (theta huge): the flow is grad U; U peaks where the sinusoidal mass peaks (G rises there)
    world = parse_flow("FlowLenia(R=4,T=2,C=1,gn=2,theta=1000,dd=3,sigma=0.5;c=0>0,b=[1],m=0.9,s=0.2)")
    x = np.arange(32)
    start = np.broadcast_to(0.5 + 0.3 * np.sin(2 * np.pi * x / 32), (1, 16, 32)).copy()
    after = numpy_step(start, world)
    fy, fx = numpy_flow(start[None], world)
    assert np.abs(fy).max() < 1e-12  # nothing varies along y
    assert fx[0, 0, 0, 0] > 0 and fx[0, 0, 0, 16] < 0  # pointing at the peak, x = 8
    near_peak = slice(4, 12)
    assert after[0, :, near_peak].sum() > start[0, :, near_peak].sum() + 1
    assert abs(after.sum() / start.sum() - 1) < 1e-14


def test_crowding_spreads_mass():
    # alpha = 1 where there is mass and h = 0 (no affinity): mass flows down grad(A_sum) and spreads out
    world = parse_flow("FlowLenia(R=3,T=2,C=1,theta=0.01,n=1,dd=3,sigma=0.5;c=0>0,b=[1],m=0.1,s=0.1,h=0)")
    start = np.zeros((1, 24, 24))
    start[0, 10:14, 10:14] = 1.0
    after = run_flow(start, world, 20)
    assert after.max() < 0.8 and (after > 1e-6).sum() > 16 * 4
    assert abs(after.sum() - 16) < 1e-12
    assert np.allclose(after[0], after[0].T) and np.allclose(after[0], after[0, ::-1, ::-1])


# -- conservation, engines, autograd ----------------------------------------------------------------------


@pytest.fixture
def one_thread():
    """Torch on one thread for the test (restored after): a step is hundreds of small operations, which
    two threads on a busy two-core machine run ten times slower than one."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _ring(shape: tuple[int, int] = (64, 64)) -> np.ndarray:
    return flow_creature("FOr").field(shape)


def test_mass_conserved_over_300_steps_float64_and_float32(one_thread):
    world = parse_flow(TEXT)
    start = _ring((48, 48))
    for dtype, tolerance in ((torch.float64, 1e-12), (torch.float32, 1e-6)):
        x = torch.from_numpy(start).to(dtype)
        with torch.no_grad():
            y = run_flow(x, world, 300)
        change = abs(y.double().sum().item() / x.double().sum().item() - 1)
        assert change < tolerance, (dtype, change)


def test_torch_matches_numpy_on_random_fields():
    world = parse_flow(SMALL)
    start = np.random.default_rng(2).random((3, 2, 20, 24)) * 1.5
    want, got = start, torch.from_numpy(start)
    for _ in range(5):
        want, got = numpy_step(want, world), run_flow(got, world, 1)
    assert got.shape == (3, 2, 20, 24) and got.dtype == torch.float64
    assert np.abs(got.numpy() - want).max() < 1e-9
    single = run_flow(torch.from_numpy(start[1]), world, 5)  # (C, H, W) in, (C, H, W) out
    assert np.abs(single.numpy() - want[1]).max() < 1e-9
    float32 = run_flow(torch.from_numpy(start).float(), world, 5)
    assert float32.dtype == torch.float32 and np.abs(float32.double().numpy() - want).max() < 1e-4


def test_gradcheck_in_cells_and_kernel_parameters(one_thread):
    from tensorca.lenia.flow import torch_step

    world = parse_flow(SMALL)
    rng = np.random.default_rng(3)
    cells = torch.from_numpy(rng.random((2, 7, 6)) * 1.2).requires_grad_()
    m, s, h = (torch.tensor([getattr(k, n) for k in world.kernels], dtype=torch.float64, requires_grad=True)
               for n in ("m", "s", "h"))
    assert torch.autograd.gradcheck(lambda a, m, s, h: torch_step(a, world, m=m, s=s, h=h),
                                    (cells, m, s, h), eps=1e-6, atol=1e-5)


def test_gradient_reaches_the_parameters_through_many_steps(one_thread):
    world = parse_flow(TEXT)
    cells = torch.from_numpy(_ring((48, 48))).requires_grad_()
    m = torch.tensor([0.15], dtype=torch.float64, requires_grad=True)
    from tensorca.lenia.flow import torch_step

    x, cache = cells, {}
    for _ in range(20):
        x = torch_step(x, world, m=m, _cache=cache)
    (x**2).sum().backward()  # mass is conserved, so its square's sum measures how it concentrates
    assert cells.grad is not None and torch.isfinite(cells.grad).all() and cells.grad.abs().max() > 0
    assert m.grad is not None and torch.isfinite(m.grad).all() and m.grad.abs().item() > 0


# -- the notation and the errors --------------------------------------------------------------------------


def test_rule_text_round_trips():
    for text in (TEXT, SMALL):
        world = parse_flow(text)
        assert parse_flow(str(world)) == world and FlowLenia.parse(world.canonical()) == world
    short = parse_flow("flowlenia( R=13, T=5, C=1 ; c=0>0, b=[1,1/3], m=0.15, s=0.015 )")
    assert short.canonical() == ("FlowLenia(R=13,T=5,C=1,gn=1,theta=1,n=2,dd=5,sigma=0.65;"
                                 "c=0>0,b=[1,1/3],m=0.15,s=0.015,h=1,r=1,kn=1)")
    built = FlowLenia(13, 5.0, 1, (Kernel(m=0.15, s=0.015),))
    assert parse_flow(str(built)) == built


@pytest.mark.parametrize(("text", "field"), [
    ("FlowLenia(R=13,T=5,C=1,dd=5,sigma=5;c=0>0,b=[1],m=0.1,s=0.1)", "sigma"),
    ("FlowLenia(R=13,T=5,C=1,n=0.5;c=0>0,b=[1],m=0.1,s=0.1)", "n"),
    ("FlowLenia(R=13,T=0,C=1;c=0>0,b=[1],m=0.1,s=0.1)", "T"),
    ("FlowLenia(R=13,T=5,C=1,dd=40;c=0>0,b=[1],m=0.1,s=0.1)", "dd"),
    ("FlowLenia(R=13,T=5,C=1,theta=-1;c=0>0,b=[1],m=0.1,s=0.1)", "theta"),
    ("FlowLenia(R=13,T=5,C=1,foo=1;c=0>0,b=[1],m=0.1,s=0.1)", "foo"),
    ("FlowLenia(R=13,T=5;c=0>0,b=[1],m=0.1,s=0.1)", "C"),
    ("FlowLenia(R=13,T=5,C=1;c=0>1,b=[1],m=0.1,s=0.1)", "c=0>1"),
    ("FlowLenia(R=13,T=5,C=1;c=0>0,b=[1],m=0.1)", "s"),
    ("FlowLenia(R=13,T=5,C=1)", "kernel"),
    ("FlowLenia(R=13,T=5,C=1;c=0>0,b=[1],m=0.1,s=0.1", "')'"),
    ("R=13,T=10,b=[1],m=0.15,s=0.015", "FlowLenia("),
])
def test_bad_text_names_the_field(text, field):
    with pytest.raises(RuleError) as info:
        parse_flow(text)
    assert field in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"sigma": 0.0}, "sigma"), ({"theta": 0.0}, "theta"), ({"gn": 4}, "gn"), ({"dd": 0}, "dd"),
    ({"kernels": (Kernel(m=0.1, s=-1.0),)}, "s"), ({"kernels": (Kernel(m=0.1, s=0.1, r=2.0),)}, "r"),
    ({"kernels": (Kernel(m=0.1, s=0.1, target=3),)}, "c"), ({"kernels": ()}, "kernels"),
])
def test_bad_values_name_the_field(kwargs, field):
    values = {"R": 13, "T": 5.0, "channels": 1, "kernels": (Kernel(m=0.15, s=0.015),), **kwargs}
    with pytest.raises(UsageError, match=field) as info:
        FlowLenia(**values)
    assert "\n" not in str(info.value)


def test_bad_grids_and_topologies_are_refused():
    world = parse_flow(TEXT)
    good = np.zeros((1, 32, 32))
    with pytest.raises(TopologyError, match="torus only"):
        run_flow(good, world, 1, topology=":P32,32")
    with pytest.raises(TopologyError, match="torus only"):
        run_flow(good, world, 1, topology=":T32+1,32")
    with pytest.raises(TopologyError, match="does not match"):
        run_flow(good, world, 1, topology=":T64,64")
    assert run_flow(good, world, 1, topology=":T32,32").shape == (1, 32, 32)
    with pytest.raises(GridError, match="C=1"):
        run_flow(np.zeros((2, 32, 32)), world, 1)
    with pytest.raises(GridError, match="finite and >= 0"):
        run_flow(np.full((1, 8, 8), -0.1), world, 1)
    with pytest.raises(GridError, match="float"):
        run_flow(np.zeros((1, 8, 8), dtype=np.uint8), world, 1)
    with pytest.raises(UsageError, match="steps"):
        run_flow(good, world, -1)
    with pytest.raises(TensorcaError):
        run_flow(good, "FlowLenia(R=13)", 1)


# -- the bundled creature ---------------------------------------------------------------------------------


def _components(mask: np.ndarray) -> int:
    """Connected components (8-neighbours) of ``mask`` on its torus."""
    height, width = mask.shape
    seen = np.zeros_like(mask)
    count = 0
    for y0, x0 in zip(*np.nonzero(mask), strict=True):
        if seen[y0, x0]:
            continue
        count += 1
        stack = [(y0, x0)]
        seen[y0, x0] = True
        while stack:
            y, x = stack.pop()
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    ny, nx = (y + dy) % height, (x + dx) % width
                    if mask[ny, nx] and not seen[ny, nx]:
                        seen[ny, nx] = True
                        stack.append((ny, nx))
    return count


def _centroid(mass: np.ndarray) -> np.ndarray:
    """``(y, x)`` mass centroid on the torus (the circular mean along each axis)."""
    out = []
    for axis, size in ((1, mass.shape[0]), (0, mass.shape[1])):
        phase = np.exp(2j * np.pi * np.arange(size) / size)
        out.append(np.angle((mass.sum(axis=axis) * phase).sum()) * size / (2 * np.pi) % size)
    return np.array(out)


def test_bundled_creature_gathers_into_one_persistent_ring():
    assert ("FOr", "Orbium ring") in flow_creature_names()
    ring = flow_creature("orbium ring")
    assert ring.code == "FOr" and ring.cells.shape == (1, 20, 20) and ring.world == parse_flow(TEXT)
    start = ring.field((48, 48))
    middle = run_flow(start, ring.world, 200)
    end = run_flow(middle, ring.world, 200)
    assert abs(end.sum() / start.sum() - 1) < 1e-12
    for cells in (middle, end):
        mass = cells[0]
        support = mass > 0.05 * mass.max()
        assert _components(support) == 1
        assert 80 <= support.sum() <= 200  # Orbium's cells covered 206 such cells; the ring is compact
        ys, xs = np.nonzero(support)
        assert np.ptp(ys) < 20 and np.ptp(xs) < 20
        assert 1.2 < mass.max() < 2.0  # denser than Lenia allows: mass is not held to [0, 1]
    shift = (_centroid(end[0]) - _centroid(middle[0]) + 24) % 48 - 24
    assert np.hypot(*shift) < 0.5  # it stays where it formed
    assert np.hypot(*((_centroid(end[0]) - _centroid(start[0]) + 24) % 48 - 24)) < 3


def test_unknown_creature_lists_the_known():
    with pytest.raises(UsageError, match="FOr"):
        flow_creature("nothing")


# -- the bundled mover ------------------------------------------------------------------------------------


def _track(cells: np.ndarray, world: FlowLenia, steps: int, every: int) -> tuple[np.ndarray, list[float], np.ndarray]:
    """Run ``steps`` steps of ``(1, H, W)`` cells, checking every ``every``: the centroid's displacement
    (summed from step to step, so unwrapped on the torus), the radius holding 90% of the mass around
    the centroid at each check, and the last cells."""
    height, width = cells.shape[-2:]
    yy, xx = np.mgrid[:height, :width]
    size = np.array([height, width])
    where, moved, radii = _centroid(cells[0]), np.zeros(2), []
    for _ in range(steps // every):
        cells = run_flow(cells, world, every)
        now = _centroid(cells[0])
        moved += (now - where + size / 2) % size - size / 2
        where = now
        dy, dx = (yy - now[0] + height / 2) % height - height / 2, (xx - now[1] + width / 2) % width - width / 2
        order = np.argsort(np.hypot(dy, dx).ravel())
        share = np.cumsum(cells[0].ravel()[order]) / cells.sum()
        radii.append(float(np.hypot(dy, dx).ravel()[order][np.searchsorted(share, 0.9)]))
    return moved, radii, cells


def test_flow_glider_moves_down_the_rows_and_stays_compact():
    glider = flow_creature("Flow glider")
    assert glider.code == "FGl" and ("FGl", "Flow glider") in flow_creature_names()
    assert parse_flow(str(glider.world)) == glider.world and glider.cells.shape == (1, 20, 16)
    start = glider.field((64, 64))
    moved, radii, end = _track(start, glider.world, 300, 50)
    # measured: (+9.8, -0.1) cells in 300 steps, 1,000 steps make 28.5 (0.029 cells a step)
    assert moved[0] > 7 and abs(moved[1]) < 1, moved
    assert max(radii) < 10, radii  # 90% of the mass within 8.6..8.7 cells of the centre: it holds together
    assert abs(end.sum() / start.sum() - 1) < 1e-9
    assert 0.8 < end.max() < 1.3


def test_the_ring_fails_the_mover_check():
    # the check above can fail: the stationary ring (FOr) does not pass it
    ring = flow_creature("FOr")
    moved, radii, _ = _track(ring.field((48, 48)), ring.world, 200, 50)
    assert np.hypot(*moved) < 3 and max(radii) < 10
