"""The web viewer in a real browser: headless Chromium against ``tensorca.view.serve``.

A glider on a 16x16 torus under B3/S23. Read back the canvas pixels at generation 0 and after four
clicks of "step" (the glider moved by (1, 1)), check that "play" advances the counter, and that
every request the page made (Chromium's own network log, and the server's) went to the server.
Chromium is driven over the DevTools protocol by tests/chromium.py (stdlib only). Skipped, with a
message, when no Chromium binary is installed (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import base64
import io
import json
import threading
from pathlib import Path

import numpy as np
import pytest

from tensorca.view import serve
from tensorca.view.colours import state_colours
from tensorca.view.server import page

from .chromium import DevTools, chromium

GLIDER = [(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)]  # (y, x): moves +1 down and +1 right every 4 generations
CELL_PX = 8


@pytest.fixture
def viewer():
    """The server on 127.0.0.1 (a free port) in a thread: a glider on a 16x16 torus, B3/S23."""
    grid = np.zeros((16, 16), np.uint8)
    for y, x in GLIDER:
        grid[y, x] = 1
    started = threading.Event()
    holder = {}

    def ready(server):
        holder["server"] = server
        started.set()

    thread = threading.Thread(target=serve, args=(grid,), daemon=True,
                              kwargs={"rule": "B3/S23", "backend": "numpy", "open_browser": False,
                                      "out": io.StringIO(), "ready": ready})
    thread.start()
    assert started.wait(20), "the viewer server did not start"
    yield holder["server"]
    holder["server"].shutdown()
    thread.join(5)
    assert not thread.is_alive(), "serve() did not return after shutdown"


@pytest.fixture
def browser(tmp_path: Path):
    """Headless Chromium with remote debugging; yields a :class:`DevTools` attached to its page."""
    with chromium(tmp_path / "profile") as tools:
        yield tools


def open_viewer(tools: DevTools, url: str) -> None:
    tools.call("Network.enable")
    tools.call("Page.navigate", url=url)
    tools.evaluate("""new Promise((resolve, reject) => {
        const t0 = Date.now();
        const poll = () => (window.tca && window.tca.ready) ? resolve(true)
            : Date.now() - t0 > 10000 ? reject(new Error('viewer did not start')) : setTimeout(poll, 20);
        poll(); })""")


def live_cells(tools: DevTools, viewer: str = "tca", size: int = 16) -> set[tuple[int, int]]:
    """The (y, x) cells drawn in the live colour, read back from the canvas pixels of ``viewer`` (a JS
    expression for a TcaViewer) after placing its board at 8 px a cell, cell (0, 0) at the top left."""
    from PIL import Image

    tools.evaluate(f"{viewer}.board.setView({CELL_PX}, 0, 0)")
    data = tools.evaluate(f"{viewer}.el('board').toDataURL('image/png')")
    image = np.asarray(Image.open(io.BytesIO(base64.b64decode(data.split(",", 1)[1]))).convert("RGB"))
    live, dead = state_colours(2)[1], state_colours(2)[0]
    centres = image[CELL_PX // 2 : size * CELL_PX : CELL_PX, CELL_PX // 2 : size * CELL_PX : CELL_PX]
    is_live = np.all(centres == live, axis=-1)
    assert np.all(is_live | np.all(centres == dead, axis=-1)), "cell centres are neither live nor dead colour"
    return {(int(y), int(x)) for y, x in np.argwhere(is_live)}


STEP_FOUR = """(async () => {
    tca.el('gens').value = '1';
    for (let i = 1; i <= 4; i++) {
        tca.el('step').click();
        const t0 = Date.now();
        while (tca.frame.generation !== i) {
            if (Date.now() - t0 > 5000) throw new Error('step ' + i + ' did not arrive');
            await new Promise((r) => setTimeout(r, 10));
        }
    }
    return tca.el('generation').textContent; })()"""

PLAY = """(async () => {
    const before = tca.frame.generation;
    tca.el('play').click();
    const t0 = Date.now();
    while (tca.frame.generation < before + 5 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
    tca.el('play').click();
    await new Promise((r) => setTimeout(r, 100));
    return [before, Number(tca.el('generation').textContent.replace(/,/g, '')), tca.playing]; })()"""


def test_viewer_draws_glider_steps_plays_and_stays_local(viewer, browser):
    open_viewer(browser, viewer.url)
    assert live_cells(browser) == set(GLIDER)
    assert browser.evaluate(STEP_FOUR) == "4"
    assert live_cells(browser) == {(y + 1, x + 1) for y, x in GLIDER}
    before, after, playing = browser.evaluate(PLAY)
    assert after >= before + 5 and playing is False
    sent = [e for e in browser.events if e.get("method") == "Network.requestWillBeSent"]
    requested = [e["params"]["request"]["url"] for e in sent]
    assert requested and all(url.startswith(viewer.url) for url in requested), requested
    resources = browser.evaluate("performance.getEntriesByType('resource').map((e) => e.name)")
    assert all(url.startswith(viewer.url) for url in resources), resources
    assert set(viewer.requests) <= {"/", "/info", "/history", "/frame", "/step"}, viewer.requests
    assert viewer.requests.count("/step") >= 4 + 5


FIT = """(async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));  // after a resize's layout
    const root = document.documentElement, board = tca.el('board').getBoundingClientRect();
    const boxes = (els) => els.map((e) => e.getBoundingClientRect());
    return {viewport: [root.clientWidth, root.clientHeight], scroll: [root.scrollWidth, root.scrollHeight],
            inner: [innerWidth, innerHeight], board: [board.width, board.height],
            bottom: Math.max(...boxes(['board', 'chart', 'status', 'counter'].map(tca.el)).map((r) => r.bottom)),
            right: Math.max(...boxes([...document.querySelectorAll('#app *, header *')]).map((r) => r.right))};
    })()"""


def assert_fits(tools: DevTools, width: int | None = None, height: int | None = None) -> dict:
    """The page fills its viewport (``width`` x ``height`` when given) without overflowing it: no
    scrollbars, every control inside, and the board takes the space the rest leaves."""
    fit = tools.evaluate(FIT)
    vw, vh = fit["viewport"]
    if width is not None:
        assert fit["inner"] == [width, height] and (vw, vh) == (width, height), fit  # no scrollbar took room
    assert fit["scroll"][0] <= vw and fit["scroll"][1] <= vh, f"the page overflows its viewport: {fit}"
    assert fit["right"] <= vw and fit["bottom"] <= vh, fit
    assert vw - fit["board"][0] <= 40 and vh - fit["bottom"] <= 20, f"the board does not fill the window: {fit}"
    return fit


def test_viewer_fits_the_window_without_scrollbars(viewer, browser):
    open_viewer(browser, viewer.url)  # the fixture's window: --window-size=1000,800
    assert_fits(browser)
    browser.call("Emulation.setDeviceMetricsOverride", width=1000, height=800, deviceScaleFactor=1, mobile=False)
    open_viewer(browser, viewer.url)
    fit = assert_fits(browser, 1000, 800)
    assert fit["board"][1] >= 500  # the board, not the margins, takes the height
    assert live_cells(browser) == set(GLIDER)  # and still draws the cells where they are
    browser.call("Emulation.setDeviceMetricsOverride", width=480, height=360, deviceScaleFactor=1, mobile=False)
    fit = assert_fits(browser, 480, 360)  # a resize: the toolbar wraps, the board shrinks
    assert fit["board"][1] >= 32
    browser.call("Emulation.clearDeviceMetricsOverride")


def test_page_names_no_outside_resource():
    """The page is self-contained: no URLs, no src attributes, no @import (checked without a browser)."""
    text = page().decode("utf-8").lower()
    for needle in ("http:", "https:", "src=", "@import", "url(", "//cdn", "<link rel=\"stylesheet\""):
        assert needle not in text, needle


WIDGET_HARNESS = """(async () => {
    const frames = %(frames)s, sent = [], listeners = {};
    const bytes = (b64) => { const s = atob(b64), a = new Uint8Array(s.length);
        for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i); return new DataView(a.buffer); };
    let generation = 0;
    const data = { frame: bytes(frames[0]), info: %(info)s, width: 320, height: 240 };
    const model = {  // the part of anywidget's model API the widget uses
        get: (k) => data[k],
        on: (event, callback) => (listeners[event] = listeners[event] || []).push(callback),
        send: (message) => { sent.push(message); setTimeout(() => {
            generation = message.kind === 'reset' ? 0 : generation + message.n;
            data.frame = bytes(frames[generation]);
            (listeners['change:frame'] || []).forEach((f) => f()); }, 5); },
    };
    const url = URL.createObjectURL(new Blob([%(esm)s], { type: 'text/javascript' }));
    const widget = (await import(url)).default;
    const el = document.createElement('div');
    document.body.appendChild(el);
    widget.render({ model, el });
    const wait = async (test) => { const t0 = Date.now();
        while (!test()) {
            if (Date.now() - t0 > 5000) throw new Error('timeout');
            await new Promise((r) => setTimeout(r, 10));
        } };
    const q = (name) => el.querySelector('.tca-' + name);
    await wait(() => q('generation').textContent === '0' && q('board').width === 320);
    window.tcaWidgetEl = el;
    return sent.length; })()"""

WIDGET_STEP_FOUR = """(async () => {
    const el = window.tcaWidgetEl, q = (name) => el.querySelector('.tca-' + name);
    for (let i = 1; i <= 4; i++) {
        q('step').click();
        const t0 = Date.now();
        while (q('generation').textContent !== String(i)) {
            if (Date.now() - t0 > 5000) throw new Error('widget step ' + i);
            await new Promise((r) => setTimeout(r, 10));
        }
    }
    return q('population').textContent; })()"""


def test_widget_module_runs_with_a_model_like_anywidgets(browser):
    """The widget's ES module (built without anywidget) renders, steps through model messages and
    redraws on ``change:frame``; the fake model answers as the Python side does."""
    from tensorca.view import from_pattern
    from tensorca.view.notebook_widget import esm

    grid = np.zeros((16, 16), np.uint8)
    for y, x in GLIDER:
        grid[y, x] = 1
    sim = from_pattern(grid, "B3/S23", backend="numpy")
    frames = [base64.b64encode(sim.frame()).decode()] + [base64.b64encode(sim.step(1)).decode() for _ in range(4)]
    browser.call("Page.navigate", url="about:blank")
    script = WIDGET_HARNESS % {"frames": json.dumps(frames), "info": json.dumps(sim.describe()),
                               "esm": json.dumps(esm())}
    assert browser.evaluate(script) == 0  # no message before a click
    viewer = "window.tcaWidgetEl.tcaViewer"
    assert live_cells(browser, viewer) == set(GLIDER)
    assert browser.evaluate(WIDGET_STEP_FOUR) == "5"
    assert live_cells(browser, viewer) == {(y + 1, x + 1) for y, x in GLIDER}
