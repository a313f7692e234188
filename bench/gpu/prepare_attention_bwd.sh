#!/usr/bin/env bash
# Step 1 of the attention training check, where pallasc is built: exports
# the forward and backward kernels of each function of
# bench/gpu/attention_train.py (pallasc_jax --vjp, bf16 (f16 for JAX's
# Pallas:MGPU attention), B=4 S=4096 H=16) and compiles each for sm_90a and
# the triton target (sm_90a alone for Pallas:MGPU), into
# .device/attn_bwd/CASE/ (chain.json and KERNEL/ as exported; {sm_90a,triton}/:
# the chain pallasc compiled; sm_90a_unfused/: without its scan fusion, where
# that changed the chain; sm_90a_torch/: built with --emit torch).
# Step 2, on the GPU machine with .device/attn_bwd carried:
# python3 bench/gpu/attention_bwd.py
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
#   CASES              the functions to export (default: all)
#   SHAPE              B,S,H (default 4,4096,16; 1,256,2 for compute-sanitizer)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
out="$root/.device/attn_bwd"
cases="${CASES:-$(cd "$root/bench/gpu" && python3 -c 'import attention_train as a; print(" ".join(a.CASES))')}"
rm -rf "$out" && mkdir -p "$out"
for c in $cases; do
  # Head dim, dtype and targets (a Pallas:MGPU case: f16, sm_90a only).
  read -r d dtype targets < <(cd "$root/bench/gpu" && python3 -c "
import attention_train as a
_, d, _, o = a.case('$c')
print(d, o['dtype'], ' '.join(o['targets']))")
  IFS=, read -r b s h <<<"${SHAPE:-4,4096,16}"
  arg="$dtype[$b,$s,$h,$d]"
  for t in $targets; do
    (cd "$root/bench/gpu" && PYTHONPATH="$root/python" python3 -m pallasc_jax \
      "attention_train:$c" --vjp --arg "$arg" --arg "$arg" --arg "$arg" \
      -o "$out/$c" -t "$t" --pallasc "$bin/pallasc")
  done
  # Where pallasc rewrote the chain (scan fusion), the chain as exported
  # too, for the same run: CASE/sm_90a_unfused/.
  if ! cmp -s "$out/$c/chain.json" "$out/$c/sm_90a/chain.json"; then
    "$bin/pallasc" "$out/$c/chain.json" -t sm_90a --scan-fusion=never -o "$out/$c/sm_90a_unfused"
  fi
  # The chain's PyTorch op with autograd (--emit torch): CASE/sm_90a_torch/,
  # its ops named after the case (every case's function is f), so that one
  # process loads them all.
  if [[ " $targets " == *" sm_90a "* && "${TORCH_OP:-1}" == 1 ]]; then
    (cd "$root/bench/gpu" && PYTHONPATH="$root/python" python3 -m pallasc_jax \
      "attention_train:$c" --vjp --arg "$arg" --arg "$arg" --arg "$arg" --name "$c" \
      -o "$out/$c/torch_export")
    "$bin/pallasc" "$out/$c/torch_export/chain.json" -t sm_90a --emit torch \
      -o "$out/$c/sm_90a_torch"
    rm -rf "$out/$c/torch_export"
  fi
done
"$bin/pallasc" --version >"$out/COMPILER"
echo "${SHAPE:-4,4096,16}" >"$out/SHAPE"
