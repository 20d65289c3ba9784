"""Kernels for rule files (``neighbour_states`` / ``tree``) and Golly's Super rules (``super_neighbours`` / ``super``).

Registered for the NumPy reference and the torch engine by the families' declarations (``steps``);
every other engine refuses these kinds by its precheck.

- Tree (:mod:`tensorca.families.rule_table.tree`): the NumPy reference pads ``(B, H, W)`` uint8 states as the
  topology says and walks the tree with one gather per offset, ``node = nodes[node, state]``.
  The torch engine does the same on any device, or, when ``n_states ** len(order)`` is at most
  :data:`~tensorca.families.rule_table.tree.DENSE_MAX`, builds the base-``n_states`` index of the offsets'
  states and looks it up once in the dense table the tree expands to (the same function).
- Super (:mod:`tensorca.families.super_history.rule`): the 9-bit index of odd cells in R's table says ON or OFF;
  the set of neighbour states (``OR(1 << state)``, int32) and the old state choose the new
  state by Golly's decision list (:func:`super_next`, written once for NumPy and torch).
"""

from __future__ import annotations

import numpy as np

from ...engines.numpy_reference import neighbourhood_index, pad
from ..super_history.rule import SuperNeighbours, SuperUpdate
from .tree import NeighbourStates

TREE_KINDS = ("neighbour_states", "tree")
SUPER_KINDS = ("super_neighbours", "super")

#: ``(dy, dx)`` of the neighbours whose states form Golly's ``typeMask``, per neighbourhood letter.
TYPE_OFFSETS = {
    "M": ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)),
    "V": ((-1, 0), (0, -1), (0, 1), (1, 0)),
    "H": ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, 0), (1, 1)),
}


def _bits(*states: int) -> int:
    return sum(1 << s for s in states)


ODD_9_TO_25 = _bits(*range(9, 26, 2))
ODD_13_TO_25 = _bits(*range(13, 26, 2))
ALIVE_WITH_14 = _bits(*range(1, 26, 2), 14)
ALIVE_WITH_14_18 = ALIVE_WITH_14 | _bits(18)
A_1_3_5_7 = _bits(1, 3, 5, 7)
A_1_5_7_9_11 = _bits(1, 5, 7, 9, 11)
A_9_11 = _bits(9, 11)
A_1_3_5_13_TO_25 = _bits(1, 3, 5) | ODD_13_TO_25
A_7_13_TO_25 = _bits(7) | ODD_13_TO_25
A_1_3_5_9_11 = _bits(1, 3, 5, 9, 11)


# --------------------------------------------------------------------------- trees


def numpy_tree_step(cells: np.ndarray, spec, topology) -> np.ndarray:
    """One generation of a tree rule on ``(B, H, W)`` uint8 states (the reference)."""
    perceive: NeighbourStates = spec.perceive
    tree = spec.update.tree
    r = spec.reach
    _, height, width = cells.shape
    padded = pad(np.asarray(cells, dtype=np.uint8), r, topology)
    node = np.full(cells.shape, tree.root, dtype=np.int64)
    for dy, dx in perceive.offsets:
        node = tree.nodes[node, padded[:, r + dy : r + dy + height, r + dx : r + dx + width]]
    return node.astype(np.uint8)


def torch_tree_build(spec, topology, device):
    """``step(cells) -> cells`` for a tree rule on ``device`` (dense lookup when it fits)."""
    import torch

    from ...engines.tensor import kernels as K
    tree = spec.update.tree
    order, n, r = spec.perceive.offsets, tree.n_states, spec.reach
    kind = K.padding(topology, r, device)
    dense = tree.dense()

    def windows(cells):
        _, height, width = cells.shape
        padded = K.pad(cells, r, kind)
        return [padded[:, r + dy : r + dy + height, r + dx : r + dx + width] for dy, dx in order]

    if dense is not None:
        table = torch.from_numpy(dense).to(device)

        def step_dense(cells):
            index = torch.zeros(cells.shape, dtype=torch.int32, device=cells.device)
            for window in windows(cells):
                index = index * n + window.to(torch.int32)
            return K.lookup(table, index)

        return step_dense
    flat = torch.from_numpy(tree.nodes.reshape(-1).astype(np.int64)).to(device)

    def step_tree(cells):
        node = torch.full(cells.shape, tree.root, dtype=torch.int64, device=cells.device)
        for window in windows(cells):
            node = K.lookup(flat, node * n + window.to(torch.int64))
        return node.to(torch.uint8)

    return step_tree


# --------------------------------------------------------------------------- Super / History


def super_next(c, on, mask, mode: str, where):
    """Golly's Super/History next state (``superalgo.cpp`` ``slowcalc``), elementwise.

    ``c``: old states (int32), ``on``: R's verdict from the odd cells' 3x3 index (bool),
    ``mask``: ``OR(1 << neighbour state)`` (int32); ``where``: ``np.where`` or ``torch.where``.
    """
    def has(bits):
        return (mask & bits) != 0

    def single(calc):
        return (calc != 0) & ((calc & (calc - 1)) == 0)

    odd = (c & 1) == 1
    if mode == "history":
        born = where(c == 4, 3, where(c == 6, 6, 1))
        died = where(c == 5, 4, c + 1)
        dead = c
        six = where(c == 1, 2, 4)
        hit6 = has(1 << 6) & ((c == 1) | (c == 3) | (c == 5))
    else:
        born = where(c == 4, 3, where(c == 6, 6, where(c == 8, 7, _super_birth(mask, has, single, where))))
        died = where(c <= 11, where(c == 5, 4, c + 1), 0)
        dead = _super_labels(c, has, where)
        six = where((c == 7) | (c == 8) | (c >= 13), 0,
                    where(c == 1, 2, where(c == 9, 10, where(c == 11, 12, 4))))
        hit6 = has(1 << 6) & ((c == 1) | (c == 3) | (c == 5) | (c == 7) | (c == 8) | (c == 9) | (c == 11) | (c >= 13))
    nxt = where(on, where(odd, c, born), where(odd, died, dead))
    return where(hit6, six, nxt)


def _lowest_state(calc, where):
    """The state whose bit is the only one set in ``calc`` (odd states 9..25), else 0."""
    out = calc * 0
    for s in range(9, 26, 2):
        out = where(calc == (1 << s), s, out)
    return out


def _super_birth(mask, has, single, where):
    """The state a Super birth takes from the neighbours' states (Golly's four cases, else 1)."""
    c1 = mask & ODD_9_TO_25
    c2 = mask & ODD_13_TO_25
    c3 = mask & A_9_11
    c4 = mask & A_7_13_TO_25
    case1 = ~has(A_1_3_5_7) & single(c1)
    case2 = has(1 << 3) & single(c2) & ~has(A_1_5_7_9_11)
    case3 = has(1 << 7) & single(c3) & ~has(A_1_3_5_13_TO_25)
    case4 = (c4 != 0) & ~has(A_1_3_5_9_11)
    return where(case1, _lowest_state(c1, where),
                 where(case2, _lowest_state(c2, where),
                       where(case3, _lowest_state(c3, where), where(case4, 13, 1))))


def _super_labels(c, has, where):
    """OFF cells that stay OFF: the label states 14..24 change by their neighbours."""
    out = where(c == 14, 0, c)
    out = where((c == 16) & has(ALIVE_WITH_14), 14, out)
    out = where((c == 18) & has(1 << 22), 22, out)
    out = where((c == 20) & has(1 << 18), 18, out)
    out = where((c == 22) & has(1 << 20), 20, out)
    return where((c == 24) & has(ALIVE_WITH_14_18), 18, out)


def numpy_super_step(cells: np.ndarray, spec, topology) -> np.ndarray:
    """One generation of a Super/History rule on ``(B, H, W)`` uint8 states (the reference)."""
    perceive: SuperNeighbours = spec.perceive
    update: SuperUpdate = spec.update
    cells = np.asarray(cells, dtype=np.uint8)
    _, height, width = cells.shape
    index = neighbourhood_index((cells & 1) == 1, topology)
    on = np.frombuffer(update.table, dtype=np.uint8)[index].astype(bool)
    padded = pad(cells, 1, topology).astype(np.int32)
    mask = np.zeros(cells.shape, dtype=np.int32)
    for dy, dx in TYPE_OFFSETS[perceive.neighbourhood]:
        mask |= np.left_shift(1, padded[:, 1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width])
    return super_next(cells.astype(np.int32), on, mask, update.mode, np.where).astype(np.uint8)


def history_lut() -> np.ndarray:
    """``(7 * 4,)`` uint8 History next states indexed by ``4 * state + 2 * on + (a neighbour is 6)``:
    in History mode only bit 6 of the neighbour mask matters, so :func:`super_next` tabulates."""
    c = np.repeat(np.arange(7, dtype=np.int32), 4)
    on = (np.arange(28) >> 1) & 1 == 1
    mask = (np.arange(28, dtype=np.int32) & 1) << 6
    return super_next(c, on, mask, "history", np.where).astype(np.uint8)


#: Markers in :func:`super_lut` for next states that depend on more than bit 6 of the neighbour mask.
BIRTH, LABEL = 254, 253


def super_lut() -> np.ndarray:
    """``(26 * 4,)`` uint8 Super next states indexed by ``4 * state + 2 * on + (a neighbour is 6)``,
    with :data:`BIRTH` where a birth takes its state from the neighbours and :data:`LABEL` where a
    label state (16..24) looks at its neighbours; every other entry is :func:`super_next` itself."""
    index = np.arange(26 * 4)
    c, on, six = (index >> 2).astype(np.int32), (index >> 1) & 1 == 1, index & 1 == 1
    out = super_next(c, on, (six.astype(np.int32) << 6), "super", np.where).astype(np.uint8)
    hit6 = six & np.isin(c, (1, 3, 5, 7, 8, 9, 11) + tuple(range(13, 26)))
    out[on & (c % 2 == 0) & ~np.isin(c, (4, 6, 8)) & ~hit6] = BIRTH
    out[~on & np.isin(c, (16, 18, 20, 22, 24)) & ~hit6] = LABEL
    return out


def torch_super_build(spec, topology, device):
    """``step(cells) -> cells`` for a Super/History rule on ``device`` (History: one table lookup)."""
    import torch

    from ...engines.tensor import kernels as K
    kind = K.padding(topology, 1, device)
    table = torch.from_numpy(np.frombuffer(spec.update.table, dtype=np.uint8).copy()).to(device)
    offsets, mode = TYPE_OFFSETS[spec.perceive.neighbourhood], spec.update.mode
    if mode == "history":
        lut = torch.from_numpy(history_lut()).to(device)

        def step_history(cells):
            _, height, width = cells.shape
            on = K.lookup(table, K.table_index(cells & 1, kind))
            padded = K.pad(cells, 1, kind)
            six = torch.zeros(cells.shape, dtype=torch.bool, device=cells.device)
            for dy, dx in offsets:
                six = six | (padded[:, 1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width] == 6)
            index = cells.to(torch.int32) * 4 + on.to(torch.int32) * 2 + six.to(torch.int32)
            return K.lookup(lut, index)

        return step_history
    base_lut = torch.from_numpy(super_lut()).to(device)
    one = torch.ones((), dtype=torch.int32, device=device)

    def where(cond, a, b):
        return torch.where(cond, a, b)

    def step(cells):
        _, height, width = cells.shape
        on = K.lookup(table, K.table_index(cells & 1, kind)).bool()
        padded = K.pad(cells, 1, kind).to(torch.int32)
        mask = torch.zeros(cells.shape, dtype=torch.int32, device=cells.device)
        for dy, dx in offsets:
            mask = mask | torch.bitwise_left_shift(one, padded[:, 1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width])
        index = cells.to(torch.int32) * 4 + on.to(torch.int32) * 2 + ((mask >> 6) & 1)
        base = K.lookup(base_lut, index).to(torch.int32)

        def has(bits):
            return (mask & bits) != 0

        def single(calc):
            return (calc != 0) & ((calc & (calc - 1)) == 0)

        birth = _super_birth(mask, has, single, where)
        labels = _super_labels(cells.to(torch.int32), has, where)
        return where(base == BIRTH, birth, where(base == LABEL, labels, base)).to(torch.uint8)

    return step



__all__ = ["super_lut", "history_lut", "numpy_super_step", "numpy_tree_step", "super_next", "torch_super_build",
           "torch_tree_build"]
