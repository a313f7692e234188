#!/usr/bin/env bash
# On the GPU machine, from the repository root with .device/ carried
# (bench/gpu/prepare.sh wrote .device/gpu/xla_ffi/<kernel>/): builds each
# kernel's XLA FFI handler (pallasc --emit xla-ffi) against the FFI headers
# of the jaxlib installed there and calls it under jax.jit on the GPU,
# comparing every output element with NumPy (test/Driver/Inputs/xla_ffi_check.py).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
include=$(python3 -c 'import jax.ffi; print(jax.ffi.include_dir())') || exit 1
status=0
for dir in "$root"/.device/gpu/xla_ffi/*/; do
  dir=${dir%/}
  k=$(basename "$dir")
  lib=$(mktemp -d)/lib${k}_xla_ffi.so
  if ! c++ -std=c++17 -O2 -shared -fPIC -w "$dir/${k}_xla_ffi.cc" -I"$dir" -I"$include" \
       -I/usr/local/cuda/include -lcuda -o "$lib"; then
    echo "$k: building the handler failed"; status=1; continue
  fi
  python3 "$root/test/Driver/Inputs/xla_ffi_check.py" "$dir" "$k" "$lib" || status=1
done
python3 -c 'import jax; print("jax", jax.__version__, jax.devices()[0].device_kind)'
exit $status
