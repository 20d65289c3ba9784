"""Numba's row packing (:mod:`tensorca.engines.bitpack.row_packing`) against NumPy's definition of the
layout (:func:`tensorca.engines.bitpack.pack.pack` of ``cells == 1``)."""

import numpy as np
import pytest

pytest.importorskip("numba")

from tensorca.engines.bitpack.pack import pack  # noqa: E402
from tensorca.engines.bitpack.row_packing import pack_alive  # noqa: E402


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 63), (2, 5, 64), (1, 4, 65), (3, 7, 130), (2, 16, 256),
                                   (1, 2, 1000)])
def test_pack_alive_matches_numpy(shape):
    rng = np.random.default_rng(sum(shape))
    cells = rng.integers(0, 4, size=shape, dtype=np.uint8)  # states 2 and 3 are not alive
    got = pack_alive(cells)
    assert got.dtype == np.uint64 and got.shape == (*shape[:2], -(-shape[2] // 64))
    np.testing.assert_array_equal(got, pack(cells == 1, 64))


def test_pack_alive_reads_views_and_other_dtypes_like_numpy():
    rng = np.random.default_rng(5)
    cells = rng.integers(0, 2, size=(4, 40, 200), dtype=np.uint8)
    view = cells[::2, 3:, 5:190]  # not contiguous
    np.testing.assert_array_equal(pack_alive(view), pack(view == 1, 64))
    wide = cells.astype(np.int64)
    wide[0, 0, 0] = 257  # a uint8 cast would make it 1; it is not alive
    np.testing.assert_array_equal(pack_alive(wide), pack(wide == 1, 64))
    assert not pack_alive(wide)[0, 0, 0] & np.uint64(1)
