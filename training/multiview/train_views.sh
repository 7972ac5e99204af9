#!/usr/bin/env bash
# Train the multi-view runs of seed 004's Table 6 shape on the CPU recipes, then DiscoEval each view.
#   bash training/multiview/train_views.sh generative generative-noninvertible    # one core
#   bash training/multiview/train_views.sh discriminative                         # the other
# Runs: generative (multiview-cpu-generative.yaml), generative-noninvertible (the same with
# objective.invertible=false: g is still U^T), discriminative (multiview-cpu-discriminative.yaml). Each trains
# into runs/multiview-cpu-<run> (resuming if interrupted); then DiscoEval for view f, view g and the ensemble
# goes to runs/benchmarks/discoeval-multiview-<run>-<view>; a report that exists is skipped, and an
# interrupted DiscoEval resumes its finished tasks. One thread per job.
# Representations: POOL=mean (default) is Table 2's unsupervised column: mean(H) for f, mean(WX) for g, the
# ensemble their average; 512 numbers each, the size of the other encoders DiscoEval compares (384-600), and
# a DiscoEval in about half an hour. POOL=multi is the supervised column (f 2,048, g 1,536, ensemble 3,584 by
# concatenation): its view-f DiscoEval took 2 h 24 min, most of it the probes' classifiers on wider features;
# its reports go to ...-<view>-multi.
set -euo pipefail
cd "$(dirname "$0")/../.."
CLI="${CLI:-.venv/bin/coherence-metric}"
RUNS="${RUNS:-runs}"
read -r -a TRAIN_ARGS <<< "${TRAIN_ARGS:-}"   # e.g. TRAIN_ARGS="--set loop.max_steps=4" for a smoke check
read -r -a DISCOEVAL_ARGS <<< "${DISCOEVAL_ARGS:-}"   # e.g. DISCOEVAL_ARGS="--limit 40 --tasks SP"
ENCODER_OPTIONS="${ENCODER_OPTIONS:-}"   # appended to the encoder spec, e.g. ENCODER_OPTIONS=":device=cuda"
POOL="${POOL:-mean}"
case "$POOL" in mean) SUFFIX="" ;; multi) SUFFIX="-multi" ;; *) echo "POOL must be mean or multi" >&2; exit 2 ;; esac
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" MKL_NUM_THREADS="${MKL_NUM_THREADS:-1}"

recipe_of() {
  case "$1" in
    generative) echo "training/configs/multiview-cpu-generative.yaml" ;;
    generative-noninvertible) echo "training/configs/multiview-cpu-generative.yaml --set objective.invertible=false" ;;
    discriminative) echo "training/configs/multiview-cpu-discriminative.yaml" ;;
    *) echo "unknown run '$1' (generative generative-noninvertible discriminative)" >&2; return 1 ;;
  esac
}

[ $# -gt 0 ] || { echo "usage: $0 RUN [RUN ...]  (generative generative-noninvertible discriminative)" >&2; exit 2; }
for run in "$@"; do recipe_of "$run" > /dev/null; done
for run in "$@"; do
  output="$RUNS/multiview-cpu-$run"
  if [ ! -d "$output/final" ]; then
    echo "$(date +%H:%M) $run: training"
    # shellcheck disable=SC2046  # the recipe and its overrides are separate words on purpose
    "$CLI" train run $(recipe_of "$run") --set "loop.output_dir=$output" --quiet "${TRAIN_ARGS[@]}"
  fi
  for view in f g ensemble; do
    report_dir="$RUNS/benchmarks/discoeval-multiview-$run-$view$SUFFIX"
    if compgen -G "$report_dir/discoeval_*.json" > /dev/null; then echo "$run/$view: reported already"; continue; fi
    echo "$(date +%H:%M) $run/$view: DiscoEval"
    "$CLI" benchmark discoeval --encoder "trained:$output/best:view=$view:pool=$POOL$ENCODER_OPTIONS" --output "$report_dir" \
      --verbose "${DISCOEVAL_ARGS[@]}"
  done
done
echo "$(date +%H:%M) done: $*"
