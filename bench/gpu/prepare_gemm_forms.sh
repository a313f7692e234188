#!/usr/bin/env bash
# Step 1 of the GEMM-forms check, where pallasc is built: compiles the
# GEMM kernels of bench/kernels written as users write them (a sequential
# grid axis with a scratch accumulator: *_grid_k) and the in-kernel K loop
# they are measured against, for sm_90a and sm_80, into .device/gemm_forms/.
# Step 2, on the GPU machine with .device carried:
# python3 bench/gpu/gemm_forms.py (and, under compute-sanitizer,
# python3 bench/gpu/gemm_forms_sanitize.py)
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
out="$root/.device/gemm_forms"
rm -rf "$out" && mkdir -p "$out"
for k in gemm_bf16_4096_grid_k gemm_f16_4096_grid_k gemm_bf16_8192_grid_k gemm_bf16_4000_grid_k \
         gemm_bf16_4096_whole_k gemm_f16_8192_whole_k \
         gemm_f16_4096 gemm_bf16_8192 matmul_kloop_4stages; do
  for t in sm_90a sm_80; do
    "$bin/pallasc" "$root/bench/kernels/$k/kernel.mlir" --spec "$root/bench/kernels/$k/spec.json" \
      -t "$t" -o "$out/$k/$t"
  done
done
# The conformance GEMM of 128 x 128 tiles (its spec copied beside it).
conf="${PALLAS_SHARED_DIR:-$root/../shared}/conformance/matmul_kloop"
for t in sm_90a sm_80; do
  "$bin/pallasc" "$conf/kernel.mlir" --spec "$conf/spec.json" -t "$t" -o "$out/matmul_kloop/$t"
done
cp "$conf/spec.json" "$out/matmul_kloop/spec.json"
# Each sm_80 build's PTX also assembled for sm_90 (sm_80_on_sm_90/): our
# sm_80 code (mma.sync, cp.async) runs on the H100 too.
. "$root/bench/gpu/sm80_on_hopper.sh"
for dir in "$out"/*/sm_80; do
  sm80_on_hopper "$dir" && [ -d "${dir%/sm_80}/sm_80_on_sm_90" ]
done
# A small one with overhanging blocks (520^3) for compute-sanitizer:
# bench/gpu/gemm_forms_sanitize.py.
small="$root/.device/gemm_forms_small"
rm -rf "$small" && mkdir -p "$small"
python3 - "$root/bench/kernels/gemm_bf16_4000_grid_k/spec.json" "$small/spec.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
m = n = k = 520
s["inputs"][0]["shape"], s["inputs"][1]["shape"], s["outputs"][0]["shape"] = [m, k], [k, n], [m, n]
s["grid"] = [-(-m // 128), -(-n // 256), -(-k // 64)]
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
"$bin/pallasc" "$root/bench/kernels/gemm_bf16_4000_grid_k/kernel.mlir" --spec "$small/spec.json" \
  -t sm_90a -o "$small/sm_90a"
# The conformance GEMM at 512 x 512 x 4096 (two of its 128 x 128 programs
# merged into each 128 x 256 one) for compute-sanitizer too.
python3 - "$conf/spec.json" "$small/kloop_spec.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["inputs"][0]["shape"], s["inputs"][1]["shape"] = [512, 4096], [4096, 512]
s["outputs"][0]["shape"], s["grid"] = [512, 512], [4, 4]
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
"$bin/pallasc" "$conf/kernel.mlir" --spec "$small/kloop_spec.json" -t sm_90a -o "$small/kloop"
# The fused-epilogue GEMM (bench/gpu/gemm_epilogue.py).
# EPILOGUE_OUT: where the epilogue builds go (default
# .device/gemm_forms_epilogue; another one holds an earlier compiler's
# builds for gemm_epilogue.py's EPILOGUE_BUILDS).
epi="${EPILOGUE_OUT:-$root/.device/gemm_forms_epilogue}"
rm -rf "$epi"
for pair in bias_gelu:sm_90a bias_relu:relu bias_silu:silu bias_gelu_erf:gelu_erf \
            scale_residual:scale_residual; do
  k="gemm_bf16_4096_${pair%%:*}"
  "$bin/pallasc" "$root/bench/kernels/$k/kernel.mlir" --spec "$root/bench/kernels/$k/spec.json" \
    -t sm_90a -o "$epi/${pair##*:}"
done
python3 - "$root/bench/kernels/gemm_bf16_4096_bias_gelu/spec.json" "$small/gelu_spec.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["inputs"][0]["shape"], s["inputs"][1]["shape"] = [512, 4096], [4096, 512]
s["inputs"][2]["shape"], s["outputs"][0]["shape"], s["grid"] = [1, 512], [512, 512], [4, 2]
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
"$bin/pallasc" "$root/bench/kernels/gemm_bf16_4096_bias_gelu/kernel.mlir" --spec "$small/gelu_spec.json" \
  -t sm_90a -o "$epi/small"
"$bin/pallasc" --version >"$out/COMPILER"
