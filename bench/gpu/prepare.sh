#!/usr/bin/env bash
# Step 1 of the GPU check, where pallasc is built: compiles every conformance
# kernel, every example and every benchmark kernel (bench/kernels/) for host,
# sm_90a and sm_80 into .device/gpu/<case>/<target>/, and the hand-written
# CUDA self-test into .device/gpu/selftest/, and copies the launcher's
# header-only libraries (nlohmann/, CLI/) into .device/gpu/third_party/ for
# the GPU machine, which has neither. A TARGETS file beside a kernel
# replaces that list (the attention benchmarks: sm_90a and triton, whose .ttir
# bench.py compiles with Triton on the GPU machine). A compile that fails is
# recorded in .device/gpu/<case>/<target>.error (pallasc's message), not fatal.
# Step 2 runs on a GPU machine with .device carried: bench/gpu/run.sh.
#
#   PALLAS_BUILD_DIR   pallasc's build directory (default: build/)
#   PALLAS_SHARED_DIR  where conformance/ lives (default: ../shared)
#   ONLY               compile only these cases (space-separated), and none
#                      of the extras (FFI, torch, TMA, JAX exports, selftest)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
conf="${PALLAS_SHARED_DIR:-$root/../shared}/conformance"
out="$root/.device/gpu"
targets="host sm_90a sm_80"
if [ ! -x "$bin/pallasc" ]; then
  echo "prepare.sh: error: no pallasc in $bin (set PALLAS_BUILD_DIR)" >&2
  exit 1
fi
if [ ! -d "$conf" ]; then
  echo "prepare.sh: error: no conformance kernels in $conf (set PALLAS_SHARED_DIR)" >&2
  exit 1
fi
rm -rf "$out" && mkdir -p "$out"
mkdir -p "$out/third_party" && cp -r /usr/include/nlohmann /usr/include/CLI "$out/third_party/" ||
  { echo "prepare.sh: error: the launcher needs nlohmann-json3-dev and libcli11-dev" >&2; exit 1; }
"$bin/pallasc" --version >"$out/COMPILER" 2>&1
git -C "$root" rev-parse HEAD >>"$out/COMPILER" 2>/dev/null

# The sm_80 code (mma.sync, cp.async) on the sm_90 machines, in
# sm_80_on_sm_90/, which check.py runs like the sm_90a artifact.
. "$root/bench/gpu/sm80_on_hopper.sh"

compile() { # case dir spec
  local case=$1 dir=$2 spec=$3 t
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $case "* ]] && return 0
  mkdir -p "$out/$case"
  cp "$dir/kernel.mlir" "$out/$case/kernel.mlir"
  cp "$dir/$spec" "$out/$case/spec.json"
  # A TARGETS file beside a kernel names its targets instead (benchmark-sized
  # kernels that the host check would take too long on; triton for the
  # attention benchmarks' Triton-target rows).
  local only=$targets
  [ -f "$dir/TARGETS" ] && only=$(cat "$dir/TARGETS")
  for t in $only; do
    if "$bin/pallasc" "$dir/kernel.mlir" --spec "$dir/$spec" -t "$t" \
         -o "$out/$case/$t" 2>"$out/$case/$t.error"; then
      rm -f "$out/$case/$t.error" "$out/$case/$t/"*.o
      printf '%-20s %-7s ok\n' "$case" "$t"
      [ "$t" = sm_80 ] && sm80_on_hopper "$out/$case/$t"
      # Warpgroups taking turns (named barriers) lose racecheck: check.py
      # racechecks this twin, compiled without them.
      if grep -q "bar.arrive" "$out/$case/$t/"*.ptx 2>/dev/null; then
        "$bin/pallasc" "$dir/kernel.mlir" --spec "$dir/$spec" -t "$t" --no-warpgroup-turns \
          -o "$out/$case/${t}_racecheck" 2>/dev/null && rm -f "$out/$case/${t}_racecheck/"*.o
      fi
    else
      rm -rf "$out/$case/$t"
      printf '%-20s %-7s FAILED: %s\n' "$case" "$t" \
        "$(grep -m1 error: "$out/$case/$t.error" | cut -c1-100)"
    fi
  done
}

for d in "$conf"/*/; do
  d=${d%/}
  k=$(basename "$d")
  [ -f "$d/kernel.mlir" ] && [ -f "$d/spec.json" ] && compile "$k" "$d" spec.json
done
[ -f "$conf/matmul_relu/spec_vmap.json" ] &&
  compile matmul_relu_vmap "$conf/matmul_relu" spec_vmap.json
for d in "$root"/examples/*/ "$root"/bench/kernels/*/; do
  d=${d%/}
  [ -f "$d/kernel.mlir" ] && [ -f "$d/spec.json" ] && compile "$(basename "$d")" "$d" spec.json
done

if [ -n "${ONLY:-}" ]; then
  echo "wrote $out (only: $ONLY)"
  exit 0
fi

# XLA FFI bindings (--emit xla-ffi) and PyTorch ops (--emit torch) of two
# kernels for sm_90a: run.sh builds the handlers and calls them under
# jax.jit on the GPU, and runs the ops (on the sm_90a and host builds above).
for spec in "$root/examples/cmake_consumer/spec.json" "$conf/matmul_relu/spec.json"; do
  d=$(dirname "$spec")
  k=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel"])' "$spec")
  for emit in xla_ffi torch; do
    if "$bin/pallasc" "$d/kernel.mlir" --spec "$spec" -t sm_90a --emit "${emit/_/-}" \
         -o "$out/$emit/$k" 2>"$out/${emit}_$k.error"; then
      rm -f "$out/${emit}_$k.error"; printf '%-20s %-7s ok\n' "$emit/$k" sm_90a
    else
      printf '%-20s %-7s FAILED\n' "$emit/$k" sm_90a
    fi
  done
done

# examples/flash_attention with the TMA (and its producer warpgroup),
# examples/matmul_cluster (in clusters, persistent) and
# examples/flash_attention_f8 (a 5-D tensor map), their headers and torch
# ops: run.sh runs them (bench/gpu/tma_launch.py), pallas-launch being
# covered by check.py.
for k in flash_attention matmul_cluster flash_attention_f8; do
  if "$bin/pallasc" "$root/examples/$k/kernel.mlir" \
       --spec "$root/examples/$k/spec.json" -t sm_90a --tma --emit torch \
       -o "$out/tma/$k" 2>"$out/tma_$k.error"; then
    rm -f "$out/tma_$k.error"; echo "tma/$k  sm_90a  ok"
  else
    echo "tma/$k  sm_90a  FAILED"
  fi
done

# examples/torch_op as its build.sh makes it (host and sm_90a); run.sh runs
# its main.py on the GPU.
if PALLASC="$bin/pallasc" "$root/examples/torch_op/build.sh" "$out/torch/example" sm_90a \
     >/dev/null 2>"$out/torch_example.error"; then
  rm -f "$out/torch_example.error"; echo "torch_example        sm_90a  ok"
else
  echo "torch_example        sm_90a  FAILED"
fi

# JAX's own Pallas GPU kernels exported by the front end (python/), their
# operands and interpret-mode outputs; run.sh compares the cubins with JAX's
# GPU kernels (bench/gpu/jax_exported.py).
JAX_PLATFORMS=cpu PALLASC="$bin/pallasc" python3 "$root/bench/gpu/export_jax.py" "$out/jax" ||
  echo "jax: some exports failed (recorded in .device/gpu/jax/*/error.txt)"

if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  "$root/bench/gpu/selftest/build.sh" "$out/selftest" >/dev/null && echo "selftest             cuda    ok"
else
  echo "selftest: no nvcc here; bench/gpu/run.sh builds it on the GPU machine"
fi
size=$(du -sm "$root/.device" | cut -f1)
echo "wrote $out (.device: ${size} MiB; the run tool carries at most 64 MiB)"
