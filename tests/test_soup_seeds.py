"""One seed, one set of soups (issue 37): the soup census of a seed is the same in one process, with
``--workers 2`` and on a running cluster; ``run --soup`` makes the same cells with or without ``--dask``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tensorca
from tensorca.cli import build_parser, dask_run, main
from tensorca.cli import run as run_cli
from tensorca.errors import UsageError
from tensorca.random_grids import random_soup
from tensorca.search.distributed import soup_census
from tensorca.search.hashsoup import hashsoup, hashsoups
from tensorca.search.soups import soup_search

pytest.importorskip("distributed")
from tensorca.outofcore.soup import lazy_soup  # noqa: E402  (needs dask)

SEED = 12345
COUNT = 240


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster, Client(cluster, set_as_default=False) as joined:
        yield joined


def test_one_process_two_workers_and_a_cluster_give_the_same_census(client, tmp_path):
    """``tensorca soup --seed 12345`` in this process (soup_search), with ``--workers 2`` (tasks on a
    LocalCluster it starts) and on a cluster of the caller's: every apgcode count and sample the same."""
    common = ["soup", "--count", str(COUNT), "--seed", str(SEED), "--backend", "bitpack-cpu", "--no-progress"]
    assert main([*common, "--json", str(tmp_path / "one.json")]) == 0
    assert main([*common, "--workers", "2", "--json", str(tmp_path / "two.json")]) == 0
    one, two = (json.loads((tmp_path / f"{name}.json").read_text()) for name in ("one", "two"))
    spread = soup_census(COUNT, SEED, client=client, task_soups=70, backend="bitpack-cpu")
    assert spread.tasks == 4 and spread.where.startswith("2 workers at tcp://127.0.0.1:")
    assert two["where"].startswith("2 workers at tcp://127.0.0.1:") and two["tasks"] == 2
    assert one["soups"] == two["soups"] == spread.soups == COUNT
    assert one["counts"] == two["counts"] == spread.counts
    assert list(one["counts"]) == list(spread.counts)  # the same order, most common first
    assert one["samples"] == two["samples"] == spread.samples
    for field in ("generations", "unstable", "escaped"):
        assert one[field] == two[field] == getattr(spread, field), field
    assert sum(one["counts"].values()) > 10 * COUNT  # ~20 objects a soup: a real census was compared


def test_an_integer_seed_names_apgsearchs_root_of_its_digits():
    """Soup i of seed 12345 is apgsearch's hashsoup i of root "12345" (its layout is checked against
    apgsearch's in tests/test_hashsoup.py): the one-process search runs exactly those grids."""
    first = soup_search(30, seed=SEED, backend="bitpack-cpu")
    given = soup_search(30, grids=np.stack([hashsoup(str(SEED), i) for i in range(30)]), backend="bitpack-cpu")
    assert first.counts == given.counts and first.samples == given.samples and first.seed == SEED
    assert soup_search(30, seed=str(SEED), backend="bitpack-cpu").counts == first.counts
    other = soup_search(30, seed=SEED + 1, backend="bitpack-cpu")
    assert other.counts != first.counts  # the seed matters


def test_soups_of_other_densities_are_a_function_of_seed_index_and_density():
    soups = hashsoups(SEED, 0, 400, density=0.3)
    assert soups.shape == (400, 16, 16) and soups.dtype == np.uint8
    assert np.array_equal(hashsoups(SEED, 137, 139, density=0.3), soups[137:139])  # index alone, not the range
    assert abs(soups.mean() - 0.3) < 0.01
    assert not np.array_equal(soups[:50], hashsoups(SEED + 1, 0, 50, density=0.3))
    assert hashsoups(SEED, 0, 3, density=0.0).sum() == 0 and hashsoups(SEED, 0, 3, density=1.0).min() == 1
    found = soup_search(12, seed=SEED, density=0.3, backend="bitpack-cpu")
    assert found.counts == soup_search(12, grids=soups[:12], backend="bitpack-cpu").counts
    for bad in (1.5, -0.1, "0.5", True):
        with pytest.raises(UsageError, match="density"):
            hashsoups(SEED, 0, 1, density=bad)
    with pytest.raises(UsageError, match="seed"):
        soup_search(1, seed="a b")


# -- run --soup: the same grid on every engine ---------------------------------------------------------


@pytest.mark.parametrize("chunks", [64, 100, 256, 300])
def test_random_soup_is_the_lazy_soup_of_every_chunking(chunks):
    """The in-memory soup (plain engines) and the dask soup drawn chunk by chunk: the same cells, for
    a batch of Generations grids with tiles cut by the chunks and the grid's edges."""
    want = random_soup(300, 530, 0.35, 5, batch=2, n_states=4)
    got = lazy_soup(300, 530, 0.35, 5, batch=2, n_states=4, chunks=chunks).compute()
    np.testing.assert_array_equal(got, want)
    assert set(np.unique(want)) == {0, 1, 2, 3} and abs(np.count_nonzero(want) / want.size - 0.35) < 0.01
    assert np.array_equal(random_soup(300, 530, 0.35, 5, n_states=4), want[0])  # no batch: grid 0
    assert np.array_equal(random_soup(40, 30, 0.35, 5, n_states=4), want[0, :40, :30])  # a corner of a larger one
    assert not np.array_equal(random_soup(300, 530, 0.35, 6, batch=2, n_states=4), want)


def test_run_soup_starts_from_the_same_cells_with_and_without_dask():
    """``tensorca run --soup 530x300 --seed 5``: the plain start (random_soup) and the dask start
    (lazy_soup, chunks of 200) hold the same grids, one or a batch."""
    parser = build_parser()
    for extra in ([], ["--batch", "3", "--rule", "345/2/4", "--density", "0.4"]):
        argv = ["run", "--soup", "530x300", "--seed", "5", "--gens", "1", *extra]
        plain = run_cli._soup(parser.parse_args(argv)).state
        lazy, *_ = dask_run.starting_state(parser.parse_args([*argv, "--dask"]), 200)
        assert plain.shape == lazy.shape == ((300, 530) if not extra else (3, 300, 530))
        np.testing.assert_array_equal(np.asarray(lazy.compute()), plain)


def test_the_cli_runs_the_same_soup_on_one_engine_and_on_dask(tmp_path):
    """End to end: ``run --soup 96x80 --seed 5 --gens 7`` written with --out, on the default engine and
    with ``--dask --chunks 32`` (tiles and chunks cut the grid differently): the same cells."""
    common = ["run", "--soup", "96x80", "--seed", "5", "--gens", "7", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "plain.rle")]) == 0
    assert main([*common, "--dask", "--chunks", "32", "--out", str(tmp_path / "dask.rle")]) == 0
    plain, dask = (tensorca.io.load(tmp_path / f"{name}.rle").cells for name in ("plain", "dask"))
    want = tensorca.run(random_soup(80, 96, 0.5, 5), "B3/S23", 7, backend="numpy")
    assert np.array_equal(plain, dask) and np.array_equal(dask, want[: dask.shape[0], : dask.shape[1]])
    assert want.sum() > 0 and want[dask.shape[0] :].sum() == 0 and want[:, dask.shape[1] :].sum() == 0
