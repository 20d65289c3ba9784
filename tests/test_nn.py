"""tensorca.nn (neural CA blocks) and the learnable Lenia module: pinned against known values."""

from __future__ import annotations

import numpy as np
import pytest

import tensorca
from tensorca.errors import UsageError

torch = pytest.importorskip("torch")

from tensorca.lenia import creature  # noqa: E402
from tensorca.lenia.module import LeniaModule  # noqa: E402
from tensorca.nn import NCA, Perceive, SamplePool, Update, alive_mask, fire_mask  # noqa: E402


def test_perceive_is_identity_and_sobel_gradients():
    ramp = torch.arange(7.0).repeat(6, 1)[None, None]  # f(y, x) = x
    out = Perceive(1)(ramp)
    assert out.shape == (1, 3, 6, 7)
    assert torch.equal(out[0, 0], ramp[0, 0])
    assert torch.allclose(out[0, 1, 1:-1, 1:-1], torch.ones(4, 5))  # d/dx of x is 1 inside
    assert torch.allclose(out[0, 2, 1:-1, 1:-1], torch.zeros(4, 5))  # d/dy is 0
    assert out[0, 1, 3, 0] == pytest.approx((1 * 4) / 8)  # zero padding: the west neighbour reads 0


def test_circular_padding_commutes_with_shifts_and_learnable_trains():
    x = torch.rand(2, 4, 9, 11, generator=torch.Generator().manual_seed(0))
    perceive = Perceive(4, padding="circular")
    shifted = torch.roll(x, (3, -2), dims=(2, 3))
    assert torch.allclose(perceive(shifted), torch.roll(perceive(x), (3, -2), dims=(2, 3)), atol=1e-6)
    learnable = Perceive(4, padding="circular", learnable=True)
    assert torch.allclose(learnable(x), perceive(x))
    learnable(x).sum().backward()
    assert learnable.weight.grad is not None
    with pytest.raises(UsageError):
        Perceive(4, padding="reflect")


def test_update_starts_at_zero_so_a_new_nca_keeps_its_seed():
    update = Update(48, 16)
    assert torch.count_nonzero(update(torch.rand(1, 48, 5, 5))) == 0
    model = NCA()
    seed = NCA.seed(16, 9, 9, batch=2)
    assert torch.equal(model(seed, 5), seed)


def test_alive_and_fire_masks():
    x = torch.zeros(1, 4, 6, 6)
    x[0, 3, 0, 2] = 0.5
    x[0, 3, 4, 4] = 0.05  # below the threshold: not alive
    alive = alive_mask(x)[0, 0]
    assert alive.sum() == 6 and bool(alive[1, 1]) and bool(alive[0, 3]) and not bool(alive[4, 4])
    wrapped = alive_mask(x, padding="circular")[0, 0]
    assert wrapped.sum() == 9 and bool(wrapped[5, 2])  # the top row's neighbours wrap to the bottom
    mask = fire_mask(torch.zeros(4, 1, 64, 64), 0.3, torch.Generator().manual_seed(1))
    assert mask.shape == (4, 1, 64, 64) and abs(float(mask.mean()) - 0.3) < 0.02


def test_dead_cells_stay_dead_and_gradients_flow():
    model = NCA(8, 16, alpha=3)
    torch.nn.init.normal_(model.update.out.weight, std=0.1)
    seed = NCA.seed(8, 12, 12)
    out = model(seed, 3, torch.Generator().manual_seed(0))
    # after 3 steps nothing can be alive beyond 3 cells (+1 for the mask) from the centre
    assert torch.count_nonzero(out[0, :, :2]) == 0 and torch.count_nonzero(out[0, :, :, :2]) == 0
    out[:, :4].pow(2).mean().backward()
    assert model.update.hidden.weight.grad is not None and model.update.hidden.weight.grad.abs().sum() > 0


def test_sample_pool():
    seed = NCA.seed(4, 5, 5)[0]
    pool = SamplePool(seed, 10)
    indices, batch = pool.sample(3, torch.Generator().manual_seed(0))
    assert len(set(indices.tolist())) == 3 and batch.shape == (3, 4, 5, 5)
    pool.commit(indices, batch + 1)
    assert torch.equal(pool.states[indices], batch + 1) and len(pool) == 10
    assert torch.equal(pool.states[[i for i in range(10) if i not in indices.tolist()][0]], seed)
    with pytest.raises(UsageError):
        pool.sample(11)


def test_lenia_module_matches_the_engine_and_learns_m():
    orbium = creature("O2u")
    grid = np.zeros((1, 48, 48))
    grid[0, 10:30, 10:30] = orbium.cells
    module = LeniaModule(orbium.rule, (48, 48))
    x = torch.from_numpy(grid)
    want = tensorca.run(x, orbium.rule, 4, backend="torch")
    got = module(x, 4)
    assert torch.allclose(got, want, atol=1e-12, rtol=0)
    got.sum().backward()
    assert module.m.grad is not None and float(module.m.grad) != 0 and module.T.grad is None
    with pytest.raises(UsageError, match="Lenia rule"):
        LeniaModule("B3/S23", (8, 8))


def test_grow_nca_pictures(tmp_path):
    """tensorca.examples.grow_nca --picture: RGBA over white (a dead cell is white), the grown state as a PNG,
    every step of the growth as a GIF, each cell a block of pixels."""
    from PIL import Image

    from tensorca.examples import grow_nca as example
    x = torch.zeros(1, 16, 2, 3)
    x[0, :4, 0, 0] = torch.tensor([0.5, 0.25, 0.0, 0.5])  # premultiplied: half-transparent orange
    rgb = example.over_white(x)
    assert rgb.shape == (2, 3, 3) and rgb.dtype == np.uint8
    assert rgb[0, 0].tolist() == [255, 191, 128] and (rgb[1:] == 255).all()
    model = NCA(16, 32)
    for name, frames in (("grown.png", 1), ("growth.gif", 1 + 4 + 20)):  # the GIF holds its last frame 20 more
        example.save_picture(model, tmp_path / name, 4, 12, 10, seed=0)
        image = Image.open(tmp_path / name)
        assert image.size == (10 * 20, 12 * 20) and getattr(image, "n_frames", 1) <= frames
