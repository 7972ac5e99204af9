"""``coherence-metric explain FILE``: each text's sentences with a score per transition, the breaks flagged by kind."""

from __future__ import annotations

import json
from typing import Any, List, Tuple

import click

from ..analysis.mechanism_names import AUTO, FALLBACK, MECHANISMS
from ..analysis.sentence_breaks import KIND_NOTES
from ..inputs.units import BODY, KINDS
from ..settings import ScorerSettings
from .group import cli
from .labels import display_name, errors_named_by_label, escape_label
from .options import build_scorer, input_options_for, model_options, read_all

#: What each mechanism's numbers are, printed under the text output.
MECHANISM_NOTES = {
    "local-term": "the checkpoint's trained sentence-pair term: each adjacent pair scored alone",
    "pair-alone": "each adjacent pair scored alone by the document model, as a two-sentence text",
    "cut-drop": "the text's score minus the mean score of its two parts cut at the boundary",
    "window": "the score of the two sentences before and the two after the boundary",
    "adjacent-cosine": "the cosine of the two sentences' pretrained all-MiniLM-L6-v2 embeddings, the same for every "
                       "checkpoint",
    "transition-model": "the shipped transition model's logit that the sentence follows the two before it, below 0 "
                        "where it reads a break; the same for every checkpoint",
    "transition-cosine": "the shipped transition model's logit that the sentence follows the two before it, moved "
                         "down or up as the two sentences' all-MiniLM-L6-v2 cosine is below or above its usual value; "
                         "below 0 where it reads a break; the same for every checkpoint",
}


def _strongest_first(text: Any) -> str:
    """The text's flags, strongest first, by the sentence numbers printed above."""
    return ", ".join(f"{flag.index + 1} {flag.kind}" for flag in text.flags)


def _unit_line(sentence: str, width: int) -> str:
    """A unit as printed: a code block's later lines indented under its first, so the numbers stay in one column."""
    return sentence.replace("\n", "\n  " + " " * width + "  ")


def _render(result: Any, labels: List[str], cap: int) -> None:
    unread = False
    for label, text in zip(labels, result.texts):
        count = len(text.sentences)
        # Escaped as score's text output does: a file name holding a newline added a line of its own choosing.
        click.echo(f"== {escape_label(label)}  score {text.score:.4f}  ({count} sentence{'s' if count != 1 else ''})")
        width = len(str(count))
        kinds = text.kinds
        for index, (sentence, unit) in enumerate(zip(text.sentences, text.units)):
            mark = f"  <- {kinds[index]}: {KIND_NOTES[kinds[index]]}" if kinds[index] else ""
            if unit not in BODY:
                mark, unread = f"  [{unit}]", True
            click.echo(f"  {index + 1:>{width}}  {_unit_line(sentence, width)}{mark}")
            if index < len(text.transitions):
                click.echo(f"  {'':>{width}}      {text.transitions[index]:+.4f}")
        if len(text.flags) > 1:
            click.echo(f"  flagged, strongest first: {_strongest_first(text)}")
        if text.note:
            click.echo(f"  ({text.note})")
    click.echo(f"transitions: {result.mechanism} ({MECHANISM_NOTES[result.mechanism]}); higher reads as more "
               "coherent")
    if unread:
        click.echo(f"units in brackets ({', '.join(kind for kind in KINDS if kind not in BODY)}): read by the score, "
                   "never flagged, and no break is read into or out of them")
    if not result.calibrated:
        click.echo(f"flags: uncalibrated for this checkpoint (thresholds set with {result.calibration.checkpoint}, "
                   "whose score units may differ): read them as a rough guide")
    elif result.calibration.rates is not None:
        click.echo(result.calibration.rates.line(cap, result.calibration.checkpoint))
    click.echo(f"signature: {result.signature}")


@cli.command("explain")
@click.argument("files", nargs=-1, required=True)
@input_options_for(("text", "json"))
@click.option("--mechanism", type=click.Choice((AUTO,) + MECHANISMS), default=AUTO, show_default=True,
              help=f"What scores a transition: auto = the checkpoint's local term where it has one, else {FALLBACK} "
                   "(the fallback the localisation benchmark chose on dev documents).")
@click.option("--flag", "flagged", type=click.IntRange(min=1), default=1, show_default=True,
              help="The most sentences flagged per text: a cap, not a quota (only sentences beyond a threshold set "
                   "on dev data are flagged, so a coherent text can show none).")
@model_options
def explain_command(files: Tuple[str, ...], input_format: str, field: str, output_format: str, mechanism: str,
                    flagged: int, model: str, settings: ScorerSettings) -> None:
    """Show where the texts in FILES break (- for stdin; -i lines/paragraphs/jsonl: many texts per file): each
    text's sentences, a score for each transition between adjacent sentences (higher reads as more coherent), the
    sentences beyond a threshold flagged with the kind of break (cohesion, duplication, relevance), and the text's
    score."""
    from ..analysis.explain import check_has_transitions

    inputs = read_all(list(files), input_format, field)
    scorer = build_scorer(model, settings)
    labels = [item.label for item in inputs]
    with errors_named_by_label(labels):  # "text 1" -> "special.txt:2", as score and compare name them
        result = scorer.explain([item.text for item in inputs], mechanism=mechanism, flagged=flagged)
    check_has_transitions(result, ", ".join(display_name(path) for path in files))
    if output_format == "json":
        data = result.to_dict()
        for entry, label in zip(data["texts"], labels):
            entry["label"] = label
        click.echo(json.dumps(data, indent=2))
    else:
        _render(result, labels, flagged)
