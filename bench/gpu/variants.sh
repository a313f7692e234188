#!/usr/bin/env bash
# After prepare.sh: compiles kernels again with extra pallasc flags, as
# cases of their own (.device/gpu/<case>_<suffix>/<target>/), so that
# check.py checks them against the host and bench.py times them beside the
# default compile (bench.py picks attention cases by the prefix
# flash_attention_[causal_][f16_]s4096, GEMMs by matmul_kloop_). Kernels
# with a TARGETS file (the benchmark sizes) get sm_90a only; the others
# host and sm_90a, and a racecheck twin without warpgroup turns as
# prepare.sh makes.
#
#   bash bench/gpu/variants.sh SUFFIX "FLAGS" CASE...
#   e.g. bash bench/gpu/variants.sh tma "--tma" flash_attention matmul_kloop
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
conf="${PALLAS_SHARED_DIR:-$root/../shared}/conformance"
out="$root/.device/gpu"
if [ $# -lt 3 ]; then
  echo "usage: variants.sh SUFFIX \"FLAGS\" CASE..." >&2
  exit 1
fi
suffix=$1 flags=$2
shift 2
status=0
for case in "$@"; do
  dir=""
  for d in "$root/examples/$case" "$root/bench/kernels/$case" "$conf/$case"; do
    [ -f "$d/kernel.mlir" ] && dir=$d && break
  done
  if [ -z "$dir" ]; then
    echo "variants.sh: error: no kernel named $case" >&2
    status=1
    continue
  fi
  targets="host sm_90a"
  [ -f "$dir/TARGETS" ] && targets=sm_90a
  dest="$out/${case}_$suffix"
  rm -rf "$dest" && mkdir -p "$dest"
  cp "$dir/kernel.mlir" "$dir/spec.json" "$dest/"
  for t in $targets; do
    # shellcheck disable=SC2086 # FLAGS is a list of flags.
    if "$bin/pallasc" "$dir/kernel.mlir" --spec "$dir/spec.json" -t "$t" $flags \
         -o "$dest/$t" 2>"$dest/$t.error"; then
      rm -f "$dest/$t.error" "$dest/$t/"*.o
      printf '%-36s %-7s ok\n' "${case}_$suffix" "$t"
      if [ "$t" = sm_90a ] && grep -q "bar.arrive" "$dest/$t/"*.ptx 2>/dev/null; then
        # shellcheck disable=SC2086
        "$bin/pallasc" "$dir/kernel.mlir" --spec "$dir/spec.json" -t "$t" $flags \
          --no-warpgroup-turns -o "$dest/${t}_racecheck" 2>/dev/null &&
          rm -f "$dest/${t}_racecheck/"*.o
      fi
    else
      rm -rf "${dest:?}/$t"
      printf '%-36s %-7s FAILED: %s\n' "${case}_$suffix" "$t" \
        "$(grep -m1 error: "$dest/$t.error" | cut -c1-100)"
      status=1
    fi
  done
done
exit $status
