"""The viewer's Python side without a browser: packed frames, the Simulation, HTTP routes, Ctrl-C."""

from __future__ import annotations

import io
import json
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

import tensorca
from tensorca.errors import GridError, UsageError
from tensorca.view import Frame, Simulation, ViewerServer, from_pattern, pack, serve, unpack
from tensorca.view.protocol import HEADER

GLIDER = [(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)]  # (y, x)


def glider(size: int = 16) -> np.ndarray:
    grid = np.zeros((size, size), np.uint8)
    for y, x in GLIDER:
        grid[y, x] = 1
    return grid


def test_two_state_frames_are_bit_packed():
    cells = glider(13)  # 169 cells: 22 body bytes, the last padded
    data = pack(Frame(cells, 9, 5, (-3, 4)))
    assert len(data) == HEADER.size + 22 == 62
    assert data[:4] == b"TCA1" and data[36] == 1 and data[37] == 0
    back = unpack(data)
    assert np.array_equal(back.cells, cells) and (back.generation, back.population, back.origin) == (9, 5, (-3, 4))
    assert data[HEADER.size] == 0b01000000  # row 0: only x=1 is on, most significant bit first


def test_multi_state_and_float_frames():
    states = np.arange(12, dtype=np.uint8).reshape(3, 4) % 7
    data = pack(Frame(states, 0, 10))
    assert data[36] == 8 and len(data) == HEADER.size + 12
    assert np.array_equal(unpack(data).cells, states)
    floats = np.array([[0.0, 0.5], [1.0, np.nan]], np.float32)
    back = unpack(pack(Frame(floats, 3, 2)))
    assert back.cells.dtype == np.float32 and np.allclose(back.cells, [[0, 128 / 255], [1, 0]])
    with pytest.raises(GridError, match="magic"):
        unpack(b"nope" + bytes(60))
    with pytest.raises(GridError, match="needs 12 body bytes"):
        unpack(data[:-1])


def test_simulation_steps_resets_and_checks_its_arguments():
    sim = from_pattern(glider(), "B3/S23", backend="numpy")
    first = unpack(sim.frame())
    assert first.generation == 0 and first.population == 5
    moved = unpack(sim.step(4))
    assert moved.generation == 4 and np.array_equal(moved.cells, np.roll(glider(), (1, 1), axis=(0, 1)))
    assert unpack(sim.seek(8)).generation == 8
    assert unpack(sim.seek(4)).generation == 4  # behind: restart and run forward
    assert sim.history == [(0, 5), (4, 5)]
    for bad in (0, -1, 1.5, True, 10**7):
        with pytest.raises(UsageError, match="step takes"):
            sim.step(bad)
    assert unpack(sim.reset()).generation == 0
    info = sim.describe()
    assert info["rule"] == "B3/S23" and info["n_states"] == 2 and info["can_reset"] and len(info["palette"]) == 2


def test_any_step_function_drives_a_simulation():
    calls = []

    def step(n):
        calls.append(n)
        return np.full((2, 3), 1, np.uint8), sum(calls), 6

    sim = Simulation(step, Frame(np.zeros((2, 3), np.uint8), 0, 0))
    assert unpack(sim.step(3)).generation == 3 and calls == [3]
    with pytest.raises(UsageError, match="no restart"):
        sim.reset()
    bad = Simulation(lambda n: "frame", Frame(np.zeros((1, 1), np.uint8), 0, 0))
    with pytest.raises(UsageError, match="step must return"):
        bad.step(1)


def test_unbounded_pattern_frames_carry_their_origin():
    pattern = tensorca.loads("x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!")
    sim = from_pattern(pattern, backend="numpy")
    assert sim.describe()["topology"] == "unbounded"
    later = unpack(sim.step(8))
    box = tensorca.run(pattern, generations=8, backend="numpy").bounding_box()
    ys, xs = np.nonzero(later.cells)
    assert (later.origin[0] + xs.min(), later.origin[1] + ys.min()) == box[:2] == (2, 2)


@pytest.fixture
def server():
    srv = ViewerServer(from_pattern(glider(), "B3/S23", backend="numpy"))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def fetch(srv, path, method="GET"):
    request = urllib.request.Request(srv.url + path.lstrip("/"), method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers, response.read()


def test_routes(server):
    assert server.url.startswith("http://127.0.0.1:")
    status, headers, body = fetch(server, "/")
    assert status == 200 and b"class TcaViewer" in body and b"/*@CORE@*/" not in body  # core.js inlined
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert json.loads(fetch(server, "/info")[2])["rule"] == "B3/S23"
    assert unpack(fetch(server, "/frame?gen=8")[2]).generation == 8
    assert unpack(fetch(server, "/step?n=3", "POST")[2]).generation == 11
    assert json.loads(fetch(server, "/history")[2]) == [[0, 5], [8, 5], [11, 5]]
    assert unpack(fetch(server, "/reset", "POST")[2]).generation == 0
    for path, method, code in (("/step?n=0", "POST", 400), ("/step?n=x", "POST", 400), ("/nope", "GET", 404),
                               ("/step", "GET", 404)):
        with pytest.raises(urllib.error.HTTPError) as info:
            fetch(server, path, method)
        assert info.value.code == code
    assert fetch(server, "/favicon.ico")[0] == 204
    assert server.requests[:3] == ["/", "/info", "/frame"]


@pytest.mark.parametrize("length", ["abc", "-1", "99999999999", "+5", "1e3"])
def test_a_post_with_a_bad_content_length_is_a_bad_request(server, length):
    """A length that is not a small number was read as int() outside the handler's try (a traceback
    and a dropped connection), or as read(-1)/read(huge): now 400, and the server goes on."""
    import http.client

    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.putrequest("POST", "/step?n=1")
    connection.putheader("Content-Length", length)
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 400 and b"Content-Length" in response.read()
    connection.close()
    assert unpack(fetch(server, "/step?n=1", "POST")[2]).generation == 1


def test_only_loopback_hosts_and_a_free_port(server):
    sim = from_pattern(glider(), "B3/S23", backend="numpy")
    with pytest.raises(UsageError, match="only this machine"):
        ViewerServer(sim, host="0.0.0.0")
    with pytest.raises(UsageError, match="cannot listen on 127.0.0.1 port"):
        ViewerServer(sim, port=server.server_address[1])


def test_float_states_get_a_colormap():
    from tensorca.view.colours import colormap

    ramp = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)
    sim = Simulation(lambda n: (ramp, n, 11), Frame(ramp, 0, 11), info={"continuous": True, "rule": "lenia"})
    info = sim.describe()
    assert info["palette"] == colormap("viridis").tolist() and info["continuous"]
    assert unpack(sim.step(1)).cells[2, 3] == 1.0


def test_ctrl_c_stops_cleanly(monkeypatch):
    def interrupted(self, poll_interval=0.5):
        raise KeyboardInterrupt

    monkeypatch.setattr(ViewerServer, "serve_forever", interrupted)
    opened, out, seen = [], io.StringIO(), {}
    monkeypatch.setattr("webbrowser.open", opened.append)
    assert serve(glider(), rule="B3/S23", backend="numpy", out=out, ready=lambda s: seen.update(s=s)) == 0
    url = seen["s"].url
    assert opened == [url] and f"tensorca view: {url}" in out.getvalue() and "stopped" in out.getvalue()
    assert seen["s"].socket.fileno() == -1  # closed
    monkeypatch.setattr("webbrowser.open", lambda u: pytest.fail("--no-browser opened a browser"))
    assert serve(glider(), rule="B3/S23", backend="numpy", open_browser=False, out=io.StringIO()) == 0
