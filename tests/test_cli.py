"""The command line: what a user types and what they see, errors included (one line, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tensorca import io as pattern_io
from tensorca.cli import main

GLIDER_RLE = "#N Glider\n#O Richard K. Guy\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n"


@pytest.fixture
def glider_file(tmp_path):
    path = tmp_path / "glider.rle"
    path.write_text(GLIDER_RLE)
    return path


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_rule_prints_canonical_form_and_family(capsys):
    code, out, _ = run_cli(capsys, "rule", "b2nic/s")
    assert code == 0 and "B2cin/S" in out and "isotropic" in out and "bitpack-cpu" in out
    code, out, _ = run_cli(capsys, "rule", "345/2/4:T128,128")
    assert code == 0 and "345/2/4:T128,128" in out and "generations" in out and "4" in out


def test_rule_error_is_one_line_with_position(capsys):
    code, out, err = run_cli(capsys, "rule", "B1a/S")
    assert code == 2 and out == ""
    assert err.startswith("tensorca: error:") and "B1a/S" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_info_describes_a_file(capsys, glider_file):
    code, out, _ = run_cli(capsys, "info", str(glider_file))
    assert code == 0
    assert "Glider" in out and "Richard K. Guy" in out and "B3/S23" in out and "unbounded" in out
    assert "3 x 3" in out and "5" in out


def test_run_file_writes_the_moved_glider(capsys, glider_file, tmp_path):
    target = tmp_path / "out.rle"
    code, out, _ = run_cli(capsys, "run", str(glider_file), "--gens", "8", "--out", str(target))
    assert code == 0 and "generation" in out
    final = pattern_io.load(target)
    start = pattern_io.load(glider_file)
    assert final.generation == 8 and np.array_equal(final.cells, start.cells)
    assert (final.origin[0] - start.origin[0], final.origin[1] - start.origin[1]) == (2, 2)


def test_run_soup_is_reproducible_from_its_seed(capsys):
    first = run_cli(capsys, "run", "--soup", "40x24", "--density", "0.4", "--seed", "7", "--gens", "30")
    second = run_cli(capsys, "run", "--soup", "40x24", "--density", "0.4", "--seed", "7", "--gens", "30")
    assert first[0] == second[0] == 0
    def population(out: str) -> list[str]:
        return [line.replace("│", " ").split()[1] for line in out.splitlines() if "population" in line]

    assert population(first[1]) and population(first[1]) == population(second[1])
    assert "cell updates/s" in first[1]


def test_run_soup_batch_and_plane(capsys):
    code, out, _ = run_cli(capsys, "run", "--soup", "16x16", "--batch", "3", "--topology", "P", "--gens", "5",
                           "--seed", "1")
    assert code == 0 and "population" in out


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["run", "missing.rle", "--gens", "3"], "No such file"),
        (["run", "--gens", "3"], "either a pattern FILE or --soup"),
        (["run", "--soup", "axb", "--gens", "3"], "WIDTHxHEIGHT"),
        (["run", "--soup", "8x8", "--gens", "3", "--backend", "nope"], "unknown backend 'nope'"),
        (["run", "--soup", "8x8", "--gens", "3", "--rule", "B9/S"], "B9/S"),
        (["run", "--soup", "8x8", "--gens", "-2"], "non-negative"),
        (["run", "--soup", "8x8", "--gens", "3", "--density", "1.5"], "density"),
    ],
)
def test_run_errors_are_one_line(capsys, argv, needle):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_malformed_file_reports_line_and_column(capsys, tmp_path):
    bad = tmp_path / "bad.rle"
    bad.write_text("x = 3, y = 3, rule = B3/S23\nbo$2bo$3%!\n")
    code, _, err = run_cli(capsys, "run", str(bad), "--gens", "1")
    assert code == 2 and "bad.rle:2:" in err and "Traceback" not in err


def test_python_dash_m_entry_point():
    done = subprocess.run([sys.executable, "-m", "tensorca", "rule", "23/3"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "B3/S23" in done.stdout


def test_version(capsys):
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"tensorca {version('tensorca')}"
    done = subprocess.run([sys.executable, "-m", "tensorca", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("tensorca ")


def test_help_exits_zero(capsys):
    assert main(["run", "--help"]) == 0
    assert "--population-every" in capsys.readouterr().out


def test_bundled_pattern_names_resolve_from_any_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(capsys, "run", "gosper_gun.rle", "--gens", "30", "--backend", "numpy", "--no-progress")
    assert code == 0 and "gosper_gun.rle" in out
    population = [line for line in out.splitlines() if "population" in line]
    assert population and "41" in population[0]  # the gun at generation 30: 36 cells + one glider
    code, out, _ = run_cli(capsys, "info", "gosper_gun.rle")
    assert code == 0 and "Gosper glider gun" in out


def test_a_file_that_exists_wins_over_a_bundled_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gosper_gun.rle").write_text(GLIDER_RLE)
    code, out, _ = run_cli(capsys, "info", "gosper_gun.rle")
    assert code == 0 and "Glider" in out and "3 x 3" in out


def test_soup_seed_is_drawn_and_printed_when_not_given(capsys):
    seeds = []
    for _ in range(2):
        code, out, _ = run_cli(capsys, "run", "--soup", "16x16", "--gens", "2", "--no-progress")
        assert code == 0 and "seed None" not in out
        seeds.append(out.split("seed ")[1].split()[0].rstrip(","))
    assert all(seed.isdigit() for seed in seeds) and seeds[0] != seeds[1]
    code, again, _ = run_cli(capsys, "run", "--soup", "16x16", "--gens", "2", "--seed", seeds[1], "--no-progress")
    assert code == 0 and [line for line in again.splitlines() if "population" in line] == \
        [line for line in out.splitlines() if "population" in line]


def test_demo_table_fits_80_columns_with_the_longest_engine_name(capsys, monkeypatch):
    from types import SimpleNamespace

    from tensorca import demo

    monkeypatch.setattr(demo, "PATTERNS", (("glider.rle", 4, "R-pentomino, unbounded"),))
    monkeypatch.setattr(demo, "SOUPS", ((32, 3),))
    monkeypatch.setattr(demo.pattern_io, "load", lambda path: pattern_io.loads(GLIDER_RLE))
    from tensorca.engines import get_engine

    class LongestName(type(get_engine("numpy"))):  # the reference engine under the longest name
        name = "bitpack-gpu"

    monkeypatch.setattr(demo, "decide", lambda *a, **k: SimpleNamespace(engine=LongestName(), device=None))
    monkeypatch.setattr(demo, "demo_jobs", lambda: [])  # nothing to compile ahead here
    demo.main()
    out = capsys.readouterr().out
    assert "bitpack-gpu" in out and "Gosper" not in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_soup_prints_its_drawn_seed_and_writes_json(capsys, tmp_path):
    path = tmp_path / "census.json"
    quick = ["--count", "8", "--max-gens", "2000", "--backend", "numpy", "--no-progress"]
    code, out, _ = run_cli(capsys, "soup", *quick, "--json", str(path))
    assert code == 0 and "seed None" not in out
    data = json.loads(path.read_text())
    assert data["soups"] == 8 and data["interrupted"] is False and sum(data["counts"].values()) == data["objects"]
    assert str(data["seed"]) in out  # the drawn seed is printed: the census can be repeated
    code, again, _ = run_cli(capsys, "soup", *quick, "--seed", str(data["seed"]))
    assert code == 0 and _census_rows(out) and _census_rows(again) == _census_rows(out)


def _census_rows(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip().startswith("│") and "xs" in line]


def test_soup_ctrl_c_prints_and_writes_the_partial_census(capsys, tmp_path, monkeypatch):
    from contextlib import contextmanager

    from tensorca.cli import soup as cli_soup

    @contextmanager
    def interrupt_after_8(enabled, total, label):
        def progress(done, _total):
            if done >= 8:
                raise KeyboardInterrupt
        yield progress

    monkeypatch.setattr(cli_soup, "progress_bar", interrupt_after_8)
    path = tmp_path / "partial.json"
    code, out, err = run_cli(capsys, "soup", "--count", "100000", "--seed", "3", "--backend", "numpy",
                             "--json", str(path))
    data = json.loads(path.read_text())
    assert code == 130 and data["interrupted"] is True and 8 <= data["soups"] < 100000 and data["objects"] > 0
    assert f"partial census of {data['soups']:,} soups" in out and "xs4_33" in out
    assert len(err.strip().splitlines()) == 1 and f"{data['soups']:,} of 100,000 soups" in err


def test_verify_on_a_base_install_names_the_extras(capsys, monkeypatch):
    from tensorca.engines import registry

    monkeypatch.setattr(registry, "_LOADED", {"numpy": registry.get_engine("numpy")})
    monkeypatch.setattr(registry, "installed", lambda module: False)  # no torch, numba or triton here
    code, out, err = run_cli(capsys, "verify")
    assert code == 2 and out == "" and "FAILED" not in err and len(err.strip().splitlines()) == 1
    assert "only the NumPy reference engine is installed" in err and "pip install 'tensorca[fast]'" in err


def test_public_names_include_the_contracts():
    import tensorca
    from tensorca import engines, errors

    for name in ("UsageError", "MissingDependencyError"):
        assert getattr(tensorca, name) is getattr(errors, name) and name in tensorca.__all__
    for name in ("EngineInfo", "EngineCost", "register", "register_lazy"):
        assert getattr(tensorca, name) is getattr(engines, name) and name in tensorca.__all__
    assert isinstance(tensorca.__version__, str)
