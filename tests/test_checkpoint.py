"""Checkpoints: atomic .npz + JSON manifest, no pickle; N, checkpoint, resume N == 2N, for every engine family."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest

import tensorca
from tensorca.cli import main
from tensorca.engines import get_engine
from tensorca.engines.base import Engine
from tensorca.errors import CheckpointError
from tensorca.persist import npz as ckpt
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

    for name, module in list(sys.modules.items()):  # wherever the simulate package looks it up
        if name.startswith("tensorca.simulate") and getattr(module, "advance_observed", None) is real:
            monkeypatch.setattr(module, "advance_observed", interrupt_second)
    stop = tmp_path / "stop.npz"
    code = main(["run", "--soup", "16x16", "--seed", "1", "--gens", "50", "--checkpoint", str(stop),
                 "--checkpoint-every", "5", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 130 and "generation 5 saved to" in err and str(stop) in err
    assert ckpt.load(stop).generation == 5


# --- hostile checkpoints (issue 11): only CheckpointError escapes, sizes refused from the header ----


def _valid_checkpoints(tmp_path) -> list:
    grid = (np.random.default_rng(9).random((2, 12, 10)) < 0.4).astype(np.uint8)
    rule = tensorca.parse_rule("B3/S23")
    paths = [tmp_path / "grid.npz", tmp_path / "pattern.npz"]
    ckpt.save(paths[0], grid, ckpt.manifest_for("grid", rule, tensorca.Topology.torus(10, 12), 7))
    glider = tensorca.Pattern(cells=grid[0, :5, :5], rule=rule, origin=(-3, 4), name="g", comments=["c"])
    ckpt.save(paths[1], grid[:1, :5, :5], ckpt.manifest_for("pattern", rule, tensorca.Topology.unbounded(), 3,
                                                            origin=(-3, 4), pattern=glider))
    return paths


def _load_or_checkpoint_error(path):
    try:
        return ckpt.load(path)
    except CheckpointError as exc:
        assert str(path) in str(exc)
        return None


def test_truncated_and_flipped_checkpoints_raise_only_checkpoint_error(tmp_path):
    for original in _valid_checkpoints(tmp_path):
        data = original.read_bytes()
        bad = tmp_path / "bad.npz"
        for cut in list(range(0, len(data), max(1, len(data) // 150))) + [len(data) - 1]:
            bad.write_bytes(data[:cut])
            assert _load_or_checkpoint_error(bad) is None
        rng = np.random.default_rng(0)
        for position in range(0, len(data), max(1, len(data) // 300)):
            flipped = bytearray(data)
            flipped[position] ^= int(rng.integers(1, 256))
            bad.write_bytes(bytes(flipped))
            saved = _load_or_checkpoint_error(bad)
            if saved is not None:  # a harmless byte (a timestamp): the state is still whole and valid
                assert saved.generation in (3, 7)


def _edited(tmp_path, path, change=None, cells=None):
    """A copy of checkpoint ``path`` with its manifest changed by ``change(manifest)`` or its cells replaced."""
    with np.load(path, allow_pickle=False) as data:
        manifest = json.loads(bytes(data["manifest"]).decode())
        old_cells = data["cells"]
    if change is not None:
        change(manifest)
    out = tmp_path / "edited.npz"
    text = json.dumps(manifest).replace('"HUGE"', "9" * 5000)  # beyond the 4300-digit int() limit
    blob = np.frombuffer(text.encode(), dtype=np.uint8)
    np.savez_compressed(out, cells=old_cells if cells is None else cells, manifest=blob)
    return out


@pytest.mark.parametrize(
    "key, value, match",
    [
        ("generation", -1, "'generation' must be an integer"),
        ("generation", 1.5, "'generation' must be an integer"),
        ("generation", True, "'generation' must be an integer"),
        ("generation", "3", "'generation' must be an integer"),
        ("generation", "HUGE", "cannot read checkpoint"),  # JSON number beyond the int() digit limit
        ("rule", "V", "V"),
        ("rule", 5, "'rule' must be a string"),
        ("format", "other/1", "unknown checkpoint format"),
        ("kind", "movie", "'kind'"),
        ("batched", "yes", "'batched'"),
        ("topology", "torus", "'topology' must be an object"),
        ("topology", {"kind": "torus", "width": -4, "height": 12}, "'width' must be an integer"),
        ("topology", {"kind": "torus", "width": 10.0, "height": 12}, "'width' must be an integer"),
        ("topology", {"kind": "klein"}, "unknown topology kind"),
        ("topology", {"kind": "torus", "width": 11, "height": 12}, "do not fit topology"),
        ("topology", {"kind": "unbounded"}, "do not fit topology"),
    ],
)
def test_grid_manifest_edits_are_refused(tmp_path, key, value, match):
    grid_path = _valid_checkpoints(tmp_path)[0]
    edited = _edited(tmp_path, grid_path, lambda m: m.__setitem__(key, value))
    with pytest.raises(CheckpointError, match=match) as info:
        ckpt.load(edited)
    assert str(edited) in str(info.value)


@pytest.mark.parametrize(
    "key, value, match",
    [("origin", [1], "'origin' must be"), ("origin", ["a", 2], "'origin' must be"),
     ("origin", [2**70, 0], "'origin' must be"), ("comments", [1], "must be strings"), ("name", 4, "must be strings"),
     ("batched", False, None)],
)
def test_pattern_manifest_edits_are_refused(tmp_path, key, value, match):
    pattern_path = _valid_checkpoints(tmp_path)[1]
    edited = _edited(tmp_path, pattern_path, lambda m: m.__setitem__(key, value))
    if match is None:
        assert ckpt.load(edited).state.origin == (-3, 4)
        return
    with pytest.raises(CheckpointError, match=match):
        ckpt.load(edited)


def test_cell_values_are_checked_never_wrapped(tmp_path):
    grid_path = _valid_checkpoints(tmp_path)[0]
    wide = np.zeros((2, 12, 10), dtype=np.int64)
    wide[0, 0, 0] = 256
    with pytest.raises(CheckpointError, match=r"states 0\.\.256, outside 0\.\.255"):
        ckpt.load(_edited(tmp_path, grid_path, cells=wide))
    wide[0, 0, 0] = -1
    with pytest.raises(CheckpointError, match="outside 0..255"):
        ckpt.load(_edited(tmp_path, grid_path, cells=wide))
    wide[0, 0, 0] = 2
    with pytest.raises(CheckpointError, match="state 2, not a state of rule 'B3/S23'"):
        ckpt.load(_edited(tmp_path, grid_path, cells=wide))
    wide[0, 0, 0] = 1  # an integer array of valid states is read as uint8
    assert ckpt.load(_edited(tmp_path, grid_path, cells=wide)).state.dtype == np.uint8
    with pytest.raises(CheckpointError, match="float32 values, but rule 'B3/S23' has discrete states"):
        ckpt.load(_edited(tmp_path, grid_path, cells=np.zeros((2, 12, 10), np.float32)))
    with pytest.raises(CheckpointError, match="not integers"):
        ckpt.load(_edited(tmp_path, grid_path, cells=np.zeros((2, 12, 10), np.float16)))
    with pytest.raises(CheckpointError, match=r"\(B, H, W\)"):
        ckpt.load(_edited(tmp_path, grid_path, cells=np.zeros((12, 10), np.uint8)))
    with pytest.raises(CheckpointError, match=r"shape \(1, H, W\)"):
        ckpt.load(_edited(tmp_path, grid_path, lambda m: m.__setitem__("batched", False)))


def _npz_declaring(path, shape, body: bytes) -> None:
    """An npz whose cells.npy header declares ``shape`` (uint8) but whose data is ``body``."""
    import zipfile

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False, "shape": shape})
    manifest = io.BytesIO()
    np.save(manifest, np.frombuffer(b"{}", dtype=np.uint8))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("cells.npy", header.getvalue() + body)
        archive.writestr("manifest.npy", manifest.getvalue())


def test_declared_size_is_refused_before_decompressing(tmp_path):
    import tracemalloc

    path = tmp_path / "bomb.npz"
    _npz_declaring(path, (1, 40000, 80000), b"\0" * 5_000_000)  # 3.2 GB declared, 5 KB on disk
    assert path.stat().st_size < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError, match=r"declares shape \(1, 40000, 80000\) of uint8 \(3200000000 bytes\)"):
            ckpt.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    small = tmp_path / "short.npz"
    _npz_declaring(small, (1, 100, 100), b"\0" * 99)
    with pytest.raises(CheckpointError, match="truncated: 99 of 10000 bytes"):
        ckpt.load(small)
    grid_path = _valid_checkpoints(tmp_path)[0]
    with pytest.raises(CheckpointError, match="over the budget of 100 bytes"):
        ckpt.load(grid_path, max_cells=100)


def test_missing_and_truncated_files_resume_with_checkpoint_error(tmp_path, capsys):
    with pytest.raises(CheckpointError, match="no such checkpoint file"):
        ckpt.load(tmp_path / "nope.npz")
    grid_path = _valid_checkpoints(tmp_path)[0]
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(grid_path.read_bytes()[:-40])
    with pytest.raises(CheckpointError):
        resume(truncated, 3)
    assert main(["run", "--resume", str(truncated), "--gens", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(truncated) in err


def test_two_threads_saving_one_path_never_collide(tmp_path):
    import threading

    from tensorca.atomic import write_bytes_atomic

    path = tmp_path / "shared.bin"
    payloads = [bytes([i]) * (50_000 + i) for i in range(2)]
    errors: list = []
    torn: list = []

    def writer(payload: bytes) -> None:
        try:
            for _ in range(150):
                write_bytes_atomic(path, payload)
        except Exception as exc:  # pragma: no cover - the failure this test guards against
            errors.append(exc)

    def reader() -> None:
        for _ in range(300):
            data = path.read_bytes() if path.exists() else None
            if data is not None and data not in payloads:
                torn.append(len(data))

    threads = [threading.Thread(target=writer, args=(p,)) for p in payloads] + [threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and torn == []
    assert path.read_bytes() in payloads
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.bin"]  # no temporary file left


def test_failed_atomic_write_leaves_no_temporary_file(tmp_path):
    from tensorca.atomic import write_bytes_atomic

    target = tmp_path / "dir_in_the_way"
    target.mkdir()
    (target / "x").write_text("keep")  # os.replace cannot put a file over a non-empty directory
    with pytest.raises(OSError):
        write_bytes_atomic(target, b"data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir_in_the_way"]
    write_bytes_atomic(tmp_path / "ok.bin", b"data")
    assert (tmp_path / "ok.bin").read_bytes() == b"data"
    mode = (tmp_path / "ok.bin").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()  # what a plain open() would give, not mkstemp's 0600


def _umask() -> int:
    import os

    value = os.umask(0)
    os.umask(value)
    return value


# -- continuous rules (Lenia): float cells stored exactly ---------------------------------------------

LENIA = "R=5,T=10,b=[1],m=0.15,s=0.03,kn=1,gn=1"


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("dtype,topology", [(np.float32, None), (np.float64, "plane")])
def test_lenia_resume_is_exactly_the_uninterrupted_run(tmp_path, backend, dtype, topology):
    pytest.importorskip("torch")
    grid = np.random.default_rng(3).random((2, 20, 23)).astype(dtype)
    whole = run(grid, LENIA, 8, backend=backend, topology=topology)
    path = tmp_path / "lenia.npz"
    half = run(grid, LENIA, 4, backend=backend, topology=topology, checkpoint=path, checkpoint_every=3)
    saved = ckpt.load(path)
    assert saved.state.dtype == dtype and saved.generation == 4 and np.array_equal(saved.state, half)
    again = resume(path, 4, backend=backend)
    assert again.dtype == dtype and np.array_equal(again, whole)  # bit for bit, not within a tolerance


def test_lenia_tensor_and_pattern_checkpoints(tmp_path):
    torch = pytest.importorskip("torch")
    from tensorca.lenia import creature

    start = torch.from_numpy(np.random.default_rng(4).random((18, 18)))
    whole = run(start, LENIA, 6, backend="torch")
    run(start, LENIA, 3, backend="torch", checkpoint=tmp_path / "t.npz")
    back = resume(tmp_path / "t.npz", 3, backend="torch")
    assert back.shape == (18, 18) and np.array_equal(back, whole.numpy())  # a tensor run resumes as NumPy
    orbium = creature("O2u", dtype=np.float32)
    run(orbium, generations=2, topology=":T48,40", checkpoint=tmp_path / "p.npz")
    saved = ckpt.load(tmp_path / "p.npz")
    assert isinstance(saved.state, tensorca.Pattern) and saved.state.cells.dtype == np.float32
    assert saved.state.name == orbium.name and saved.state.generation == 2
    assert np.array_equal(resume(tmp_path / "p.npz", 3).cells,
                          run(orbium, generations=5, topology=":T48,40").cells)


def test_lenia_cell_values_are_checked(tmp_path):
    path = tmp_path / "lenia.npz"
    grid = np.random.default_rng(5).random((1, 12, 10)).astype(np.float32)
    ckpt.save(path, grid, ckpt.manifest_for("grid", tensorca.parse_rule(LENIA), tensorca.Topology.torus(10, 12), 1))
    assert ckpt.load(path).state.dtype == np.float32
    for value, match in ((np.nan, "holds nan, outside the range"), (1.5, "holds 1.5, outside the range"),
                         (-0.25, r"cell \(0, 3, 4\) holds -0.25")):
        bad = grid.copy()
        bad[0, 3, 4] = value
        with pytest.raises(CheckpointError, match=match):
            ckpt.load(_edited(tmp_path, path, cells=bad))
    with pytest.raises(CheckpointError, match="is continuous, but the cells hold uint8"):
        ckpt.load(_edited(tmp_path, path, cells=(grid > 0.5).astype(np.uint8)))
    assert ckpt.load(_edited(tmp_path, path, cells=grid.astype(">f8"))).state.dtype == np.float64
    with pytest.raises(CheckpointError, match=r"takes cells of shape \(B, H, W\), got \(1, 2, 12, 10\)"):
        ckpt.load(_edited(tmp_path, path, cells=np.stack([grid, grid], axis=1)))  # channels for a one-plane rule
