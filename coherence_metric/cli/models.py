"""``coherence-metric models``: the checkpoints this installation can use without the network."""

from __future__ import annotations

from typing import List, Tuple

import click

from ..checkpoint_config import CONFIG_NAME
from ..registry import DEFAULT_MODEL, PACKAGED_CHECKPOINTS_DIR, packaged_checkpoints
from . import cli


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


@cli.command("models")
def models_command() -> None:
    """List packaged checkpoints and coherence checkpoints in the Hugging Face cache."""
    packaged = packaged_checkpoints()
    click.echo(f"packaged ({PACKAGED_CHECKPOINTS_DIR}):")
    if DEFAULT_MODEL not in packaged:
        click.echo(f"  {DEFAULT_MODEL:<28} not shipped yet in this version")
    for name in packaged:
        click.echo(f"  {name}")
    cached = _cached_hub_checkpoints()
    click.echo("Hugging Face cache:")
    for repo_id, commit in cached:
        click.echo(f"  {repo_id:<28} @{commit}")
    if not cached:
        click.echo("  (none)")
