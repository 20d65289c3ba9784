"""Headless Chromium for the browser tests, driven over the DevTools protocol (stdlib only).

:func:`chromium` starts it (or skips the test, with a message, where no Chromium binary is installed:
Debian's ``apt-get install chromium``, or ``TENSORCA_CHROMIUM=/path/to/chrome``) and yields a
:class:`DevTools` attached to its one page: a minimal WebSocket client (RFC 6455, client side, text
frames). Used by tests/test_view_browser.py (the viewer) and tests/test_docs_site.py (the docs site).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

#: Chromium's command-line flags besides the profile and the DevTools port.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--window-size=1000,800")


def chromium_binary() -> str | None:
    """The Chromium to drive: ``$TENSORCA_CHROMIUM``, else the first of Debian's and Google's names on the PATH."""
    for name in (os.environ.get("TENSORCA_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class DevTools:
    """A minimal WebSocket client (RFC 6455, client side, text frames) speaking the DevTools protocol."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=15)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head
        self.next_id = 0
        self.events: list[dict] = []

    def _recv(self) -> bytes:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("DevTools closed the connection")
        return chunk

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self.buffer += self._recv()
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def send(self, text: str) -> None:
        payload, mask = text.encode(), os.urandom(4)
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                struct.pack(">BH", 0x80 | 126, n) if n < 65536 else struct.pack(">BQ", 0x80 | 127, n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self) -> dict:
        message = b""
        while True:
            first, second = self._read(2)
            n = second & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            message += self._read(n)
            if first & 0x80:  # FIN
                return json.loads(message)

    def call(self, method: str, **params: object) -> dict:
        self.next_id += 1
        self.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def evaluate(self, expression: str) -> object:
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error: {result['exceptionDetails']}")
        return result["result"].get("value")


@contextlib.contextmanager
def chromium(profile: Path) -> Iterator[DevTools]:
    """Headless Chromium with its profile in ``profile`` and remote debugging on 127.0.0.1; yields a
    :class:`DevTools` attached to its page, and ends the browser on exit. Skips the calling test when
    no Chromium binary is installed."""
    binary = chromium_binary()
    if binary is None:
        pytest.skip("no Chromium binary (install Debian's 'chromium' or set TENSORCA_CHROMIUM) - browser test skipped")
    flags = [*FLAGS, f"--user-data-dir={profile}", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0"]
    process = subprocess.Popen([binary, *flags, "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 15
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail("Chromium did not open its DevTools port")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:
            targets = json.load(response)
        target = next(t for t in targets if t.get("type") == "page")
        tools = DevTools(target["webSocketDebuggerUrl"])
        try:
            yield tools
        finally:
            tools.sock.close()
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
