"""The command line: what a user types and what they see, errors included (one line, no traceback)."""

from __future__ import annotations

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
    assert code == 0 and "B2cin/S" in out and "life-like" in out
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
    assert "Glider" in out and "Richard K. Guy" in out and "B3/S23" in out and "unbounded" in out and "3 x 3" in out and "5" in out


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
    code, out, _ = run_cli(capsys, "run", "--soup", "16x16", "--batch", "3", "--topology", "P", "--gens", "5", "--seed", "1")
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
    done = subprocess.run([sys.executable, "-m", "tensorca", "rule", "23/3"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "B3/S23" in done.stdout
