"""The built-in pattern library: names resolve (paths win), the listing, and each file's known behaviour.

Every pattern file was written for tensorca from its cell coordinates, so each is checked here against
facts known about the pattern (periods, displacements, methuselah lifetimes, gun output) on the
unbounded plane.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import tensorca
from tensorca.cli import main
from tensorca.data import catalog, library, pattern_path
from tensorca.errors import PatternError
from tensorca.simulate import run

PATTERNS = Path(tensorca.__file__).parent / "data" / "patterns"


def same_shape_and_place(a, b, shift=(0, 0)) -> bool:
    """Same cells, and ``b``'s origin is ``a``'s shifted by ``shift``."""
    return (a.cells.shape == b.cells.shape and np.array_equal(a.cells, b.cells)
            and (b.origin[0] - a.origin[0], b.origin[1] - a.origin[1]) == shift)


def populations(name: str, generations: list[int], backend: str = "hashlife") -> list[int]:
    start = tensorca.load(name)
    return [run(start, generations=g, backend=backend).population for g in generations]


# -- the library itself --------------------------------------------------------------------------


def test_every_entry_has_its_file_and_every_file_an_entry():
    entries = library()
    assert {e.file for e in entries.values()} == {p.name for p in PATTERNS.glob("*.rle")}
    for name, entry in entries.items():
        assert name == entry.name and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name)
        assert Path(entry.path).is_file() and entry.path == pattern_path(entry.file)
        assert entry.description and "\n" not in entry.description


def test_every_file_says_it_was_written_for_tensorca_and_its_provenance():
    readme = (PATTERNS.parent / "README.md").read_text()
    for entry in library().values():
        comments = tensorca.load(entry.name).comments
        assert any("written for tensorca" in c.lower() and "provenance" in c.lower()
                   and "public domain" in c.lower() for c in comments), entry.file
        assert f"`{entry.name}`" in readme and f"`{entry.file}`" in readme


def test_the_classic_patterns_are_all_there():
    expected = {"gosper-glider-gun", "r-pentomino", "glider", "lwss", "mwss", "hwss", "pulsar", "pentadecathlon",
                "acorn", "diehard", "b-heptomino", "blinker", "beacon", "toad", "block", "beehive", "loaf", "boat",
                "switch-engine"}
    assert expected <= set(library())


# -- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gosper-glider-gun", "Gosper Glider Gun", "GOSPER_GLIDER_GUN", "gosper_gun.rle",
                                  "gosper-gun", " gosper--glider  gun "])
def test_names_match_case_insensitively_with_separators_alike(name):
    pattern = tensorca.load(name)
    assert pattern.name == "Gosper glider gun" and pattern.population == 36


def test_an_existing_file_wins_over_a_library_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("glider").write_text("x = 3, y = 1, rule = B3/S23\n3o!\n")  # a blinker, named like the library's glider
    assert tensorca.load("glider").population == 3
    assert tensorca.load("lwss").population == 9  # no such file here: the library's


def test_unknown_name_raises_pattern_error_with_suggestions():
    with pytest.raises(PatternError, match="did you mean 'glider'") as info:
        tensorca.load("glidr")
    assert "cannot read pattern file" in str(info.value)  # still the missing-file error, extended
    with pytest.raises(PatternError, match="did you mean 'gosper-glider-gun'"):
        catalog.lookup("gosper-gun-glider")
    assert catalog.lookup("R_Pentomino").file == "r_pentomino.rle"


def test_a_missing_path_with_a_folder_is_not_looked_up(tmp_path):
    with pytest.raises(PatternError, match="cannot read pattern file") as info:
        tensorca.load(str(tmp_path / "glider"))
    assert "built-in" not in str(info.value)


# -- known facts of each pattern -------------------------------------------------------------------


@pytest.mark.parametrize("name,period,shift", [
    ("glider", 4, (1, 1)),
    ("lwss", 4, (-2, 0)),
    ("mwss", 4, (-2, 0)),
    ("hwss", 4, (-2, 0)),
    ("copperhead", 10, (0, -1)),
])
def test_spaceships_return_shifted_after_their_period(name, period, shift):
    start = run(tensorca.load(name), generations=0)
    for k in range(1, period):
        assert not np.array_equal(run(start, generations=k).cells, start.cells), f"{name} repeats after {k}"
    assert same_shape_and_place(start, run(start, generations=period), shift)
    assert same_shape_and_place(start, run(start, generations=3 * period), (3 * shift[0], 3 * shift[1]))


@pytest.mark.parametrize("name,period", [("blinker", 2), ("toad", 2), ("beacon", 2), ("pulsar", 3),
                                         ("pentadecathlon", 15)])
def test_oscillator_periods(name, period):
    start = run(tensorca.load(name), generations=0)
    for k in range(1, period):
        assert not same_shape_and_place(start, run(start, generations=k)), f"{name} repeats after {k}"
    assert same_shape_and_place(start, run(start, generations=period))
    assert same_shape_and_place(start, run(start, generations=2 * period))


@pytest.mark.parametrize("name,cells", [("block", 4), ("beehive", 6), ("loaf", 7), ("boat", 5)])
def test_still_lifes_do_not_change(name, cells):
    start = run(tensorca.load(name), generations=0)
    assert start.population == cells
    assert same_shape_and_place(start, run(start, generations=1))


def test_r_pentomino_stabilises_at_1103_with_116_cells():
    pops = populations("r-pentomino", [0, 1102, 1103, 1104, 1105, 2000])
    assert pops[0] == 5 and pops[1] != 116 and pops[2:] == [116] * 4


def test_acorn_stabilises_at_5206_with_633_cells():
    pops = populations("acorn", [0, 5205, 5206, 5207, 5208, 10000])
    assert pops[0] == 7 and pops[1] != 633 and pops[2:] == [633] * 4


def test_diehard_dies_at_generation_130():
    pops = populations("diehard", [0, 129, 130], backend="numpy")
    assert pops[0] == 7 and pops[1] > 0 and pops[2] == 0


def test_b_heptomino_stabilises_at_148_with_28_cells():
    assert populations("b-heptomino", [0, 148, 149, 150, 1000]) == [7, 28, 28, 28, 28]


def test_gosper_gun_emits_a_glider_every_30_generations():
    assert populations("gosper-glider-gun", [0, 30, 60, 90, 120, 150], backend="numpy") == [36, 41, 46, 51, 56, 61]


def test_simkin_gun_has_36_cells_and_emits_a_glider_every_120_generations():
    pops = populations("simkin-glider-gun", [0, 240, 360, 480])
    assert pops[0] == 36 and pops[2] - pops[1] == 5 and pops[3] - pops[2] == 5


def test_switch_engine_has_8_cells_and_stabilises_alone_with_842():
    assert populations("switch-engine", [0, 3911, 3913, 5000, 10000]) == [8, 842, 842, 842, 842]


def test_infinite_growth_grows_without_bound():
    pops = populations("infinite-growth", [0, 10**4, 10**5, 10**6, 2**30])
    assert pops[0] == 13 and pops[1] < pops[2] < pops[3] < pops[4] and pops[4] > 10**8


# -- the command line ------------------------------------------------------------------------------


def test_patterns_command_lists_every_pattern(capsys):
    assert main(["patterns"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["name", "rule", "size", "cells"]
    listed = {line.split()[0]: line.split()[1:4] for line in lines[1:]}
    assert set(listed) == set(library())
    assert listed["gosper-glider-gun"] == ["B3/S23", "36x9", "36"]
    assert main(["patterns", "--paths"]) == 0
    assert pattern_path("glider.rle") in capsys.readouterr().out


@pytest.mark.parametrize("name", ["gosper-glider-gun", "gosper_gun.rle"])
def test_run_by_name(capsys, name):
    assert main(["run", name, "--gens", "300", "--no-progress", "--backend", "numpy"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"population\W+86\b", out)  # 36 + 10 gliders of 5 cells


def test_run_unknown_name_is_one_line_with_a_suggestion(capsys):
    assert main(["run", "pulsr", "--gens", "3"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'pulsar'" in err and len(err.strip().splitlines()) == 1
