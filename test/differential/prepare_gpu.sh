#!/usr/bin/env bash
# Step 1 of the differential GPU check, where pallasc is built: generates the
# kernels (same seed and count as CI), checks them on the host and keeps
# them, their inputs, host outputs, cubins and .ttir in .device/differential/
# for step 2 (test/differential/gpu.sh, on a GPU machine, with .device
# carried).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/.device/differential"
rm -rf "$out" && mkdir -p "$out"
python3 "$root/test/differential/run.py" --keep "$out" --targets host,sm_90a+sm_80,triton "$@"
# What the GPU step does not read.
find "$out" \( -name '*.ptx' -o -name '*.h' \) -delete
du -sh "$out"
