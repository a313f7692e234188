#!/usr/bin/env bash
# Exports the example's two functions with their backward kernels
# (pallasc_jax --vjp; needs JAX) and compiles each chain with its PyTorch
# op and autograd:
#   ./build.sh [OUT [TARGET]]   e.g. ./build.sh out sm_90a   (default: host)
# into OUT/attention and OUT/norm. pallasc is $PALLASC or on PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$here/out}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
target="${2:-host}"
shape() { (cd "$here" && python3 -c "import kernels as k; print($1)"); }
qkv="bf16[$(shape 'f"{k.BATCH},{k.SEQ},{k.HEADS},{k.HEAD_DIM}"')]"
rows="f32[$(shape 'f"{k.BATCH},{k.SEQ},{k.MODEL}"')]"
vec="f32[$(shape 'k.MODEL')]"
export_chain() {  # FUNCTION DIR ARGS...
  local fn=$1 dir=$2; shift 2
  (cd "$here" && PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" \
    python3 -m pallasc_jax "kernels:$fn" --vjp "$@" -o "$out/jax/$dir")
  "${PALLASC:-pallasc}" "$out/jax/$dir/chain.json" -t "$target" -o "$out/$dir" --emit torch
}
export_chain attention_bf16 attention --arg "$qkv" --arg "$qkv" --arg "$qkv"
export_chain norm_f32 norm --arg "$rows" --arg "$vec" --arg "$vec"
echo "built $out ($target)"
