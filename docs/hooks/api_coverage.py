"""MkDocs hook: the build fails (under --strict) when a public name is missing from the API reference or has no
docstring, so the reference cannot fall behind the code.

Public names are the ``__all__`` of the modules in ``PUBLIC_MODULES``, read from the source with ``ast`` (no import,
so no torch or Ray at build time). A name is in the reference when ``docs/reference/api.md`` has a ``::: path``
directive ending in it; its docstring, and those of its public methods, are read with griffe, the library
mkdocstrings reads them with.
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path
from typing import Any, List

log = logging.getLogger("mkdocs.hooks.api_coverage")
ROOT = Path(__file__).resolve().parents[2]

PUBLIC_MODULES = (
    "coherence_metric/__init__.py",
    "coherence_metric/distributed.py",
    "coherence_metric/integrations/hf_evaluate.py",
    "coherence_metric/integrations/torchmetrics_metric.py",
)
API_PAGE = "reference/api.md"
_DIRECTIVE = re.compile(r"^:::\s+([\w.]+)\s*$", re.MULTILINE)


def _public_names(source: Path) -> List[str]:
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "__all__" for target in node.targets):
            return [ast.literal_eval(element) for element in getattr(node.value, "elts", [])]
    log.warning("%s has no __all__: its public names cannot be checked against the API reference", source)
    return []


def _undocumented(obj: Any) -> List[str]:
    """The object's path if it has no docstring, and those of its public methods and properties without one."""
    missing = [] if obj.docstring and obj.docstring.value.strip() else [obj.path]
    if obj.kind.value == "class":
        for name, member in obj.members.items():
            if name.startswith("_") or member.is_alias or member.kind.value not in ("function", "attribute"):
                continue
            if member.kind.value == "function" and not (member.docstring and member.docstring.value.strip()):
                missing.append(member.path)
    return missing


def on_pre_build(config: Any) -> None:
    """Check every public name against the API page before any page is built."""
    import griffe

    root = ROOT
    page = (Path(config["docs_dir"]) / API_PAGE).read_text(encoding="utf-8")
    paths = _DIRECTIVE.findall(page)
    documented = {path.rsplit(".", 1)[1] for path in paths}
    for module in PUBLIC_MODULES:
        for name in _public_names(root / module):
            if name != "__version__" and name not in documented:
                log.warning("%s is public (__all__ of %s) but not in docs/%s", name, module, API_PAGE)
    package = griffe.load("coherence_metric", search_paths=[str(root)], resolve_aliases=False)
    for path in paths:
        if path.endswith("__version__"):
            continue
        try:
            obj = package[path.split(".", 1)[1]]
        except KeyError:
            log.warning("docs/%s documents %s, which does not exist", API_PAGE, path)
            continue
        for missing in _undocumented(obj):
            log.warning("%s has no docstring (documented in docs/%s)", missing, API_PAGE)
