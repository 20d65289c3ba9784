"""The packaged examples (``python -m tensorca.examples.<name>``) run from any directory.

Each runs in a subprocess from ``tmp_path`` (outside the repository, so nothing is found relative to
it): ``--quick`` must exit 0 and print its result line, whose numbers are checked; ``--help`` prints
the usage; without torch an example exits 2 with one line naming the ``[torch]`` extra.
"""

from __future__ import annotations

import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tensorca
import tensorca.examples
from tensorca.examples import EXAMPLES

NAMES = [name for name, _ in EXAMPLES]
# The directory tensorca was imported from: the subprocesses run the same code, installed or not.
SITE = str(Path(tensorca.__file__).resolve().parents[1])

# Hides torch from the import system, then runs what follows the format's {code}.
_NO_TORCH = """
import importlib.abc, sys
class _Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("torch is blocked for this test")
        return None
sys.meta_path.insert(0, _Block())
{code}
"""


def _run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python <args>`` in ``cwd`` with this tensorca first on the path, one torch thread."""
    env = dict(os.environ, PYTHONPATH=SITE, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr
    return lines[-1]


def test_every_example_module_is_listed(tmp_path: Path) -> None:
    """EXAMPLES names exactly the modules of the package; ``python -m tensorca.examples`` lists one line each."""
    modules = {m.name for m in pkgutil.iter_modules(tensorca.examples.__path__) if not m.name.startswith("_")}
    assert set(NAMES) == modules == {"grow_nca", "fit_lenia", "learn_rule"}
    done = _run(["-c", _NO_TORCH.format(code="import runpy; runpy.run_module('tensorca.examples', "
                                              "run_name='__main__')")], tmp_path)
    assert done.returncode == 0, done.stderr
    listed = [line for line in done.stdout.splitlines() if line.startswith("python -m tensorca.examples.")]
    assert [line.split()[2].rsplit(".", 1)[1] for line in listed] == NAMES
    for line, (_, description) in zip(listed, EXAMPLES, strict=True):
        assert line.endswith(description)


@pytest.mark.parametrize("name", NAMES)
def test_example_without_torch_is_one_line(tmp_path: Path, name: str) -> None:
    """Run without torch: exit 2, one line on stderr naming the extra, no traceback; imported: the typed error."""
    run = f"import runpy; runpy.run_module('tensorca.examples.{name}', run_name='__main__', alter_sys=True)"
    done = _run(["-c", _NO_TORCH.format(code=run)], tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"python -m tensorca.examples.{name}: error: ")
    assert "pip install 'tensorca[torch]'" in lines[0]
    imported = (f"from tensorca.errors import MissingDependencyError\n"
                f"try:\n    import tensorca.examples.{name}\n"
                f"except MissingDependencyError as exc:\n    print(exc.package, exc.install)")
    done = _run(["-c", _NO_TORCH.format(code=imported)], tmp_path)
    assert _last_line(done) == "torch pip install 'tensorca[torch]'"


@pytest.mark.parametrize("name", NAMES)
def test_example_help(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    done = _run(["-m", f"tensorca.examples.{name}", "--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m tensorca.examples.{name}")
    assert "--quick" in done.stdout


def test_grow_nca_quick_lowers_the_loss(tmp_path: Path) -> None:
    """``loss <last> (first <first>)``: training reduced the error against the target by at least 10%."""
    pytest.importorskip("torch")
    line = _last_line(_run(["-m", "tensorca.examples.grow_nca", "--quick"], tmp_path))
    match = re.fullmatch(r"loss (\S+) \(first (\S+)\)", line)
    assert match, line
    last, first = float(match[1]), float(match[2])
    assert last < 0.9 * first, line
    assert list(tmp_path.iterdir()) == []  # nothing written without --picture


def test_fit_lenia_quick_recovers_m_and_s(tmp_path: Path) -> None:
    """The fit's loss falls and ``m``, ``s`` land near Orbium's 0.15, 0.015 (started at 0.16, 0.02)."""
    pytest.importorskip("torch")
    done = _run(["-m", "tensorca.examples.fit_lenia", "--quick"], tmp_path)
    line = _last_line(done)
    match = re.match(r"m (\S+) s (\S+) \(true 0\.15, 0\.015; rule ", line)
    assert match, line
    m, s = float(match[1]), float(match[2])
    assert abs(m - 0.15) < 0.002 and abs(s - 0.015) < 0.001, line
    losses = re.search(r"^loss (\S+) -> (\S+)$", done.stdout, re.MULTILINE)
    assert losses, done.stdout
    assert float(losses[2]) < 0.01 * float(losses[1]), losses[0]


def test_learn_rule_quick_learns_life_exactly(tmp_path: Path) -> None:
    """The net predicts every cell of the unseen grids: the learned rule is B3/S23 (exit 0 says so too)."""
    pytest.importorskip("torch")
    line = _last_line(_run(["-m", "tensorca.examples.learn_rule", "--quick"], tmp_path))
    assert line.startswith("B3/S23: held-out check perfect from step "), line
    assert line.endswith("unseen 64x64 grids: 100.0000% of cells, 100.0% of grids exactly right"), line
