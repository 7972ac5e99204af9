"""Training on a lent GPU machine that receives the working tree and at most 64 MiB of carried paths, and returns a
few files (docs/training.md, "Training on a lent GPU").

Three commands of ``coherence-metric train``:

- ``export-gpu-inputs RECIPE --output DIR`` (here, :mod:`.inputs`): the recipe's documents, its dev ruler, an fp16
  copy of its backbone and of the checkpoints it starts from or learns from, sized against one call's transfer;
- ``on-device --inputs DIR --output "$OUT"`` (there, :mod:`.on_device`): train until a deadline, keep the best snapshots
  by dev (:mod:`.pointwise_device`, :mod:`.transitions_device`), pack them as parts the device tool returns;
- ``unpack-gpu-outputs FILES --output DIR`` (here): check and unpack the checkpoints that came back.

:mod:`.transfer` holds the limits and the byte-level parts: split, join, pack, unpack.
"""
