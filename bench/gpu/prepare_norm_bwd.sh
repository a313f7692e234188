#!/usr/bin/env bash
# Step 1 of the norm training check, where pallasc is built: exports the
# forward and backward kernels of bench/gpu/norm_train.py's functions
# (pallasc_jax --vjp) and compiles each chain for sm_90a with its PyTorch
# ops (pallasc CHAIN.json --emit torch), into .device/norm_bwd/CASE/.
# Also builds examples/torch_training for sm_90a into .device/training.
# Step 2, on the GPU machine with .device/norm_bwd and .device/training
# carried: python3 bench/gpu/norm_bwd.py; python3 examples/torch_training/main.py .device/training
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
out="$root/.device/norm_bwd"
rm -rf "$out" && mkdir -p "$out"
x="bf16[8,1024,4096]"; w="bf16[4096]"
for c in layer_norm_bf16 rms_norm_bf16; do
  (cd "$root/bench/gpu" && PYTHONPATH="$root/python" python3 -m pallasc_jax \
    "norm_train:$c" --vjp --arg "$x" --arg "$w" --arg "$w" -o "$out/jax/$c")
  "$bin/pallasc" "$out/jax/$c/chain.json" -t sm_90a -o "$out/$c" --emit torch
done
rm -rf "$root/.device/training"
PALLASC="$bin/pallasc" "$root/examples/torch_training/build.sh" "$root/.device/training" sm_90a
"$bin/pallasc" --version >"$out/COMPILER"
