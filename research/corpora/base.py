"""What the corpus readers share: the registry entry type, where a corpus lives, and text -> Document."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

from coherence_metric.research.data_dir import missing_data_error, shared_data_dir
from coherence_metric.toolkit import split_sentences

from ..documents import Document

logger = logging.getLogger("coherence_metric.training")

CORPORA_FOLDER = "corpora"


def corpora_dir(data_dir: Optional[Path] = None) -> Path:
    """Return ``<shared data>/corpora``, raising an InputError that names it when it is missing.

    Args:
        data_dir: the shared data folder; ``None`` means ``coherence_metric.research.data_dir.shared_data_dir()``.

    Returns:
        The folder holding one sub-folder per corpus.
    """
    root = Path(data_dir) if data_dir is not None else shared_data_dir()
    folder = root / CORPORA_FOLDER
    if not folder.is_dir():
        raise missing_data_error("corpus folder", folder)
    return folder


@dataclass(frozen=True)
class Corpus:
    """A registry entry: a corpus name, the folder it is read from, and its reader.

    Attributes:
        name: the key in ``CORPORA`` and the prefix of every document id.
        folder: the sub-folder of ``<shared data>/corpora`` (the reader may look at only some files in it).
        reader: given that folder, yields the corpus's documents in a fixed order.
        description: one line for ``--help`` and the manifest.
        held_out_only: every document goes to the test split (the corpus is a benchmark stand-in, never trained on).
    """

    name: str
    folder: str
    reader: Callable[[Path], Iterator[Document]]
    description: str
    held_out_only: bool = False

    def path(self, data_dir: Optional[Path] = None) -> Path:
        """Return the corpus folder, raising an InputError naming it when it is missing.

        Args:
            data_dir: the shared data folder; ``None`` finds it the usual way.

        Returns:
            The existing folder.
        """
        folder = corpora_dir(data_dir) / self.folder
        if not folder.is_dir():
            raise missing_data_error(f"data folder for corpus {self.name!r}", folder)
        return folder

    def documents(self, data_dir: Optional[Path] = None) -> Iterator[Document]:
        """Yield the corpus's documents (every one with at least one sentence), in the reader's fixed order.

        Args:
            data_dir: the shared data folder; ``None`` finds it the usual way.

        Returns:
            An iterator of Documents.
        """
        return self.reader(self.path(data_dir))


def require_file(path: Path) -> Path:
    """Return ``path`` if it is a file, else raise an InputError naming it (a partial copy of the data)."""
    if not path.is_file():
        raise missing_data_error("corpus file", path)
    return path


def make_document(
    source: str, local_id: str, paragraphs: Iterable[str], title: Optional[str] = None
) -> Optional[Document]:
    """Split paragraphs into sentences with the project splitter and wrap them in a Document.

    Paragraph boundaries are always sentence boundaries; inside a paragraph, line breaks are plain spaces
    (hard-wrapped text), so the splitter alone decides where sentences end, as it does at scoring time.

    Args:
        source: the corpus name; the document id becomes ``"<source>:<local_id>"``.
        local_id: an id unique inside the corpus and stable across runs.
        paragraphs: the document's paragraphs in order.
        title: the headline, kept out of the sentences.

    Returns:
        The Document, or ``None`` when no sentence is left (an empty body).
    """
    text = "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)
    sentences = split_sentences(text)
    if not sentences:
        return None
    clean_title = " ".join(title.split()) if title else None
    return Document(id=f"{source}:{local_id}", source=source, sentences=sentences, title=clean_title or None)


def decode_text(raw: bytes) -> str:
    """Decode a corpus file as UTF-8, or latin-1 where it is not (some old files mix both), with LF line ends."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
