#!/usr/bin/env bash
# Profiles one compiled case on the GPU machine with Nsight Compute: random
# inputs for its spec, one launch of its sm_90a artifact under `ncu` (or
# under $TOOL, e.g. TOOL=compute-sanitizer with `--tool racecheck`).
# Run from the repository root with .device/ carried (bench/gpu/prepare.sh).
#
#   bench/gpu/profile.sh CASE [options...]   (ncu's default: --set full)
set -euo pipefail
case=${1:?usage: bench/gpu/profile.sh CASE [ncu options...]}; shift
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
build="${PALLAS_LAUNCH_BUILD:-/tmp/pallas-launch-build}"
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S runtime -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DPALLAS_LAUNCH_THIRD_PARTY="$root/.device/gpu/third_party" >"$build.log" 2>&1
cmake --build "$build" -j >>"$build.log" 2>&1
dir=.device/gpu/$case
work=$(mktemp -d)
python3 - "$dir/spec.json" "$work" <<'PY'
import json, sys, numpy as np
sys.path.insert(0, "bench")
from dtypes import from_float  # every dialect dtype, as the launcher reads it
spec, work = json.load(open(sys.argv[1])), sys.argv[2]
rng = np.random.default_rng(0)
for i, a in enumerate(spec["inputs"]):
    x = rng.standard_normal(a["shape"]).astype(np.float32)
    np.save(f"{work}/in{i}.npy", from_float(x, a["dtype"]))
print(" ".join(f"{work}/in{i}.npy" for i in range(len(spec["inputs"]))))
PY
ins=$(ls "$work"/in*.npy | sort)
outs=$(python3 -c "import json;print(' '.join('$work/out%d.npy'%i for i in range(len(json.load(open('$dir/spec.json'))['outputs']))))")
tool=${TOOL:-ncu}
opts=("$@"); [ ${#opts[@]} -eq 0 ] && [ "$tool" = ncu ] && opts=(--set full)
"$tool" "${opts[@]}" "$build/bin/pallas-launch" "$dir/sm_90a" --inputs $ins --outputs $outs
