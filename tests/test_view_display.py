"""Notebook pictures: ``to_png`` pixels, zoom and grid lines, any-on downsampling, multi-state and
float grids, the HTML card and ``show`` (the 4096^2 timing lives in ``benchmarks/bench_view.py``)."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import tensorca
from tensorca.errors import GridError, UsageError
from tensorca.view import pattern_html, pattern_png, repr_html, show, to_png
from tensorca.view.colours import GRID, colormap, state_colours
from tensorca.view.display import fit, pool_max

GLIDER = [(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)]  # (y, x)
DEAD, LIVE = (tuple(int(v) for v in c) for c in state_colours(2))


def decode(png: bytes) -> np.ndarray:
    """``(h, w, 3)`` uint8 RGB of PNG bytes."""
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def glider_grid(height: int = 16, width: int = 16, at: tuple[int, int] = (0, 0)) -> np.ndarray:
    grid = np.zeros((height, width), np.uint8)
    for y, x in GLIDER:
        grid[at[0] + y, at[1] + x] = 1
    return grid


def centres(image: np.ndarray, cell: int) -> np.ndarray:
    """The pixel at the centre of every ``cell x cell`` block, ``(H, W, 3)``."""
    return image[cell // 2 :: cell, cell // 2 :: cell]


def test_glider_zoomed_with_grid_lines():
    image = decode(to_png(glider_grid()))
    assert image.shape == (512, 512, 3)  # 16 cells at 32 px (the cap), within 1024
    live = np.all(centres(image, 32) == LIVE, axis=-1)
    assert {tuple(map(int, p)) for p in np.argwhere(live)} == set(GLIDER)
    assert np.all(centres(image, 32)[~live] == DEAD)
    assert tuple(image[0, 40]) == GRID and tuple(image[40, 32]) == GRID  # lines on cell borders
    assert tuple(image[33, 33]) == DEAD


def test_small_zoom_has_no_grid_lines_and_fills_whole_cells():
    grid = glider_grid(100, 200, at=(50, 100))
    image = decode(to_png(grid))
    assert image.shape == (500, 1000, 3)  # 1024 // 200 = 5 px a cell
    block = image[51 * 5 : 52 * 5, 102 * 5 : 103 * 5]  # the glider cell (1, 2)
    assert np.all(block == LIVE)
    assert not np.any(np.all(image == GRID, axis=-1))


def test_fit_rules():
    assert fit((16, 16)) == (1, 32)
    assert fit((1024, 1)) == (1, 1)
    assert fit((1025, 10)) == (2, 1)
    assert fit((4096, 4096)) == (4, 1)
    assert fit((3000, 5), max_px=100) == (30, 1)
    with pytest.raises(UsageError, match="max_px"):
        fit((4, 4), max_px=0)


def test_downsampling_keeps_a_lone_cell_visible():
    grid = np.zeros((3000, 3000), np.uint8)
    grid[1234, 2345] = 1
    image = decode(to_png(grid))
    assert image.shape == (1000, 1000, 3)  # shrunk by 3
    on = np.argwhere(np.all(image == LIVE, axis=-1))
    assert on.tolist() == [[1234 // 3, 2345 // 3]]


def test_pool_is_any_on_including_ragged_edges():
    grid = np.zeros((1030, 1029), np.uint8)
    grid[1029, 1028] = 1  # the last cell: a ragged 2x2 block of one row and one column
    grid[0, 3] = 1
    pooled = pool_max(grid, 2)
    assert pooled.shape == (515, 515)
    assert np.argwhere(pooled).tolist() == [[0, 1], [514, 514]]
    rng = np.random.default_rng(0)
    soup = (rng.random((37, 41)) < 0.02).astype(np.uint8)
    padded = np.zeros((40, 45), np.uint8)
    padded[:37, :41] = soup
    expected = padded.reshape(8, 5, 9, 5).max(axis=(1, 3))
    assert np.array_equal(pool_max(soup, 5), expected)


def test_seven_states_decode_with_their_palette():
    rng = np.random.default_rng(1)
    grid = rng.integers(0, 7, size=(50, 70), dtype=np.uint8)
    image = decode(to_png(grid, n_states=7))
    assert image.shape == (700, 980, 3)  # 1024 // 70 = 14 px a cell
    colours = state_colours(7)
    assert np.array_equal(centres(image, 14), colours[grid])


def test_multi_state_downsampling_prefers_live_then_decaying():
    grid = np.zeros((2048, 2048), np.uint8)
    grid[0, 0], grid[0, 1] = 3, 1  # one 2x2 block: live wins over decaying
    grid[2, 2] = 5  # a block with only a decaying cell shows it
    image = decode(to_png(grid, n_states=7))
    colours = state_colours(7)
    assert tuple(image[0, 0]) == tuple(colours[1])
    assert tuple(image[1, 1]) == tuple(colours[5])
    assert tuple(image[2, 2]) == tuple(colours[0])


def test_states_above_n_states_get_colours():
    grid = np.array([[0, 1], [2, 9]], np.uint8)
    image = decode(to_png(grid))  # n_states raised to 10
    assert tuple(centres(image, 32)[1, 1]) == tuple(state_colours(10)[9])


def test_rule_table_palette_is_used():
    colours = np.array([[0, 0, 0], [255, 0, 0], [0, 0, 255]], np.uint8)
    image = decode(to_png(np.array([[1, 2]], np.uint8), palette=colours))
    assert tuple(centres(image, 32)[0, 0]) == (255, 0, 0) and tuple(centres(image, 32)[0, 1]) == (0, 0, 255)
    with pytest.raises(UsageError, match="palette"):
        to_png(np.array([[1, 2]], np.uint8), palette=colours[:2])


def test_float_grid_uses_the_colormap():
    lenia = np.linspace(0.0, 1.0, 64 * 64, dtype=np.float32).reshape(64, 64)
    lenia[5, 5] = np.nan
    image = decode(to_png(lenia))
    assert image.shape == (1024, 1024, 3)  # 16 px a cell, grid lines on
    table = colormap("viridis")
    assert tuple(centres(image, 16)[0, 0]) == tuple(table[0])
    assert tuple(centres(image, 16)[63, 63]) == tuple(table[255])
    assert tuple(centres(image, 16)[5, 5]) == tuple(table[0])  # NaN drawn as 0
    big = np.zeros((4096, 4096), np.float64)
    big[4095, 0] = 0.5
    shrunk = decode(to_png(big, colormap_name="gray"))
    assert shrunk.shape == (1024, 1024, 3) and tuple(shrunk[1023, 0]) == (128, 128, 128)


def test_bad_input_is_refused_with_grid_error():
    with pytest.raises(GridError, match="one \\(H, W\\) grid"):
        to_png(np.zeros((2, 3, 4), np.uint8))
    with pytest.raises(GridError, match="0..255"):
        to_png(np.array([[300]]))
    with pytest.raises(UsageError, match="unknown colormap"):
        to_png(np.zeros((2, 2), np.float32), colormap_name="jet")


def test_empty_grid_gives_a_picture():
    assert decode(to_png(np.zeros((0, 0), np.uint8))).shape[:2] == (32, 32)


def img_of(html: str) -> np.ndarray:
    data = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", html).group(1)
    return decode(base64.b64decode(data))


def card(html: str) -> dict[str, str]:
    """The card's table as ``{name: value}`` (values still HTML-escaped)."""
    return dict(re.findall(r"<th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td>", html))


def test_html_card_shows_rule_population_and_escapes():
    html = repr_html(glider_grid(), rule_text="B3/S23<x>", topology_text=":T16,16", generation=12, population=5)
    assert "B3/S23&lt;x&gt;" in html and "<x>" not in html
    assert "<td style='text-align:left'>5</td>" in html and "16 x 16" in html and ":T16,16" in html
    assert "mass" not in html
    assert img_of(html).shape == (512, 512, 3)
    with_mass = repr_html(np.full((4, 4), 0.25), rule_text="lenia", topology_text="torus", generation=0,
                          population=16, mass=4.0)
    assert "<th style='text-align:left;padding-right:1em'>mass</th><td style='text-align:left'>4</td>" in with_mass


def test_show_array_tensor_and_pattern():
    shown = show(glider_grid(), rule="B3/S23", generation=7)
    assert decode(shown._repr_png_()).shape == (512, 512, 3)
    html = shown._repr_html_()
    assert "B3/S23" in html and ">5<" in html and ">7<" in html and "torus 16 x 16" in html
    after = tensorca.run(glider_grid(), "B3/S23", 4)
    assert np.array_equal(img_of(show(after)._repr_html_()), decode(to_png(glider_grid(at=(1, 1)))))
    pattern = tensorca.loads("x = 3, y = 3, rule = B36/S23\nbo$2bo$3o!")
    html = show(pattern)._repr_html_()
    assert "B36/S23" in html and ">5<" in html
    assert pattern_png(pattern) == to_png(pattern.cells)
    assert "B36/S23" in pattern_html(pattern)
    generations = tensorca.loads("x = 2, y = 1, rule = 23/3/4\nAC!")
    assert tuple(centres(decode(pattern_png(generations)), 32)[0, 1]) == tuple(state_colours(4)[3])


def test_show_tensor_is_converted_only_when_drawn():
    torch = pytest.importorskip("torch")
    tensor = torch.from_numpy(glider_grid()).bool()
    shown = show(tensor[None])  # a batch of one
    assert np.array_equal(decode(shown._repr_png_()), decode(to_png(glider_grid())))
    with pytest.raises(GridError, match="batch of one"):
        show(torch.zeros(2, 4, 4))._repr_png_()


class FakeTree:
    """A tree-backed pattern seen from outside: ``crop`` and ``bounding_box``, no dense ``cells``."""

    def __init__(self, live: list[tuple[int, int]]):
        self.live, self.crops, self.population, self.generation, self.rule = live, [], len(live), 3, None

    def bounding_box(self):
        if not self.live:
            return None
        xs, ys = [p[0] for p in self.live], [p[1] for p in self.live]
        return min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1

    def crop(self, x, y, w, h):
        self.crops.append((x, y, w, h))
        out = np.zeros((h, w), np.uint8)
        for px, py in self.live:
            if x <= px < x + w and y <= py < y + h:
                out[py - y, px - x] = 1
        return out


def test_tree_backed_pattern_is_read_in_stripes_and_pooled(monkeypatch):
    monkeypatch.setattr("tensorca.view.display.STRIPE_CELLS", 20_000 * 40)
    tree = FakeTree([(-7000, 5), (12_999, 2004), (3000, 1000)])  # box 20000 x 2000 at (-7000, 5)
    shown = show(tree)
    image = decode(shown._repr_png_())
    assert image.shape == (100, 1000, 3)  # shrunk by 20
    on = np.argwhere(np.all(image == LIVE, axis=-1)).tolist()
    assert on == [[0, 0], [49, 500], [99, 999]]
    assert len(tree.crops) == 50 and all(c[3] == 40 for c in tree.crops)  # stripes of whole 20-row blocks
    html = shown._repr_html_()
    assert "20,000 x 2,000" in html and ">3<" in html and "tree" in html
    assert decode(show(FakeTree([]))._repr_png_()).shape == (32, 32, 3)


def test_tree_backed_box_over_budget_is_refused():
    from tensorca.errors import MemoryBudgetError
    from tensorca.view.display import region_png

    with pytest.raises(MemoryBudgetError, match="show a window"):
        region_png(lambda *a: None, (0, 0, 10**6, 10**6), max_cells=10**9)


def test_hashlife_universe_shows():
    pytest.importorskip("numba")
    from tensorca.hashlife import Universe

    cells = np.zeros((8, 8), np.uint8)
    cells[0:2, 0:2] = 1  # a block stays at the origin
    cells[5, 6] = cells[6, 7] = cells[7, 5] = cells[7, 6] = cells[7, 7] = 1  # a glider leaves to the south-east
    universe = Universe.from_cells(cells, "B3/S23").step(4 * 3000)
    x, y, w, h = universe.bounding_box()
    assert (x, y) == (0, 0) and w == h == 3008
    shown = show(universe)
    image = decode(shown._repr_png_())
    # drawn by the tree: 4 x 4 cell pixels aligned on its root (one more row here), not read cell by cell
    assert image.shape in ((752, 752, 3), (753, 752, 3), (752, 753, 3), (753, 753, 3))
    assert np.all(image[0, 0] == LIVE) and np.all(image[-1, -1] == LIVE)
    assert np.count_nonzero(np.all(image == LIVE, axis=-1)) <= 8
    rows = card(shown._repr_html_())
    assert rows["bounding box"] == "3,008 x 3,008 at (0, 0)" and rows["generation"] == "12,000"
    assert rows["population"] == "9" and rows["picture"].endswith("1 px = 4 x 4 cells (max of each)")


def test_rule_colours_reach_the_notebook_and_the_viewer():
    # WireWorld's @COLORS (as render's GIFs use them), not the generic palette
    from tensorca.render.frames import palette
    from tensorca.view.source import from_pattern

    rule = tensorca.parse_rule("WireWorld")
    cells = np.array([[0, 1, 2, 3]], np.uint8)
    image = Image.open(io.BytesIO(tensorca.show(cells, rule=rule)._repr_png_())).convert("RGB")
    width = image.size[0]
    seen = [image.getpixel((int((i + 0.5) * width / 4), image.size[1] // 2)) for i in range(4)]
    assert seen == [tuple(c) for c in palette(4, rule).tolist()]
    assert seen != [tuple(c) for c in palette(4).tolist()]
    assert from_pattern(np.tile(cells, (4, 1)), rule, "numpy").describe()["palette"] == palette(4, rule).tolist()


def test_shown_generation_is_the_patterns_or_the_given_one_never_a_made_up_zero():
    grid = glider_grid()
    after = tensorca.run(grid, "B3/S23", 1000)  # an array: it carries no generation
    assert card(show(after)._repr_html_())["generation"] == "unknown"
    assert card(show(after, generation=1000)._repr_html_())["generation"] == "1,000"
    pattern = tensorca.run(tensorca.Pattern(grid, topology=tensorca.parse_topology(":T16,16")), generations=1000)
    assert pattern.generation == 1000
    assert card(show(pattern)._repr_html_())["generation"] == "1,000"
    assert card(pattern._repr_html_())["generation"] == "1,000"
    assert card(show(pattern, generation=0)._repr_html_())["generation"] == "0"  # a given 0 is kept
    tree = FakeTree(GLIDER)
    assert card(show(tree)._repr_html_())["generation"] == "3"
    assert card(show(tree, generation=1000)._repr_html_())["generation"] == "1,000"
    tree.generation = -1  # a Universe view's "not known"
    assert card(show(tree)._repr_html_())["generation"] == "unknown"


def test_float_cells_state_mass_not_population():
    lenia = tensorca.lenia.creature("O2u")
    rows = card(lenia._repr_html_())
    assert "population" not in rows
    assert rows["mass"] == f"{float(lenia.cells.sum()):.6g}" and rows["non-zero cells"] == f"{lenia.population:,}"
    assert card(show(lenia)._repr_html_()) == rows
    rows = card(show(lenia.cells)._repr_html_())  # an array: no rule given, and floats have no default one
    assert "population" not in rows and rows["mass"] == f"{float(lenia.cells.sum()):.6g}"
    assert rows["rule"] == "not given"
    assert "population" in card(show(glider_grid())._repr_html_())


def test_card_states_the_picture_scale_apart_from_the_size():
    rows = card(show(np.zeros((3000, 20), np.uint8))._repr_html_())
    assert rows["size"] == "20 x 3,000" and rows["picture"] == "7 x 1,000 px, 1 px = 3 x 3 cells (max of each)"
    rows = card(show(glider_grid())._repr_html_())
    assert rows["size"] == "16 x 16" and rows["picture"] == "512 x 512 px, 1 cell = 32 x 32 px"


def test_tree_backed_pattern_card_states_its_bounding_box_not_the_pictures():
    pytest.importorskip("numba")
    gun = tensorca.load(Path(__file__).parent / "data" / "hashlife" / "gosper_gun.rle")
    tree = tensorca.run(gun, generations=20_000, backend="hashlife")
    assert tree.tree_backed
    x, y, w, h = tree.bounding_box()
    assert min(w, h) > 4096  # a picture of at most 1024 px a side shrinks it by 8
    html = tree._repr_html_()
    rows = card(html)
    assert rows["bounding box"] == f"{w:,} x {h:,} at ({x:,}, {y:,})"
    assert rows["population"] == f"{tree.population:,}" and rows["generation"] == "20,000"
    assert rows["topology"] == "unbounded (tree)" and rows["rule"] == "B3/S23"
    ph, pw = img_of(html).shape[:2]
    assert rows["picture"] == f"{pw:,} x {ph:,} px, 1 px = 8 x 8 cells (max of each)"
    assert -(-w // 8) <= pw <= -(-w // 8) + 1 and -(-h // 8) <= ph <= -(-h // 8) + 1
    assert tree.tree_backed  # drawn from the tree, not materialised
    assert show(tree)._repr_html_() == html and tree._repr_png_() == show(tree)._repr_png_()
    assert tree.tree_backed
    macrocell = tensorca.io.loads(tensorca.io.dumps(tree, "macrocell"))  # as a .mc file loads
    assert macrocell.tree_backed and card(macrocell._repr_html_()) == rows


def test_the_new_systems_draw_in_a_notebook():
    """Ising spins (-1/+1), sandpile heights and Flow Lenia mass (floats past 1) draw with show()."""
    from tensorca import spins
    from tensorca.lenia import flow_creature, run_flow
    from tensorca.sandpile import identity

    up = np.ones((8, 8), np.int8)
    up[2, 3] = -1
    image = centres(decode(to_png(up)), 32)
    assert tuple(image[2, 3]) == DEAD and tuple(image[0, 0]) == LIVE  # down: colour 0, up: colour 1
    lattice = spins.ising((32, 32), 1.5, 3, seed=1)
    assert decode(show(lattice)._repr_png_()).shape == (1024, 1024, 3)
    with pytest.raises(GridError, match="span at most 256"):
        to_png(np.array([[-1, 300]]))

    heights = identity(16)
    colours = state_colours(4)
    image = centres(decode(to_png(heights)), 32)
    assert {tuple(c) for c in image.reshape(-1, 3)} == {tuple(int(v) for v in colours[h]) for h in np.unique(heights)}

    ring = flow_creature("FOr")
    mass = run_flow(ring.field((48, 48)), ring.world, 100)[0]
    assert mass.max() > 1.0  # the ring's mass gathers past 1 a cell
    image = centres(decode(to_png(mass)), fit(mass.shape)[1])
    peak = np.unravel_index(np.argmax(mass), mass.shape)
    assert tuple(image[peak]) == tuple(colormap("viridis")[255])  # scaled by the largest: not clipped flat
    half = mass.max() / 2
    near_half = np.unravel_index(np.argmin(np.abs(mass - half)), mass.shape)
    assert tuple(image[near_half]) != tuple(colormap("viridis")[255])
    assert "mass" in card(show(mass)._repr_html_())
