"""Start-up: the quick commands import only what they need, and the lazy public names all resolve.

``tensorca --version``, ``tensorca rule`` and ``tensorca info`` must start in well under a second, so
none of them may import the frameworks (torch, numba, dask, zarr, triton) nor rich, and ``--version``
not even NumPy. Each command runs in a fresh interpreter, which then reports what it had imported:
this checks what is imported, never how long it took.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import tensorca

GUN = str(Path(tensorca.__file__).parent / "data" / "patterns" / "gosper_gun.rle")
#: Slow to import and needed by none of the quick commands.
HEAVY = {"torch", "numba", "dask", "distributed", "zarr", "triton", "rich"}
EXPANDED = "ExpandedLenia(R=10,T=10,C=2,gn=1;c=0>1,b=[1,1/2],m=0.2,s=0.03;c=1>0,b=[1],m=0.15,s=0.02)"

#: Run ``code`` in a fresh interpreter; it sets ``result``, printed as JSON with the top-level
#: packages then imported.
_HARNESS = """
import json, sys
{code}
imported = sorted({{name.split(".")[0] for name in sys.modules}})
print("\\n" + json.dumps({{"result": result, "imported": imported}}))
"""


def fresh(code: str) -> tuple[object, set[str], subprocess.CompletedProcess]:
    """Run ``code`` (which sets ``result``) in a new interpreter: ``(result, top-level modules, process)``."""
    done = subprocess.run([sys.executable, "-c", _HARNESS.format(code=code)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["result"], set(report["imported"]), done


def run_command(*argv: str) -> tuple[int, str, str, set[str]]:
    """``tensorca ARGV`` as the console script runs it (``tensorca.cli.main``), in a fresh interpreter:
    ``(exit status, stdout, stderr, top-level modules imported by the end)``."""
    code, imported, done = fresh(f"from tensorca.cli import main\nresult = main({list(argv)!r})")
    return code, done.stdout.rsplit("\n", 2)[0], done.stderr, imported


@pytest.mark.parametrize(
    "argv,forbidden,expected",
    [
        (["--version"], HEAVY | {"numpy"}, f"tensorca {metadata.version('tensorca')}"),
        (["rule", "B3/S23"], HEAVY, "life-like"),
        (["info", GUN], HEAVY, "Gosper glider gun"),
    ],
    ids=["version", "rule", "info"],
)
def test_quick_commands_import_no_framework_nor_rich(argv, forbidden, expected):
    code, out, err, imported = run_command(*argv)
    assert code == 0 and expected in out and err == ""
    assert not imported & forbidden, f"tensorca {' '.join(argv)} imported {sorted(imported & forbidden)}"


def test_version_is_the_installed_metadata_version():
    code, out, _, _ = run_command("--version")
    assert code == 0 and out.strip() == f"tensorca {metadata.version('tensorca')}"
    assert tensorca.__version__ == metadata.version("tensorca")  # the source tree's agrees with it


def test_a_usage_error_is_still_one_plain_line_without_rich():
    code, out, err, imported = run_command("rule", "B1a/S")
    assert code == 2 and out.strip() == ""
    assert err.startswith("tensorca: error: ") and len(err.strip().splitlines()) == 1
    assert "rich" not in imported


def test_import_tensorca_imports_nothing_else():
    _, imported, _ = fresh("import tensorca\nresult = None")
    assert not imported & (HEAVY | {"numpy"})


def test_every_public_name_resolves():
    for name in tensorca.__all__:
        assert getattr(tensorca, name) is not None, name
    assert set(tensorca.__all__) <= set(dir(tensorca))
    assert callable(tensorca.verify) and callable(tensorca.elementary)  # not the same-named submodules
    # in a fresh interpreter too, where ``from tensorca import X`` is each name's first use
    names, _, _ = fresh("import tensorca\n"
                        "exec('from tensorca import ' + ', '.join(tensorca.__all__))\n"
                        "result = sorted(n for n in tensorca.__all__ if eval(n) is not getattr(tensorca, n))")
    assert names == []


def test_a_submodule_does_not_shadow_the_public_function_of_its_name():
    kinds, _, _ = fresh("from tensorca.verify import FAMILIES\nfrom tensorca.elementary import elementary\n"
                        "import tensorca\n"
                        "result = [type(tensorca.verify).__name__, type(tensorca.elementary).__name__]")
    assert kinds == ["function", "function"]


def test_expanded_lenia_is_parsed_without_being_imported_first():
    module = "tensorca.families.lenia_expanded.rule"
    result, _, _ = fresh("import sys\nfrom tensorca.rules import parse_rule\n"
                         f"before = {module!r} in sys.modules or 'tensorca.engines' in sys.modules\n"
                         f"rule = parse_rule({EXPANDED!r})\n"
                         f"result = [before, type(rule).__name__, {module!r} in sys.modules]")
    assert result == [False, "ExpandedLenia", True]


def test_the_listed_help_is_each_subcommands_own():
    """``tensorca --help`` lists the subcommands from :data:`tensorca.cli.COMMANDS` without importing
    them: that help must be what each module's ``register`` says."""
    import argparse
    from importlib import import_module

    from tensorca.cli import COMMANDS

    class Recorder:
        """Sub-parsers that note each ``add_parser``'s name and help."""

        def __init__(self) -> None:
            self.real = argparse.ArgumentParser().add_subparsers()
            self.seen: list[tuple[str, str | None]] = []

        def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser:
            self.seen.append((name, kwargs.get("help")))
            return self.real.add_parser(name, **kwargs)

    for name, module, summary in COMMANDS:
        recorder = Recorder()
        import_module(f"tensorca.cli.{module}").register(recorder)
        assert recorder.seen == [(name, summary)]
