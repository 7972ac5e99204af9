"""Cut training items to their first 3-8 sentences (INSTED-WIKI's texts are 3-8 sentence article leads)."""

from __future__ import annotations

import random
from typing import List, Sequence

from coherence_metric.training.data.examples import TrainingItem


def crop_half(items: Sequence[TrainingItem], seed: int, permutations: int) -> List[TrainingItem]:
    """Half of the items (seeded) cut to their first k in [3, 8] sentences when longer, with fresh permutations.

    The permutations are drawn here rather than with ``coherence_metric.training.data.permutations.negative_orders``
    because these are the draws MODELS.md's numbers were measured with; that helper would draw different orders.

    Args:
        items: prepared training items.
        seed: seeds the choice of items, their k and their permutations.
        permutations: permutations drawn per cut item (fewer when k = 3 has only 5 other orders).
    """
    rng = random.Random(f"crop:{seed}")
    result = []
    for item in items:
        keep = rng.randint(3, 8)
        if rng.random() < 0.5 and len(item.pos) > keep:
            orders = set()
            wanted = min(permutations, 5) if keep == 3 else permutations
            while len(orders) < wanted:
                order = list(range(keep))
                rng.shuffle(order)
                if order != sorted(order):
                    orders.add(tuple(order))
            item = TrainingItem(id=item.id, doc_id=item.doc_id, source=item.source, pos=item.pos[:keep],
                                negs=[list(order) for order in sorted(orders)], tokens=item.tokens)
        result.append(item)
    return result
