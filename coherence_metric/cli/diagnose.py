"""``coherence-metric diagnose FILE``: does the score lean on sentence count, word count, case or tokenisation?"""

from __future__ import annotations

import click

from ..errors import InputError
from ..settings import ScorerSettings
from .group import cli
from .options import build_scorer, input_options_for, model_options, read_all


@cli.command("diagnose", short_help="Does the score lean on length, case or tokenisation?")
@click.argument("file")
@input_options_for(("text", "json"))
@model_options
def diagnose_command(file: str, input_format: str, field: str, output_format: str, model: str,
                     settings: ScorerSettings) -> None:
    """Mean score by sentence count, Spearman with length, and how much lower-casing or PTB-style
    tokenising the texts in FILE moves their scores (a coherence score should barely move)."""
    inputs = read_all([file], input_format, field)
    if len(inputs) < 2:
        name = "<stdin>" if file == "-" else file
        raise InputError(f"{name} holds {len(inputs)} text as read with -i {input_format}: diagnose needs at "
                         "least 2 (one text per line: -i lines; one per JSON line: -i jsonl)")
    scorer = build_scorer(model, settings)
    from ..diagnostics import diagnose, render_report

    report = diagnose([item.text for item in inputs], scorer)
    click.echo(report.to_json(indent=2) if output_format == "json" else render_report(report))
