"""``tensorca bench --systems``: rows for the CA beyond rules, each with its baseline from the same run."""

from __future__ import annotations

import json

import pytest

from tensorca.benchmark.systems import SYSTEMS, bench_systems
from tensorca.cli import main
from tensorca.errors import UsageError


def test_spin_rows_have_their_numpy_baseline_from_the_same_run():
    rows = bench_systems(["spins"], quick=True, devices=("cpu",), repeats=1)
    ising = [r for r in rows if r.system.startswith("Ising")]
    assert [r.backend for r in ising if not r.reason] == ["numpy", "torch"]
    base, other = ising[0], ising[1]
    assert base.baseline == "" and base.ratio is None and base.seconds > 0
    assert other.baseline == f"{base.system} on numpy@cpu"
    assert other.ratio == pytest.approx(other.rate / base.rate)
    assert base.work == 128 * 128 * 20 and base.unit == "spin updates/s"


def test_every_system_is_named_and_unknown_ones_are_refused():
    assert set(SYSTEMS) == {"noisy-life", "margolus", "sandpile", "spins", "flow-lenia"}
    with pytest.raises(UsageError, match="unknown system 'ising'"):
        bench_systems(["ising"])


def test_the_command_prints_the_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "systems.json"
    assert main(["bench", "--systems", "flow-lenia", "--quick", "--device", "cpu", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Flow Lenia FOr (float64)" in text and "baseline" in text
    rows = json.loads(out.read_text())["rows"]
    assert rows[0]["backend"] == "numpy" and rows[0]["rate"] > 0
    assert main(["bench", "--systems", "--engines", "numpy"]) == 2
    assert "--engines does not apply to --systems" in capsys.readouterr().err
