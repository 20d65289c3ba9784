"""Every CLI mistake a user can make ends in one line naming it, exit status 2, and no traceback."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tensorca.cli import main

GUN = str(Path(__file__).resolve().parents[1] / "src/tensorca/data/patterns/gosper_gun.rle")
SOUP = ["run", "--soup", "8x8", "--gens", "3", "--no-progress"]


def one_line_error(capsys, argv) -> str:
    """Run ``argv``; assert exit 2 and a single ``tensorca: error:`` line; return that line."""
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.err.startswith("tensorca: error: ") and "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    return captured.err


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["run", "x.rle", "--resume", "y.npz", "--gens", "3"], "do not also give a FILE or --soup"),
        ([*SOUP, "--checkpoint-every", "2"], "--checkpoint-every needs --checkpoint"),
        ([*SOUP, "--max-bytes", "lots"], "not a size such as 512M"),
        ([*SOUP, "--max-bytes", "-5"], "not a size such as 512M"),
        ([*SOUP, "--max-bytes", "1e400"], "not a size such as 512M"),
        ([*SOUP, "--max-bytes", "1e30"], "more than 1 EiB"),
        ([*SOUP, "--population", "p.csv", "--population-every", "0"], "--population-every: must be positive"),
        ([*SOUP, "--population-every", "5"], "--population-every needs --population"),
        ([*SOUP, "--batch", "1e23"], "'1e23' is not a whole number"),
        ([*SOUP, "--batch", "100000000000000000000000"], "--batch: must be at most"),
        ([*SOUP, "--device", "meta"], "unknown device 'meta'"),
        ([*SOUP, "--density", "nan"], "--density: nan is out of range"),
        (["run", GUN, "--gens", "3", "--batch", "4"], "--batch applies to --soup only"),
        (["run", GUN, "--gens", "3", "--density", "0.3", "--seed", "5"], "--density applies to --soup only"),
        (["run", GUN, "--gens", "3", "--seed", "5"], "--seed applies to --soup or to a stochastic rule"),
        (["run", "--resume", "missing.npz", "--gens", "3"], "missing.npz"),
        (["run", "--resume", "missing.npz", "--gens", "3", "--seed", "1"], "continues the checkpoint's own seed"),
        (["render", GUN, "--gens", "3"], "say what to write"),
        (["render", GUN, "--gens", "-3", "--gif", "x.gif"], "--gens: must be non-negative"),
        (["render", "missing.rle", "--gens", "3", "--gif", "x.gif"], "cannot read pattern file"),
        (["render", GUN, "--gens", "3", "--fps", "inf", "--mp4", "x.mp4"], "--fps: inf is out of range"),
        (["soup", "--count", "-3"], "--count: must be non-negative"),
        (["soup", "--count", "3", "--density", "2"], "--density: 2 is out of range [0, 1]"),
        (["soup", "--count", "3", "--max-gens", "0"], "--max-gens: must be positive"),
        (["soup", "--count", "3", "--rule", "345/2/4"], "needs a two-state rule"),
        (["bench", "--engines", "nope"], "unknown engine 'nope'"),
        (["loader-bench", "--batches", "0"], "--batches: must be positive"),
        (["loader-bench", "--threads", "0"], "--threads: must be positive"),
        (["loader-bench", "--device", "nope"], "unknown device 'nope'"),
        (["loader-bench", "--step-ms", "inf"], "--step-ms: inf is out of range"),
        (["loader-bench", "--batch-size", "1e23"], "'1e23' is not a whole number"),
        (["loader-bench", "--workers", "0,99999"], "--workers: must be at most"),
        (["loader-bench", "--warmup", "9..2"], "LO must not exceed HI"),
        (["verify", "--grids", "0"], "at least one grid"),
        (["verify", "--family", "nope"], "unknown rule family 'nope'"),
        (["info", "missing.rle"], "missing.rle"),
        (["rule", "R600,C0,M1,S1..2,B3..3,NM"], "out of range 1..500"),
        (["rule", "B3/S23:K31*+1,20"], "even"),
        (["rule", "V"], "'V'"),
    ],
)
def test_one_line_error(capsys, tmp_path, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)  # relative output names land in a scratch folder
    err = one_line_error(capsys, argv)
    assert needle in err


@pytest.mark.parametrize(
    "argv,needle,hint",
    [
        ([], "the following arguments are required: COMMAND", "see tensorca --help"),
        (["frobnicate"], "invalid choice: 'frobnicate'", "see tensorca --help"),
        (["run", "--soup", "8x8"], "the following arguments are required: --gens", "see tensorca run --help"),
        (["run", "--soup", "8x8", "--gens", "three"], "argument --gens: 'three' is not a whole number",
         "see tensorca run --help"),
        (["soup", "--no-such-option"], "unrecognized arguments: --no-such-option", "see tensorca --help"),
        (["loader-bench", "--step", "nap"], "invalid choice: 'nap'", "see tensorca loader-bench --help"),
    ],
)
def test_usage_errors_are_one_line_with_a_hint(capsys, argv, needle, hint):
    err = one_line_error(capsys, argv)
    assert needle in err and hint in err and "usage:" not in err


def test_truncated_checkpoint_is_one_line(capsys, tmp_path):
    path = tmp_path / "soup.npz"
    assert main([*SOUP, "--seed", "1", "--checkpoint", str(path)]) == 0
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    capsys.readouterr()
    one_line_error(capsys, ["run", "--resume", str(path), "--gens", "3", "--no-progress"])


@pytest.mark.skipif(importlib.util.find_spec("triton") is None or importlib.util.find_spec("torch") is None,
                    reason="without triton the message is the install command (MissingDependencyError)")
def test_gpu_engine_without_a_gpu_says_so(capsys, monkeypatch):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is present")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    err = one_line_error(capsys, [*SOUP, "--backend", "bitpack-gpu"])
    assert "needs a CUDA GPU" in err and "TRITON_INTERPRET" not in err


@pytest.mark.parametrize(
    "raised,needle,code",
    [
        (MemoryError("Unable to allocate 64.0 GiB"), "out of memory (Unable to allocate 64.0 GiB)", 2),
        (PermissionError(13, "Permission denied", "/data/x.rle"), "Permission denied: /data/x.rle", 2),
        (KeyboardInterrupt(), "tensorca: interrupted", 130),
    ],
)
def test_the_one_handler(capsys, monkeypatch, raised, needle, code):
    from tensorca.cli import run as cli_run

    def fail(*args, **kwargs):
        raise raised

    monkeypatch.setattr(cli_run.simulate, "run", fail)
    assert main(SOUP) == code
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_bug_keeps_its_traceback(monkeypatch):
    from tensorca.cli import run as cli_run

    monkeypatch.setattr(cli_run.simulate, "run", lambda *a, **k: {}["missing"])
    with pytest.raises(KeyError):
        main(SOUP)


def test_soup_topology_and_rule_suffix_must_agree(capsys):
    assert "conflicts" in one_line_error(capsys, [*SOUP, "--rule", "B3/S23:T8,8", "--topology", "P"])
    assert main([*SOUP, "--rule", "B3/S23:P8,8"]) == 0 and ":P8,8" in capsys.readouterr().out


def test_tensorca_warnings_are_one_line(capsys, monkeypatch):
    import warnings

    from tensorca import costmodel
    from tensorca.cli import run as cli_run

    real = cli_run.simulate.run

    def warn_then_run(*args, **kwargs):
        warnings.warn_explicit("auto ran this job on numpy; bitpack-cpu needs numba: pip install 'tensorca[fast]'",
                               costmodel.PerformanceWarning, costmodel.__file__, 1)
        warnings.warn_explicit("not ours", UserWarning, "/elsewhere/lib.py", 7)
        return real(*args, **kwargs)

    monkeypatch.setattr(cli_run.simulate, "run", warn_then_run)
    with pytest.warns(UserWarning, match="not ours"):  # another library's warning goes the usual way
        assert main(SOUP) == 0
    assert capsys.readouterr().err.splitlines() == [
        "tensorca: warning: auto ran this job on numpy; bitpack-cpu needs numba: pip install 'tensorca[fast]'"]
