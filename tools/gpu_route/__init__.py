"""Training on a lent GPU machine that receives the working tree and at most 64 MiB of carried paths, and returns a
few files (docs/training.md, "Training on a lent GPU"; docs/development.md, "Repository tools").

A repository tool, not part of the installed package: a user with a GPU runs ``coherence-metric train run RECIPE``.
Three commands of ``python -m tools.gpu_route``, run from the checkout's root:

- ``export-inputs RECIPE --output DIR`` (here, :mod:`.inputs`): the recipe's documents, its dev ruler, an fp16 copy
  of its backbone and of the checkpoints it starts from or learns from, sized against one call's transfer;
- ``on-device --inputs DIR --output "$OUT"`` (there, :mod:`.on_device`): train until a deadline, keep the best
  snapshots by dev (:mod:`.pointwise_device`, :mod:`.transitions_device`), pack them as parts the device tool returns;
- ``unpack-outputs FILES --output DIR`` (here): check and unpack the checkpoints that came back.

:mod:`.transfer` holds the limits and the byte-level parts: split, join, pack, unpack.

The device machine runs the checkout it received without installing it, so importing this package first mounts the
checkout's ``training/``, ``research/`` and ``benchmarks/`` folders as ``coherence_metric.training`` etc. (as setup.py
maps them in an install); where the package is installed, that does nothing.
"""

from coherence_metric.toolkit import mount_checkout

mount_checkout()
