"""The bit-packed kernel cache: rules -> rule expressions -> generated modules (issue 10, issue 11).

``kernel_state`` reads an explicit map from expression to loaded module and the on-disk index,
never module docstrings and never Numba. Numba never frees compiled code, so a process makes at
most ``MAX_SPECIALISED`` rule-specific bitpack-cpu modules; later rules share generic kernels.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tensorca.cache_dirs import numba_cache_path
from tensorca.engines.bitpack import choice as choice
from tensorca.engines.bitpack import circuit as circuit
from tensorca.rules import parse_rule
from tensorca.topology import Topology, parse_topology


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty kernel directory and an empty in-process map (the real ones are left alone)."""
    monkeypatch.setenv("TENSORCA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(circuit, "LOADED", {})
    circuit._compiled_on_disk.cache_clear()
    yield tmp_path / "bitpack"
    circuit._compiled_on_disk.cache_clear()


def expression(rule) -> str:
    return circuit.rule_expression(*circuit.bs_sets(rule.compile()))


def distinct_rules(n: int) -> list:
    """``n`` B/S rules with pairwise different rule expressions."""
    rules, seen = [], set()
    for b in range(1, 256):
        births = "".join(str(k) for k in range(1, 9) if b >> (k - 1) & 1)
        rule = parse_rule(f"B{births}/S23")
        if expression(rule) not in seen:
            seen.add(expression(rule))
            rules.append(rule)
        if len(rules) == n:
            return rules
    raise AssertionError("not enough distinct expressions")


def load(rule, engine="bitpack-cpu"):
    """Stand-in kernels: a plain module per expression (the cache logic is what is tested)."""
    return circuit.load_generated_module(engine, expression(rule), f"EXPR = {expression(rule)!r}\n", "test")


def test_kernel_state_follows_the_module_map(fresh_cache):
    life = parse_rule("B3/S23")
    assert choice.kernel_state(life, "bitpack-cpu") == "cold"
    module = load(life)
    assert module.EXPR == expression(life) and module.__name__ in sys.modules
    assert choice.kernel_state(life, "bitpack-cpu") == "loaded"
    assert choice.kernel_state(life, "bitpack-gpu") == "cold"  # another engine's module


@pytest.mark.parametrize("rule, engine", [
    ("B3/S23", "numpy"),
    ("B3/S23", "torch"),
    ("345/2/4", "bitpack-gpu"),  # Generations run bit-packed on bitpack-cpu only
    ("R2,C0,S2-3,B3", "bitpack-cpu"),
    ("R2,C0,S2-3,B3", "bitpack-gpu"),
])
def test_kernel_state_is_none_where_nothing_compiles(fresh_cache, rule, engine):
    assert choice.kernel_state(parse_rule(rule), engine) == "none"


def test_kernel_state_disk_reads_the_index_not_docstrings(fresh_cache):
    """A module written by an earlier process counts as "disk" once Numba's index file is in the cache
    (:func:`tensorca.cache_dirs.numba_cache_path`: under the cache root, not beside the module)."""
    life = parse_rule("B3/S23")
    module = load(life)
    circuit.LOADED.clear()  # as in a new process
    assert choice.kernel_state(life, "bitpack-cpu") == "cold"  # written, never compiled
    (fresh_cache / "__pycache__").mkdir()
    (fresh_cache / "__pycache__" / f"{module.__name__}.step_strips-142.py311.nbi").write_bytes(b"")
    circuit._compiled_on_disk.cache_clear()
    assert choice.kernel_state(life, "bitpack-cpu") == "cold"  # beside the module is no longer Numba's place
    cache = numba_cache_path(module.__file__)
    cache.mkdir(parents=True)
    (cache / f"{module.__name__}.step_strips-142.py311.nbi").write_bytes(b"")
    circuit._compiled_on_disk.cache_clear()
    assert choice.kernel_state(life, "bitpack-cpu") == "disk"
    assert choice.kernel_state(parse_rule("B36/S23"), "bitpack-cpu") == "cold"


def _pretend_compiled(module) -> None:
    """Numba's index of ``module`` where Numba keeps it: the module counts as compiled ("disk")."""
    cache = numba_cache_path(module.__file__)
    cache.mkdir(parents=True, exist_ok=True)
    (cache / f"{module.__name__}.step_strips-142.py311.nbi").write_bytes(b"")
    circuit.LOADED.clear()  # as in a new process
    circuit._compiled_on_disk.cache_clear()
    choice._STAND_IN.clear()


def test_a_cold_rule_runs_the_compiled_generic_kernels_meanwhile(fresh_cache, monkeypatch):
    """``auto`` kernels: a rule never compiled here runs the generic module (the rule as data) once
    that one is compiled, so a new rule after ``tensorca warmup`` costs no compile; its own kernels
    are what ``specialised`` asks for, and ``generic`` forces the generic ones."""
    monkeypatch.delenv(choice.KERNELS_ENV, raising=False)
    highlife = parse_rule("B36/S23")
    sets = circuit.bs_sets(highlife.compile())
    assert choice.kernel_expression("bitpack-cpu", *sets) == expression(highlife)  # no generic compiled yet
    assert choice.kernel_state(highlife, "bitpack-cpu") == "cold"
    _pretend_compiled(circuit.load_generated_module("bitpack-cpu", circuit.GENERIC, "GENERIC = True\n", "test"))
    assert choice.kernel_expression("bitpack-cpu", *sets) == circuit.GENERIC
    assert choice.lanes_stand_in(circuit.rule_table(highlife))
    assert choice.kernel_state(highlife, "bitpack-cpu") == "disk"  # auto may choose bitpack-cpu at once
    monkeypatch.setenv(choice.KERNELS_ENV, "specialised")
    assert choice.kernel_expression("bitpack-cpu", *sets) == expression(highlife)
    assert not choice.lanes_stand_in(circuit.rule_table(highlife))
    monkeypatch.setenv(choice.KERNELS_ENV, "generic")
    assert choice.kernel_expression("bitpack-cpu", *circuit.bs_sets(parse_rule("B3/S23").compile())) == \
        circuit.GENERIC


def test_a_process_compiles_few_rules_itself_under_auto(fresh_cache, monkeypatch):
    """Numba never frees compiled code: past COMPILE_IN_PROCESS rules' own modules, a cold rule runs
    the generic module (compiled once), and its own compile elsewhere (80 rules took 494 MB before)."""
    monkeypatch.delenv(choice.KERNELS_ENV, raising=False)
    rules = distinct_rules(choice.COMPILE_IN_PROCESS + 1)
    for rule in rules[: choice.COMPILE_IN_PROCESS]:
        assert choice.kernel_expression("bitpack-cpu", *circuit.bs_sets(rule.compile())) == expression(rule)
        load(rule)
    extra = rules[choice.COMPILE_IN_PROCESS]
    assert choice.kernel_expression("bitpack-cpu", *circuit.bs_sets(extra.compile())) == circuit.GENERIC
    assert choice.kernel_expression("bitpack-cpu", *circuit.bs_sets(rules[0].compile())) == expression(rules[0])
    monkeypatch.setenv(choice.KERNELS_ENV, "specialised")  # as before: up to MAX_SPECIALISED
    assert choice.kernel_expression("bitpack-cpu", *circuit.bs_sets(extra.compile())) == expression(extra)


def test_the_generic_kernels_give_the_reference_cells(monkeypatch):
    """The generic kernels (what stands in for a cold rule) on the shapes auto sends them."""
    from tensorca.engines import get_engine
    from tensorca.random_grids import random_soup

    monkeypatch.setenv(choice.KERNELS_ENV, "generic")
    engine, reference = get_engine("bitpack-cpu"), get_engine("numpy")
    for rule_text, shape, kind in (("B36/S23", (3, 70, 130), "torus"), ("B2ce3ai/S23k", (1, 64, 200), "plane"),
                                   ("23/3/3", (2, 40, 66), "torus")):
        rule = parse_rule(rule_text)
        topology = parse_topology(f":{'T' if kind == 'torus' else 'P'}{shape[2]},{shape[1]}")
        cells = random_soup(shape[1], shape[2], seed=9, batch=shape[0], n_states=rule.n_states)
        assert np.array_equal(engine.advance(cells, rule, topology, 9), reference.advance(cells, rule, topology, 9))


def test_the_33rd_rule_shares_the_generic_kernels(fresh_cache):
    """Numba never frees compiled code, so the number of rule-specific modules is what is bounded."""
    rules = distinct_rules(circuit.MAX_SPECIALISED + 2)
    for rule in rules[: circuit.MAX_SPECIALISED]:
        assert choice.kernel_expression("bitpack-cpu", *circuit.bs_sets(rule.compile())) == expression(rule)
        load(rule)
    extra = rules[circuit.MAX_SPECIALISED]
    assert choice.kernel_expression("bitpack-cpu", *circuit.bs_sets(extra.compile())) == circuit.GENERIC
    assert choice.kernel_state(extra, "bitpack-cpu") == "cold"  # the generic module is not loaded yet
    circuit.load_generated_module("bitpack-cpu", circuit.GENERIC, "GENERIC = True\n", "test")
    assert [choice.kernel_state(rule, "bitpack-cpu") for rule in rules] == ["loaded"] * len(rules)
    assert choice.kernel_expression("bitpack-cpu", *circuit.bs_sets(rules[0].compile())) == expression(rules[0])
    assert len(circuit.LOADED) == circuit.MAX_SPECIALISED + 1


def test_bitpack_gpu_has_no_generic_kernels(fresh_cache):
    rules = distinct_rules(circuit.MAX_SPECIALISED + 1)
    for rule in rules:
        load(rule, "bitpack-gpu")
    assert choice.kernel_state(rules[-1], "bitpack-gpu") == "loaded"
    assert choice.kernel_state(rules[-1], "bitpack-cpu") == "cold"


def test_generic_kernels_match_the_reference(monkeypatch):
    """Past the cap, rules run the generic Numba kernels: exactly the reference, on every path."""
    pytest.importorskip("numba")
    from tensorca.engines import get_engine

    monkeypatch.setattr(circuit, "LOADED", {})
    monkeypatch.setattr(circuit, "MAX_SPECIALISED", 1)
    reference, packed = get_engine("numpy"), get_engine("bitpack-cpu")
    rng = np.random.default_rng(5)
    rules = [parse_rule(text) for text in ("B3/S23", "B36/S23", "B0123478/S34678", "B1357/S1357", "B/S", "B2/S")]
    for rule in rules:
        for topology, gens in ((Topology.torus(67, 13), 7), (Topology.plane(130, 9), 5)):
            cells = (rng.random((3, *topology.shape)) < 0.4).astype(np.uint8)
            want = reference.advance(cells, rule, topology, gens)
            np.testing.assert_array_equal(packed.advance(cells, rule, topology, gens), want, err_msg=str(rule))
    assert set(circuit.LOADED) == {("bitpack-cpu", expression(rules[0])), ("bitpack-cpu", circuit.GENERIC)}


def test_generic_lines_compute_every_truth_table():
    """The multiplexer tree picks ``L<index>`` for every reachable input (Python ints as 1-bit words)."""
    lines = circuit.generic_lines()
    rng = np.random.default_rng(3)
    for _ in range(20):
        table = rng.integers(0, 2, 32)
        for index in range(32):
            total, c = index & 15, index >> 4
            if total > 9:
                continue
            env = {f"L{i}": int(v) for i, v in enumerate(table)}
            env.update(t0=total & 1, t1=total >> 1 & 1, t2=total >> 2 & 1, t3=total >> 3 & 1, c=c)
            for line in lines[:-1]:
                name, value = line.split(" = ")
                env[name] = eval(value, {"__builtins__": {}}, env)
            assert env[lines[-1]] == table[index]


def test_why_not_bitpack_reads_the_step_spec():
    torus = Topology.torus(8, 8)
    assert circuit.why_not_bitpack(parse_rule("B3/S23").compile(), torus) is None
    assert circuit.why_not_bitpack(parse_rule("B3/S23"), torus) is None  # a rule is compiled first
    assert "perceive 'mask_count'" in circuit.why_not_bitpack(parse_rule("R2,C0,S2,B3").compile(), torus)
    assert "3 states" in circuit.why_not_bitpack(parse_rule("23/3/3").compile(), torus)
    # every two-state 3x3 table runs bit-packed (issue 18); multi-state ones do not
    assert circuit.why_not_bitpack(parse_rule("B2a/S23").compile(), torus) is None
    assert circuit.why_not_bitpack(parse_rule("B2/S23V").compile(), torus) is None
    assert circuit.why_not_bitpack(parse_rule("345/2/4").compile(), torus) is not None
    assert "shifted torus" in circuit.why_not_bitpack(parse_rule("B3/S23").compile(), parse_topology("T8+1,8"))


def test_kernel_state_imports_no_framework():
    code = ("import sys; from tensorca.rules import parse_rule; from tensorca.engines.bitpack import choice as c; "
            "c.kernel_state(parse_rule('B3/S23'), 'bitpack-cpu'); c.kernel_state(parse_rule('B3/S23'), 'bitpack-gpu'); "
            "print(sorted(m for m in ('numba', 'torch', 'triton') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
