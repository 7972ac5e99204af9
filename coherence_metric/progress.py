"""Progress bars for long scoring jobs: one per pass over the texts, on stderr, only when asked for.

A score call makes up to two passes: the document model over length-sorted batches of token ids, then (for a
checkpoint with a sentence-level term) the sentence encoder over batches of distinct sentences, which on the default
takes about as long again. A bar over the first pass alone stopped at 100% and then sat still for as long, so each
pass has its own bar, named. tqdm comes with transformers (through huggingface-hub); it is imported only when a
bar is shown.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, TypeVar

Item = TypeVar("Item")

DOCUMENTS = "coherence: documents"
SENTENCES = "coherence: sentences"


def with_progress(items: Iterable[Item], enabled: bool, description: str, total: int) -> Iterator[Item]:
    """``items``, with a bar of ``total`` steps named ``description`` on stderr when ``enabled``."""
    if not enabled:
        yield from items
        return
    from tqdm.auto import tqdm

    bar: Any = tqdm(items, desc=description, total=total, unit="batch")
    try:
        yield from bar
    finally:
        bar.close()
