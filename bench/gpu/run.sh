#!/usr/bin/env bash
# Step 2 of the GPU check, on a GPU machine, from the repository root with
# .device/ (written by bench/gpu/prepare.sh) beside it: builds runtime/
# standalone with CMake (cuda.h found, so pallas-launch runs CUDA artifacts),
# builds the CUDA self-test if prepare.sh could not, then
#   bench/gpu/check.py  host vs sm_90a on every case, every element, memcheck
#   bench/gpu/check_symbolic.py  one symbolic-size cubin (and .ttir) at many sizes
#   bench/gpu/bench.py  timings against torch, Triton and JAX Pallas
# Logs and tables go to $OUT when it is set. Exit status: 0 when both passed.
#
#   PALLAS_LAUNCH_BUILD  where to build the launcher (default /tmp/pallas-launch-build)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
build="${PALLAS_LAUNCH_BUILD:-/tmp/pallas-launch-build}"
out="${OUT:-$root/.device/gpu}"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
if [ ! -d .device/gpu ]; then
  echo "run.sh: error: no .device/gpu here; run bench/gpu/prepare.sh where pallasc is built" >&2
  exit 1
fi
cat .device/gpu/COMPILER 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null

gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
if ! cmake -S runtime -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DPALLAS_LAUNCH_THIRD_PARTY="$root/.device/gpu/third_party" >"$build.log" 2>&1 ||
   ! cmake --build "$build" -j >>"$build.log" 2>&1; then
  cat "$build.log"; echo "run.sh: error: building runtime/ failed" >&2; exit 1
fi
grep "pallas-launch:" "$build.log"
export PALLAS_LAUNCH="$build/bin/pallas-launch"

if [ ! -f .device/gpu/selftest/selftest.manifest.json ]; then
  bench/gpu/selftest/build.sh .device/gpu/selftest || echo "run.sh: cannot build the CUDA self-test"
fi

echo; echo "== check: host vs sm_90a, memcheck"
python3 bench/gpu/check.py 2>&1 | tee "$out/check.log"; check=${PIPESTATUS[0]}
echo; echo "== symbolic sizes: one artifact at many sizes"
python3 bench/gpu/check_symbolic.py 2>&1 | tee "$out/check_symbolic.log"; [ "${PIPESTATUS[0]}" = 0 ] || check=1
echo; echo "== XLA FFI: the kernels' jax.ffi bindings under jax.jit"
bash bench/gpu/xla_ffi.sh 2>&1 | tee "$out/xla_ffi.log"; xla=${PIPESTATUS[0]}
echo; echo "== PyTorch: the kernels' custom ops"
python3 bench/gpu/torch_op.py 2>&1 | tee "$out/torch_op.log"; torchop=${PIPESTATUS[0]}
python3 examples/torch_op/main.py .device/gpu/torch/example 2>&1 | tee -a "$out/torch_op.log"
[ "${PIPESTATUS[0]}" = 0 ] || torchop=1
echo; echo "== TMA: the header and torch op of a --tma kernel"
python3 bench/gpu/tma_launch.py 2>&1 | tee "$out/tma_launch.log"; tma=${PIPESTATUS[0]}
echo; echo "== JAX front end: exported JAX GPU kernels vs interpret mode and JAX's GPU kernels"
python3 bench/gpu/jax_exported.py 2>&1 | tee "$out/jax_exported.log"; jaxexp=${PIPESTATUS[0]}
echo; echo "== bench"
python3 bench/gpu/bench.py 2>&1 | tee "$out/bench.log"; bench=${PIPESTATUS[0]}
echo; echo "check.py exit $check, xla_ffi.sh exit $xla, torch_op.py exit $torchop, tma_launch.py exit $tma, jax_exported.py exit $jaxexp, bench.py exit $bench"
[ "$check" = 0 ] && [ "$xla" = 0 ] && [ "$torchop" = 0 ] && [ "$tma" = 0 ] && [ "$jaxexp" = 0 ] && [ "$bench" = 0 ]
