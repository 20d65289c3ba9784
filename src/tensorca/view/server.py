"""A local web viewer: one page (inline JS/CSS, nothing from outside) and packed frames over HTTP.

``serve(pattern, rule=...)`` binds 127.0.0.1 on a free port, prints the URL, opens the default
browser (unless ``open_browser=False``) and serves until Ctrl-C. Standard library only.

Routes (the page uses nothing else):

- ``GET /``: the page. ``GET /info``: JSON (rule, topology, n_states, continuous, palette,
  title, can_reset). ``GET /history``: JSON ``[[generation, population], ...]``.
- ``GET /frame`` (``?gen=N`` to seek), ``POST /step?n=k``, ``POST /reset``: one packed frame
  (:mod:`tensorca.view.protocol`), ``application/octet-stream``.

Every request path is recorded in ``server.requests`` (the browser test checks the page asks
for nothing else).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from functools import lru_cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, TextIO
from urllib.parse import parse_qs, urlsplit

from ..errors import TensorcaError, UsageError
from .source import Simulation, from_pattern

LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: Only the page's own origin may be contacted; inline script and style only.
CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "connect-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'")


@lru_cache(maxsize=1)
def page() -> bytes:
    """The viewer page with the shared drawing code (``static/core.js``) inlined."""
    static = resources.files("tensorca.view") / "static"
    html = (static / "viewer.html").read_text(encoding="utf-8")
    core = (static / "core.js").read_text(encoding="utf-8")
    return html.replace("/*@CORE@*/", core).encode("utf-8")


class ViewerServer(ThreadingHTTPServer):
    """The HTTP server of one :class:`Simulation`; ``url`` is where the page is."""

    daemon_threads = True

    def __init__(self, simulation: Simulation, host: str = "127.0.0.1", port: int = 0) -> None:
        if host not in LOOPBACK:
            raise UsageError(f"the viewer serves only this machine (127.0.0.1, localhost, ::1), not {host!r}")
        if host == "::1":
            self.address_family = socket.AF_INET6
        self.simulation = simulation
        self.requests: list[str] = []
        self._log_lock = threading.Lock()
        try:
            super().__init__((host, port), ViewerHandler)
        except OSError as exc:  # port taken, no IPv6 loopback
            raise UsageError(f"the viewer cannot listen on {host} port {port}: {exc.strerror or exc}") from exc

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://[{host}]:{port}/" if ":" in str(host) else f"http://{host}:{port}/"

    def record(self, path: str) -> None:
        with self._log_lock:
            self.requests.append(path)


class ViewerHandler(BaseHTTPRequestHandler):
    """Answers the routes in the module docstring."""

    server: ViewerServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet: the path log is kept instead
        pass

    def _answer(self, method: str) -> None:
        parts = urlsplit(self.path)
        self.server.record(parts.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if method == "POST":  # drain the body (none is used); a length that is no small number is refused
            length = (self.headers.get("Content-Length") or "0").strip()
            if not (length.isascii() and length.isdigit()) or int(length) > MAX_BODY:
                self.close_connection = True  # the body was not read: the connection cannot be reused
                self._send(HTTPStatus.BAD_REQUEST, f"Content-Length must be 0..{MAX_BODY}".encode(), "text/plain")
                return
            self.rfile.read(int(length))
        route = _ROUTES.get((method, parts.path))
        if route is None:
            missing = HTTPStatus.NO_CONTENT if parts.path == "/favicon.ico" else HTTPStatus.NOT_FOUND
            self._send(missing, b"", "text/plain")
            return
        try:
            body, kind = route(self.server.simulation, query)
        except (TensorcaError, ValueError) as exc:  # bad n or gen, a rule the engine refuses
            self._send(HTTPStatus.BAD_REQUEST, str(exc).encode("utf-8"), "text/plain; charset=utf-8")
            return
        self._send(HTTPStatus.OK, body, kind)

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if status != HTTPStatus.NO_CONTENT:
            self.wfile.write(body)


#: Largest request body drained (the viewer's POSTs carry none).
MAX_BODY = 1 << 16


def _int(query: dict[str, str], name: str, default: int) -> int:
    text = query.get(name)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{name} must be an integer, got {text!r}") from None


OCTETS, JSON, HTML = "application/octet-stream", "application/json", "text/html; charset=utf-8"
_ROUTES: dict[tuple[str, str], Callable[[Simulation, dict[str, str]], tuple[bytes, str]]] = {
    ("GET", "/"): lambda sim, q: (page(), HTML),
    ("GET", "/index.html"): lambda sim, q: (page(), HTML),
    ("GET", "/info"): lambda sim, q: (json.dumps(sim.describe()).encode(), JSON),
    ("GET", "/history"): lambda sim, q: (json.dumps(sim.history).encode(), JSON),
    ("GET", "/frame"): lambda sim, q: (sim.seek(_int(q, "gen", -1)) if "gen" in q else sim.frame(), OCTETS),
    ("POST", "/step"): lambda sim, q: (sim.step(_int(q, "n", 1)), OCTETS),
    ("POST", "/reset"): lambda sim, q: (sim.reset(), OCTETS),
}


def serve(source: Any, *, rule: Any = None, backend: str = "auto", host: str = "127.0.0.1", port: int = 0,
          open_browser: bool = True, title: str | None = None, out: TextIO | None = None,
          ready: Callable[[ViewerServer], None] | None = None) -> int:
    """Serve the viewer until Ctrl-C; returns 0 (the CLI's exit status).

    ``source``: a :class:`Simulation` (any engine: a ``step(n)`` function and the first frame), or
    a :class:`~tensorca.Pattern` / ``(H, W)`` array run by :func:`tensorca.run` with ``rule`` and
    ``backend``. ``host``: a loopback address only. ``port``: 0 picks a free one. The URL is
    printed to ``out`` (stdout); ``open_browser`` also opens it. ``ready(server)`` is called once
    the server listens (tests use it to learn the URL and to stop it with ``server.shutdown()``).
    """
    simulation = source if isinstance(source, Simulation) else from_pattern(source, rule, backend, title=title)
    server = ViewerServer(simulation, host, port)
    stream = out if out is not None else sys.stdout
    print(f"tensorca view: {server.url}  (Ctrl-C to stop)", file=stream, flush=True)
    if open_browser:
        webbrowser.open(server.url)
    if ready is not None:
        ready(server)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        print("tensorca view: stopped", file=stream, flush=True)
    finally:
        server.server_close()
    return 0
