#!/usr/bin/env bash
# The main job: compiles every kernel in examples/ and ../shared/conformance
# for every target pallasc implements, into artifacts/<kernel>/<target>, and
# prints a table: kernel, target, artifacts, compile time.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
out="${1:-$root/artifacts}"
targets=(host triton sm_90a,sm_80 tpu_v5e)
status=0
printf '%-28s %-13s %-48s %8s\n' kernel target artifacts seconds
for dir in "$root"/examples/*/ "$root"/../shared/conformance/*/; do
  [ -f "$dir/kernel.mlir" ] || continue
  for spec in "$dir"/spec*.json; do
    name="$(basename "$dir")"
    variant="$(basename "$spec" .json)"
    [ "$variant" = spec ] || name="$name:${variant#spec_}"
    # A TARGETS file beside a kernel names its targets instead (a kernel
    # only some chips can run: matmul_f8's f8 dots need sm_90a).
    only=("${targets[@]}")
    [ -f "$dir/TARGETS" ] && read -r -a only <"$dir/TARGETS"
    for t in "${only[@]}"; do
      dest="$out/${name/:/_}/${t//,/+}"
      start=$(date +%s.%N)
      if log=$("$bin/pallasc" "$dir/kernel.mlir" --spec "$spec" --target "$t" -o "$dest" 2>&1); then
        files=$(cd "$dest" && ls | tr '\n' ' ')
      else
        why="$(echo "$log" | grep -m1 'error:' | sed 's/.*error: //')"
        case "$t" in host|sm_*) files="FAILED: $why"; status=1 ;; *) files="skipped: $why" ;; esac
        # Every kernel must compile for the host and CUDA; other targets may
        # reject what they cannot express (triton: non-power-of-two tensors;
        # tpu_v5e: the TPU block and memory rules), with a located error,
        # noted in the table.
      fi
      end=$(date +%s.%N)
      printf '%-28s %-13s %-48s %8.2f\n' "$name" "$t" "$files" "$(awk "BEGIN{print $end - $start}")"
    done
  done
done
exit $status
