"""HashLife behind ``tensorca.run``: auto's choice on the unbounded plane, the ``hashlife`` engine
and its registry facts, tree-backed results, progress and observers."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")  # HashLife is compiled with Numba (the [fast] extra)

import tensorca  # noqa: E402
from tensorca import costmodel  # noqa: E402
from tensorca.engines import engine_info, get_engine  # noqa: E402
from tensorca.errors import EngineError, MemoryBudgetError, UsageError  # noqa: E402
from tensorca.observers import Population  # noqa: E402
from tensorca.pattern import Pattern  # noqa: E402
from tensorca.rules import parse_rule  # noqa: E402
from tensorca.simulate import Interrupted  # noqa: E402
from tensorca.topology import Topology  # noqa: E402

DATA = Path(__file__).parent / "data" / "hashlife"
CASES = [json.loads(line) for line in (DATA / "cases.jsonl").read_text().splitlines() if line.strip()]
GLIDER = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], np.uint8)


@functools.cache
def _pattern(name: str) -> Pattern:
    return tensorca.load(DATA / name)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['pattern']}@{c['generations']}")
def test_golly_population_through_run_with_auto(case):
    """The 48 shared Golly cases through ``tensorca.run`` with the default ``backend="auto"``."""
    start = _pattern(case["pattern"])
    out = tensorca.run(start, generations=case["generations"])
    assert out.population == case["population"]
    assert out.generation == case["generations"]


@pytest.mark.parametrize("gens", [5206, 2**16, 10**9, 2**40])
def test_auto_picks_hashlife_for_long_runs_and_says_why(gens):
    choice = tensorca.explain(_pattern("gosper_gun.rle"), generations=gens)
    assert choice.engine == "hashlife"
    text = choice.describe()
    assert "quadtree: ~" in text and "node results" in text and "growing array: mean box" in text


def test_auto_picks_a_dense_engine_for_a_short_run_of_a_big_soup():
    soup = (np.random.default_rng(0).random((512, 512)) < 0.4).astype(np.uint8)
    choice = tensorca.explain(Pattern(soup), generations=10)
    assert choice.engine != "hashlife"
    tree = next(p for p in choice.predictions if p.engine == "hashlife")
    assert tree.total > choice.predictions[0].total


def test_tree_work_follows_log_generations_for_regular_growth():
    small, huge = (costmodel.tree_work((9, 36), 36, g) for g in (2**20, 2**40))
    assert huge <= 2 * small  # 2**20 times the generations: twice the binary digits, at most twice the work
    soup = costmodel.tree_work((1024, 1024), 420_000, 1000)
    assert 1e6 < soup < 1e7  # measured: 2.8 million results for a 1024^2 soup to 1000


def test_registry_facts():
    info = engine_info("hashlife")
    assert info.unbounded_native and info.requires == ("numba",) and info.default_costs["cpu"].node_s > 0
    spec = parse_rule("B3/S23").compile()
    assert info.precheck(spec, Topology.unbounded())
    assert not info.precheck(parse_rule("B03/S23").compile(), Topology.unbounded())
    assert not info.precheck(parse_rule("345/2/4").compile(), Topology.unbounded())
    assert info.kernel_state(parse_rule("B3/S23")) in ("loaded", "disk", "cold")
    # auto never prices it on bounded grids, where it is exact but slow
    ranked = costmodel.rank(parse_rule("B3/S23"), Topology.torus(64, 64), 1, (64, 64), 100)
    assert "hashlife" not in [p.engine for p in ranked]


def test_result_is_tree_backed_and_matches_the_dense_path():
    start = Pattern(GLIDER, origin=(5, -3))
    tree = tensorca.run(start, generations=97, backend="hashlife")
    dense = tensorca.run(start, generations=97, backend="numpy")
    assert tree.tree_backed and tree.generation == 97 and tree.rule.canonical() == "B3/S23"
    assert tree == dense and dense == tree  # same cells at the same origin
    assert tree.bounding_box() == dense.bounding_box() and tree.population == 5
    np.testing.assert_array_equal(tree.cells, dense.cells)
    assert not tree.tree_backed  # materialised once, now dense


@pytest.mark.parametrize("rule", ["B36/S23", "B2-a/S12", "B3/S23H"])
def test_rules_and_chained_runs_from_a_tree(rule):
    rng = np.random.default_rng(3)
    start = Pattern((rng.random((9, 11)) < 0.45).astype(np.uint8), rule=parse_rule(rule))
    first = tensorca.run(start, generations=30, backend="hashlife")
    second = tensorca.run(first, generations=41, backend="hashlife")
    assert first.tree_backed  # the input tree is copied, never stepped in place
    want = tensorca.run(start, generations=71, backend="numpy")
    assert second == want
    other = tensorca.run(first, "B3/S23", 5, backend="hashlife")  # another rule for the same tree
    assert other == tensorca.run(tensorca.run(start, generations=30, backend="numpy"), "B3/S23", 5, backend="numpy")


def test_b0_and_multistate_rules_refused_by_name():
    with pytest.raises(EngineError, match="B0 rule 'B013/S23'"):
        tensorca.run(Pattern(GLIDER), "B013/S23", 4, backend="hashlife")
    with pytest.raises(EngineError, match="two-state rules"):
        tensorca.run(Pattern(GLIDER), "345/2/4", 4, backend="hashlife")


def test_node_budget_and_errors():
    start = _pattern("acorn.rle")
    small = tensorca.run(start, generations=5206, backend="hashlife", max_bytes=2_000_000)
    assert small.population == tensorca.run(start, generations=5206, backend="hashlife").population
    assert small.tree.stats()["gc_runs"] > 0
    with pytest.raises(MemoryBudgetError, match="max_bytes"):
        tensorca.run(start, generations=10, backend="hashlife", max_bytes=1000)


def test_progress_reports_each_binary_digit_and_observer_samples():
    seen = []
    observer = Population(every=16)
    start = _pattern("r_pentomino.rle")
    out = tensorca.run(start, generations=100, backend="hashlife", progress=lambda d, t: seen.append((d, t)),
                       observe=observer)
    assert seen[-1] == (100, 100) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) <= 2 * 7
    dense = Population(every=16)
    want = tensorca.run(start, generations=100, backend="numpy", observe=dense)
    np.testing.assert_array_equal(observer.generations, dense.generations)
    np.testing.assert_array_equal(observer.values, dense.values)
    assert list(observer.generations) == list(range(0, 100, 16)) and out == want


def test_bounded_topologies_are_exact_on_the_engine():
    engine = get_engine("hashlife")
    rule = parse_rule("B3/S23")
    cells = (np.random.default_rng(1).random((2, 9, 13)) < 0.4).astype(np.uint8)
    for topology in (Topology.torus(13, 9), Topology.plane(13, 9), Topology.klein(13, 9, "h")):
        want = get_engine("numpy").advance(cells, rule, topology, 7)
        np.testing.assert_array_equal(engine.advance(cells, rule, topology, 7), want)
    assert not engine.supports(rule, Topology.unbounded())
    with pytest.raises(UsageError, match="generations"):
        tensorca.run(Pattern(GLIDER), generations=-1, backend="hashlife")


# -- the command line ----------------------------------------------------------------------------


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    from tensorca.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("text, value", [
    ("1000", 1000), ("1_000_000", 10**6), ("1e9", 10**9), ("2.5e3", 2500), ("2^30", 2**30), ("10**9", 10**9),
    ("2 ^ 40", 2**40), ("0", 0), ("1.20e1", 12), ("2^62", 2**62),
])
def test_generation_counts_are_parsed_exactly(text, value):
    from tensorca.cli._args import generations

    assert generations()(text) == value


@pytest.mark.parametrize("text, message", [
    ("-5", "non-negative"), ("1.5", "not a whole number"), ("1e-3", "not a whole number"),
    ("1.25e1", "not a whole number"), ("ten", "not a whole number"), ("2^", "not a whole number"),
    ("2^63", "at most"), ("9^99999999", "at most"), ("1e99999999", "at most"), ("9" * 5000, "at most"),
])
def test_bad_generation_counts_are_one_line_errors(capsys, text, message):
    code, _, err = _cli(capsys, "run", str(DATA / "gosper_gun.rle"), "--gens", text, "--no-progress")
    assert code == 2 and message in err and len(err.strip().splitlines()) <= 2


def test_cli_gun_to_1e9_with_explain(capsys):
    code, out, _ = _cli(capsys, "run", str(DATA / "gosper_gun.rle"), "--gens", "1e9", "--explain", "--no-progress",
                        "--max-memory", "64MB")
    assert code == 0 and "166666713" in out and "auto chose hashlife" in out and "quadtree: ~" in out
    assert "hashlife nodes" in out and "budget 64 MB" in out and "GC runs" in out and "cache hit rate" in out


def test_cli_steps_print_generation_and_population_as_bgolly(capsys):
    gun = str(DATA / "r_pentomino.rle")
    code, out, _ = _cli(capsys, "run", gun, "--gens", "1000", "--step", "2^8", "--no-progress")
    assert code == 0 and out.splitlines()[:5] == ["0: 5", "256: 141", "512: 188", "768: 204", "1000: 156"]
    code, out, _ = _cli(capsys, "run", gun, "--gens", "100", "--exponential", "--no-progress")
    lines = out.splitlines()[:9]
    assert code == 0 and lines == ["0: 5", "1: 6", "2: 7", "4: 8", "8: 18", "16: 23", "32: 32", "64: 69", "100: 121"]
    code, _, err = _cli(capsys, "run", gun, "--gens", "100", "--exponential", "--step", "4", "--no-progress")
    assert code == 2 and "give one" in err


# -- tree-backed patterns ------------------------------------------------------------------------


@functools.cache
def _gun_at(gens: int) -> Pattern:
    return tensorca.run(_pattern("gosper_gun.rle"), generations=gens, backend="hashlife")


def test_tree_pattern_answers_without_materialising():
    gun = _gun_at(10**6)
    assert gun.population == 166_713  # bgolly -a HashLife -m 1000000
    box = gun.bounding_box()
    assert gun.shape == (box[3], box[2]) and box[2] * box[3] > 2**31 and gun.origin == (box[0], box[1])
    assert gun.generation == 10**6 and gun.rule.canonical() == "B3/S23" and gun.max_state == 1
    assert not gun.continuous and gun.mass == float(gun.population) and "tree" in repr(gun)
    with pytest.raises(MemoryBudgetError, match=r"pattern\.crop\(x, y, w, h\)"):
        _ = gun.cells
    assert gun.tree_backed  # the refusal changed nothing
    window = gun.crop(box[0], box[1], 64, 40)
    assert window.shape == (40, 64) and window.dtype == np.uint8 and window.any()


def test_tree_and_dense_crop_agree():
    start = _pattern("acorn.rle")
    tree = tensorca.run(start, generations=300, backend="hashlife")
    dense = tensorca.run(start, generations=300, backend="numpy")
    for x, y, w, h in [(-40, -30, 90, 70), (0, 0, 5, 5), (1000, 1000, 3, 3), (-3, -2, 0, 4)]:
        np.testing.assert_array_equal(tree.crop(x, y, w, h), dense.crop(x, y, w, h))
    with pytest.raises(UsageError, match="crop"):
        tree.crop(0, 0, -1, 2)


def test_save_macrocell_from_the_tree_and_rle_within_budget(tmp_path):
    gun = _gun_at(10**6)
    tensorca.save(tmp_path / "gun.mc", gun)
    back = tensorca.load(tmp_path / "gun.mc")
    assert back.tree_backed and back.generation == 10**6 and back.population == gun.population
    assert back.bounding_box() == gun.bounding_box() and back == gun
    small = tensorca.run(_pattern("r_pentomino.rle"), generations=500, backend="hashlife")
    tensorca.save(tmp_path / "r.rle", small)
    want = tensorca.run(_pattern("r_pentomino.rle"), generations=500, backend="numpy").cropped()
    back = tensorca.load(tmp_path / "r.rle").cropped()
    np.testing.assert_array_equal(back.cells, want.cells)
    assert (back.origin, back.generation) == (want.origin, 500)
    with pytest.raises(MemoryBudgetError, match="crop"):
        tensorca.save(tmp_path / "gun.rle", gun)


def test_macrocell_text_round_trips_node_for_node():
    cells = (np.random.default_rng(5).random((70, 90)) < 0.3).astype(np.uint8)
    text = tensorca.io.dumps(Pattern(cells, origin=(-50, 17)), "macrocell")
    tree = tensorca.io.loads(text)
    assert tree.tree_backed and tensorca.io.dumps(tree, "macrocell") == text
    np.testing.assert_array_equal(tree.cells, cells)  # materialised once: now dense
    assert tree.origin == (-50, 17) and not tree.tree_backed


@pytest.mark.parametrize("max_px", [1, 7, 16, 64, 1024])
def test_picture_is_the_max_pool_of_the_cells(max_px):
    start = _pattern("acorn.rle")
    tree = tensorca.run(start, generations=1500, backend="hashlife")
    pic = tree.picture(max_px)
    assert max(pic.shape) <= max_px and tree.tree_backed
    x, y, w, h = tree.bounding_box()
    rx, ry = tree.tree.records()[3]  # pixels are blocks aligned on the root's corner
    f = 1
    while max((x + w - 1 - rx) // f - (x - rx) // f, (y + h - 1 - ry) // f - (y - ry) // f) + 1 > max_px:
        f *= 2
    x0, y0 = rx + (x - rx) // f * f, ry + (y - ry) // f * f
    window = tree.crop(x0, y0, pic.shape[1] * f, pic.shape[0] * f)
    pooled = window.reshape(pic.shape[0], f, pic.shape[1], f).max(axis=(1, 3))
    np.testing.assert_array_equal(pic, pooled)
    assert pooled.sum() > 0


def test_huge_pattern_pictures_from_the_tree():
    breeder = tensorca.run(_pattern("switch_engine_breeder.rle"), generations=2**40, backend="hashlife")
    pic = breeder.picture(256)
    assert max(pic.shape) <= 256 and pic.sum() > 100
    png = breeder._repr_png_()
    assert png.startswith(b"\x89PNG") and "unbounded (tree)" in breeder._repr_html_()


# -- macrocell checkpoints -----------------------------------------------------------------------


def test_tree_runs_checkpoint_to_macrocell_and_resume_exactly(tmp_path):
    path = tmp_path / "breeder.mc"
    start = _pattern("switch_engine_breeder.rle")
    first = tensorca.run(start, generations=2**40, checkpoint=path)
    text = path.read_text()
    assert text.startswith("[M2]") and "#G 1099511627776\n" in text and "#R B3/S23\n" in text
    saved = tensorca.persist.load(path)
    assert saved.generation == 2**40 and saved.state.population == first.population > 2**64
    assert saved.state == first  # node for node
    again = tensorca.resume(path, 2**40)
    assert again == tensorca.run(start, generations=2**41) and again.generation == 2**41


def test_tree_checkpoints_every_n_and_npz_within_budget(tmp_path):
    start = _pattern("acorn.rle")
    seen = []

    def look(done, total):
        if (tmp_path / "a.mc.gz").exists():
            seen.append(tensorca.persist.load(tmp_path / "a.mc.gz").generation)

    tensorca.run(start, generations=3000, backend="hashlife", checkpoint=tmp_path / "a.mc.gz", checkpoint_every=1000,
                 progress=look)
    assert tensorca.persist.load(tmp_path / "a.mc.gz").generation == 3000 and 2000 in seen
    small = tensorca.run(start, generations=500, backend="hashlife", checkpoint=tmp_path / "a.npz")
    assert tensorca.persist.load(tmp_path / "a.npz").state == small
    with pytest.raises(MemoryBudgetError, match=r"checkpoint='run\.mc'"):
        tensorca.run(_pattern("gosper_gun.rle"), generations=10**6, backend="hashlife", checkpoint=tmp_path / "g.npz")


def test_ctrl_c_saves_the_last_completed_step(tmp_path):
    path = tmp_path / "stop.mc"
    start = _pattern("r_pentomino.rle")

    def interrupt(done, total):
        if done >= 64:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as stop:
        tensorca.run(start, generations=1000, backend="hashlife", checkpoint=path, progress=interrupt)
    at = stop.value.generation
    assert 64 <= at < 1000 and tensorca.persist.load(path).generation == at
    assert tensorca.resume(path, 1000 - at) == tensorca.run(start, generations=1000, backend="hashlife")


def test_dense_runs_write_macrocell_checkpoints_too(tmp_path):
    start = _pattern("r_pentomino.rle")
    tensorca.run(start, generations=300, backend="numpy", checkpoint=tmp_path / "r.mc", checkpoint_every=100)
    assert tensorca.resume(tmp_path / "r.mc", 50, backend="numpy") == tensorca.run(start, generations=350,
                                                                                    backend="numpy")
    with pytest.raises(tensorca.errors.CheckpointError, match="holds a pattern"):
        tensorca.run(np.zeros((8, 8), np.uint8), "B3/S23", 2, backend="numpy", checkpoint=tmp_path / "grid.mc")


def test_cli_checkpoint_and_resume_macrocell(capsys, tmp_path):
    path = str(tmp_path / "gun.mc")
    gun = str(DATA / "gosper_gun.rle")
    code, out, _ = _cli(capsys, "run", gun, "--gens", "10**6", "--checkpoint", path, "--no-progress")
    assert code == 0 and "166713" in out
    code, out, _ = _cli(capsys, "run", "--resume", path, "--gens", "10**6", "--no-progress")
    assert code == 0 and "2000000" in out and "333384" in out  # bgolly -m 2000000: 333,384
    code, _, err = _cli(capsys, "run", "--soup", "16x16", "--gens", "4", "--checkpoint", path, "--no-progress")
    assert code == 2 and "FILE.npz" in err


# -- classify past its dense window --------------------------------------------------------------

PENTADECATHLON = "x = 10, y = 3\n2bo4bo2b$2ob4ob2o$2bo4bo!"


@pytest.mark.parametrize("text, gens", [
    ("x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!", 200),            # glider: c/4 spaceship
    ("x = 5, y = 4\nbo2bo$o4b$o3bo$4o!", 200),                   # LWSS: c/2
    (PENTADECATHLON, 200),                                       # p15 oscillator
    ("x = 8, y = 3\n6bob$2o6b$bo3b3o!", 400),                     # diehard dies at 130
    ("x=2,y=2\n2o$bo!", 50),                                     # pre-block: a still life from 1
    ("x = 3, y = 3\nb2o$2ob$bo!", 300),                           # R-pentomino: unresolved by 300
])
def test_classify_on_the_tree_matches_the_dense_loop(monkeypatch, text, gens):
    from tensorca.analysis import classify, long_period

    pattern = tensorca.io.loads(text)
    want = classify(pattern, max_gens=gens)  # the dense loop throughout (DENSE_GENS = 2048)
    monkeypatch.setattr(long_period, "DENSE_GENS", 3)  # hand over to HashLife at generation 3
    got = classify(pattern, max_gens=gens)
    assert got == want


def test_classify_finds_a_period_beyond_the_dense_window(monkeypatch):
    from tensorca.analysis import classify, long_period

    pattern = tensorca.io.loads(PENTADECATHLON)
    monkeypatch.setattr(long_period, "DENSE_GENS", 6)  # shorter than the period: only the tree sees it
    got = classify(pattern, max_gens=100)
    assert (got.kind, got.period, got.generation, got.apgcode) == ("oscillator", 15, 0, "xp15_4r4z4r4")
