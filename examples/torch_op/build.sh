#!/usr/bin/env bash
# Compiles the kernel with its PyTorch custom op for the CPU (host target)
# and, where a CUDA chip is given, for the GPU:
#   ./build.sh [OUT [CHIPS]]   e.g. ./build.sh out sm_90a,sm_80
# into OUT/host and OUT/cuda. pallasc is $PALLASC or on PATH. Nothing else
# is built: the op is Python over the artifacts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/out}"
compile() { "${PALLASC:-pallasc}" "$here/kernel.mlir" --spec "$here/spec.json" -t "$1" -o "$2" --emit torch; }
compile host "$out/host"
[ -z "${2:-}" ] || compile "$2" "$out/cuda"
echo "built $out"
