"""MkDocs hook: the repository's root pages (MODELS.md, MODEL_HISTORY.md, CHANGELOG.md) included into ``docs/``
keep working links between them.

They link to each other as files beside each other, and into the docs as ``docs/PAGE.md``, for GitHub. Included
with a snippet line into docs/models.md, a link to MODEL_HISTORY.md would point at docs/MODEL_HISTORY.md, and one to
docs/training.md at docs/docs/training.md, which do not exist, and the strict build fails; the snippet extension runs
after every hook that sees Markdown, so this hook does these includes itself, points each root name at the page that
includes it and drops the ``docs/`` of a link into the docs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: Root page -> the docs page that includes it.
ROOT_PAGES = {"MODELS.md": "models.md", "MODEL_HISTORY.md": "model-history.md", "CHANGELOG.md": "changelog.md"}
_LINK = re.compile(r"\]\((?P<name>" + "|".join(re.escape(name) for name in ROOT_PAGES) + r")(?P<anchor>#[^)]*)?\)")
_INCLUDE = re.compile(r'^--8<-- "(?P<name>' + "|".join(re.escape(name) for name in ROOT_PAGES) + r')"$', re.M)
#: A root page's link into the docs folder (``docs/training.md#...``), which from a docs page is ``training.md#...``.
_DOCS_LINK = re.compile(r"\]\(docs/")


def relinked(markdown: str) -> str:
    """``markdown`` with links to a root page turned into links to the docs page that includes it, and links into
    ``docs/`` made relative to the docs folder."""
    markdown = _LINK.sub(lambda match: f"]({ROOT_PAGES[match.group('name')]}{match.group('anchor') or ''})", markdown)
    return _DOCS_LINK.sub("](", markdown)


def _root_file(name: str, config: Any) -> Path:
    """Where the snippet extension would find ``name``: its ``base_path`` folders (relative to the working
    directory, as it reads them), else beside the docs folder."""
    snippets = (config.get("mdx_configs") or {}).get("pymdownx.snippets") or {}
    bases = snippets.get("base_path", ["."])
    for base in [bases] if isinstance(bases, str) else bases:
        if (Path(base) / name).is_file():
            return Path(base) / name
    return Path(config["docs_dir"]).resolve().parent / name


def on_page_markdown(markdown: str, page: Any, config: Any, **kwargs: Any) -> str:
    """A page that includes a root page whole gets its text, relinked (other snippet lines are left to the
    snippet extension)."""
    return _INCLUDE.sub(lambda match: relinked(_root_file(match.group("name"), config).read_text(encoding="utf-8")),
                        markdown)
