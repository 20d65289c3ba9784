"""MkDocs hook: the rule-family table, ``families.md``, generated from tensorca's family registry.

Built at every ``mkdocs build`` from :func:`tensorca.families.families` (plug-ins installed where the
site is built included), so the table always says what the registry says: each family's name (what
``tensorca verify --family`` takes), what it is, a sample rule, its cost class and the engines that run it.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

PAGE = "families.md"


def reference() -> str:
    """The page's Markdown: one row per registered family, in the order they claim rules."""
    from tensorca.families import families
    from tensorca.verify import rule_value

    lines = [
        "# Rule families",
        "",
        "Generated from the family registry (`tensorca.families`) when the site is built. A family is one",
        "folder under `src/tensorca/families/`, or a package of your own that declares it under the entry-point",
        "group `tensorca.families` (see `examples/plugin_family` and",
        "[the architecture](architecture.md#rule-families)).",
        "`tensorca rule TEXT` names a rule's family and engines; `tensorca verify --family NAME` checks every",
        "engine that runs it against the NumPy reference.",
        "",
        "| family | what it is | sample rule | cost class | engines |",
        "| --- | --- | --- | --- | --- |",
    ]
    for family in families():
        rule = rule_value(family.samples[0])
        cost_class, _ = family.cost(rule.compile())
        sample = rule.canonical().replace("|", "\\|")
        lines.append(f"| `{family.name}` | {family.title} | `{sample}` | `{cost_class}` | "
                     f"{', '.join(family.engines)} |")
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated :data:`PAGE` to the site."""
    files.append(File.generated(config, PAGE, content=reference()))
    return files
