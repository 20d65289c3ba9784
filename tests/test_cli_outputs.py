"""The CLI checks every output before generation 1, and writes what it says it writes."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import tensorca
from tensorca.cli import main
from tensorca.cli import render as cli_render
from tensorca.cli import run as cli_run

GUN = str(Path(__file__).resolve().parents[1] / "src/tensorca/data/patterns/gosper_gun.rle")
SOUP = ["run", "--soup", "8x8", "--gens", "3", "--seed", "1", "--no-progress"]


@pytest.fixture
def no_run(monkeypatch):
    """Fail the test if the command gets as far as running generations."""
    def refuse(*args, **kwargs):
        raise AssertionError("the run started before its outputs were checked")

    monkeypatch.setattr(cli_run.simulate, "run", refuse)


def error_line(capsys, argv) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "option,name,needle",
    [
        ("--out", "final.png", "use .rle, .cells, .lif, .life, .mc (optionally + .gz)"),
        ("--out", "final", "unknown extension"),
        ("--checkpoint", "state.rle", "use .npz"),
        ("--population", "pop.json", "use .csv"),
        ("--out", "no/such/folder/final.rle", "does not exist"),
    ],
)
def test_run_outputs_are_checked_before_the_run(capsys, tmp_path, monkeypatch, no_run, option, name, needle):
    monkeypatch.chdir(tmp_path)
    assert needle in error_line(capsys, [*SOUP, option, name])


def test_unwritable_out_fails_before_the_run_without_a_temporary_name(capsys, no_run):
    err = error_line(capsys, [*SOUP, "--out", "/proc/nope.rle"])
    assert "not writable" in err and ".tmp" not in err and "probe" not in err


def test_out_that_is_a_folder_is_refused(capsys, tmp_path, no_run):
    (tmp_path / "x.rle").mkdir()
    assert "is a folder" in error_line(capsys, [*SOUP, "--out", str(tmp_path / "x.rle")])


def test_out_under_a_file_says_the_folder_is_a_file(capsys, tmp_path, no_run):
    (tmp_path / "x.rle").write_text("x = 1, y = 1\no!")
    err = error_line(capsys, [*SOUP, "--out", str(tmp_path / "x.rle" / "y.rle")])
    assert f"folder {tmp_path / 'x.rle'} is a file, not a folder" in err


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--gif", "x.png"], "--gif x.png: unknown extension; use .gif"),
        (["--png", "x.gif"], "--png x.gif: unknown extension; use .png"),
        (["--mp4", "x.gif"], "use .mp4"),
        (["--plot", "x.gif"], "use .png, .svg, .pdf"),
        (["--plot", "missing/p.png"], "does not exist"),
        (["--png", "same.png", "--plot", "same.png"], "two outputs name the same file"),
    ],
)
def test_render_outputs_are_checked_before_the_run(capsys, tmp_path, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli_render, "frame_stream", lambda *a, **k: pytest.fail("frames computed before the check"))
    assert needle in error_line(capsys, ["render", GUN, "--gens", "2", *argv])
    assert not list(tmp_path.iterdir())  # nothing written, not even a temporary file


def test_plot_title_is_the_file_name_not_its_path(monkeypatch, tmp_path, capsys):
    titles = []
    monkeypatch.setattr(cli_render, "write_population_plot", lambda path, pops, title: titles.append(title))
    assert main(["render", GUN, "--gens", "2", "--plot", str(tmp_path / "p.png")]) == 0
    assert titles == ["gosper_gun.rle: population"]


def test_batch_population_is_written_in_long_format(capsys, tmp_path):
    path = tmp_path / "pop.csv"
    assert main(["run", "--soup", "12x10", "--batch", "3", "--seed", "5", "--gens", "4", "--population", str(path),
                 "--population-every", "2", "--backend", "numpy", "--no-progress"]) == 0
    lines = path.read_text().splitlines()
    assert lines[0] == "generation,grid,population" and len(lines) == 1 + 3 * 3
    rows = np.array([[int(v) for v in line.split(",")] for line in lines[1:]])
    assert rows[:, 0].tolist() == [0, 0, 0, 2, 2, 2, 4, 4, 4] and rows[:, 1].tolist() == [0, 1, 2] * 3
    grids = tensorca.random_soup(10, 12, 0.5, 5, 3)
    for generation in (0, 2, 4):
        want = np.count_nonzero(tensorca.run(grids, "B3/S23", generation, backend="numpy"), axis=(1, 2))
        assert rows[rows[:, 0] == generation, 2].tolist() == want.tolist()


def test_single_grid_population_keeps_two_columns(capsys, tmp_path):
    path = tmp_path / "pop.csv"
    assert main([*SOUP, "--population", str(path)]) == 0
    lines = path.read_text().splitlines()
    assert lines[0] == "generation,population" and [line.split(",")[0] for line in lines[1:]] == ["0", "1", "2", "3"]


def test_interrupt_line_is_one_unwrapped_line(capsys, tmp_path, monkeypatch):
    deep = tmp_path / ("a-rather-long-folder-name-" * 4)
    deep.mkdir()
    stop = deep / "state.npz"

    def interrupted(*args, **kwargs):
        raise cli_run.simulate.Interrupted(stop, 5)

    monkeypatch.setattr(cli_run.simulate, "run", interrupted)
    code = main([*SOUP, "--checkpoint", str(stop)])
    err = capsys.readouterr().err
    assert code == 130 and len(err.strip().splitlines()) == 1
    assert f"(continue with: tensorca run --resume {stop} --gens N)" in err


def test_explain_warns_when_the_run_is_predicted_to_be_long(capsys, monkeypatch):
    assert main([*SOUP, "--explain"]) == 0
    assert "predicted to take" not in capsys.readouterr().err
    monkeypatch.setattr(cli_run, "LONG_RUN_S", -1.0)
    assert main([*SOUP, "--explain"]) == 0
    err = capsys.readouterr().err
    assert "warning: this run is predicted to take" in err and "--checkpoint" in err


def test_durations_read_naturally():
    assert [cli_run.duration(s) for s in (42, 720, 6840, 3 * 86400)] == ["42 s", "12 min", "1.9 h", "3.0 days"]


def test_no_probe_file_is_left_behind(capsys, tmp_path):
    assert main([*SOUP, "--out", str(tmp_path / "a.rle")]) == 0
    assert sorted(os.listdir(tmp_path)) == ["a.rle"]


def test_render_a_bundled_pattern_by_name(capsys, tmp_path, monkeypatch):
    from PIL import Image

    monkeypatch.chdir(tmp_path)
    assert main(["render", "gosper_gun.rle", "--gens", "4", "--every", "2", "--gif", "gun.gif", "--png", "gun.png",
                 "--scale", "2"]) == 0
    with Image.open("gun.gif") as gif, Image.open("gun.png") as png:
        assert gif.n_frames == 3 and gif.size == png.size
    assert "wrote gun.gif: 3 frames" in capsys.readouterr().out


def test_noisy_calibration_is_saved_with_one_warning_line(capsys, monkeypatch):
    import importlib
    from types import SimpleNamespace

    from tensorca import costmodel
    from tensorca.cli import bench as cli_bench

    module = importlib.import_module("tensorca.benchmark.calibrate")  # the module, not the function of that name
    noisy = ["numpy@cpu cell_s: runs spread by 90% of the median (2e-09, 2e-08, 2.1e-09)"]
    calls, saved = [], []

    def fake_calibrate(first, *, runs, **options):
        calls.append((first, runs, options))
        return module.Calibration({"numpy@cpu": {"cell_s": 2.1e-9}}, {}, noisy, [first] * runs)

    monkeypatch.setattr(module, "calibrate", fake_calibrate)
    monkeypatch.setattr(costmodel, "save_calibration", lambda values, meta: saved.append((values, meta)) or "cal.json")
    report = SimpleNamespace(machine="test", rule="B3/S23", quick=True)
    args = SimpleNamespace(runs=5, device=None, budget=0.3)
    cli_bench.save_calibration(args, report, None)
    captured = capsys.readouterr()
    assert calls[0][0] is report and calls[0][1] == 5 and calls[0][2]["budget_s"] == 0.3
    assert saved == [({"numpy@cpu": {"cell_s": 2.1e-9}}, {"machine": "test", "rule": "B3/S23", "quick": True,
                                                          "runs": 5, "noisy": noisy})]
    assert len(captured.err.strip().splitlines()) == 1 and "the 5 calibration runs disagree" in captured.err
    assert "(median of 5 runs); saved cal.json" in captured.out


def test_runs_needs_calibrate(capsys):
    assert main(["bench", "--runs", "3"]) == 2
    assert "--runs needs --calibrate" in capsys.readouterr().err


def test_progress_bar_only_on_a_terminal(capsys, monkeypatch):
    import sys

    from tensorca.cli._console import progress_bar

    with progress_bar(True, 10) as progress:
        assert progress is None  # stderr is not a terminal here: no bar, no redraws in logs
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with progress_bar(True, 10) as progress:
        assert callable(progress)
        progress(5, 10)
    with progress_bar(False, 10) as progress:
        assert progress is None


# -- --explain: one decision, printed twice and run (issue 37) -----------------------------------


@pytest.fixture
def engines_run(monkeypatch):
    """The names of the engines the runs really used, in order (as ``run`` selected them)."""
    import tensorca.simulate.api as api

    used: list[str] = []
    select = api.select_engine

    def spy(*args, **kwargs):
        engine, device = select(*args, **kwargs)
        used.append(engine.name)
        return engine, device

    monkeypatch.setattr(api, "select_engine", spy)
    return used


def _named_engines(out: str) -> tuple[str, str]:
    """``(engine the prose names, engine the table's backend row names)``."""
    import re

    prose = re.search(r"auto chose (\S+) on (\S+)", out)
    table = re.search(r"auto: (\S+) \((\S+)\)", out)
    assert prose and table, out
    return prose.group(1), table.group(1)


def test_explain_prose_table_and_run_name_the_same_engine(capsys, engines_run):
    assert main(["run", "--soup", "64x64", "--gens", "50", "--seed", "1", "--explain", "--no-progress"]) == 0
    prose, table = _named_engines(capsys.readouterr().out)
    assert prose == table and engines_run == [prose]


@pytest.mark.parametrize("extra", [[], ["--step", "1"]])
def test_explain_is_one_decision_even_when_auto_would_answer_differently(capsys, monkeypatch, engines_run, extra):
    """Auto's answers depend on per-process state that runs change: here the first answer is numpy
    and every later one torch. The prose, the table and every step of the run follow the first."""
    from tensorca import costmodel

    answers = iter(["numpy"])

    def fickle(rule, topology, batch, shape, generations, **kwargs):
        return costmodel.Choice(next(answers, "torch"), "cpu", [])

    monkeypatch.setattr(costmodel, "choose", fickle)
    assert main([*SOUP, "--explain", *extra]) == 0
    assert _named_engines(capsys.readouterr().out) == ("numpy", "numpy")
    assert engines_run and set(engines_run) == {"numpy"}
