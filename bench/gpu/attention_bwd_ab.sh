#!/usr/bin/env bash
# Two or more builds of the attention backward kernels timed against each
# other on the GPU machine, alternating (A B A B), so that the GPU's drift
# between runs falls on every build alike. Each DIR is what
# bench/gpu/prepare_attention_bwd.sh wrote (moved from .device/attn_bwd to a
# name of its own, e.g. .device/before and .device/after, and carried):
#
#   CASES="d128_atomic_kv128 d64_atomic_b128" bash bench/gpu/attention_bwd_ab.sh \
#       .device/before .device/after
#
#   CASES     the cases of bench/gpu/attention_train.py (default: all)
#   ROUNDS    how many times each build runs (default 2)
#   ANCHORS   as attention_bwd.py takes it: 1 (cuDNN, flash, JAX too),
#             0 (cuDNN only), none (ours alone; default)
#   REPS      timed batches per case (default 10)
# Prints the table rows of each run under a "== DIR round R" line, and at
# the end one line per build: whether every run's dQ dK dV matched float64
# (attention_bwd.py's exit status). Exits 1 if one did not.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 1 ] || { echo "usage: attention_bwd_ab.sh DIR [DIR...]" >&2; exit 1; }
dirs=()
for d in "$@"; do dirs+=("$(cd "$d" && pwd)"); done
declare -A failed
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  for d in "${dirs[@]}"; do
    echo "== $d round $r"
    out="$(cd "$here" && ATTN_BWD_DIR="$d" ANCHORS="${ANCHORS:-none}" REPS="${REPS:-10}" \
      python3 -u attention_bwd.py 2>&1)" || failed[$d]=1
    grep "^| \|rror" <<<"$out" | grep -v "^| case\|^|---"
  done
done
status=0
for d in "${dirs[@]}"; do
  if [ -n "${failed[$d]:-}" ]; then
    echo "numerics: $d MISMATCH or failure (see its error lines)"
    status=1
  else
    echo "numerics: $d ok in every round"
  fi
done
exit $status
