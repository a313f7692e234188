#!/usr/bin/env bash
# Step 1 of the launch benchmark, where pallasc is built: compiles the small
# kernels whose cost per call is mostly launch cost (layernorm 2048x768,
# softmax 4096x1000, vector add of 2^16, 2^20 and 2^24 f32) and a TMA GEMM
# (tensor maps in every launch) for sm_90a with --emit torch and
# --emit xla-ffi into .device/launch/<case>/, and builds the C header's
# benchmark (bench/gpu/launch/c_launch.c) against each header, linked with
# the CUDA driver stub, so the GPU machine needs no compiler for it.
# Step 2, on the GPU machine with .device/launch carried:
#   python3 bench/gpu/launch/launch.py
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
#   PALLAS_SHARED_DIR  where conformance/ lives (default: ../shared)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
conf="${PALLAS_SHARED_DIR:-$root/../shared}/conformance"
out="$root/.device/launch"
cuda="${CUDA_HOME:-/usr/local/cuda}"
rm -rf "$out" && mkdir -p "$out"

compile() { # case kernel.mlir spec.json
  "$bin/pallasc" "$2" --spec "$3" -t sm_90a -o "$out/$1" --emit torch --emit xla-ffi
  "$bin/pallasc" "$2" --spec "$3" -t host -o "$out/$1/host"
}
compile layernorm "$root/bench/kernels/layernorm_2048x768/kernel.mlir" \
  "$root/bench/kernels/layernorm_2048x768/spec.json"
compile softmax "$conf/softmax/kernel.mlir" "$conf/softmax/spec.json"
for log in 16 20 24; do
  n=$((1 << log))
  mkdir -p "$out/specs"
  # Named apart: each size is an op of its own (pallasc::vector_add_16, ...).
  sed -e "s/67108864/$n/g; s/\"grid\": \[65536\]/\"grid\": [$((n / 1024))]/" \
      -e "s/\"kernel\": \"vector_add\",/\"kernel\": \"vector_add\", \"name\": \"vector_add_$log\",/" \
    "$root/bench/kernels/vector_add/spec.json" >"$out/specs/vector_add_$log.json"
  compile "vector_add_$log" "$root/bench/kernels/vector_add/kernel.mlir" \
    "$out/specs/vector_add_$log.json"
done
"$bin/pallasc" "$root/bench/kernels/gemm_f16_4096/kernel.mlir" \
  --spec "$root/bench/kernels/gemm_f16_4096/spec.json" -t sm_90a -o "$out/gemm_f16_4096" \
  --emit torch

# The C benchmark, once per header: KERNEL, its array count, its sizes.
build_c() { # case kernel arrays [flags...]
  local flags=("${@:4}")
  grep -q "define $2_TENSOR_MAPS " "$out/$1/$2.h" && flags+=(-DPALLAS_HAS_MAPS)
  grep -q "define $2_PERSISTENT " "$out/$1/$2.h" && flags+=(-DPALLAS_PERSISTENT)
  if grep -q "define $2_CLUSTER_X " "$out/$1/$2.h"; then
    echo "prepare_launch.sh: error: $2 launches in clusters; c_launch.c does not" >&2
    exit 1
  fi
  cc -std=c99 -O2 -Wall -Wextra -Werror -I "$out/$1" -I "$cuda/include" "${flags[@]}" \
    -DPALLAS_KERNEL="$2" -DPALLAS_ARRAYS="$3" "$root/bench/gpu/launch/c_launch.c" \
    -L "$cuda/lib64/stubs" -lcuda -lpthread -o "$out/$1/c_launch"
}
build_c layernorm layernorm 4
build_c softmax softmax 2
for log in 16 20 24; do build_c "vector_add_$log" "vector_add_$log" 3; done
cc -std=c99 -O2 -Wall -Wextra -Werror -I "$out/vector_add_16" -I "$cuda/include" \
  "$root/bench/gpu/launch/c_contexts.c" -L "$cuda/lib64/stubs" -lcuda -lpthread \
  -o "$out/vector_add_16/c_contexts"
# 4096 ones summed: 4096.0 in f16 is 0x6C00.
build_c gemm_f16_4096 gemm_f16_4096 3 -DPALLAS_EXPECT_F16=0x6C00
"$bin/pallasc" --version >"$out/COMPILER" 2>&1
git -C "$root" rev-parse HEAD >>"$out/COMPILER" 2>/dev/null || true
echo "prepare_launch.sh: .device/launch ready"
