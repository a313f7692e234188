#!/usr/bin/env bash
# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer:
# configures (once) and builds pallasc with -DPALLAS_SANITIZE=address,undefined
# into build-san/ (or $PALLAS_SANITIZE_BUILD_DIR), then runs the unit tests
# and lit against that build. Not part of .ci/run (a second full build does
# not fit CI's time); run it before a release or after touching memory
# handling. ASAN_OPTIONS defaults to allow_user_poisoning=0 (lit.cfg.py
# says why).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PALLAS_SANITIZE_BUILD_DIR:-$root/build-san}"
"$root/tools/setup.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DPALLAS_SANITIZE=address,undefined
fi
# (Set before the build too: it runs pallasc, examples/cuda_launch's kernels.)
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0}"
ninja -C "$build"
"$build/bin/pallas-unittests"
PALLAS_BUILD_DIR="$build" /usr/lib/llvm-22/bin/lit -sv "$root/test"
