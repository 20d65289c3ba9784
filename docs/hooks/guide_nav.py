"""MkDocs hook: the user guide's navigation, in the order of the table in ``docs/guide/index.md``.

``mkdocs.yml`` lists only ``guide/index.md`` under "User guide"; this hook appends every page that the
index's table links to, in the table's order, so a new guide page needs one row in the index and
nothing else (and the menu cannot fall out of step with the index).
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig

SECTION = "User guide"
INDEX = "guide/index.md"
_ROW = re.compile(r"^\|\s*\[[^\]]+\]\(([^)#\s]+\.md)(?:#[^)\s]*)?\)", re.MULTILINE)  # | [title](page.md#part) |


def guide_pages(docs_dir: Path) -> list[str]:
    """The guide's pages: the index, then each page its table links to, in order."""
    table = _ROW.findall((docs_dir / INDEX).read_text(encoding="utf-8"))
    return [INDEX, *(f"guide/{page}" for page in dict.fromkeys(table))]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Fill the nav's :data:`SECTION` with :func:`guide_pages`."""
    for entry in config.nav or []:
        if isinstance(entry, dict) and SECTION in entry:
            entry[SECTION] = guide_pages(Path(config.docs_dir))
            return config
    raise ValueError(f"mkdocs.yml's nav has no {SECTION!r} section for docs/hooks/guide_nav.py to fill")
