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
# Prints the table rows of each run under a "== DIR round R" line.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 1 ] || { echo "usage: attention_bwd_ab.sh DIR [DIR...]" >&2; exit 1; }
dirs=()
for d in "$@"; do dirs+=("$(cd "$d" && pwd)"); done
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  for d in "${dirs[@]}"; do
    echo "== $d round $r"
    (cd "$here" && ATTN_BWD_DIR="$d" ANCHORS="${ANCHORS:-none}" REPS="${REPS:-10}" \
      python3 -u attention_bwd.py 2>&1 | grep "^| \|rror" | grep -v "^| case\|^|---")
  done
done
