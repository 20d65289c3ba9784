"""Which of ``bitpack-cpu``'s kernels run a rule: its own (the rule's expression inlined, compiled
per rule) or the generic ones that take the rule as data (compiled once for every rule).

``TENSORCA_BITPACK_KERNELS`` chooses: ``auto`` (the default; a rule whose own kernels are not
compiled on this machine runs the generic ones when those are, or once this process has compiled
:data:`COMPILE_IN_PROCESS` rules' own modules, while its own compile in a background worker),
``specialised`` (always its own, compiled first if need be) or ``generic`` (always the generic
ones: ``tensorca warmup`` compiles them once for every rule). The module states asked here are
:mod:`.bitpack_circuit`'s (loaded in this process, on disk, cold).
"""

from __future__ import annotations

import os

from ..cache_dirs import cache_epoch
from ..rules.base import Rule
from ..topology import Topology
from . import bitpack_circuit as circuit

#: The environment variable of the choice.
KERNELS_ENV = "TENSORCA_BITPACK_KERNELS"
#: Under ``auto`` a process compiles at most this many rules' own modules itself (each some
#: megabytes that Numba never frees: 80 distinct rules added 494 MB); a further cold rule runs the
#: generic module, and its own kernels compile in a background worker, whose memory goes when it exits.
COMPILE_IN_PROCESS = 4


def kernels_mode() -> str:
    """:data:`KERNELS_ENV`'s setting: ``auto``, ``specialised`` or ``generic``."""
    mode = os.environ.get(KERNELS_ENV, "auto").strip().lower()
    return mode if mode in ("specialised", "generic") else "auto"


def stands_in(key: str, generic: str) -> bool:
    """True when ``bitpack-cpu``'s module ``key`` is cold (never compiled on this machine) and the
    ``generic`` module that takes the rule as data is compiled, or this process has compiled
    :data:`COMPILE_IN_PROCESS` rules' own modules already: the generic one runs now (a first run of
    a new rule costs no compile, at about 1.4x the time per generation for B/S rules) while the
    rule's own kernels compile in the background."""
    if key == generic or circuit._module_state("bitpack-cpu", key) != "cold":
        return False
    return (circuit._module_state("bitpack-cpu", generic) != "cold"
            or circuit._specialised_here("bitpack-cpu") >= COMPILE_IN_PROCESS)


#: :func:`lanes_stand_in`'s answers, keyed by everything they depend on (asked on every engine call).
_STAND_IN: dict[tuple, bool] = {}


def lanes_stand_in(table: bytes) -> bool:
    """True when ``bitpack-cpu`` should leave the lane kernels (batches, tiled big grids) to the
    packed generic ones for ``table``: the lanes module has no generic form, and it is cold while
    the generic module is compiled (under ``auto``), or the generic kernels are asked for."""
    mode = kernels_mode()
    if mode != "auto":
        return mode == "generic"
    key = (table, len(circuit._LOADED), cache_epoch(), os.environ.get("TENSORCA_CACHE_DIR"),
           os.environ.get("NUMBA_CACHE_DIR"))
    answer = _STAND_IN.get(key)
    if answer is None:
        if len(_STAND_IN) > 1024:
            _STAND_IN.clear()
        answer = _STAND_IN[key] = _lanes_stand_in(table)
    return answer


def _lanes_stand_in(table: bytes) -> bool:
    from .bitpack_bdd import is_count_circuit, table_circuit

    circuit_of_table = table_circuit(table)
    generic = circuit.GENERIC if is_count_circuit(circuit_of_table) else circuit.GENERIC_TABLE
    if circuit._module_state("bitpack-lanes", circuit.planes_key(circuit_of_table)) != "cold":
        return False
    return (circuit._module_state("bitpack-cpu", generic) != "cold"
            or circuit._specialised_here("bitpack-lanes") >= COMPILE_IN_PROCESS)


def specialise_in_background(rule: Rule, table: bytes, shape: tuple[int, ...], topology: Topology) -> bool:
    """True when the generic kernels stand in for ``rule``'s own, which are cold on this machine
    (:func:`lanes_stand_in`); then the rule's own kernels for this shape are
    compiled by a background worker (:mod:`tensorca.background`), for the runs after this one."""
    if not lanes_stand_in(table):
        return False
    if kernels_mode() == "auto" and topology.kind in ("torus", "plane"):
        from ..background import start
        from ..warmup import WarmJob

        batch, height, width = (int(v) for v in shape)
        batch = max(1, min(batch, (1 << 22) // max(1, height * width)))
        start(WarmJob("engine", rule.canonical(), "bitpack-cpu", (batch, height, width), topology.kind, 8,
                      kernels="specialised"))
    return True


__all__ = ["COMPILE_IN_PROCESS", "KERNELS_ENV", "kernels_mode", "lanes_stand_in", "specialise_in_background",
           "stands_in"]
