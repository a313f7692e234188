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
# The in-order form of a case (sm_90a_in_order): its ops in program order,
# loads staged by the CUDA pipeline, beside the default (the kernel's own
# schedule).
in_order() { # case
  "$bin/pallasc" "$out/$1/src/kernel.mlir" --spec "$out/$1/src/spec.json" \
    -t sm_90a --plgpu-schedule in-order -o "$out/$1/sm_90a_in_order" --emit torch
}
export_case mgpu_cases add_one "sm_90a host" --arg 'f32[128]'
export_case mgpu_cases matmul "sm_90a host" --arg 'f16[4096,4096]' --arg 'f16[4096,4096]'
in_order matmul
export_case mgpu_cases matmul:matmul_bf16_8192 sm_90a --arg 'bf16[8192,8192]' --arg 'bf16[8192,8192]'
in_order matmul_bf16_8192
export_case mgpu_cases pipelined_matmul "sm_90a host" --arg 'f16[4096,4096]' --arg 'f16[4096,4096]'
export_case mgpu_cases pipelined_matmul:pipelined_matmul_bf16_8192 sm_90a \
  --arg 'bf16[8192,8192]' --arg 'bf16[8192,8192]'
# (The in-order form cannot take emit_pipeline's rings: slots picked at run
# time.) Small ones for compute-sanitizer (bench/gpu/mgpu_sanitize.py):
# each form, and the in-order one without warpgroup turns for racecheck
# (which cannot follow them).
for k in matmul pipelined_matmul; do
  python3 -m pallasc_jax "mgpu_cases:$k" --arg 'f16[512,512]' --arg 'f16[512,512]' -o "$out/${k}_small/src"
  small() { "$bin/pallasc" "$out/${k}_small/src/kernel.mlir" --spec "$out/${k}_small/src/spec.json" -t sm_90a "$@"; }
  small -o "$out/${k}_small/sm_90a"
done
"$bin/pallasc" "$out/matmul_small/src/kernel.mlir" --spec "$out/matmul_small/src/spec.json" \
  -t sm_90a --plgpu-schedule in-order --no-warpgroup-turns -o "$out/matmul_small/sm_90a_racecheck"
# Kernels of several warpgroups: the warp-specialized one on sm_90a too,
# JAX's shipped ones on the host target so far; all checked against JAX's
# GPU run.
export_case mgpu_cases warp_specialized "sm_90a host" --arg 'f16[64,64]'
export_case mgpu_cases pipelined_add sm_90a --arg 'f32[4096,128]' --arg 'f32[4096,128]'
# A reducing TMA store (f32 add).
export_case mgpu_cases reduce_store sm_90a --arg 'f32[256,64]'
for k in attention attention_causal attention_pipeline; do
  export_case mgpu_shipped $k "sm_90a host" --arg 'f16[1,256,2,128]' --arg 'f16[1,256,2,128]' --arg 'f16[1,256,2,128]'
done
# JAX's attention at the size its own benchmark runs (B 4, S 4096, 16
# heads; D 128 and 64; causal and not) on sm_90a.
for d in 128 64; do
  qkv="--arg f16[4,4096,16,$d] --arg f16[4,4096,16,$d] --arg f16[4,4096,16,$d]"
  export_case mgpu_shipped "attention_bench:attention_d$d" sm_90a $qkv
  export_case mgpu_shipped "attention_bench_causal:attention_causal_d$d" sm_90a $qkv
done
export_case mgpu_shipped hopper_matmul "sm_90a host" --arg 'bf16[256,512]' --arg 'bf16[512,512]'
for n in 4096 8192; do
  export_case mgpu_shipped "hopper_matmul_bench:hopper_matmul_$n" sm_90a --arg "bf16[$n,$n]" --arg "bf16[$n,$n]"
  export_case mgpu_shipped "hopper_matmul_cluster_bench:hopper_matmul_cluster_$n" sm_90a \
    --arg "bf16[$n,$n]" --arg "bf16[$n,$n]"
done
# In clusters of two blocks (multicast B tiles, a ClusterBarrier); the
# small one for compute-sanitizer too.
export_case mgpu_shipped hopper_matmul_cluster "sm_90a host" --arg 'bf16[512,256]' --arg 'bf16[256,512]'
export_case mgpu_shipped hopper_mixed_type_matmul "sm_90a host" --arg 'i8[256,256]' --arg 'bf16[256,256]'
export_case mgpu_shipped ragged_dot "sm_90a host" --arg 'bf16[256,256]' --arg 'bf16[2,256,256]' --arg 'i32[2]'
export_case mgpu_shipped transposed_ragged_dot "sm_90a host" --arg 'bf16[256,256]' --arg 'bf16[256,256]' --arg 'i32[2]'
# At the sizes JAX's own benchmarks of them run.
export_case mgpu_shipped hopper_mixed_type_matmul_bench:mixed_type_matmul_bench sm_90a \
  --arg 'i8[4096,4096]' --arg 'bf16[4096,8192]'
export_case mgpu_shipped ragged_dot_bench sm_90a \
  --arg 'f16[16384,2048]' --arg 'f16[16,2048,16384]' --arg 'i32[16]'
export_case mgpu_shipped transposed_ragged_dot_bench sm_90a \
  --arg 'f16[16384,2048]' --arg 'f16[16384,2048]' --arg 'i32[16]'
"$bin/pallasc" --version >"$out/COMPILER"
