"""Counter-based randomness (tensorca.randomness): the documented function, the same bits on NumPy
and torch and in any window, and Bernoulli draws with the probability they claim."""

import numpy as np
import pytest

from tensorca.errors import TensorcaError
from tensorca.randomness import (
    P_BITS,
    bernoulli_cells,
    bernoulli_words,
    fmix,
    mask_digits,
    quantize,
    stream_key,
    uniform_cells,
    words,
)


def test_fmix_is_splitmix64s_finaliser():
    # SplitMix64 seeded with 0 returns fmix(0x9E3779B97F4A7C15) first and fmix(2 * that) second
    assert fmix(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF
    assert fmix(2 * 0x9E3779B97F4A7C15) == 0x6E789E6AA1B965F4


def test_words_follow_the_documented_formula():
    key = stream_key(42, 7, draw=1, grid=3)
    assert key == fmix(fmix(fmix(fmix(42 ^ 0x5851F42D4C957F2D) ^ 7) ^ 1) ^ 3)
    got = words(key, np.array([0, 5, -1]), np.array([0, 63, 64]))
    for i, y in enumerate([0, 5, -1]):
        row = fmix(key ^ ((y * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)))
        for j, c in enumerate([0, 63, 64]):
            assert int(got[i, j]) == fmix(row ^ (((c + 1) * 0xD1B54A32D192ED03) & ((1 << 64) - 1)))


def test_any_window_gets_the_same_bits():
    whole = bernoulli_cells(9, 4, 0.3, (40, 200), origin=(-7, -70))
    part = bernoulli_cells(9, 4, 0.3, (13, 61), origin=(-7 + 11, -70 + 77))
    assert np.array_equal(whole[11:24, 77:138], part)
    u = uniform_cells(9, 4, (20, 30), origin=(3, -5))
    assert np.array_equal(u[5:9, 10:12], uniform_cells(9, 4, (4, 2), origin=(8, 5)))


def test_draws_differ_by_seed_generation_draw_and_grid():
    base = bernoulli_cells(1, 0, 0.5, (64, 64))
    for other in (bernoulli_cells(2, 0, 0.5, (64, 64)), bernoulli_cells(1, 1, 0.5, (64, 64)),
                  bernoulli_cells(1, 0, 0.5, (64, 64), draw=1), bernoulli_cells(1, 0, 0.5, (64, 64), grid=1)):
        assert 0.4 < (base != other).mean() < 0.6


@pytest.mark.parametrize("p", [0.0, 1.0, 0.5, 0.3, 0.01, 0.999, 1 / 3])
def test_bernoulli_draws_have_the_quantised_probability(p):
    q = quantize(p)
    cells = bernoulli_cells(5, 11, p, (512, 1024))
    want = q / (1 << P_BITS)
    sigma = max(np.sqrt(want * (1 - want) / cells.size), 1e-12)
    assert abs(cells.mean() - want) <= 5 * sigma
    if 0 < q < 1 << P_BITS:  # neighbours in a word and across rows are uncorrelated
        a = cells.astype(float) - want
        for right, down in ((1, 0), (0, 1), (1, 1)):
            corr = (a[down:, right:] * a[: a.shape[0] - down, : a.shape[1] - right]).mean() / (want * (1 - want))
            assert abs(corr) < 0.01


def test_uniform_cells_fill_the_unit_interval():
    u = uniform_cells(3, 2, (256, 256))
    assert u.dtype == np.float64 and 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.005
    hist, _ = np.histogram(u, bins=16, range=(0, 1))
    assert hist.min() > 0.9 * u.size / 16


def test_mask_digits_and_quantize():
    assert quantize(0.5) == 1 << (P_BITS - 1) and mask_digits(quantize(0.5)) == [1]
    assert mask_digits(quantize(0.75)) == [1, 1] and mask_digits(quantize(0.25)) == [1, 0]
    assert mask_digits(0) == [] and mask_digits(1 << P_BITS) == []
    assert bernoulli_words(stream_key(1, 0), 0.0, np.arange(3), np.arange(2)).sum() == 0


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.5", None, True])
def test_bad_probabilities_are_refused(bad):
    with pytest.raises(TensorcaError, match="probability"):
        bernoulli_cells(1, 0, bad, (4, 4))


def test_bad_seeds_are_refused():
    with pytest.raises(TensorcaError, match="seed must be an integer"):
        stream_key(1.5, 0)


def test_torch_computes_the_same_bits():
    torch = pytest.importorskip("torch")
    from tensorca.randomness import bernoulli_cells_torch, uniform_cells_torch, words_torch

    key = stream_key(77, 3, draw=2)
    ys, cs = np.array([0, 1, -5, 1 << 40]), np.array([0, 9, -1, 123456789])
    want = words(key, ys, cs).view(np.int64)
    assert np.array_equal(words_torch(key, torch.from_numpy(ys), torch.from_numpy(cs)).numpy(), want)
    for p in (0.3, 0.5, 0.999, 0.0, 1.0):
        got = bernoulli_cells_torch(77, 3, p, (33, 150), draw=2, origin=(-4, -70))
        assert np.array_equal(got.numpy(), bernoulli_cells(77, 3, p, (33, 150), draw=2, origin=(-4, -70)))
    assert np.array_equal(uniform_cells_torch(77, 3, (9, 70), origin=(2, -3)).numpy(),
                          uniform_cells(77, 3, (9, 70), origin=(2, -3)))
