"""The rule-family registry (:mod:`tensorca.families`): declarations that hold, and a family from another package.

The plug-in test installs ``examples/plugin_family`` into a temporary directory outside the checkout (no
edit to tensorca, no network: ``--no-deps --no-build-isolation``) and drives the ``tensorca`` command with
that directory on ``PYTHONPATH``, as a user who ran ``pip install`` would.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tensorca
from tensorca import families as registry
from tensorca.costmodel import predict, rule_class
from tensorca.engines import engine_infos, get_engine
from tensorca.errors import EngineError, MissingDependencyError, RuleError, UsageError
from tensorca.rules import parse_rule
from tensorca.topology import Topology
from tensorca.verify import rule_value

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "tensorca"
PLUGIN = ROOT / "examples" / "plugin_family"


# -- every built-in declaration holds -------------------------------------------------------------


@pytest.mark.parametrize("family", registry.families(), ids=lambda f: f.name)
def test_samples_belong_to_their_family(family):
    """Each sample is a rule (or a form verify expands) that the family itself claims and prices."""
    for text in family.samples:
        rule = rule_value(text)
        assert registry.family_of(rule) is family, text
        cost_class, scale = rule_class(rule)
        assert cost_class == family.cost(rule.compile())[0] and scale > 0, text


def _runs_here_or_would(name: str, rules: list, topology: Topology) -> bool:
    """Whether engine ``name`` runs any of ``rules``: its ``supports`` where it loads and has a device,
    else its registry pre-check (bitpack-gpu without a GPU)."""
    info = next(i for i in engine_infos() if i.name == name)
    try:
        engine = get_engine(name)
        if engine.devices():
            return any(engine.supports(r, topology) for r in rules)
    except (EngineError, MissingDependencyError):
        pass
    return any(info.precheck is None or info.precheck(r.compile(), topology) for r in rules)


@pytest.mark.parametrize("family", registry.families(), ids=lambda f: f.name)
def test_declared_engines_are_the_engines_that_run_it(family):
    """``engines`` (what ``tensorca rule`` and the docs show) is what the engines' own checks say."""
    torus = Topology.torus(8, 8)
    rules = [rule_value(text) for text in family.samples]
    running = {i.name for i in engine_infos() if _runs_here_or_would(i.name, rules, torus)}
    assert set(family.engines) == running


def test_every_rule_family_is_registered():
    """Each rule a parser can return belongs to some family (display names of the built-in rule values)."""
    for text in ("B3/S23", "B2-a/S12", "MAP" + "A" * 86, "345/2/4", "W30", "R2,C0,M1,S1..2,B3..3,NM",
                 "WireWorld", "LifeHistory", "R=5,T=10,b=[1],m=0.15,s=0.015,kn=1,gn=1", "DK:p1=0.5,p2=0.5"):
        assert registry.family_of(parse_rule(text)) is not None, text


def test_registry_refuses_bad_declarations():
    with pytest.raises(UsageError, match="Family"):
        registry.register_family("life")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="no sample rules"):
        registry.register_family(registry.Family("empty", "nothing", lambda r: False, (), lambda s: ("x", 1.0)))
    with pytest.raises(UsageError, match="unknown rule family 'nope'"):
        registry.family("nope")
    with pytest.raises(UsageError, match="module:function"):
        registry.register_step("numpy", ("a", "b"), "no-colon")


def test_family_kernels_declare_their_memory():
    """The engines plan memory for family kernels from the declarations, not from their own tables."""
    lenia = parse_rule(registry.family("lenia").samples[0])
    assert get_engine("numpy").cell_bytes(lenia) == registry.family("lenia").cell_bytes["numpy"]
    assert registry.kernel_cell_bytes("numpy", parse_rule("B3/S23").compile()) is None  # the engine's own


def test_cost_factors_of_family_classes_come_from_the_family():
    """A class a family introduces is priced by its declared factors where the engine gives none."""
    tree = parse_rule("WireWorld")
    assert rule_class(tree) == ("tree", 1.0)
    assert registry.class_factor("numpy", "cpu", "tree", "cell") == 33.0
    slow = predict("numpy", "cpu", tree, 1, (256, 256), 10, kernels="none", warm_process=True)
    fast = predict("numpy", "cpu", parse_rule("B3/S23"), 1, (256, 256), 10, kernels="none", warm_process=True)
    assert slow.parts["compute"] == pytest.approx(33.0 / 1.0 * fast.parts["compute"] / 1.0, rel=1e-9)


def test_calibration_measures_every_cost_class():
    from tensorca.benchmark.calibrate import class_samples

    samples = class_samples()
    assert {"moore", "table", "generations", "ltl", "tree", "super", "fft", "stochastic"} <= set(samples)
    assert samples["moore"] == "B3/S23" and samples["table"] == "B2-a/S12"


# -- no family named outside families/ --------------------------------------------------------------

#: Where a built-in family is still named outside ``families/``, by module (goal and state: none).
NAMED_OUTSIDE: dict[str, int] = {}
#: The same words meaning something else: a count of generations in a result record, HashLife's tree.
NOT_A_FAMILY = {("benchmark/loader.py", "generations"), ("cli/soup.py", "generations"),
                ("search/distributed.py", "generations"), ("pattern.py", "tree")}


def _dispatch_constants(tree: ast.AST) -> list[ast.Constant]:
    """String constants a module decides or keys by: compared (``==``, ``in``), dictionary keys, ``match``
    cases, and class attributes named ``family`` (a rule value's family)."""
    found: list[ast.Constant] = []

    def strings(node: ast.AST | None) -> list[ast.Constant]:
        if node is None:
            return []
        return [n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            found += strings(node)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                found += strings(key)
        elif isinstance(node, ast.MatchValue):
            found += strings(node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "family" for t in targets):
                found += strings(node.value)
    return found


def family_mentions() -> dict[str, int]:
    """``{module: count}`` of the places outside ``families/`` that dispatch on a built-in family: a string
    equal to a family's name, or to a step-spec kind a family's kernels bring, that a module compares
    with, keys a table by, or names its rule values' family by."""
    names = set(registry.family_names()) | {kind for f in registry.families() for kernels in f.steps.values()
                                            for kinds in kernels for kind in kinds}
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("families/"):
            continue
        count = sum(1 for node in _dispatch_constants(ast.parse(path.read_text()))
                    if node.value in names and (relative, node.value) not in NOT_A_FAMILY)
        if count:
            found[relative] = count
    return found


def test_families_are_named_only_in_their_folders():
    """The cost model, verify, calibration, the CLI and the engines ask the registry; what still names a
    family elsewhere is listed above and can only shrink."""
    found = family_mentions()
    grown = {m: n for m, n in found.items() if n > NAMED_OUTSIDE.get(m, 0)}
    assert not grown, f"new places name a rule family outside families/: {grown}"
    shrunk = {m: n for m, n in NAMED_OUTSIDE.items() if found.get(m, 0) < n}
    assert not shrunk, f"fewer places name a family now: lower NAMED_OUTSIDE to {shrunk} -> {found}"
    for module in ("costmodel.py", "verify.py", "benchmark/calibrate.py", "cli/rule.py", "cli/info.py",
                   "engines/numpy_reference.py", "engines/torch_engine.py"):
        assert module not in found, module


# -- a family from another package ------------------------------------------------------------------


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``examples/plugin_family`` installed into a temporary directory outside the checkout."""
    target = tmp_path_factory.mktemp("plugin-site")
    source = tmp_path_factory.mktemp("plugin-source") / "plugin_family"  # setuptools writes build/ beside it
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-warn-script-location", "--target", str(target), str(source)],
                   check=True, capture_output=True, timeout=300, cwd=source.parent)
    assert (target / "tensorca_majority").is_dir()
    return target


def run_with_plugin(plugin_path: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """``python -m tensorca ARGS`` with the plug-in's directory on the path, outside the checkout."""
    env = {**os.environ, "PYTHONPATH": str(plugin_path)}
    return subprocess.run([sys.executable, "-m", "tensorca", *args], capture_output=True, text=True, env=env,
                          cwd=plugin_path, timeout=timeout)


def test_plugin_rule_is_parsed_and_described(plugin_path):
    out = run_with_plugin(plugin_path, "rule", "majorityr2")
    assert out.returncode == 0, out.stderr
    assert "MajorityR2" in out.stdout and "majority" in out.stdout and "numpy, torch, dask" in out.stdout
    bad = run_with_plugin(plugin_path, "rule", "MajorityR0")
    assert bad.returncode != 0 and "majority radius must be 1 to 100, got 0" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_plugin_runs_and_matches_larger_than_life(plugin_path, tmp_path):
    """``MajorityR2`` through the CLI gives the cells of the built-in R2,C0,M1,S13..25,B13..25,NM (torus and plane)."""
    script = (
        "import numpy as np, tensorca\n"
        "grid = (np.random.default_rng(5).random((3, 29, 41)) < 0.5).astype(np.uint8)\n"
        "for topology in ('torus', 'plane'):\n"
        "    for backend in ('numpy', 'torch'):\n"
        "        got = tensorca.run(grid, 'MajorityR2', 25, backend=backend, topology=topology)\n"
        "        want = tensorca.run(grid, 'R2,C0,M1,S13..25,B13..25,NM', 25, backend='numpy', topology=topology)\n"
        "        assert np.array_equal(np.asarray(got), np.asarray(want)), (topology, backend)\n"
        "print('same cells')\n")
    env = {**os.environ, "PYTHONPATH": str(plugin_path)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=600)
    assert out.returncode == 0 and "same cells" in out.stdout, out.stderr
    for rule, name in (("MajorityR2", "majority.rle"), ("R2,C0,M1,S13..25,B13..25,NM", "ltl.rle")):
        cli = run_with_plugin(plugin_path, "run", "--soup", "40x30", "--rule", rule, "--gens", "12", "--seed", "3",
                              "--out", str(tmp_path / name))
        assert cli.returncode == 0, cli.stderr
    check = ("import numpy as np, sys, tensorca\n"
             "majority, ltl = tensorca.load(sys.argv[1]), tensorca.load(sys.argv[2])\n"
             "assert majority.rule.canonical() == 'MajorityR2' and majority.population > 0\n"
             "assert np.array_equal(majority.cells, ltl.cells) and majority.origin == ltl.origin\n"
             "print('same file cells')\n")
    out = subprocess.run([sys.executable, "-c", check, str(tmp_path / "majority.rle"), str(tmp_path / "ltl.rle")],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0 and "same file cells" in out.stdout, out.stderr
    with pytest.raises(tensorca.PatternError, match="MajorityR2"):  # without the plug-in: a clear error
        tensorca.load(tmp_path / "majority.rle")


def test_plugin_passes_verify_on_every_engine_it_registers(plugin_path):
    out = run_with_plugin(plugin_path, "verify", "--family", "majority", "--grids", "8", "--gens", "6")
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout + out.stderr
    for engine in ("torch", "dask"):
        assert f"{engine} " in text
    assert "all engines bit-identical to the reference" in text and "control was caught" in text


def test_plugin_is_benchmarked(plugin_path):
    out = run_with_plugin(plugin_path, "bench", "--quick", "--rule", "MajorityR2", "--engines", "numpy",
                          "--budget", "1")
    assert out.returncode == 0, out.stderr
    assert "MajorityR2" in out.stdout and "numpy@cpu" in out.stdout


def test_no_plugin_is_loaded_at_import():
    """``import tensorca`` and built-in rules never read the entry points (start-up stays fast)."""
    script = ("import sys, tensorca\n"
              "tensorca.parse_rule('B3/S23')\n"
              "print('importlib.metadata' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_unknown_name_is_still_a_rule_error():
    with pytest.raises(RuleError):
        parse_rule("NoSuchFamilyOrFile")
    assert np.asarray(tensorca.run(np.zeros((1, 4, 4), np.uint8), "B3/S23", 1)).sum() == 0
