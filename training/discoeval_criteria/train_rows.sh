#!/usr/bin/env bash
# Train rows of Chen et al. (2019) Table 2 with training/configs/discoeval-cpu.yaml, then run DiscoEval on each.
#   bash training/discoeval_criteria/train_rows.sh nsp sdt spp nl          # one core
#   bash training/discoeval_criteria/train_rows.sh spp-nl sdt-nl sdt-spp all   # the other
# Rows: nsp (Baseline), sdt, spp, nl, spp-nl, sdt-nl, sdt-spp, all. Each trains into runs/discoeval-cpu-<row>
# (resuming if interrupted) and reports into runs/benchmarks/discoeval-criteria-<row>; a row whose report exists
# is skipped. One thread per job: run at most one script per core.
set -euo pipefail
cd "$(dirname "$0")/../.."
CLI="${CLI:-.venv/bin/coherence-metric}"
RECIPE="${RECIPE:-training/configs/discoeval-cpu.yaml}"   # e.g. RECIPE=training/configs/discoeval-smoke.yaml
RUNS="${RUNS:-runs}"
read -r -a TRAIN_ARGS <<< "${TRAIN_ARGS:-}"   # e.g. TRAIN_ARGS="--set loop.max_steps=4"
read -r -a DISCOEVAL_ARGS <<< "${DISCOEVAL_ARGS:-}"   # e.g. DISCOEVAL_ARGS="--limit 40 --tasks SP" for a smoke check
ENCODER_OPTIONS="${ENCODER_OPTIONS:-}"   # appended to the encoder spec, e.g. ENCODER_OPTIONS=":device=cuda"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" MKL_NUM_THREADS="${MKL_NUM_THREADS:-1}"

losses_of() {
  case "$1" in
    nsp) echo "[nsp]" ;;
    sdt) echo "[nsp, sdt]" ;;
    spp) echo "[nsp, spp]" ;;
    nl) echo "[nsp, nl]" ;;
    spp-nl) echo "[nsp, spp, nl]" ;;
    sdt-nl) echo "[nsp, sdt, nl]" ;;
    sdt-spp) echo "[nsp, sdt, spp]" ;;
    all) echo "[nsp, nl, spp, sdt]" ;;
    *) echo "unknown row '$1' (nsp sdt spp nl spp-nl sdt-nl sdt-spp all)" >&2; return 1 ;;
  esac
}

[ $# -gt 0 ] || { echo "usage: $0 ROW [ROW ...]  (nsp sdt spp nl spp-nl sdt-nl sdt-spp all)" >&2; exit 2; }
for row in "$@"; do losses_of "$row" > /dev/null; done
for row in "$@"; do
  report_dir="$RUNS/benchmarks/discoeval-criteria-$row"
  if compgen -G "$report_dir/discoeval_*.json" > /dev/null; then echo "$row: reported already ($report_dir)"; continue; fi
  echo "$(date +%H:%M) $row: training"
  "$CLI" train run "$RECIPE" --set "objective.losses=$(losses_of "$row")" \
    --set "loop.output_dir=$RUNS/discoeval-cpu-$row" --quiet "${TRAIN_ARGS[@]}"
  echo "$(date +%H:%M) $row: DiscoEval"
  "$CLI" benchmark discoeval --encoder "trained:$RUNS/discoeval-cpu-$row/best$ENCODER_OPTIONS" \
    --output "$report_dir" --verbose "${DISCOEVAL_ARGS[@]}"
done
echo "$(date +%H:%M) done: $*"
