#!/usr/bin/env bash
# Compiles the kernel with its XLA FFI binding and builds the handler:
#   ./build.sh [TARGET [OUT]]   TARGET: host (default) or CUDA chips, e.g. sm_90a
# pallasc is $PALLASC or on PATH; the FFI headers come from the installed jax.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${1:-host}"
out="${2:-$here/out-${target//,/+}}"
"${PALLASC:-pallasc}" "$here/kernel.mlir" --spec "$here/spec.json" -t "$target" -o "$out" \
  --emit xla-ffi
ffi="$(python3 -c 'import jax.ffi; print(jax.ffi.include_dir())')"
if [ "$target" = host ]; then
  link=("$out/rms_norm.o" -lpthread)
else
  link=(-I"${CUDA_HOME:-/usr/local/cuda}/include" -lcuda)
fi
c++ -std=c++17 -O2 -shared -fPIC -w "$out/rms_norm_xla_ffi.cc" -I"$out" -I"$ffi" "${link[@]}" \
  -o "$out/librms_norm_xla_ffi.so"
echo "built $out/librms_norm_xla_ffi.so"
