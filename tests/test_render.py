"""Pictures and animations: decoded frame counts, sizes, colours; the render command."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
from PIL import Image

import tensorca
import tensorca.render as render
from tensorca import cli_render
from tensorca.errors import TensorcaError
from tensorca.io import loads

GLIDER = "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!"


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tensorca")
    cli_render.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["render", *argv])
    return args.func(args)


def test_palette_two_and_many_states():
    two = render.palette(2)
    assert two.shape == (2, 3) and two.dtype == np.uint8 and not np.array_equal(two[0], two[1])
    many = render.palette(5)
    assert many.shape == (5, 3) and len({tuple(c) for c in many}) == 5  # every state its own colour


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
    height, width = run.cells.shape[1:]
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
        h, w = run.cells.shape[1:]
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
