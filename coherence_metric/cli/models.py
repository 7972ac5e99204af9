"""``coherence-metric models``: the checkpoints this installation can use without the network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import click

from ..errors import CheckpointError, ModelNotFoundError
from ..install_hints import ARCHIVE_HINT
from ..models.checkpoint_config import CONFIG_NAME, read_checkpoint_config
from ..models.registry import (
    DEFAULT_MODEL,
    PACKAGED_CHECKPOINTS_DIR,
    packaged_checkpoint_folders,
    packaged_folder,
    read_alias_table,
)
from .group import cli


def _cached_hub_checkpoints() -> List[Tuple[str, str]]:
    """(repo id, revision) of Hub checkpoints in the local HF cache (repos holding a coherence config)."""
    try:
        from huggingface_hub import scan_cache_dir

        info = scan_cache_dir()
    except Exception:  # no cache folder yet, or an unreadable one: nothing cached to list
        return []
    found = []
    for repo in info.repos:
        for revision in repo.revisions:
            if any(file.file_name == CONFIG_NAME for file in revision.files):
                found.append((repo.repo_id, revision.commit_hash[:12]))
    return sorted(found)


def _fingerprint(name: str, folders: Dict[str, Path], archived: Dict[str, str]) -> str:
    """The packaged checkpoint's fingerprint, read from its config alone (no torch, no weights hashed): the value
    its signatures carry. A config that does not read, or an archived one that is not the pinned one, is shown as
    such rather than ending the listing."""
    try:
        return read_checkpoint_config(packaged_folder(name, folders, archived)).fingerprint()
    except (CheckpointError, ModelNotFoundError) as error:
        return f"unusable: {error}"


DESCRIPTIONS_NAME = "descriptions.json"


def packaged_descriptions() -> Dict[str, str]:
    """One line per packaged checkpoint saying what it is for (``checkpoints/descriptions.json``); an unreadable
    file gives none rather than ending the listing."""
    try:
        data = json.loads((PACKAGED_CHECKPOINTS_DIR / DESCRIPTIONS_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return {name: text for name, text in data.items() if isinstance(text, str) and not name.startswith("_")}


def _listing() -> Dict[str, Any]:
    """Everything ``models`` prints, as one JSON-ready mapping."""
    descriptions = packaged_descriptions()
    folders = packaged_checkpoint_folders()
    table = read_alias_table(sorted(folders))
    return {
        "packaged_dir": str(PACKAGED_CHECKPOINTS_DIR),
        "packaged": [{"name": name, "fingerprint": _fingerprint(name, folders, table.archived),
                      "description": descriptions.get(name, ""),
                      "folder": str(folder)} for name, folder in sorted(folders.items())],
        "archived_not_installed": sorted(set(table.archived) - set(folders)),
        "aliases": table.aliases,
        "hub_cache": [{"repo_id": repo_id, "revision": commit} for repo_id, commit in _cached_hub_checkpoints()],
    }


def _echo_entries(entries: List[Dict[str, Any]]) -> None:
    for entry in entries:
        click.echo(f"  {entry['name']:<28} {entry['fingerprint']}")
        if entry["description"]:
            click.echo(f"      {entry['description']}")


def _echo_text(listing: Dict[str, Any]) -> None:
    """This package's checkpoints first, then each checkpoint pack's (past defaults live in one), then aliases."""
    home = listing["packaged_dir"]
    by_folder: Dict[str, List[Dict[str, Any]]] = {home: []}
    for entry in listing["packaged"]:
        by_folder.setdefault(str(Path(entry["folder"]).parent), []).append(entry)
    own = by_folder.pop(home)
    click.echo(f"packaged ({home}):")
    _echo_entries(own)
    if not own:
        click.echo("  (none)")
    for pack, entries in sorted(by_folder.items()):
        click.echo(f"checkpoint pack ({pack}):")
        _echo_entries(entries)
    if listing["archived_not_installed"]:
        click.echo(f"archived, not installed ({ARCHIVE_HINT}):")
        for name in listing["archived_not_installed"]:
            click.echo(f"  {name}")
    click.echo("aliases:")
    for alias, target in sorted(listing["aliases"].items()):
        click.echo(f"  {alias} -> {target}")
    if DEFAULT_MODEL not in listing["aliases"]:
        click.echo(f"  {DEFAULT_MODEL}: not shipped yet in this version")
    click.echo("Hugging Face cache:")
    for entry in listing["hub_cache"]:
        click.echo(f"  {entry['repo_id']:<28} @{entry['revision']}")
    if not listing["hub_cache"]:
        click.echo("  (none)")


@cli.command("models", short_help="List usable checkpoints and what each is for.")
@click.option("--format", "-f", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Output format.")
def models_command(output_format: str) -> None:
    """List packaged checkpoints (immutable names, fingerprints), their aliases, and cached Hub checkpoints."""
    listing = _listing()
    if output_format == "json":
        click.echo(json.dumps(listing, indent=2))
    else:
        _echo_text(listing)
