#!/usr/bin/env bash
# Step 2 of the differential GPU check, on a GPU machine from the repository
# root with .device/differential (test/differential/prepare_gpu.sh) carried:
# builds the launcher (runtime/, CUDA found) and runs every kept kernel's
# cubin and Triton-compiled .ttir on the GPU against the host outputs.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${PALLAS_LAUNCH_BUILD:-/tmp/pallas-launch-build}"
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$root/runtime" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >"$build.log" 2>&1 &&
  cmake --build "$build" -j >>"$build.log" 2>&1 || { cat "$build.log"; exit 1; }
python3 "$root/test/differential/gpu.py" "$root/.device/differential" \
  --launcher "$build/bin/pallas-launch" 2>&1 | tee "${OUT:-/tmp}/differential-gpu.log"
