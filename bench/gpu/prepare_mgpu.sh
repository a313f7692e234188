#!/usr/bin/env bash
# Step 1 of the Pallas:MGPU GPU check, where pallasc is built: exports the
# plgpu kernels of test/Python/Inputs/mgpu_cases.py with pallasc_jax at the
# sizes bench/gpu/mgpu.py runs, and compiles each for sm_90a and host into
# .device/mgpu/<case>/, each with its PyTorch op (--emit torch). Step 2, on the GPU machine with .device carried:
# python3 bench/gpu/mgpu.py.
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
out="$root/.device/mgpu"
rm -rf "$out" && mkdir -p "$out"
export PYTHONPATH="$root/python"
cd "$root/test/Python/Inputs"
export_case() { # case, args...
  local case=$1; shift
  python3 -m pallasc_jax "mgpu_cases:$case" "$@" -o "$out/$case/src"
  for t in sm_90a host; do
    "$bin/pallasc" "$out/$case/src/kernel.mlir" --spec "$out/$case/src/spec.json" \
      -t "$t" -o "$out/$case/$t" --emit torch
  done
}
export_case add_one --arg 'f32[128]'
export_case matmul --arg 'f16[4096,4096]' --arg 'f16[4096,4096]'
"$bin/pallasc" --version >"$out/COMPILER"
