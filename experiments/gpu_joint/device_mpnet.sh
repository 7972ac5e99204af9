#!/bin/bash
# The accurate tier's GPU run (issue 52), the last of four calls on one warm device machine. The first three each
# carried one part of all-mpnet-base-v2's fp16 weights (.dev/gpum-partN, made by export_inputs --split-mb 55) and
# copied it to /tmp/bb; this one carries the last part and the inputs (.dev/gpum), joins the weights (every sha256
# checked), trains the recipe as written for DEADLINE seconds (the step count fitted to it) and packs the snapshots,
# their dev numbers and their dev scores to $OUT.
#   run(command="bash experiments/gpu_joint/device_mpnet.sh 330", carry=[".dev/gpum", ".dev/gpum-part4"])
set -euo pipefail
export PYTHONUNBUFFERED=1
DEADLINE=${1:-330}
mkdir -p /tmp/bb
cp .dev/gpum-part4/* /tmp/bb/
python3 -m experiments.gpu_joint.join_parts --parts /tmp/bb --backbone .dev/gpum/backbone
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
python3 -m experiments.gpu_joint.train_variants --inputs .dev/gpum --work /tmp/runs --out "$OUT" \
    --recipe training/configs/gpu-mpnet-lora-joint.yaml --variants as-written --workers 12 --deadline "$DEADLINE"
