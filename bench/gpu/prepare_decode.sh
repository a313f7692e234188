#!/usr/bin/env bash
# Step 1 of the decode-attention check, where pallasc is built: exports
# JAX's decode_attention.gqa kernel at several sequence lengths and compiles
# each for sm_90a into .device/decode/ (bench/gpu/export_decode.py).
# Step 2, on the GPU machine with .device/decode carried:
# python3 bench/gpu/decode_attention.py
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
#   DECODE_OUT         where the builds go (default: .device/decode)
#   DECODE_SHAPES      batch x length pairs, e.g. 2x2048,1x4096 (default:
#                      128x1024,16x8192,4x32768,1x131072)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${DECODE_OUT:-$root/.device/decode}"
rm -rf "$out" && mkdir -p "$out"
PALLASC="${PALLAS_BUILD_DIR:-$root/build}/bin/pallasc" python3 "$root/bench/gpu/export_decode.py" "$out"
"${PALLAS_BUILD_DIR:-$root/build}/bin/pallasc" --version >"$out/COMPILER"
