#!/usr/bin/env bash
# Step 1 of the grouped-GEMM check, where pallasc is built: compiles the
# grouped GEMMs of bench/kernels (grouped_gemm[_rows]_bf16_g*) for sm_90a and
# sm_80 into .device/grouped/<kernel>/, the sm_80 PTX also assembled for
# sm_90 (sm_80_on_sm_90/: our sm_80 code on the H100), and the small
# examples (520 rows, 5 groups) for compute-sanitizer.
# Step 2, on the GPU machine with .device/grouped carried:
# python3 bench/gpu/grouped_gemm.py (GROUPED_SMALL=1 under compute-sanitizer)
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
. "$root/bench/gpu/sm80_on_hopper.sh"
out="$root/.device/grouped"
rm -rf "$out" && mkdir -p "$out"
build() { # kernel directory, spec, destination
  "$bin/pallasc" "$1/kernel.mlir" --spec "$2" -t sm_90a -o "$3/sm_90a"
  "$bin/pallasc" "$1/kernel.mlir" --spec "$2" -t sm_80 -o "$3/sm_80"
  [ "$2" -ef "$3/spec.json" ] || cp "$2" "$3/spec.json"
  sm80_on_hopper "$3/sm_80" && [ -d "$3/sm_80_on_sm_90" ]
}
for k in grouped_gemm_bf16_g8 grouped_gemm_bf16_g64 grouped_gemm_rows_bf16_g8 grouped_gemm_rows_loop_bf16_g8 \
         grouped_gemm_rows_bf16_g64 grouped_gemm_rows_loop_bf16_g64; do
  build "$root/bench/kernels/$k" "$root/bench/kernels/$k/spec.json" "$out/$k"
done
# The small one (examples/grouped_matmul: 520 x 512 x 256, 5 groups, so
# tiles straddle groups and the last row tile overhangs).
small="$out/small" && mkdir -p "$small"
build "$root/examples/grouped_matmul" "$root/examples/grouped_matmul/spec.json" "$small"
# The same as the TPU's megablox writes it (sequential grid axes, merged by
# select): examples/grouped_matmul_sequential.
rows="$out/small_rows" && mkdir -p "$rows"
build "$root/examples/grouped_matmul_rows" "$root/examples/grouped_matmul_rows/spec.json" "$rows"
seq="$out/small_sequential" && mkdir -p "$seq"
build "$root/examples/grouped_matmul_sequential" "$root/examples/grouped_matmul_sequential/spec.json" "$seq"
"$bin/pallasc" --version >"$out/COMPILER"
