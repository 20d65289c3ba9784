"""The engine contract, checked on every available engine and every device it has here.

What :class:`~tensorca.engines.base.Engine` promises, for each ``(engine, device)`` pair:

(a) Golly's golden cases (``tests/data/golden_cases.jsonl``) that it ``supports``: final sha256, and
    the population trace where that is cheap to read;
(b) bit-for-bit parity with the NumPy reference on odd, non-square random grids (1-cell and 1-row
    edges included), for every topology kind and every rule family it claims;
(c) a refusal is loud: for what ``supports`` declines, ``advance`` raises :class:`EngineError` and so
    does ``tensorca.run(..., backend=name)``: a refused rule is never computed silently;
(d) the input is never modified;
(e) 0 generations returns an equal copy that shares no memory with the input.

The pairs are ``available_engines() x engine.devices()``, plus the devices an engine gains under
``TRITON_INTERPRET=1`` (bitpack-gpu's Triton kernels on CPU tensors: small work only), plus
``cuda`` for torch engines when ``TENSORCA_TEST_DEVICE=cuda`` (scripts/gpu_check.sh sets it).
Pairs on a CUDA device carry the ``cuda`` marker. The reference itself is in (a), (d) and (e) only.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import tensorca
from tensorca.engines import engine_names, get_engine
from tensorca.engines.base import Engine
from tensorca.errors import EngineError, MissingDependencyError
from tensorca.families import families
from tensorca.rules import parse_rule, parse_spec
from tensorca.rules.base import Rule
from tensorca.topology import Topology
from tensorca.verify import rule_value

from .conftest import cuda_available, golden_cases, golden_start_grid, sha256_grid

REQUESTED_DEVICE = os.environ.get("TENSORCA_TEST_DEVICE", "cpu")
#: The interpreter runs Triton kernels on CPU tensors about 1000x slower than a GPU: golden
#: cases under it stop at this many generations, and parity tries fewer rules and shapes.
INTERPRETED_MAX_GENERATIONS = 200


if REQUESTED_DEVICE.startswith("cuda") and not cuda_available():
    pytest.fail(f"TENSORCA_TEST_DEVICE={REQUESTED_DEVICE} but torch sees no CUDA device", pytrace=False)


def _interpreted_devices(engine: Engine) -> list[str]:
    """Devices ``engine`` has under ``TRITON_INTERPRET=1`` but not without it."""
    before = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        gained = engine.devices()
    finally:
        if before is None:
            del os.environ["TRITON_INTERPRET"]
        else:
            os.environ["TRITON_INTERPRET"] = before
    return [d for d in gained if d not in engine.devices()]


def _targets() -> list[tuple[str, str, bool]]:
    """``(engine name, device, interpreted)`` for every engine that loads here."""
    found = []
    for name in engine_names():
        try:
            engine = get_engine(name)
        except (EngineError, MissingDependencyError):
            continue
        devices = list(engine.devices())
        if engine.array_module == "torch" and REQUESTED_DEVICE.startswith("cuda") and "cuda" not in devices:
            devices.append("cuda")
        found += [(name, device, False) for device in devices]
        found += [(name, device, True) for device in _interpreted_devices(engine)]
    return found


TARGETS = _targets()


def _param(target: tuple[str, str, bool], *rest: Any, id_: str = "", slow: bool = False) -> Any:
    """One test's parameters, with the ``cuda`` marker on a CUDA device and ``slow`` when asked."""
    name, device, interpreted = target
    label = f"{name}-{device}{'-interpreted' if interpreted else ''}"
    marks = [pytest.mark.cuda] * device.startswith("cuda") + [pytest.mark.slow] * slow
    return pytest.param(target, *rest, marks=marks, id=f"{label}-{id_}" if id_ else label)


@pytest.fixture
def engine_on(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> tuple[Engine, str]:
    """The ``(engine, device)`` of the test's ``target``, with the Triton interpreter on if it needs it."""
    name, device, interpreted = request.node.callspec.params["target"]
    if interpreted:
        monkeypatch.setenv("TRITON_INTERPRET", "1")
    return get_engine(name), device


# -- moving grids in and out of an engine ----------------------------------------------------------


def to_engine(cells: np.ndarray, engine: Engine, device: str) -> Any:
    """``(B, H, W)`` uint8 as the engine takes it: the array itself, or a tensor on ``device``."""
    if engine.array_module == "torch":
        import torch

        return torch.from_numpy(cells.copy()).to(device)
    return cells.copy()


def to_numpy(cells: Any) -> np.ndarray:
    return cells.detach().cpu().numpy() if hasattr(cells, "detach") else np.asarray(cells)


def advance_checked(engine: Engine, cells: np.ndarray, device: str, rule: Rule, topology: Topology,
                    generations: int) -> np.ndarray:
    """``engine.advance`` on a copy of ``cells``; fails if the input changed or the result's shape/dtype is off."""
    given = to_engine(cells, engine, device)
    out = to_numpy(engine.advance(given, rule, topology, generations))
    np.testing.assert_array_equal(to_numpy(given), cells, err_msg=f"{engine.name} modified its input")
    assert out.dtype == cells.dtype and out.shape == cells.shape, (out.dtype, out.shape)
    return out


def soup(seed: str, shape: tuple[int, ...], n_states: int) -> np.ndarray:
    """Random cells of every state ``0..n_states-1``, density drawn from 0.1-0.9, seeded by ``seed``."""
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    live = rng.random(shape) < rng.uniform(0.1, 0.9)
    return (live * rng.integers(1, max(n_states, 2), shape)).astype(np.uint8)


def rule_soup(seed: str, rule: Rule, batch: int, shape: tuple[int, int]) -> np.ndarray:
    """A :func:`soup` of ``rule``'s states, ``(batch, H, W)``; continuous rules: float64 in [0, 1) where
    live, ``(batch, C, H, W)`` with channels."""
    space = rule.state_space
    if space.discrete:
        return soup(seed, (batch, *shape), rule.n_states)
    full = (batch, *((space.channels,) if space.channels else ()), *shape)
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    return (rng.random(full) < rng.uniform(0.1, 0.9)) * rng.random(full)


def assert_same(got: np.ndarray, want: np.ndarray, tolerance: float | None, message: str) -> None:
    """Bit for bit, or within ``tolerance`` per cell (a continuous family's)."""
    if tolerance is None:
        np.testing.assert_array_equal(got, want, err_msg=message)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=tolerance, err_msg=message)


# -- (a) Golly's golden cases ----------------------------------------------------------------------

BOUNDED = [c for c in golden_cases() if c["topology"] != "unbounded_plane"]


def _golden_params() -> Iterator[Any]:
    for target in TARGETS:
        engine = get_engine(target[0])
        for case in BOUNDED:
            if target[2] and case["generations"] > INTERPRETED_MAX_GENERATIONS:
                continue
            if engine.supports(*parse_spec(case["rule"])):
                yield _param(target, case, id_=case["name"], slow=target[2] and case["generations"] > 10)


def population_trace(engine: Engine, grid: np.ndarray, device: str, rule: Rule, topology: Topology,
                     generations: int, interpreted: bool) -> list[int] | None:
    """Population after each generation ``0..generations``; None where reading it would be slow."""
    observed: Callable[..., tuple[Any, Any]] | None = getattr(engine, "advance_observed", None)
    if observed is not None:  # the engine counts on its device and hands the trace back once
        _, population = observed(to_engine(grid, engine, device), rule, topology, generations)
        return [int(v) for v in to_numpy(population)[:, 0]]
    if interpreted or engine.array_module != "numpy":
        return None  # a tensor round trip (or an interpreted launch) per generation costs too much
    trace, cells = [int(np.count_nonzero(grid))], grid
    for _ in range(generations):
        cells = to_numpy(engine.advance(to_engine(cells, engine, device), rule, topology, 1))
        trace.append(int(np.count_nonzero(cells)))
    return trace


@pytest.mark.parametrize("target, case", list(_golden_params()))
def test_golden_case(engine_on, target, case):
    """The whole run in one call reaches Golly's final state; one generation at a time, Golly's populations."""
    engine, device = engine_on
    rule, topology = parse_spec(case["rule"])
    grid = golden_start_grid(case)[None]
    final = advance_checked(engine, grid, device, rule, topology, case["generations"])
    assert sha256_grid(final[0]) == case["final_sha256"]
    trace = population_trace(engine, grid, device, rule, topology, case["generations"], target[2])
    if trace is not None:
        assert trace == case["population_trace"]


#: Engines that run only rules the cases above do not hold (rule files Golly ships and tensorca may
#: not), and the test module that checks them against Golly's own results instead.
GOLDEN_ELSEWHERE = {"margolus": "tests/test_margolus_golly.py"}


def test_every_engine_meets_golden_cases():
    """Each engine here is checked against Golly on at least two cases (the list above is not empty by accident)."""
    counted = {name: 0 for name, _, _ in TARGETS}
    for param in _golden_params():
        counted[param.values[0][0]] += 1
    assert "numpy" in counted and all(n >= 2 for name, n in counted.items() if name not in GOLDEN_ELSEWHERE), counted


# -- (b) and (c): parity with the reference, or a loud refusal ---------------------------------------

#: Rule families and the rules tried in each: the registry's (:mod:`tensorca.families`), plug-ins
#: installed here included; a family's ``tolerance`` (continuous states) is the largest difference allowed.
FAMILIES: dict[str, tuple[str, ...]] = {f.name: f.samples for f in families()}
TOLERANCES: dict[str, float | None] = {f.name: f.tolerance for f in families()}
KINDS = ("torus", "plane", "shifted-torus", "klein", "cross", "sphere")
#: (H, W): odd and non-square, one row, one column, one cell, and an even pair for shifted Klein bottles.
SHAPES = ((7, 13), (1, 5), (17, 3), (5, 1), (1, 1), (6, 10))
GENERATIONS = 6


def topologies(kind: str, height: int, width: int) -> list[Topology]:
    """The topologies of ``kind`` on ``height x width`` (a sphere is ``height x height``)."""
    if kind in ("torus", "plane", "cross"):
        return [Topology(kind, width, height)]  # type: ignore[arg-type]
    if kind == "sphere":
        return [Topology.sphere(height)]
    if kind == "shifted-torus":
        return ([Topology.torus(width, height, shift_x=s) for s in (1, -2) if abs(s) < width]
                + [Topology.torus(width, height, shift_y=s) for s in (-1, 2) if abs(s) < height])
    twists = [("h", False), ("v", False)] + [("h", True)] * (width % 2 == 0) + [("v", True)] * (height % 2 == 0)
    return [Topology.klein(width, height, twist, shift=shift) for twist, shift in twists]  # type: ignore[arg-type]


def _parity_params() -> Iterator[Any]:
    for target in TARGETS:
        if target[0] == "numpy":
            continue
        for family in FAMILIES:
            for kind in KINDS:
                yield _param(target, family, kind, id_=f"{family}-{kind}", slow=target[2])


def expect_refusal(engine: Engine, device: str, cells: np.ndarray, rule: Rule, topology: Topology) -> None:
    """``advance`` and ``tensorca.run`` both raise :class:`EngineError` for what ``engine`` declines."""
    with pytest.raises(EngineError):
        engine.advance(to_engine(cells, engine, device), rule, topology, 1)
    options = {"device": device} if engine.array_module == "torch" else {}
    with pytest.raises(EngineError):
        tensorca.run(cells, rule, 1, backend=engine.name, topology=topology, **options)


@pytest.mark.parametrize("target, family, kind", list(_parity_params()))
def test_matches_reference_or_refuses(engine_on, target, family, kind):
    """Each rule of ``family`` on each ``kind`` topology: bit-identical to the reference, or refused loudly."""
    engine, device = engine_on
    reference = get_engine("numpy")
    interpreted = target[2]
    generations, shapes = (3, SHAPES[:3]) if interpreted else (GENERATIONS, SHAPES)
    for text in FAMILIES[family][:4] if interpreted else FAMILIES[family]:
        rule = rule_value(text)
        for height, width in shapes:
            for topology in topologies(kind, height, width):
                cells = rule_soup(f"{text} {topology}", rule, 2, topology.shape)
                if not engine.supports(rule, topology):
                    expect_refusal(engine, device, cells, rule, topology)
                    continue
                want = reference.advance(cells, rule, topology, generations)
                got = advance_checked(engine, cells, device, rule, topology, generations)
                assert_same(got, want, TOLERANCES[family], f"{engine.name} {text} on {topology}")


@pytest.mark.parametrize("target", [_param(t) for t in TARGETS])
def test_refuses_the_unbounded_plane(engine_on, target):
    """Engines see bounded grids only; the simulator owns the unbounded plane."""
    engine, _ = engine_on
    assert not engine.supports(parse_rule("B3/S23"), Topology.unbounded())


# -- (d) the input is never modified, (e) zero generations is a copy ---------------------------------


def first_supported(engine: Engine, topology: Topology, texts: tuple[str, ...]) -> Rule:
    for text in texts:
        rule = rule_value(text)
        if engine.supports(rule, topology):
            return rule
    pytest.fail(f"{engine.name} supports none of {texts} on {topology}")


@pytest.mark.parametrize("target", [_param(t) for t in TARGETS])
@pytest.mark.parametrize("kind", ["torus", "plane"])
def test_input_is_never_modified(engine_on, target, kind):
    """One family after another on a batch of three: the caller's array or tensor is left as it was."""
    engine, device = engine_on
    topology = Topology(kind, 11, 9)
    for texts in FAMILIES.values():
        rule = rule_value(texts[0])
        if not engine.supports(rule, topology):
            continue
        cells = rule_soup(f"input {texts[0]}", rule, 3, (9, 11))
        given = to_engine(cells, engine, device)
        engine.advance(given, rule, topology, 4)
        np.testing.assert_array_equal(to_numpy(given), cells, err_msg=texts[0])


@pytest.mark.parametrize("target", [_param(t) for t in TARGETS])
def test_zero_generations_returns_a_copy(engine_on, target):
    """Equal cells in a new array: writing to the result leaves the input alone."""
    engine, device = engine_on
    topology = Topology.torus(14, 8)  # even sides: a block engine runs an emulated Margolus rule natively
    rule = first_supported(engine, topology, ("B3/S23", "345/2/4", "R2,C0,M1,S3..8,B4..6,NM", "BBM-emulated"))
    cells = soup("zero", (2, 8, 14), rule.n_states)
    given = to_engine(cells, engine, device)
    out = engine.advance(given, rule, topology, 0)
    assert out is not given and type(out) is type(given)
    np.testing.assert_array_equal(to_numpy(out), cells)
    out[...] = 255
    np.testing.assert_array_equal(to_numpy(given), cells)
