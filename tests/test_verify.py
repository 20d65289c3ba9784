"""``tensorca verify``: it passes correct engines, and it sees wrong ones (where and when)."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest

from tensorca.cli import main
from tensorca.engines import get_engine, registry
from tensorca.engines.base import Engine
from tensorca.errors import EngineError, MissingDependencyError, UsageError
from tensorca.verify import CONTROL_GRIDS, FAMILIES, TOPOLOGIES, ZeroPaddedTorusControl, verify

# ``tensorca.verify`` is also the name of the function the package exports.
verify_module = importlib.import_module("tensorca.verify")


def needs_torch() -> None:
    pytest.importorskip("torch")


class FlipOneCell(Engine):
    """The reference, except that cell (y=1, x=2) is flipped after every generation."""

    name = "flip-one-cell"

    def supports(self, rule, topology):
        return get_engine("numpy").supports(rule, topology)

    def advance(self, cells, rule, topology, generations):
        cells = np.asarray(cells)
        for _ in range(generations):
            cells = get_engine("numpy").advance(cells, rule, topology, 1)
            if cells.shape[1] > 1 and cells.shape[2] > 2:
                cells[:, 1, 2] = 1 - (cells[:, 1, 2] == 1)
        return cells


class Crashes(FlipOneCell):
    name = "crashes"

    def advance(self, cells, rule, topology, generations):
        raise RuntimeError("kernel exploded")


def test_torch_engine_passes_every_family_and_topology():
    needs_torch()
    report = verify(["torch"], ["cpu"], grids=4, generations=5)
    real = [r for r in report.rows if not r.control]
    assert {(r.family, r.topology) for r in real} == {(f, t) for f in FAMILIES for t in TOPOLOGIES}
    assert all(r.grids == 4 and r.identical == 4 and r.first_mismatch is None for r in real)
    assert report.ok


def test_negative_control_is_caught():
    """Zero padding on a torus must be seen, or the whole check would be worthless."""
    report = verify(["numpy"], ["cpu"], grids=6, generations=4, families=["life-like", "larger-than-life"])
    controls = [r for r in report.rows if r.control]
    assert {r.family for r in controls} == {"life-like", "larger-than-life"}
    for row in controls:
        assert row.engine == "control:zero-pad" and row.topology == "torus"
        assert row.identical < row.grids and row.passed
        # The two differ first after one generation, within a neighbourhood radius of an edge.
        m = re.search(r"gen 1, grid \d+ \((\d+)x(\d+) .*cell \(y=(\d+), x=(\d+)\)", row.first_mismatch)
        assert m, row.first_mismatch
        height, width, y, x = (int(v) for v in m.groups())
        radius = 1 if row.family == "life-like" else 5
        assert min(y, x, height - 1 - y, width - 1 - x) < radius
    assert report.ok


@pytest.mark.parametrize("base", [None, "torch"])
def test_control_engine_really_is_wrong_on_a_torus_and_right_on_a_plane(base):
    from tensorca.arrays import to_engine
    from tensorca.rules import parse_rule
    from tensorca.topology import Topology

    if base is not None:
        needs_torch()
    control = ZeroPaddedTorusControl(None if base is None else get_engine(base))
    rule, reference = parse_rule("B3/S23"), get_engine("numpy")
    cells = np.zeros((1, 6, 6), dtype=np.uint8)
    cells[0, 0, 2:5] = 1  # a blinker across the top edge
    on_engine = to_engine(cells, control.array_module, "cpu")
    on_torus = verify_module.to_numpy(control.advance(on_engine, rule, Topology.torus(6, 6), 1))
    assert not np.array_equal(on_torus, reference.advance(cells, rule, Topology.torus(6, 6), 1))
    np.testing.assert_array_equal(verify_module.to_numpy(control.advance(on_engine, rule, Topology.plane(6, 6), 1)),
                                  reference.advance(cells, rule, Topology.plane(6, 6), 1))


def test_a_wrong_engine_is_reported_with_generation_and_cell():
    # The sphere row squares its grids (2x3 -> 2x2 has no cell (1, 2)): the other kinds keep the sizes.
    kinds = [t for t in TOPOLOGIES if t != "sphere"]
    report = verify([FlipOneCell()], grids=3, generations=4, families=["life-like"], topologies=kinds, control=False)
    assert not report.ok and {r.topology for r in report.rows} == set(kinds)
    for row in report.rows:
        assert not row.passed and row.identical == 1  # grid 0 is 1x1, where the flipped cell does not exist
        assert row.first_cell == "gen 1 grid 1 (y=1, x=2)"
        assert "cell (y=1, x=2)" in row.first_mismatch and "2x3" in row.first_mismatch


def test_a_crashing_engine_fails_its_rows():
    report = verify([Crashes()], grids=2, generations=2, families=["wolfram"], control=False)
    assert not report.ok
    assert all("kernel exploded" in row.first_mismatch for row in report.rows)


def test_unsupported_families_are_skipped_not_failed():
    needs_torch()
    report = verify(["dense-conv"], ["cpu"], grids=2, generations=2, families=["life-like", "larger-than-life"],
                    control=False)
    by_family = {(r.family, r.topology): r for r in report.rows}
    assert by_family[("life-like", "torus")].identical == 2
    assert by_family[("larger-than-life", "plane")].skipped is not None
    assert report.ok


def test_unknown_device_is_an_error():
    with pytest.raises(EngineError, match="no engine runs on"):
        verify(["numpy"], ["no-such-device"], grids=1, generations=1)


@pytest.mark.parametrize("kwargs, match", [
    ({"grids": 0}, "at least one grid"), ({"generations": 0}, "at least one grid and one generation"),
    ({"families": ["nope"]}, "unknown rule family 'nope'"), ({"topologies": ["donut"]}, "unknown topology 'donut'"),
])
def test_bad_arguments_are_usage_errors(kwargs, match):
    with pytest.raises(UsageError, match=match):
        verify(["numpy"], **kwargs)


def test_one_grid_still_runs_the_control_on_enough_grids():
    report = verify(["numpy"], grids=1, generations=1, families=["life-like", "larger-than-life"], topologies=["torus"])
    controls = [r for r in report.rows if r.control]
    assert len(controls) == 2 and all(r.grids == CONTROL_GRIDS and r.passed for r in controls)
    assert all(r.grids == 1 for r in report.rows if not r.control)
    assert report.ok


def test_only_the_reference_installed_says_which_extras_add_engines(monkeypatch):
    real = registry.installed
    hidden = ("numba", "torch", "triton")
    monkeypatch.setattr(registry, "installed", lambda module: module not in hidden and real(module))
    monkeypatch.setattr(verify_module, "available_engines", lambda: [get_engine("numpy")])
    with pytest.raises(MissingDependencyError, match="only the NumPy reference engine is installed") as caught:
        verify()
    text = str(caught.value)
    fast = text.split("pip install 'tensorca[fast]' (", 1)[1].split(")", 1)[0].split(", ")
    assert "bitpack-cpu" in fast and "ltl-cpu" in fast
    assert "pip install 'tensorca[torch]' (torch, dense-conv)" in text
    assert caught.value.install == "pip install 'tensorca[fast]'" and caught.value.package == "numba"


def test_cli_verify_exit_status(capsys):
    needs_torch()
    args = ["verify", "--engines", "torch,dense-conv", "--grids", "5", "--gens", "3", "--family", "life-like,map"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "dense-conv" in text and "control:zero-pad" in text and "caught" in text
    registry.register(FlipOneCell())
    try:
        args = ["verify", "--engines", "flip-one-cell", "--grids", "2", "--gens", "2", "--family", "life-like"]
        assert main(args) == 1
        assert "gen 1 grid 1 (y=1, x=2)" in capsys.readouterr().out
    finally:
        registry.unregister("flip-one-cell")
