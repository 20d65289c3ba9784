"""Checkpoints: atomic .npz + JSON manifest, no pickle; N, checkpoint, resume N == 2N, for every engine family."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tensorca
from tensorca import checkpoint as ckpt
from tensorca.cli import main
from tensorca.engines import get_engine
from tensorca.engines.base import Engine
from tensorca.errors import CheckpointError
from tensorca.simulate import Interrupted, resume, run

ENGINES = [("numpy", "345/2/4"), ("numpy", "R2,C0,M1,S4..6,B5..6,NM"), ("torch", "B2-a/S12"), ("torch", "345/2/4"),
           ("bitpack-cpu", "B3/S23"), ("dense-conv", "B36/S23"), ("bitpack-gpu", "B3/S23")]


@pytest.fixture
def maybe_interp(request, monkeypatch):
    if "bitpack-gpu" in request.node.name:
        pytest.importorskip("triton")
        import torch

        if not torch.cuda.is_available():
            monkeypatch.setenv("TRITON_INTERPRET", "1")


@pytest.mark.parametrize("backend,rule", ENGINES)
def test_n_checkpoint_resume_n_equals_2n(tmp_path, backend, rule, maybe_interp):
    rule_value = tensorca.parse_rule(rule)
    grid = (np.random.default_rng(7).random((2, 18, 21)) < 0.4).astype(np.uint8) % rule_value.n_states
    n = 6
    whole = run(grid, rule, 2 * n, backend=backend, topology="plane")
    path = tmp_path / "half.npz"
    half = run(grid, rule, n, backend=backend, topology="plane", checkpoint=path)
    saved = ckpt.load(path)
    assert saved.generation == n and saved.rule.canonical() == rule_value.canonical()
    assert saved.topology == tensorca.Topology.plane(21, 18)
    assert saved.manifest["engine"] == backend and saved.manifest["tensorca_version"] == tensorca.__version__
    assert (saved.state == half).all()
    again = resume(path, n, backend=backend)
    assert again.tolist() == whole.tolist()


def test_checkpoint_every_writes_the_latest_state_and_the_end(tmp_path):
    grid = (np.random.default_rng(1).random((20, 20)) < 0.4).astype(np.uint8)
    path = tmp_path / "run.npz"
    seen = []
    original = ckpt.save

    def spy(p, cells, manifest):
        seen.append(manifest["generation"])
        return original(p, cells, manifest)

    import tensorca.simulate as sim

    sim.checkpoint_io.save = spy
    try:
        out = run(grid, "B3/S23", 10, checkpoint=path, checkpoint_every=4)
    finally:
        sim.checkpoint_io.save = original
    assert seen == [4, 8, 10]
    saved = ckpt.load(path)
    assert saved.state.shape == (20, 20) and (saved.state == out).all()  # an (H, W) input stays (H, W)
    assert not list(tmp_path.glob(".*tmp"))  # no temporary files left behind


def test_unbounded_pattern_round_trip_keeps_origin_generation_and_name(tmp_path):
    gun = tensorca.load("src/tensorca/data/patterns/gosper_gun.rle")
    whole = run(gun, generations=100)
    path = tmp_path / "gun.npz"
    run(gun, generations=50, checkpoint=path, checkpoint_every=20)
    saved = ckpt.load(path)
    assert isinstance(saved.state, tensorca.Pattern) and saved.state.generation == gun.generation + 50
    assert saved.state.name == gun.name
    later = resume(path, 50)
    assert later.origin == whole.origin and later.generation == whole.generation
    assert (later.cells == whole.cells).all()


def test_no_pickle_and_malformed_files_are_errors(tmp_path):
    path = tmp_path / "c.npz"
    ckpt.save(path, np.zeros((1, 4, 4), np.uint8), ckpt.manifest_for("grid", tensorca.parse_rule("B3/S23"),
                                                                      tensorca.Topology.torus(4, 4), 3))
    with np.load(path, allow_pickle=False) as data:
        assert sorted(data.files) == ["cells", "manifest"] and data["manifest"].dtype == np.uint8
        manifest = json.loads(bytes(data["manifest"]).decode())
    assert manifest["format"] == ckpt.FORMAT and manifest["generation"] == 3
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(CheckpointError, match="not a tensorca checkpoint"):
        ckpt.load(tmp_path / "other.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError):
        ckpt.load(tmp_path / "junk.npz")


class InterruptingEngine(Engine):
    """The reference, but Ctrl-C arrives during the ``at``-th call."""

    name = "interrupting"

    def __init__(self, at: int):
        self.at, self.calls = at, 0

    def supports(self, rule, topology):
        return True

    def advance(self, cells, rule, topology, generations):
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return get_engine("numpy").advance(cells, rule, topology, generations)


def test_ctrl_c_writes_the_last_completed_state(tmp_path):
    grid = (np.random.default_rng(2).random((3, 16, 16)) < 0.4).astype(np.uint8)
    path = tmp_path / "i.npz"
    with pytest.raises(Interrupted) as info:
        run(grid, "B3/S23", 100, backend=InterruptingEngine(at=3), checkpoint=path, checkpoint_every=5)
    assert info.value.generation == 10 and info.value.path == path
    saved = ckpt.load(path)
    assert saved.generation == 10
    assert saved.state.tolist() == run(grid, "B3/S23", 10, backend="numpy").tolist()
    assert resume(path, 90, backend="numpy").tolist() == run(grid, "B3/S23", 100, backend="numpy").tolist()


def test_cli_checkpoint_resume_and_interrupt(tmp_path, capsys, monkeypatch):
    path = tmp_path / "soup.npz"
    assert main(["run", "--soup", "32x24", "--seed", "4", "--gens", "20", "--checkpoint", str(path),
                 "--checkpoint-every", "10", "--out", str(tmp_path / "a.rle"), "--no-progress"]) == 0
    assert main(["run", "--resume", str(path), "--gens", "20", "--out", str(tmp_path / "b.rle"), "--no-progress"]) == 0
    assert main(["run", "--soup", "32x24", "--seed", "4", "--gens", "40", "--out", str(tmp_path / "c.rle"),
                 "--no-progress"]) == 0
    b = tensorca.load(tmp_path / "b.rle")
    c = tensorca.load(tmp_path / "c.rle")
    assert (b.cells == c.cells).all()
    capsys.readouterr()

    import tensorca.simulate as sim

    real = sim.advance_observed
    calls = {"n": 0}

    def interrupt_second(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(sim, "advance_observed", interrupt_second)
    stop = tmp_path / "stop.npz"
    code = main(["run", "--soup", "16x16", "--seed", "1", "--gens", "50", "--checkpoint", str(stop),
                 "--checkpoint-every", "5", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 130 and "generation 5 saved to" in err and str(stop) in err
    assert ckpt.load(stop).generation == 5
