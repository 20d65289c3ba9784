"""Which of ``bitpack-cpu``'s kernels run a rule: its own (the rule's expression inlined, compiled
per rule) or the generic ones that take the rule as data (compiled once for every rule).

``TENSORCA_BITPACK_KERNELS`` chooses: ``auto`` (the default; a rule whose own kernels are not
compiled on this machine runs the generic ones when those are, or once this process has compiled
:data:`COMPILE_IN_PROCESS` rules' own modules, while its own compile in a background worker),
``specialised`` (always its own, compiled first if need be) or ``generic`` (always the generic
ones: ``tensorca warmup`` compiles them once for every rule). The module states asked here are
:mod:`.bitpack_circuit`'s (loaded in this process, on disk, cold); the keys of the modules that run a
rule (:func:`kernel_key`, :func:`kernel_expression`, :func:`generations_key`) and their states
(:func:`kernel_state`) are chosen here.
"""

from __future__ import annotations

import os

from ... import background
from ...cache_dirs import cache_epoch
from ...rules.base import Rule
from ...rules.stepspec import StepSpec
from ...topology import Topology
from ...warm_jobs import WarmJob
from .bdd import is_count_circuit, table_circuit
from .circuit import (
    GENERIC,
    GENERIC_GENERATIONS,
    GENERIC_TABLE,
    PREFIXES,
    READINESS,
    count_sets,
    loaded_count,
    may_specialise,
    module_state,
    planes_key,
    rule_expression,
    rule_table,
    specialised_here,
    why_not_bitpack,
    why_not_generations,
)

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
    if key == generic or module_state("bitpack-cpu", key) != "cold":
        return False
    return (module_state("bitpack-cpu", generic) != "cold"
            or specialised_here("bitpack-cpu") >= COMPILE_IN_PROCESS)


#: :func:`lanes_stand_in`'s answers, keyed by everything they depend on (asked on every engine call).
_STAND_IN: dict[tuple, bool] = {}


def lanes_stand_in(table: bytes) -> bool:
    """True when ``bitpack-cpu`` should leave the lane kernels (batches, tiled big grids) to the
    packed generic ones for ``table``: the lanes module has no generic form, and it is cold while
    the generic module is compiled (under ``auto``), or the generic kernels are asked for."""
    mode = kernels_mode()
    if mode != "auto":
        return mode == "generic"
    key = (table, loaded_count(), cache_epoch(), os.environ.get("TENSORCA_CACHE_DIR"),
           os.environ.get("NUMBA_CACHE_DIR"))
    answer = _STAND_IN.get(key)
    if answer is None:
        if len(_STAND_IN) > 1024:
            _STAND_IN.clear()
        answer = _STAND_IN[key] = _lanes_stand_in(table)
    return answer


def _lanes_stand_in(table: bytes) -> bool:
    circuit_of_table = table_circuit(table)
    generic = GENERIC if is_count_circuit(circuit_of_table) else GENERIC_TABLE
    if module_state("bitpack-lanes", planes_key(circuit_of_table)) != "cold":
        return False
    return (module_state("bitpack-cpu", generic) != "cold"
            or specialised_here("bitpack-lanes") >= COMPILE_IN_PROCESS)


def kernel_expression(engine: str, birth: frozenset[int], survival: frozenset[int]) -> str:
    """The expression whose kernels run ``(birth, survival)`` on ``engine``: the rule's own
    (:func:`~.bitpack_circuit.rule_expression`), or :data:`~.bitpack_circuit.GENERIC` for
    ``bitpack-cpu`` once this process has loaded :data:`~.bitpack_circuit.MAX_SPECIALISED`
    rule-specific modules and not this rule's. (The row and column
    kernels keep the total's bits: forming difference coordinates there costs one operation more,
    and Life measured 11-16% slower that way at 200^2, three interleaved runs; 256^2 and 520^2
    within the noise.)"""
    return capped(engine, rule_expression(birth, survival), GENERIC)


def capped(engine: str, key: str, generic: str) -> str:
    """``key``, or ``generic`` when ``engine`` is ``bitpack-cpu`` and this process already holds
    :data:`~.bitpack_circuit.MAX_SPECIALISED` rule-specific modules, not including ``key``'s, or when the generic
    module stands in for a cold one (:func:`stands_in`)."""
    if engine != "bitpack-cpu":
        return key
    mode = kernels_mode()
    if mode == "generic" or not may_specialise(engine, key) or (mode == "auto" and stands_in(key, generic)):
        return generic
    return key


def kernel_key(engine: str, table: bytes) -> str:
    """The key of the kernel module that runs a 512-entry ``table`` on ``engine``: the B/S
    expression when the table is B/S over the Moore neighbourhood (so a MAP string of Life runs
    Life's own kernels), else the table circuit's :func:`~.bitpack_circuit.planes_key`; past the specialised-module
    cap of ``bitpack-cpu``, :data:`~.bitpack_circuit.GENERIC` or :data:`~.bitpack_circuit.GENERIC_TABLE`."""
    circuit = table_circuit(table)
    if is_count_circuit(circuit):
        return kernel_expression(engine, *count_sets(table, "M"))
    return capped(engine, planes_key(circuit), GENERIC_TABLE)


def generations_specialised_key(table: bytes, n_states: int) -> str:
    """The module key of the rule-specific Generations kernels (:mod:`.bitpack_generations`) of
    ``table`` with ``n_states`` states."""
    return f"generations {n_states}: " + planes_key(table_circuit(table))


def generations_key(spec: StepSpec) -> str:
    """The key of the Generations kernel module that runs ``spec`` (a supported Generations spec) in
    this process: its own, or :data:`~.bitpack_circuit.GENERIC_GENERATIONS` past the specialised cap."""
    return capped("bitpack-cpu", generations_specialised_key(bytes(spec.update.table), spec.n_states),
                  GENERIC_GENERATIONS)


def kernel_state(rule: Rule, engine_name: str) -> str:
    """Whether ``rule``'s kernels for ``engine_name`` are ``"loaded"`` (imported in this process),
    on ``"disk"`` (compiled before, in Numba's cache), ``"cold"`` (to be compiled first), or
    ``"none"`` (not a bit-packed engine, or a rule it does not run).

    Reads :data:`~.bitpack_circuit.LOADED` and the cache directory only: nothing is imported or compiled to ask.
    Triton's own cache is not inspected, so ``bitpack-gpu`` is never ``"disk"``.
    """
    if engine_name not in PREFIXES:
        return "none"
    spec = rule.compile()
    if engine_name == "bitpack-cpu" and spec.decay:
        if why_not_generations(spec, Topology.plane(1, 1)) is not None:
            return "none"
        expression = generations_key(spec)
    elif why_not_bitpack(spec, Topology.plane(1, 1)) is not None:
        return "none"
    else:
        table = rule_table(spec)
        expression = kernel_key(engine_name, table)
        if engine_name == "bitpack-cpu" and not lanes_stand_in(table):  # batches run the lane kernels
            lanes = module_state("bitpack-lanes", planes_key(table_circuit(table)))
            return min(lanes, module_state(engine_name, expression), key=READINESS.index)
    return module_state(engine_name, expression)


def specialise_in_background(rule: Rule, table: bytes, shape: tuple[int, ...], topology: Topology) -> bool:
    """True when the generic kernels stand in for ``rule``'s own, which are cold on this machine
    (:func:`lanes_stand_in`); then the rule's own kernels for this shape are
    compiled by a background worker (:mod:`tensorca.background`), for the runs after this one."""
    if not lanes_stand_in(table):
        return False
    if kernels_mode() == "auto" and topology.kind in ("torus", "plane"):
        batch, height, width = (int(v) for v in shape)
        batch = max(1, min(batch, (1 << 22) // max(1, height * width)))
        background.start(WarmJob("engine", rule.canonical(), "bitpack-cpu", (batch, height, width), topology.kind, 8,
                      kernels="specialised"))
    return True


__all__ = ["COMPILE_IN_PROCESS", "KERNELS_ENV", "capped", "generations_key", "generations_specialised_key",
           "kernel_expression", "kernel_key", "kernel_state", "kernels_mode", "lanes_stand_in",
           "specialise_in_background", "stands_in"]
