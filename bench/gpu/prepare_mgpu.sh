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
export_case() { # module, function[:directory], targets, args...
  local module=$1 fn=${2%%:*} case=${2#*:} targets=$3; shift 3
  python3 -m pallasc_jax "$module:$fn" "$@" -o "$out/$case/src"
  for t in $targets; do
    "$bin/pallasc" "$out/$case/src/kernel.mlir" --spec "$out/$case/src/spec.json" \
      -t "$t" -o "$out/$case/$t" --emit torch
  done
}
export_case mgpu_cases add_one "sm_90a host" --arg 'f32[128]'
export_case mgpu_cases matmul "sm_90a host" --arg 'f16[4096,4096]' --arg 'f16[4096,4096]'
export_case mgpu_cases matmul:matmul_bf16_8192 sm_90a --arg 'bf16[8192,8192]' --arg 'bf16[8192,8192]'
# A small one for compute-sanitizer (bench/gpu/mgpu_sanitize.py), and its
# twin without warpgroup turns for racecheck (which cannot follow them).
python3 -m pallasc_jax mgpu_cases:matmul --arg 'f16[512,512]' --arg 'f16[512,512]' -o "$out/matmul_small/src"
"$bin/pallasc" "$out/matmul_small/src/kernel.mlir" --spec "$out/matmul_small/src/spec.json" \
  -t sm_90a -o "$out/matmul_small/sm_90a"
"$bin/pallasc" "$out/matmul_small/src/kernel.mlir" --spec "$out/matmul_small/src/spec.json" \
  -t sm_90a --no-warpgroup-turns -o "$out/matmul_small/sm_90a_racecheck"
# Kernels of several warpgroups (and emit_pipeline rings) run on the host
# target so far: their host builds are checked against JAX's GPU run.
export_case mgpu_cases warp_specialized host --arg 'f16[64,64]'
for k in attention attention_causal attention_pipeline; do
  export_case mgpu_shipped $k host --arg 'f16[1,256,2,128]' --arg 'f16[1,256,2,128]' --arg 'f16[1,256,2,128]'
done
export_case mgpu_shipped hopper_matmul host --arg 'bf16[256,512]' --arg 'bf16[512,512]'
export_case mgpu_shipped hopper_mixed_type_matmul host --arg 'i8[256,256]' --arg 'bf16[256,256]'
export_case mgpu_shipped ragged_dot host --arg 'bf16[256,256]' --arg 'bf16[2,256,256]' --arg 'i32[2]'
"$bin/pallasc" --version >"$out/COMPILER"
