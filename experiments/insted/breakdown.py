"""Accuracy on an intrusion set (INSTED-WIKI, NEWS-INTRUSION) by text length and by the replaced sentence's position.

    python -m experiments.insted.breakdown INSTED-WIKI [name=@fingerprint ...]

Systems: the fine-tuned model alone (head), the default and adjacent cosine, plus any ``name=needle`` given (a
checkpoint fingerprint such as ``@1a2b3c4d5e6f`` whose ``--limit 500`` scores are cached).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from typing import Dict, List

from experiments.insted.cached import COSINE, DEFAULT, HEAD, cached_scores, load_test_set


def main(argv: List[str]) -> None:
    name = argv[0]
    needles = {"head": HEAD, "default": DEFAULT, "cos": COSINE}
    needles.update(arg.split("=", 1) for arg in argv[1:])
    test_set, _, pos_index, neg_index = load_test_set(name)
    systems = {label: cached_scores(name, needle) for label, needle in needles.items()}
    tables: Dict[str, Dict[object, List[Dict[str, bool]]]] = {kind: defaultdict(list)
                                                               for kind in ("len", "pos", "last")}
    for i, item in enumerate(test_set):
        position = next(j for j, (a, b) in enumerate(zip(item.pos, item.neg)) if a != b)
        n = len(item.pos)
        right = {label: s[pos_index[i]] > s[neg_index[i]] for label, s in systems.items()}
        for kind, key in (("len", min(n, 8)), ("pos", position), ("last", "last" if position == n - 1 else "inner")):
            tables[kind][key].append(right)
    for kind, table in tables.items():
        for key in sorted(table, key=str):
            cells = table[key]
            accuracy = {label: round(100 * sum(c[label] for c in cells) / len(cells), 1) for label in systems}
            print(kind, key, len(cells), accuracy)


if __name__ == "__main__":
    main(sys.argv[1:])
