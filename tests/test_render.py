"""Pictures and animations: decoded frame counts, sizes, colours; the render command."""

from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import tensorca
import tensorca.render as render
from tensorca.cli import render as cli_render
from tensorca.errors import MissingDependencyError, TensorcaError
from tensorca.io import loads

GLIDER = "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!"


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tensorca")
    cli_render.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["render", *argv])
    return args.func(args)


def test_palette_two_and_many_states():
    two = render.palette(2)
    assert two.shape == (2, 3) and two.dtype == np.uint8 and not np.array_equal(two[0], two[1])
    many = render.palette(5)
    assert many.shape == (5, 3) and len({tuple(c) for c in many}) == 5  # every state its own colour


def test_a_picture_past_the_pixel_limit_is_refused_before_it_is_made():
    """scale=100000 on a 4 x 4 grid asked NumPy for 149 GiB (a bare MemoryError)."""
    from tensorca.errors import UsageError

    colours = render.palette(2)
    with pytest.raises(UsageError, match=r"400000 x 400000 picture .* use a scale of at most 4096"):
        render.to_rgb(np.ones((4, 4), np.uint8), colours, scale=100_000)
    with pytest.raises(UsageError, match="render a window of the grid"):
        render.to_rgb(np.broadcast_to(np.uint8(0), (1, (1 << 28) + 1)), colours)  # a view: no memory
    assert render.to_rgb(np.ones((4, 4), np.uint8), colours, scale=64).shape == (256, 256, 3)


def test_to_rgb_scales_and_draws_grid_lines():
    cells = np.array([[0, 1], [1, 0]], np.uint8)
    colours = render.palette(2)
    rgb = render.to_rgb(cells, colours, scale=3)
    assert rgb.shape == (6, 6, 3)
    assert tuple(rgb[0, 5]) == tuple(colours[1]) and tuple(rgb[0, 0]) == tuple(colours[0])
    lined = render.to_rgb(cells, colours, scale=4, grid=True)
    from tensorca.render.frames import GRID

    assert tuple(lined[0, 1]) == GRID and tuple(lined[2, 0]) == GRID
    assert tuple(lined[1, 5]) == tuple(colours[1])  # inside a live cell


def test_gif_of_a_glider_decodes_to_every_frame_at_the_right_size(tmp_path):
    path = tmp_path / "glider.gif"
    run = render.gif(str(path), loads(GLIDER), gens=8, scale=5, duration=80)
    height, width = run.shape
    # the viewport holds the glider's whole path: 3 + 2 cells plus a 1-cell border each side
    assert (width, height) == (7, 7)
    with Image.open(path) as im:
        assert im.n_frames == 9
        assert im.size == (35, 35)
        assert im.info["duration"] == 80
        im.seek(4)
        frame = np.array(im.convert("L"))
    assert (frame > 128).sum() == 5 * 25  # five live cells of 5x5 pixels


def test_gif_every_and_population(tmp_path):
    run = render.gif(str(tmp_path / "g.gif"), loads(GLIDER), gens=12, every=4, scale=2)
    assert run.generations == [0, 4, 8, 12]
    assert run.populations == [5] * 13
    with Image.open(tmp_path / "g.gif") as im:
        assert im.n_frames == 4


def test_png_is_the_last_generation(tmp_path):
    gun = tensorca.load(tensorca.__file__.rsplit("/", 1)[0] + "/data/patterns/gosper_gun.rle")
    run = render.png(str(tmp_path / "gun.png"), gun, gens=30, scale=3)
    with Image.open(tmp_path / "gun.png") as im:
        h, w = run.shape
        assert im.size == (3 * w, 3 * h)
        lit = (np.array(im.convert("L")) > 128).sum()
    assert lit == 9 * tensorca.run(gun, generations=30).population


def test_bounded_topology_keeps_the_grid_size(tmp_path):
    pattern = loads("x = 3, y = 3, rule = B3/S23:T10,8\nbo$2bo$3o!")
    run = render.frames(pattern, gens=4)
    assert run.cells.shape == (5, 8, 10)


def test_mp4_is_padded_to_codec_sizes(tmp_path):
    pytest.importorskip("imageio_ffmpeg")
    import imageio_ffmpeg

    path = tmp_path / "glider.mp4"
    run = render.frames(loads(GLIDER), gens=10)
    width, height = render.write_mp4(str(path), run, scale=3)
    assert (width, height) == (32, 32)  # 21x21 pixels padded to multiples of 16
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = reader.__next__()
    assert tuple(meta["size"]) == (32, 32)
    assert sum(1 for _ in reader) == 11


def test_population_plot(tmp_path):
    pytest.importorskip("matplotlib")
    render.write_population_plot(str(tmp_path / "pop.png"), [5, 6, 7, 6])
    with Image.open(tmp_path / "pop.png") as im:
        assert im.size[0] > 100


def test_population_plot_leaves_pyplot_and_the_backend_alone(tmp_path):
    pytest.importorskip("matplotlib")
    code = (
        "import sys, matplotlib\n"
        "matplotlib.use('svg')\n"
        "from tensorca.render import write_population_plot\n"
        f"write_population_plot({str(tmp_path / 'pop.png')!r}, [1, 2, 3])\n"
        "print('matplotlib.pyplot' in sys.modules, matplotlib.get_backend())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "svg"]
    assert (tmp_path / "pop.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_population_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingDependencyError, match="tensorca\\[render\\]"):
        render.write_population_plot(str(tmp_path / "pop.png"), [1, 2])


def test_render_command(tmp_path):
    src = tmp_path / "glider.rle"
    src.write_text(GLIDER)
    gif, png = tmp_path / "out.gif", tmp_path / "out.png"
    assert run_cli([str(src), "--gens", "8", "--gif", str(gif), "--png", str(png), "--scale", "4", "--grid"]) == 0
    with Image.open(gif) as im:
        assert (im.n_frames, im.size) == (9, (28, 28))
    with Image.open(png) as im:
        assert im.size == (28, 28)
    with pytest.raises(TensorcaError):
        run_cli([str(src), "--gens", "8"])


def _pillow_gif(path, run, scale=4, duration=100, grid=False) -> bytes:
    """The GIF as render wrote it before streaming: every frame in a list, then Pillow's save_all."""
    from tensorca.render.gif import _image

    colours = render.palette(max(run.n_states, 2))
    images = [_image(c, colours, scale, grid) for c in run.cells]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=duration, loop=0, disposal=1)
    return path.read_bytes()


@pytest.mark.parametrize("case", ["gun", "still", "generations", "bounded"])
def test_streamed_gif_has_the_bytes_of_pillows_save_all(tmp_path, case):
    gun = tensorca.load(tensorca.__file__.rsplit("/", 1)[0] + "/data/patterns/gosper_gun.rle")
    soup = (np.random.default_rng(3).random((20, 30)) < 0.35).astype(np.uint8)
    pattern, rule, gens, every = {
        "gun": (gun, None, 40, 3),
        "still": (loads("x = 2, y = 2, rule = B3/S23\n2o$2o!"), None, 5, 1),  # one distinct frame
        "generations": (soup, "345/2/4", 15, 1),
        "bounded": (gun, "B3/S23:T40,30", 20, 1),
    }[case]
    streamed = tmp_path / "streamed.gif"
    render.gif(str(streamed), pattern, gens, rule=rule, every=every, scale=2, duration=30, grid=case == "gun")
    held = render.frames(pattern, rule, gens, every)
    assert streamed.read_bytes() == _pillow_gif(tmp_path / "held.gif", held, 2, 30, case == "gun")


def test_frames_equal_a_run_one_generation_at_a_time():
    glider = loads(GLIDER)
    held = render.frames(glider, gens=12, every=3)
    state = glider
    for k, gen in enumerate(held.generations):
        state = tensorca.run(state, generations=gen - (held.generations[k - 1] if k else 0), backend="numpy")
        box = state.bounding_box()
        x0, y0 = -1, -1  # the viewport starts one cell above and left of the glider's path
        frame = held.cells[k]
        x, y, w, h = box
        assert frame.sum() == 5 and frame[y - y0 : y - y0 + h, x - x0 : x - x0 + w].sum() == 5


def test_long_renders_hold_one_frame_not_the_run(tmp_path):
    """A glider's 800 generations: the frames together are ~16 MiB, the streamed GIF stays far below."""
    import tracemalloc

    glider = loads(GLIDER)
    stream = render.frame_stream(glider, gens=800)
    height, width = stream.shape
    all_frames = len(stream) * height * width
    assert all_frames > 15 * 2**20
    tracemalloc.start()
    try:
        render.write_gif(str(tmp_path / "long.gif"), stream, scale=1)
        _, streamed_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert streamed_peak < all_frames / 8
    with Image.open(tmp_path / "long.gif") as im:
        assert im.size == (width, height) and im.n_frames == 801


def test_a_rule_suffix_sets_the_render_topology():
    glider = loads(GLIDER)
    run = render.frames(glider, "B3/S23:T8,6", gens=40, every=10)
    assert run.shape == (6, 8)  # the torus, not the unbounded plane's growing box
    assert run.populations == [5] * 41  # the glider wraps round and lives
    wrapped = tensorca.run(glider, "B3/S23:T8,6", 40, backend="numpy")
    assert np.array_equal(run.cells[-1], wrapped.cells)
    grid = np.zeros((6, 8), np.uint8)
    grid[:3, :3] = glider.cells
    on_plane = render.frames(grid, "B3/S23:P8,6", gens=40)
    assert np.array_equal(on_plane.cells[-1], tensorca.run(grid, "B3/S23:P8,6", 40, backend="numpy"))
    assert on_plane.populations[-1] == 4  # the glider ends as a block in the plane's corner, not wrapped


# -- float cells (Lenia): a perceptual colormap --------------------------------------------------------


def _luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb.astype(np.float64) @ np.array([0.2126, 0.7152, 0.0722])


def test_colormap_is_viridis_and_lightness_grows():
    table = render.colormap()
    assert table.shape == (255, 3) and table.dtype == np.uint8 and not table.flags.writeable
    assert tuple(table[0]) == (68, 1, 84) and tuple(table[-1]) == (253, 231, 37)  # viridis' ends
    lightness = _luminance(table)
    assert np.all(np.diff(lightness) > -1) and np.all(np.diff(lightness[::8]) > 0)  # up, to the rounding
    assert len({tuple(c) for c in table}) > 240
    assert render.colormap("gray", 3)[1].tolist() == [128, 128, 128]
    with pytest.raises(TensorcaError, match="unknown colormap"):
        render.colormap("jet")


def test_float_cells_take_the_colormap_and_states_keep_the_palette():
    from tensorca.lenia import creature

    lenia = creature("O2u").rule
    table = render.colours_for(lenia.n_states, lenia)
    assert np.array_equal(table, render.colormap())
    assert np.array_equal(render.colours_for(2, tensorca.parse_rule("B3/S23")), render.palette(2))
    cells = np.array([[0.0, 0.5], [1.0, np.nan]], np.float32)
    rgb = render.to_rgb(cells, table, scale=2)
    assert rgb.shape == (4, 4, 3)
    assert [tuple(rgb[y, x]) for y, x in ((0, 0), (0, 2), (2, 0), (2, 2))] == \
        [tuple(table[0]), tuple(table[127]), tuple(table[254]), tuple(table[0])]  # NaN draws as 0
    states = render.to_rgb(np.array([[0, 1]], np.uint8), render.palette(2))
    assert tuple(states[0, 1]) == tuple(render.palette(2)[1])


def test_lenia_gif_png_and_frames_show_the_float_cells(tmp_path):
    from tensorca.lenia import creature

    orbium = creature("O2u", dtype=np.float32)
    start = np.zeros((40, 44), np.float32)
    start[8:28, 10:30] = orbium.cells
    stream = render.frames(start, orbium.rule, gens=6, every=3)
    assert stream.cells.dtype == np.float32 and stream.n_states == 0
    assert np.array_equal(stream.last(), tensorca.run(start, orbium.rule, 6, backend="numpy"))
    assert stream.populations[0] == pytest.approx(float(start.sum(dtype=np.float64)))
    assert isinstance(stream.populations[-1], float)  # mass, not a count of non-zero cells
    path = tmp_path / "orbium.gif"
    render.write_gif(str(path), stream, scale=2)
    viridis = {tuple(c) for c in render.colormap()}
    with Image.open(path) as im:
        assert im.n_frames == 3 and im.size == (88, 80)
        im.seek(2)
        last = np.asarray(im.convert("RGB"))
    assert np.array_equal(last, render.to_rgb(stream.last(), render.colormap(), scale=2))
    colours = {tuple(int(v) for v in c) for c in np.unique(last.reshape(-1, 3), axis=0)}
    assert colours <= viridis and len(colours) > 20  # shades of the colormap, not two states
    render.png(str(tmp_path / "o.png"), orbium, gens=2, rule=orbium.rule.canonical() + ":T44,40", scale=1)
    png = np.asarray(Image.open(tmp_path / "o.png").convert("RGB"))
    last = tensorca.run(orbium, generations=2, topology=":T44,40").cells
    assert np.array_equal(png, render.to_rgb(last, render.colormap()))
