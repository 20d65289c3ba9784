"""Golly's bounded topologies beyond torus and plane: the padding mechanism and its semantics.

The ring diagrams are Golly's Help page "Bounded Grids" (``Help/bounded.html``) copied cell for
cell: a lettered grid and the ring of cells Golly copies around it before each generation. The
shifted Klein bottle follows Golly's source (``lifealgo::JoinTwistedAndShiftedEdges``), whose
ring differs from the Help page's picture; see :func:`test_shifted_klein_follows_gollys_source`.
"""

from __future__ import annotations

import string

import numpy as np
import pytest

import tensorca
from tensorca.engines import get_engine
from tensorca.engines.numpy_reference import pad
from tensorca.errors import EngineError
from tensorca.rules import parse_rule
from tensorca.topology import Topology, fold, padding_index, padding_ring, parse_topology

# Each diagram: the padded 4x3 (or 3x3) grid, top row first; capitals A.. are the grid itself.
DIAGRAMS = {
    ":P4,3": """0 0 0 0 0 0
                0 A B C D 0
                0 E F G H 0
                0 I J K L 0
                0 0 0 0 0 0""",
    ":T4,3": """L I J K L I
                D A B C D A
                H E F G H E
                L I J K L I
                D A B C D A""",
    ":T4+1,3": """K L I J K L
                  D A B C D A
                  H E F G H E
                  L I J K L I
                  A B C D A B""",
    ":T4,3+1": """H I J K L A
                  L A B C D E
                  D E F G H I
                  H I J K L A
                  L A B C D E""",
    ":K4*,3": """I L K J I L
                 D A B C D A
                 H E F G H E
                 L I J K L I
                 A D C B A D""",
    ":K4,3*": """D I J K L A
                 L A B C D I
                 H E F G H E
                 D I J K L A
                 L A B C D I""",
    ":C4,3": """A L K J I D
                L A B C D I
                H E F G H E
                D I J K L A
                I D C B A L""",
    ":S3": """A A D G C
              A A B C G
              B D E F H
              C G H I I
              G C F I I""",
}

# The Help page's pictures of the shifted Klein bottles (not what Golly's code copies).
HELP_SHIFTED_KLEIN = {
    ":K4*+1,3": """J I L K J I
                   D A B C D A
                   H E F G H E
                   L I J K L I
                   B A D C B A""",
    ":K3,4*+1": """F J K L D
                   C A B C A
                   L D E F J
                   I G H I G
                   F J K L D
                   C A B C A""",
}


LETTERS = string.ascii_uppercase + string.ascii_lowercase + string.digits  # names for up to 62 cells


def rows_of(diagram: str) -> list[list[str]]:
    return [line.split() for line in diagram.strip().splitlines()]


def ring(topology: Topology, radius: int = 1) -> list[list[str]]:
    height, width = topology.shape
    letters = np.array(list(LETTERS[: height * width])).reshape(height, width)
    rows, cols, valid = padding_index(topology, radius)
    return np.where(valid, letters[rows, cols], "0").tolist()


@pytest.mark.parametrize("suffix", list(DIAGRAMS))
def test_ring_reproduces_gollys_diagram(suffix):
    assert ring(parse_topology(suffix)) == rows_of(DIAGRAMS[suffix])


def golly_twisted_and_shifted(topology: Topology) -> list[list[str]]:
    """A line-by-line port of ``lifealgo::JoinTwistedAndShiftedEdges`` (Golly's centred coordinates)."""
    height, width = topology.shape
    gl, gt = -(width // 2), -(height // 2)
    gr, gb = gl + width - 1, gt + height - 1
    bl, bt, br, bb = gl - 1, gt - 1, gr + 1, gb + 1
    letters = LETTERS
    out = [["."] * (width + 2) for _ in range(height + 2)]

    def get(x, y):
        return letters[(y - gt) * width + (x - gl)]

    def put(x, y, v):
        out[y - bt][x - bl] = v

    for y in range(gt, gb + 1):
        for x in range(gl, gr + 1):
            put(x, y, get(x, y))
    if topology.twist == "h":
        for x in range(gl, gr + 1):
            shifted = gr - x + gl - 1
            shifted = gr if shifted < gl else shifted
            put(x, bt, get(shifted, gb))
            put(x, bb, get(shifted, gt))
        for y in range(gt, gb + 1):
            put(br, y, get(gl, y))
            put(bl, y, get(gr, y))
        s = gr if gl - 1 < gl else gl - 1
        put(bl, bt, get(s, gb)), put(bl, bb, get(s, gt))
        s = gr if gr - 1 < gl else gr - 1
        put(br, bt, get(s, gb)), put(br, bb, get(s, gt))
    else:
        for x in range(gl, gr + 1):
            put(x, bb, get(x, gt))
            put(x, bt, get(x, gb))
        for y in range(gt, gb + 1):
            shifted = gb - y + gt - 1
            shifted = gb if shifted < gt else shifted
            put(bl, y, get(gr, shifted))
            put(br, y, get(gl, shifted))
        s = gb if gt - 1 < gt else gt - 1
        put(bl, bt, get(gr, s)), put(br, bt, get(gl, s))
        s = gb if gb - 1 < gt else gb - 1
        put(bl, bb, get(gr, s)), put(br, bb, get(gl, s))
    return out


@pytest.mark.parametrize("suffix", [":K4*+1,3", ":K3,4*+1", ":K6*+1,5", ":K5,8*+1"])
def test_shifted_klein_follows_gollys_source(suffix):
    topology = parse_topology(suffix)
    assert ring(topology) == golly_twisted_and_shifted(topology)


@pytest.mark.parametrize("suffix", list(HELP_SHIFTED_KLEIN))
def test_help_page_shifted_klein_is_the_same_surface_shifted_by_two(suffix):
    """Golly's code reflects then moves one cell back; the Help picture moves one cell forward.

    Both are Klein bottles with an odd shift (the same surface, cells relabelled); on the twisted
    edges the picture's source cell is two further along than the code's, everywhere else equal.
    """
    topology = parse_topology(suffix)
    height, width = topology.shape
    letters = LETTERS
    rows, cols, _ = padding_index(topology, 1)
    picture = rows_of(HELP_SHIFTED_KLEIN[suffix])
    index = np.vectorize(letters.index)(np.array(picture))
    p_rows, p_cols = index // width, index % width
    if topology.twist == "h":
        twisted = np.zeros(rows.shape, dtype=bool)
        twisted[[0, -1], :] = True
        want_cols = np.where(twisted, (cols + 2) % width, cols)
        assert np.array_equal(p_rows, rows) and np.array_equal(p_cols, want_cols)
    else:
        twisted = np.zeros(rows.shape, dtype=bool)
        twisted[:, [0, -1]] = True
        want_rows = np.where(twisted, (rows + 2) % height, rows)
        assert np.array_equal(p_cols, cols) and np.array_equal(p_rows, want_rows)


@pytest.mark.parametrize("shape", [(3, 4), (5, 2), (1, 1), (4, 4)])
@pytest.mark.parametrize("radius", [0, 1, 2, 3, 7])
def test_general_padding_agrees_with_np_pad(shape, radius):
    height, width = shape
    cells = np.arange(height * width, dtype=np.int32).reshape(1, height, width) + 1
    widths = ((0, 0), (radius, radius), (radius, radius))
    for topology, mode in ((Topology.torus(width, height), "wrap"), (Topology.plane(width, height), "constant")):
        rows, cols, valid = padding_index(topology, radius)
        general = np.where(valid, cells[:, rows, cols], 0)
        assert np.array_equal(general, np.pad(cells, widths, mode=mode)), (topology, radius)


NEW_KINDS = [":T7+2,5", ":T7,5-3", ":K7*,5", ":K6*+1,5", ":K5,7*", ":K7,6*+1", ":C7,5", ":S6"]


@pytest.mark.parametrize("suffix", NEW_KINDS)
def test_padding_is_a_consistent_gluing(suffix):
    """Interior cells map to themselves, every radius folds into the grid, rings are nested, and
    adjacency is symmetric: if ``q`` is the neighbour of ``p`` across an edge, ``p`` is ``q``'s."""
    topology = parse_topology(suffix)
    height, width = topology.shape
    big = 3 * max(height, width)  # far beyond the grid: Larger than Life on a tiny grid
    rows, cols, valid = padding_index(topology, big)
    assert valid.all() and rows.min() >= 0 and rows.max() < height and cols.min() >= 0 and cols.max() < width
    assert np.array_equal(rows[big : big + height, big : big + width], np.arange(height)[:, None].repeat(width, 1))
    r1 = padding_index(topology, 1)
    assert np.array_equal(rows[big - 1 : big + height + 1, big - 1 : big + width + 1], r1[0])
    assert np.array_equal(cols[big - 1 : big + height + 1, big - 1 : big + width + 1], r1[1])
    corners = {(0, 0), (0, width - 1), (height - 1, 0), (height - 1, width - 1)}
    for y in range(height):
        for x in range(width):
            for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                (qy,), (qx,), _ = fold(topology, np.array([y + dy]), np.array([x + dx]))
                if (y, x) in corners and topology.kind in ("sphere", "cross"):
                    continue  # cone points: Golly's corners see themselves
                back = [fold(topology, np.array([qy + ey]), np.array([qx + ex]))
                        for ey, ex in ((-1, 0), (1, 0), (0, -1), (0, 1))]
                assert (y, x) in [(int(b[0][0]), int(b[1][0])) for b in back], (suffix, (y, x), (qy, qx))


def test_ring_index_matches_the_full_index():
    topology = parse_topology(":K6*+1,5")
    dst, src = padding_ring(topology, 2)
    rows, cols, _ = padding_index(topology, 2)
    assert len(dst) == 10 * 9 - 30 and np.array_equal(src, (rows * 6 + cols).reshape(-1)[dst])


GLIDER_NW = np.array([[1, 1, 1], [1, 0, 0], [0, 1, 0]], dtype=np.uint8)  # heads up and left


def test_glider_on_a_klein_bottle_comes_back_mirrored():
    """Through the twisted top edge a glider re-enters at the bottom, left and right exchanged."""
    grid = np.zeros((1, 16, 16), dtype=np.uint8)
    grid[0, 2:5, 9:12] = GLIDER_NW
    rule = parse_rule("B3/S23")
    engine = get_engine("numpy")
    klein = engine.advance(grid, rule, parse_topology(":K16*,16"), 28)
    torus = engine.advance(grid, rule, Topology.torus(16, 16), 28)
    assert np.nonzero(torus[0])[0].min() >= 10  # it has crossed: near the bottom, whole
    assert np.array_equal(klein, torus[:, :, ::-1]) and not np.array_equal(klein, torus)
    # The mirrored glider heads up and right: four generations later, one cell up and one right.
    later = engine.advance(klein, rule, parse_topology(":K16*,16"), 4)
    assert np.array_equal(later[0], np.roll(klein[0], (-1, 1), axis=(0, 1)))


def test_crossing_the_top_of_a_sphere_comes_in_through_the_left():
    """Golly joins the top edge to the left edge: row 0 column x meets column 0 row x. A glider
    that leaves through the top is, once across, the plane's picture turned a quarter turn."""
    n, lift = 20, 20
    start = np.zeros((1, n, n), dtype=np.uint8)
    start[0, 2:5, 11:14] = GLIDER_NW
    rule = parse_rule("B3/S23")
    engine = get_engine("numpy")
    sphere = engine.advance(start, rule, Topology.sphere(n), 24)
    # The same glider on a plane with room above the grid.
    plane_start = np.zeros((1, n + lift, n), dtype=np.uint8)
    plane_start[0, lift:] = start[0]
    plane = engine.advance(plane_start, rule, Topology.plane(n, n + lift), 24)
    assert plane[0, lift:].sum() == 0  # wholly above the top edge
    want = np.zeros((n, n), dtype=np.uint8)
    for yp, x in zip(*np.nonzero(plane[0]), strict=True):
        y = yp - lift  # y < 0: above the top edge
        want[x, -1 - y] = 1  # a quarter turn about the top-left corner
    assert np.array_equal(sphere[0], want)
    assert want[:, :4].sum() == 5  # next to the left edge


PARITY_RULES = ["B3/S23", "B2-a/S12", "345/2/4", "R2,C0,M0,S3..6,B4..5,NN", "R3,C3,M1,S10..20,B10..14,NC",
                "R9,C0,M1,S20..40,B20..30,NM"]


@pytest.mark.parametrize("suffix", NEW_KINDS + [":K4*,9", ":S3"])
def test_torch_matches_the_reference(suffix):
    torch = pytest.importorskip("torch")
    topology = parse_topology(suffix)
    rng = np.random.default_rng(len(suffix) + topology.width)
    reference, engine = get_engine("numpy"), get_engine("torch")
    for text in PARITY_RULES:  # R9 on grids of 5-9 cells: padding far beyond the grid
        rule = parse_rule(text)
        live = rng.random((3,) + topology.shape) < rng.uniform(0.2, 0.7)
        cells = (live * rng.integers(1, rule.n_states, (3,) + topology.shape)).astype(np.uint8)
        want = reference.advance(cells, rule, topology, 6)
        got = engine.advance(torch.from_numpy(cells), rule, topology, 6).numpy()
        assert np.array_equal(got, want), (suffix, text)
    conv = engine.with_options(path="conv")
    rule = parse_rule("B36/S23")
    assert np.array_equal(conv.advance(torch.from_numpy(cells), rule, topology, 3).numpy(),
                          reference.advance(cells, rule, topology, 3))


def test_reference_pad_uses_the_general_mechanism():
    topology = parse_topology(":C4,3")
    cells = np.arange(12, dtype=np.int16).reshape(1, 3, 4)
    rows, cols, _ = padding_index(topology, 2)
    assert np.array_equal(pad(cells, 2, topology)[0], cells[0][rows, cols])


@pytest.mark.parametrize("name", ["dense-conv", "bitpack-cpu", "bitpack-gpu"])
def test_fast_engines_refuse_what_they_cannot_pad(name):
    try:
        engine = get_engine(name)
    except EngineError:
        pytest.skip(f"{name} is not available here")
    rule = parse_rule("B3/S23")
    assert engine.supports(rule, Topology.torus(8, 8))
    for suffix in NEW_KINDS:
        topology = parse_topology(suffix)
        assert not engine.supports(rule, topology)
        assert str(topology) in engine.why_unsupported(rule, topology)


def test_numpy_and_torch_support_every_bounded_kind():
    rule = parse_rule("B3/S23")
    for name in ("numpy", "torch"):
        engine = get_engine(name)
        assert all(engine.supports(rule, parse_topology(s)) for s in NEW_KINDS)


def test_auto_runs_a_klein_pattern_file_like_the_reference():
    text = "x = 3, y = 3, rule = B3/S23:K12*+1,10\nbo$2bo$3o!\n"
    pattern = tensorca.loads(text)
    assert pattern.topology == Topology.klein(12, 10, "h", shift=True)
    later = tensorca.run(pattern, generations=40)  # backend="auto" must pick an engine that pads it
    grid = np.zeros((1, 10, 12), dtype=np.uint8)
    grid[0, :3, :3] = pattern.cells  # cells[0, 0] at the grid's top-left
    want = get_engine("numpy").advance(grid, parse_rule("B3/S23"), pattern.topology, 40)
    assert np.array_equal(np.asarray(later.cells), want[0]) and later.topology == pattern.topology
    assert later.rule.canonical() == "B3/S23"


def test_checkpoint_keeps_twist_and_shift(tmp_path):
    from tensorca.persist import npz as checkpoint

    topology = parse_topology(":T9,7-3")
    grid = (np.random.default_rng(1).random((1, 7, 9)) < 0.4).astype(np.uint8)
    path = tmp_path / "c.npz"
    tensorca.run(grid, "B3/S23", 3, topology=topology, checkpoint=path)
    assert checkpoint.load(path).topology == topology
