"""The reference install has no Numba (it comes with ``[fast]``): the census and the soup search
must still import and give the same answers, their kernels running as plain Python."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tensorca.analysis import census
from tensorca.search.soups import soup_search

_BLOCK_NUMBA = """
import importlib.abc, json, sys
class _Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ImportError("numba is blocked for this test")
        return None
sys.meta_path.insert(0, _Block())
sys.path.insert(0, {src!r})
import numpy as np
from tensorca._jit import HAVE_NUMBA
from tensorca.analysis import census
from tensorca.search.soups import soup_search
ash = np.zeros((20, 30), dtype=np.uint8)
ash[2:4, 2:4] = 1
ash[10, 10:13] = 1
ash[[15, 16, 17, 17, 17], [21, 22, 20, 21, 22]] = 1
found = soup_search(6, "B3/S23", seed=3, backend="numpy")
print(json.dumps({{"numba": HAVE_NUMBA, "census": census(ash, "B3/S23"), "soups": found.counts,
                   "generations": found.generations}}))
"""


def test_census_and_soups_without_numba():
    src = str(Path(__file__).resolve().parents[1] / "src")
    done = subprocess.run([sys.executable, "-c", _BLOCK_NUMBA.format(src=src)], capture_output=True, text=True,
                          check=True, timeout=600)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["numba"] is False
    import numpy as np

    ash = np.zeros((20, 30), dtype=np.uint8)
    ash[2:4, 2:4] = 1
    ash[10, 10:13] = 1
    ash[[15, 16, 17, 17, 17], [21, 22, 20, 21, 22]] = 1
    assert got["census"] == census(ash, "B3/S23") == {"xq4_153": 1, "xp2_7": 1, "xs4_33": 1}
    found = soup_search(6, "B3/S23", seed=3, backend="numpy")
    assert got["soups"] == found.counts and got["generations"] == found.generations
