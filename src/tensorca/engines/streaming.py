"""Streaming (non-temporal) stores for outputs bigger than the caches.

An ordinary store first reads the cache line it writes into (read-for-ownership), so writing an
array that is not in cache moves its bytes twice: once in, once back out. A *streaming* store
(LLVM's ``!nontemporal`` store; ``movnti`` / ``vmovntdq`` on x86) writes the line without reading
it and without keeping it in cache. That halves the memory traffic of unpacking a big grid, and
costs time for a small one, which the caller reads back while it is still in cache. Measured on the
2-core Xeon (AVX-512, 2 MiB of L2 a core, 2026-12-02), the tiled unpack of one grid into a buffer
last touched long ago (cold) and into one just written (warm), ms:

=========  ==========  ==========  ==========  ==========
grid       plain cold  stream cold plain warm  stream warm
=========  ==========  ==========  ==========  ==========
1024^2     0.18-0.29   0.15-0.17   0.022       0.058
2048^2     0.33-0.40   0.24-0.27   0.089       0.109
4096^2     1.15-1.40   0.58-0.67   0.38        0.39
=========  ==========  ==========  ==========  ==========

so :func:`streams` picks them for outputs larger than the L2 caches of the threads writing them.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .. import _numba  # noqa: F401  Numba's target configured before anything here is compiled
from .bitpack.lanes_layout import l2_bytes


@intrinsic
def store_streaming(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
    """``array[index] = value`` as a non-temporal store, in Numba-compiled code: ``array`` a 1-D
    array, ``index`` in range (not checked, no wrap-around for negatives), ``value`` of the
    array's dtype."""
    if not isinstance(array, types.Array) or array.ndim != 1 or not isinstance(index, types.Integer):
        return None
    if value != array.dtype:
        return None
    signature = types.void(array, index, value)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        array_type = sig.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]], wraparound=False,
                                           boundscheck=False)
        store = builder.store(args[2], pointer)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return signature, codegen


@intrinsic
def fence_streaming(typingctx: Any) -> Any:
    """A full memory fence (LLVM's ``fence seq_cst``), in Numba-compiled code: the streaming stores
    before it, which x86 orders weakly, are visible to every thread before any memory operation
    after it (on x86 a locked instruction, which drains the write-combining buffers). A writer
    calls it once its streaming stores are done, rather than rely on how the threads meet."""
    signature = types.void()

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return signature, codegen


def streams(nbytes: int, threads: int) -> bool:
    """Whether an output of ``nbytes`` written by ``threads`` threads should take streaming stores:
    when it is larger than those threads' L2 caches together (:func:`.lanes_layout.l2_bytes` each),
    so that it would not stay in cache for its reader anyway."""
    return nbytes > max(1, threads) * l2_bytes()


__all__ = ["fence_streaming", "store_streaming", "streams"]
