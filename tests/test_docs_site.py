"""The documentation site (issue 36): built with ``mkdocs build --strict``, links checked, pages opened.

The site is built into a temporary directory with ``--strict`` (any warning fails the build), unless
``$TENSORCA_DOCS_SITE`` names one already built that way: ``make test`` builds ``build/site`` just
before pytest and passes it, so the pytest workers do not each build their own. Then, without a
browser: every ``href``/``src`` to a local page or file resolves, with its ``#anchor`` where it has
one; the navigation reaches every page; every public name has an API entry; the CLI reference has
every subcommand. With headless Chromium (tests/chromium.py; skipped, with a message, where none is
installed): every page, served over HTTP, loads with a title, a heading and text in its main
content, every request it makes goes to the site and succeeds, and no script throws.
"""

from __future__ import annotations

import functools
import http.server
import importlib
import importlib.util
import os
import posixpath
import subprocess
import sys
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType, SimpleNamespace
from urllib.parse import unquote, urlsplit

import pytest

import tensorca
from tensorca.cli import COMMANDS

from .chromium import chromium

ROOT = Path(__file__).resolve().parents[1]
#: The API pages and the module whose ``__all__`` each documents (errors: the classes tensorca exports).
API_PAGES = {f"api/{name}.html": f"tensorca.{name}" for name in
             ("io", "data", "nn", "lenia", "spins", "sandpile", "margolus", "hashlife", "analysis", "render", "view",
              "families")}
#: Exported names documented under the path that defines them: a submodule has the same name (so griffe
#: sees the module there), or the top-level name is a wrapper that imports the real function on use.
DEFINED_AT = {
    "tensorca.verify": "tensorca.verify.verify",
    "tensorca.stabilize": "tensorca.sandpile.api.stabilize",
    "tensorca.elementary": "tensorca.elementary.elementary",
    "tensorca.bench": "tensorca.benchmark.bench",
    "tensorca.soup_census": "tensorca.search.distributed.soup_census",
    "tensorca.analysis.apgcode": "tensorca.analysis.apgcode.apgcode",
    "tensorca.analysis.census": "tensorca.analysis.census.census",
    "tensorca.analysis.objects": "tensorca.analysis.census.objects",
    "tensorca.analysis.classify": "tensorca.analysis.classify.classify",
    "tensorca.render.frames": "tensorca.render.frames.frames",
    "tensorca.render.gif": "tensorca.render.gif.gif",
    "tensorca.render.mp4": "tensorca.render.mp4.mp4",
}


class Parsed(HTMLParser):
    """One HTML page: its ids (and names), its links to local files, and its ``<title>``."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        self.ids.update(values[key] for key in ("id", "name") if key in values)
        for key in ("href", "src"):
            target = values.get(key)
            if target is not None and not urlsplit(target).scheme and not target.startswith("//"):
                self.links.append(target)
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site's directory: ``$TENSORCA_DOCS_SITE``, else built here with ``--strict``."""
    if os.environ.get("TENSORCA_DOCS_SITE"):
        return Path(os.environ["TENSORCA_DOCS_SITE"]).resolve()
    pytest.importorskip("mkdocs", reason="the [docs] extra is not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}{done.stderr}"
    return out


@pytest.fixture(scope="module")
def pages(site: Path) -> dict[str, Parsed]:
    """Every HTML page of the site, parsed: ``path relative to the site (posix) -> Parsed``."""
    parsed = {}
    for path in sorted(site.rglob("*.html")):
        page = Parsed()
        page.feed(path.read_text(encoding="utf-8"))
        parsed[path.relative_to(site).as_posix()] = page
    assert "index.html" in parsed and "api/index.html" in parsed and "cli.html" in parsed, sorted(parsed)
    return parsed


def resolve(site: Path, page: str, link: str) -> tuple[str, str]:
    """``link`` on ``page`` as ``(file relative to the site, anchor)``; the file is "" when it is outside.
    An absolute path is from the site's root (404.html's links: it is served for any missing path)."""
    parts = urlsplit(link)
    if not parts.path:
        return page, unquote(parts.fragment)
    base = "/" if parts.path.startswith("/") else posixpath.dirname(page)
    target = posixpath.normpath(posixpath.join(base, unquote(parts.path))).lstrip("/")
    if target.startswith("../") or target == "..":
        return "", parts.fragment
    if (site / target).is_dir():
        target = posixpath.join(target, "index.html")
    return target, unquote(parts.fragment)


def test_every_internal_link_and_anchor_resolves(site: Path, pages: dict[str, Parsed]) -> None:
    broken = []
    for name, page in pages.items():
        for link in page.links:
            target, anchor = resolve(site, name, link)
            if not target or not (site / target).is_file():
                broken.append(f"{name}: {link} (no such file in the site)")
            elif anchor and target.endswith(".html") and anchor not in pages[target].ids:
                broken.append(f"{name}: {link} (no #{anchor} in {target})")
    assert not broken, "\n".join(broken)
    assert sum(len(page.links) for page in pages.values()) > 1000  # the check saw the site's links


def test_the_navigation_reaches_every_page(site: Path, pages: dict[str, Parsed]) -> None:
    """Every page of docs/ (and the generated ones) is in the menu, so none is an orphan: the user guide
    in its index's order (docs/hooks/guide_nav.py), the README's, changelog's and benchmarks' links
    mapped into the site (docs/hooks/outside_files.py)."""
    linked = {resolve(site, "index.html", link)[0] for link in pages["index.html"].links}
    sources = {path.relative_to(ROOT / "docs").with_suffix(".html").as_posix()
               for path in (ROOT / "docs").rglob("*.md") if "hooks" not in path.parts}
    expected = sources | {"cli.html", "changelog.html", "benchmarks.html"}
    assert expected <= set(pages)
    assert not expected - linked, f"pages missing from the navigation: {sorted(expected - linked)}"


def test_every_public_name_has_an_api_entry(pages: dict[str, Parsed]) -> None:
    """Each name of ``tensorca.__all__`` and of the documented subpackages' ``__all__`` is a heading of
    the API reference: under its import path, or under :data:`DEFINED_AT`'s path."""
    missing = []
    errors = {name for name in tensorca.__all__ if name.endswith("Error")}
    wanted = [("api/index.html", "tensorca", name) for name in tensorca.__all__ if name not in errors]
    wanted += [("api/errors.html", "tensorca.errors", name) for name in sorted(errors)]
    for page, module in API_PAGES.items():
        wanted += [(page, module, name) for name in importlib.import_module(module).__all__]
    for page, module, name in wanted:
        path = f"{module}.{name}"
        if DEFINED_AT.get(path, path) not in pages[page].ids:
            missing.append(f"{DEFINED_AT.get(path, path)} (on {page})")
    assert not missing, f"public names without an API entry: {missing}"


def _hook(name: str) -> ModuleType:
    """The MkDocs hook ``docs/hooks/<name>.py``, imported from its file."""
    pytest.importorskip("mkdocs", reason="the [docs] extra is not installed (pip install -e '.[docs]')")
    spec = importlib.util.spec_from_file_location(f"hook_{name}", ROOT / "docs" / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_links_to_top_level_files_are_retargeted_into_the_site() -> None:
    """docs/hooks/outside_files.py: a link that leaves docs/ for README/CHANGELOG/BENCHMARKS becomes a link
    to its page; other links, and links inside code blocks, stay as written; the added pages' own links
    (written from the repository's root) are made relative to where the page lies in the site."""
    hook = _hook("outside_files")
    config = SimpleNamespace(config_file_path=str(ROOT / "mkdocs.yml"), docs_dir=str(ROOT / "docs"))

    def rewrite(src_uri: str, markdown: str) -> str:
        return hook.on_page_markdown(markdown, SimpleNamespace(file=SimpleNamespace(src_uri=src_uri)), config, None)

    source = ("[a](../../README.md) [b](../../CHANGELOG.md#unreleased) ![i](../images/x.png) [e](../lenia.md)\n"
              "[f](../../src/tensorca/io/rle.py) [u](https://example.com/README.md) [h](#here)\n"
              "```text\n[c](../../README.md)\n```\n[d]: ../../BENCHMARKS.md\n")
    assert rewrite("guide/x.md", source) == (
        "[a](../index.md) [b](../changelog.md#unreleased) ![i](../images/x.png) [e](../lenia.md)\n"
        "[f](../../src/tensorca/io/rle.py) [u](https://example.com/README.md) [h](#here)\n"
        "```text\n[c](../../README.md)\n```\n[d]: ../benchmarks.md\n")
    assert rewrite("changelog.md", "[g](docs/guide/index.md) [r](README.md) [s](BENCHMARKS.md#x)") == (
        "[g](guide/index.md) [r](index.md) [s](benchmarks.md#x)")


def test_the_guide_menu_follows_the_index_table(tmp_path: Path) -> None:
    """docs/hooks/guide_nav.py: the index first, then each page its table links to, in the table's order."""
    hook = _hook("guide_nav")
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "index.md").write_text(
        "# Guide\n\n| page | what |\n| --- | --- |\n| [B](b.md) | ... |\n| [A](a.md#part) | ... |\n"
        "| [B again](b.md) | ... |\n\nNot a row: [C](c.md)\n")
    assert hook.guide_pages(tmp_path) == ["guide/index.md", "guide/b.md", "guide/a.md"]


def test_the_cli_reference_has_every_subcommand(pages: dict[str, Parsed], site: Path) -> None:
    text = (site / "cli.html").read_text(encoding="utf-8")
    for name, _module, _summary in COMMANDS:
        assert f"tensorca-{name}" in pages["cli.html"].ids, name
        assert f"usage: tensorca {name}" in text, name
    assert "--gens GENS" in text and "--checkpoint-every N" in text  # options, not only the usage lines


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        """Nothing on stderr per request."""


@pytest.fixture
def served(site: Path) -> Iterator[str]:
    """The site served on 127.0.0.1 (a free port) in a thread; yields its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    thread.join(5)


RENDERED = """new Promise((resolve, reject) => {
    const t0 = Date.now();
    const poll = () => {
        if (document.readyState !== 'complete') {
            return Date.now() - t0 > 15000 ? reject(new Error('page did not load')) : setTimeout(poll, 20);
        }
        const main = document.querySelector('article.md-content__inner');
        const h1 = main && main.querySelector('h1');
        resolve({title: document.title, h1: h1 ? h1.textContent.trim() : '',
                 text: main ? main.innerText.trim().length : 0, url: location.href});
    };
    poll(); })"""


def test_every_page_renders_in_chromium(pages: dict[str, Parsed], served: str, tmp_path: Path) -> None:
    with chromium(tmp_path / "profile") as tools:
        tools.call("Runtime.enable")
        tools.call("Network.enable")
        problems = []
        for name in pages:
            if name == "404.html":
                continue
            tools.call("Page.navigate", url=served + name)
            shown = tools.evaluate(RENDERED)
            if not shown["url"].endswith(name):
                problems.append(f"{name}: opened {shown['url']}")
            if "tensorca" not in shown["title"] or not shown["h1"] or shown["text"] < 100:
                problems.append(f"{name}: title {shown['title']!r}, heading {shown['h1']!r}, "
                                f"{shown['text']} characters of content")
        for event in tools.events:
            params = event.get("params", {})
            if event.get("method") == "Network.requestWillBeSent" and not params["request"]["url"].startswith(
                    (served, "data:", "blob:")):
                problems.append(f"a request outside the site: {params['request']['url']}")
            elif event.get("method") == "Runtime.exceptionThrown":
                problems.append(f"script error: {params['exceptionDetails']}")
            elif event.get("method") == "Network.responseReceived" and params["response"]["status"] >= 400:
                problems.append(f"HTTP {params['response']['status']}: {params['response']['url']}")
            elif event.get("method") == "Network.loadingFailed" and not params.get("canceled"):
                problems.append(f"request failed: {params.get('errorText')} ({params.get('type')})")
    assert not problems, "\n".join(problems)
