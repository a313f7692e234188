#!/usr/bin/env bash
# Step 1 of the GQA attention check, where pallasc is built: compiles
# bench/kernels/flash_attention_s4096 for sm_90a twice, as multi-head
# attention (spec.json: 64 query heads, 64 K/V heads) and as grouped-query
# attention (spec_gqa4.json: 64 query heads sharing 16 K/V heads, the
# index map b floordiv 4), into .device/gqa/{mha,gqa4}/.
# Step 2, on the GPU machine with .device/gqa carried:
# python3 bench/gpu/attention_gqa.py
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
k="$root/bench/kernels/flash_attention_s4096"
out="$root/.device/gqa"
rm -rf "$out" && mkdir -p "$out"
"$bin/pallasc" "$k/kernel.mlir" --spec "$k/spec.json" -t sm_90a -o "$out/mha"
"$bin/pallasc" "$k/kernel.mlir" --spec "$k/spec_gqa4.json" -t sm_90a -o "$out/gqa4"
"$bin/pallasc" --version >"$out/COMPILER"
