"""Streaming stores (:mod:`tensorca.engines.streaming`): the same bytes as ordinary stores, and
chosen only for outputs larger than the writing threads' L2 caches."""

import numpy as np
import pytest

pytest.importorskip("numba")

from tensorca._numba import njit  # noqa: E402
from tensorca.engines import streaming  # noqa: E402
from tensorca.engines.bitpack.lanes_layout import l2_bytes  # noqa: E402


@njit(cache=False)
def _fill(out, values, start):
    for i in range(values.shape[0]):
        streaming.store_streaming(out, start + i, values[i])
    streaming.fence_streaming()


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.uint8, np.float64])
def test_a_streaming_store_writes_exactly_its_element(dtype):
    values = (np.arange(1, 40) * 37 % 251).astype(dtype)
    out = np.zeros(64, dtype=dtype)
    _fill(out, values, 5)
    want = np.zeros(64, dtype=dtype)
    want[5:44] = values
    np.testing.assert_array_equal(out, want)


def test_a_streaming_store_refuses_other_types():
    from numba.core.errors import TypingError

    with pytest.raises(TypingError):
        _fill(np.zeros(8, np.uint64), np.ones(2, np.uint32), 0)  # a value of another dtype
    with pytest.raises(TypingError):
        _fill(np.zeros((2, 4), np.uint64), np.ones(2, np.uint64), 0)  # not one-dimensional


def test_streams_only_past_the_threads_l2():
    l2 = l2_bytes()
    assert not streaming.streams(2 * l2, 2) and streaming.streams(2 * l2 + 1, 2)
    assert streaming.streams(l2 + 1, 1) and not streaming.streams(l2, 0)  # no threads counts as one
