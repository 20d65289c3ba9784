"""MkDocs hook: the repository's top-level Markdown files in the documentation site.

Pages in ``docs/`` link to ``../../README.md``, ``../../CHANGELOG.md`` and ``../../BENCHMARKS.md``,
links that work where the repository is read (GitHub, an editor) but point outside ``docs_dir``, so
``mkdocs build --strict`` would reject them. This hook keeps those sources as they are and, at build
time:

- adds :data:`PAGES` to the site, each read from the repository file itself (no copy to go stale);
- rewrites every relative link, in ``docs/`` pages and in those added pages alike, that resolves (from
  where its file lies in the repository) to a file in :data:`TARGETS`, into a link to that file's page
  in the site. The README's page is the site's home page, which says what the README says.

A link to any other file outside ``docs/`` is left alone, so MkDocs reports it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

#: The repository files added to the site: ``repository path -> page``.
PAGES: dict[str, str] = {"CHANGELOG.md": "changelog.md", "BENCHMARKS.md": "benchmarks.md"}
#: Where a link to a repository file outside ``docs/`` goes: ``repository path -> page``.
TARGETS: dict[str, str] = {"README.md": "index.md", **PAGES}

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"(\]\()(<?)([^)\s>]+)(>?)")  # [text](target "title"): group 3 is the target
_REFERENCE = re.compile(r"^( {0,3}\[[^\]]+\]:[ \t]*)(<?)(\S+?)(>?)(?=\s|$)", re.MULTILINE)


def _root(config: MkDocsConfig) -> Path:
    """The repository's root: the folder of ``mkdocs.yml``."""
    return Path(config.config_file_path).resolve().parent


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add each of :data:`PAGES` to the site, read from the repository file."""
    for source, page in PAGES.items():
        files.append(File.generated(config, page, abs_src_path=str(_root(config) / source)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """``markdown`` with its links to :data:`TARGETS` made links to their pages (code blocks untouched)."""
    root = _root(config)
    docs = Path(config.docs_dir).resolve().relative_to(root).as_posix()
    here = page.file.src_uri
    origin = {added: source for source, added in PAGES.items()}.get(here, f"{docs}/{here}")  # in the repository

    def retarget(match: re.Match[str]) -> str:
        target = match.group(3)
        if re.match(r"^[a-z][a-z0-9+.-]*:|^[#/]", target, re.IGNORECASE):  # a URL, an anchor, an absolute path
            return match.group(0)
        path, hash_, anchor = target.partition("#")
        in_repository = posixpath.normpath(posixpath.join(posixpath.dirname(origin), path))
        if in_repository in TARGETS:
            site_page = TARGETS[in_repository]
        elif here in PAGES.values() and in_repository.startswith(f"{docs}/"):  # an added page into docs/
            site_page = in_repository[len(docs) + 1:]
        else:
            return match.group(0)
        link = posixpath.relpath(site_page, posixpath.dirname(here) or ".")
        return f"{match.group(1)}{match.group(2)}{link}{hash_}{anchor}{match.group(4)}"

    def rewrite(text: str) -> str:
        return _REFERENCE.sub(retarget, _INLINE.sub(retarget, text))

    parts, last = [], 0
    for fence in _FENCE.finditer(markdown):
        parts += [rewrite(markdown[last:fence.start()]), fence.group(0)]
        last = fence.end()
    return "".join([*parts, rewrite(markdown[last:])])


def on_serve(server: Any, config: MkDocsConfig, builder: Any) -> Any:
    """``mkdocs serve``: rebuild when one of :data:`PAGES` changes."""
    for source in PAGES:
        server.watch(str(_root(config) / source))
    return server
