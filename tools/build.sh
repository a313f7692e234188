#!/usr/bin/env bash
# Configures (once) and builds pallasc into build/ (or $PALLAS_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PALLAS_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DPALLAS_ENABLE_FUZZERS=ON
fi
ninja -C "$build"
