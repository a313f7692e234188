#!/usr/bin/env bash
# Builds the CUDA self-test artifacts: selftest.cu compiled to one cubin per
# architecture (sm_90a, sm_80) plus the hand-written manifests, into OUT_DIR
# (default .device/gpu/selftest). Needs nvcc (CUDA 12 or later).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../../.device/gpu/selftest}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
mkdir -p "$out"
for arch in sm_90a sm_80; do
  "$nvcc" -cubin -O3 -arch="$arch" -o "$out/selftest.$arch.cubin" "$here/selftest.cu"
done
cp "$here/selftest.manifest.json" "$here/vector_add_cuda.manifest.json" "$out/"
echo "self-test artifacts in $out"
