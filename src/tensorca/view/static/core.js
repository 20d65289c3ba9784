// tensorca viewer core, shared by the web page (inlined by the server) and the notebook widget
// (prefixed to its ES module). Plain script: no imports, no external resources.
// A transport is {info(), history(), frame(), step(n), reset(), onFrame?(callback)}; frame/step/
// reset resolve to one packed frame (ArrayBuffer or DataView, see tensorca/view/protocol.py).

const TCA_HEADER = 40;

function tcaDecode(buffer) {
  const view = buffer instanceof DataView ? buffer : new DataView(buffer);
  const magic = String.fromCharCode(view.getUint8(0), view.getUint8(1), view.getUint8(2), view.getUint8(3));
  if (magic !== "TCA1") throw new Error("not a tensorca frame");
  const width = view.getUint32(4, true), height = view.getUint32(8, true);
  const frame = {
    width, height,
    generation: Number(view.getBigInt64(12, true)), population: Number(view.getBigInt64(20, true)),
    ox: view.getInt32(28, true), oy: view.getInt32(32, true),
    bits: view.getUint8(36), kind: view.getUint8(37),
  };
  const body = new Uint8Array(view.buffer, view.byteOffset + TCA_HEADER, view.byteLength - TCA_HEADER);
  const n = width * height;
  if (frame.bits === 1) {
    const cells = new Uint8Array(Math.ceil(n / 8) * 8);
    for (let i = 0, j = 0; i < body.length; i++, j += 8) {
      const b = body[i];
      cells[j] = b >> 7; cells[j + 1] = (b >> 6) & 1; cells[j + 2] = (b >> 5) & 1; cells[j + 3] = (b >> 4) & 1;
      cells[j + 4] = (b >> 3) & 1; cells[j + 5] = (b >> 2) & 1; cells[j + 6] = (b >> 1) & 1; cells[j + 7] = b & 1;
    }
    frame.cells = cells.subarray(0, n);
  } else {
    frame.cells = body.slice(0, n);
  }
  return frame;
}

// Cells on a canvas: the frame is painted 1 px per cell on an offscreen canvas, then scaled.
// View: screen x = panX + cellX * scale (cellX in pattern coordinates).
class TcaBoard {
  constructor(canvas, palette, bounded) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.off = document.createElement("canvas");
    this.bounded = bounded;
    this.scale = 8; this.panX = 0; this.panY = 0;
    this.frame = null; this.fitted = false; this.moved = false;
    this.setPalette(palette);
  }
  setPalette(palette) {
    const rgba = (c) => ((255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0]) >>> 0;
    this.lut = new Uint32Array(256);
    for (let i = 0; i < 256; i++) this.lut[i] = rgba(palette[Math.min(i, palette.length - 1)]);
    this.dead = palette[0];
  }
  setFrame(frame) {
    this.frame = frame;
    this.off.width = Math.max(1, frame.width); this.off.height = Math.max(1, frame.height);
    const octx = this.off.getContext("2d");
    const image = octx.createImageData(this.off.width, this.off.height);
    const pixels = new Uint32Array(image.data.buffer), cells = frame.cells, lut = this.lut;
    for (let i = 0; i < cells.length; i++) pixels[i] = lut[cells[i]];
    octx.putImageData(image, 0, 0);
    if (!this.fitted) { this.fit(); this.fitted = true; }
    this.draw();
  }
  setView(scale, panX, panY) { this.scale = scale; this.panX = panX; this.panY = panY; this.draw(); }
  fit() {
    const f = this.frame; if (!f) return;
    const w = Math.max(1, f.width), h = Math.max(1, f.height), cw = this.canvas.width, ch = this.canvas.height;
    let s = Math.min(cw / w, ch / h) * 0.95;
    s = s >= 1 ? Math.max(1, Math.floor(s)) : s;
    this.scale = Math.min(s, 64);
    this.panX = Math.round((cw - w * this.scale) / 2 - f.ox * this.scale);
    this.panY = Math.round((ch - h * this.scale) / 2 - f.oy * this.scale);
    this.draw();
  }
  zoomAt(mx, my, factor) {
    const s = Math.min(64, Math.max(1 / 64, this.scale * factor));
    this.panX = mx - (mx - this.panX) * (s / this.scale);
    this.panY = my - (my - this.panY) * (s / this.scale);
    this.scale = s; this.draw();
  }
  draw() {
    const ctx = this.ctx, f = this.frame, cw = this.canvas.width, ch = this.canvas.height;
    const d = this.dead;
    ctx.fillStyle = this.bounded ? "#08080c" : `rgb(${d[0]},${d[1]},${d[2]})`;
    ctx.fillRect(0, 0, cw, ch);
    if (!f) return;
    const x0 = this.panX + f.ox * this.scale, y0 = this.panY + f.oy * this.scale;
    const w = f.width * this.scale, h = f.height * this.scale;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.off, 0, 0, f.width, f.height, x0, y0, w, h);
    if (this.scale >= 8) this.drawGrid(x0, y0, w, h);
  }
  drawGrid(x0, y0, w, h) {
    const ctx = this.ctx, s = this.scale;
    const left = this.bounded ? Math.max(0, x0) : 0, top = this.bounded ? Math.max(0, y0) : 0;
    const right = this.bounded ? Math.min(this.canvas.width, x0 + w) : this.canvas.width;
    const bottom = this.bounded ? Math.min(this.canvas.height, y0 + h) : this.canvas.height;
    ctx.fillStyle = "rgb(48,48,64)";
    const fx = x0 + Math.ceil((left - x0) / s) * s, fy = y0 + Math.ceil((top - y0) / s) * s;
    for (let x = fx; x <= right; x += s) ctx.fillRect(Math.floor(x), top, 1, bottom - top);
    for (let y = fy; y <= bottom; y += s) ctx.fillRect(left, Math.floor(y), right - left, 1);
  }
}

// Population against generation, plain canvas lines.
function tcaChart(canvas, history) {
  const ctx = canvas.getContext("2d"), w = canvas.width, h = canvas.height;
  ctx.fillStyle = "#101018"; ctx.fillRect(0, 0, w, h);
  if (history.length < 1) return;
  const g0 = history[0][0], g1 = history[history.length - 1][0];
  let top = 1;
  for (const p of history) top = Math.max(top, p[1]);
  const pad = 4, x = (g) => pad + (g1 > g0 ? (g - g0) / (g1 - g0) : 1) * (w - 2 * pad);
  const y = (p) => h - pad - (p / top) * (h - 2 * pad - 12);
  ctx.strokeStyle = "rgb(255,214,80)"; ctx.lineWidth = 1.5; ctx.beginPath();
  history.forEach((p, i) => (i ? ctx.lineTo(x(p[0]), y(p[1])) : ctx.moveTo(x(p[0]), y(p[1]))));
  ctx.stroke();
  ctx.fillStyle = "#a0a0b0"; ctx.font = "10px sans-serif";
  ctx.fillText(`population (max ${top.toLocaleString()}), generations ${g0}-${g1}`, pad, 11);
}

const TCA_STEPS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

// The whole viewer in `root`: toolbar, board, counters, chart. Elements carry tca-* classes.
class TcaViewer {
  constructor(root, transport, options = {}) {
    this.root = root; this.transport = transport;
    this.width = options.width || 800; this.height = options.height || 520;
    this.playing = false; this.busy = false; this.history = [];
    root.classList.add("tca-root");
    root.tcaViewer = this;  // for scripts and tests: the element knows its viewer
    root.innerHTML = `
      <div class="tca-bar">
        <button class="tca-play" title="play / pause (space)">play</button>
        <button class="tca-step" title="one step (n)">step</button>
        <button class="tca-reset" title="back to the start">reset</button>
        <button class="tca-fit" title="fit the pattern (f)">fit</button>
        <label>gens/step <select class="tca-gens">${TCA_STEPS.map((n) => `<option>${n}</option>`).join("")}</select></label>
        <label>speed <input class="tca-speed" type="range" min="1" max="60" value="20"></label>
        <span class="tca-counter">gen <b class="tca-generation">0</b> pop <b class="tca-population">0</b></span>
      </div>
      <canvas class="tca-board" width="${this.width}" height="${this.height}"></canvas>
      <canvas class="tca-chart" width="${this.width}" height="90"></canvas>
      <div class="tca-status"></div>`;
    this.el = (name) => root.querySelector(".tca-" + name);
  }
  async start() {
    const info = await this.transport.info();
    this.info = info;
    this.board = new TcaBoard(this.el("board"), info.palette, info.topology !== "unbounded");
    if (!info.can_reset) this.el("reset").disabled = true;
    this.history = (await this.transport.history()).slice();
    this.bind();
    this.show(await this.transport.frame());
    if (this.transport.onFrame) this.transport.onFrame((buffer) => this.show(buffer));
    this.ready = true;
  }
  bind() {
    this.el("play").onclick = () => (this.playing ? this.pause() : this.play());
    this.el("step").onclick = () => this.advance();
    this.el("reset").onclick = () => this.request(() => this.transport.reset(), true);
    this.el("fit").onclick = () => this.board.fit();
    const canvas = this.el("board");
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const r = canvas.getBoundingClientRect();
      this.board.moved = true;
      this.board.zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.0015));
    }, { passive: false });
    let drag = null;
    canvas.addEventListener("pointerdown", (e) => { drag = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); });
    canvas.addEventListener("pointermove", (e) => {
      if (!drag) return;
      this.board.moved = true;
      this.board.setView(this.board.scale, this.board.panX + e.clientX - drag[0], this.board.panY + e.clientY - drag[1]);
      drag = [e.clientX, e.clientY];
    });
    canvas.addEventListener("pointerup", () => (drag = null));
    this.root.tabIndex = 0;
    this.root.addEventListener("keydown", (e) => {
      const act = { " ": () => this.el("play").click(), n: () => this.advance(), f: () => this.board.fit() }[e.key];
      if (act) { e.preventDefault(); act(); }
    });
  }
  show(buffer, restart = false) {
    const frame = tcaDecode(buffer);
    this.frame = frame;
    this.board.setFrame(frame);
    this.el("generation").textContent = frame.generation.toLocaleString();
    this.el("population").textContent = frame.population.toLocaleString();
    if (restart) this.history = [];
    const last = this.history[this.history.length - 1];
    if (!last || last[0] !== frame.generation) this.history.push([frame.generation, frame.population]);
    if (this.history.length > 20000) this.history.splice(0, this.history.length - 20000);
    tcaChart(this.el("chart"), this.history);
  }
  async request(call, restart = false) {
    if (this.busy) return;
    this.busy = true;
    try {
      this.show(await call(), restart);
      this.el("status").textContent = "";
    } catch (err) {
      this.el("status").textContent = String(err.message || err);
      this.pause();
    } finally {
      this.busy = false;
    }
  }
  advance() { return this.request(() => this.transport.step(Number(this.el("gens").value))); }
  async play() {
    this.playing = true; this.el("play").textContent = "pause";
    while (this.playing) {
      const t0 = performance.now();
      await this.advance();
      const wait = 1000 / Number(this.el("speed").value) - (performance.now() - t0);
      await new Promise((r) => setTimeout(r, Math.max(0, wait)));
    }
  }
  pause() { this.playing = false; this.el("play").textContent = "play"; }
}
