"""Every CLI mistake a user can make ends in one line naming it, exit status 2, and no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tensorca.cli import main

GUN = str(Path(__file__).resolve().parents[1] / "src/tensorca/data/patterns/gosper_gun.rle")


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["run", "x.rle", "--resume", "y.npz", "--gens", "3"], "do not also give a FILE or --soup"),
        (["run", "--soup", "8x8", "--gens", "3", "--checkpoint-every", "2"], "--checkpoint-every needs --checkpoint"),
        (["run", "--soup", "8x8", "--gens", "3", "--max-bytes", "lots"], "not a size such as 512M"),
        (["run", "--soup", "8x8", "--gens", "3", "--max-bytes", "-5"], "not a size such as 512M"),
        (["run", "--soup", "8x8", "--gens", "3", "--population", "p.csv", "--population-every", "0"],
         "must be a positive integer"),
        (["run", "--resume", "missing.npz", "--gens", "3"], "No such file"),
        (["render", GUN, "--gens", "3"], "say what to write"),
        (["render", GUN, "--gens", "-3", "--gif", "x.gif"], "--gens must be >= 0"),
        (["render", "missing.rle", "--gens", "3", "--gif", "x.gif"], "cannot read pattern file"),
        (["soup", "--count", "-3"], "soup count must be non-negative"),
        (["soup", "--count", "3", "--density", "2"], "density must lie in [0, 1]"),
        (["soup", "--count", "3", "--max-gens", "0"], "max_gens must be positive"),
        (["soup", "--count", "3", "--rule", "345/2/4"], "needs a two-state rule"),
        (["bench", "--engines", "nope"], "unknown engine 'nope'"),
        (["loader-bench", "--batches", "0"], "batches, epochs, batch_size >= 1"),
        (["verify", "--grids", "0"], "at least one grid"),
        (["verify", "--family", "nope"], "unknown family 'nope'"),
        (["info", "missing.rle"], "missing.rle"),
        (["rule", "R600,C0,M1,S1..2,B3..3,NM"], "out of range 1..500"),
        (["rule", "B3/S23:K31*+1,20"], "even"),
    ],
)
def test_one_line_error(capsys, tmp_path, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)  # relative output names land in a scratch folder
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
