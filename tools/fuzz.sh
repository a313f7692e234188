#!/usr/bin/env bash
# A long run of the whole-driver fuzz target (test/fuzz/README.md) on every
# core, in libFuzzer's fork mode: it goes on past a crash and leaves each
# failing input in build/fuzz/ (crash-*, timeout-*, oom-*), new corpus
# entries in build/fuzz/corpus. Needs a build with -DPALLAS_ENABLE_FUZZERS=ON
# (tools/build.sh makes one).
#
#   tools/fuzz.sh [SECONDS] [JOBS]     (default 3600 s, all cores)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PALLAS_BUILD_DIR:-$root/build}"
fuzzer="$build/bin/pallas-fuzz-driver"
[ -x "$fuzzer" ] || { echo "fuzz.sh: no $fuzzer (configure with -DPALLAS_ENABLE_FUZZERS=ON)" >&2; exit 1; }
seconds=${1:-3600}
jobs=${2:-$(nproc)}
out="$build/fuzz"
mkdir -p "$out/corpus"
cd "$out"
exec "$fuzzer" "$out/corpus" "$root/test/fuzz/corpus-driver" -fork="$jobs" -ignore_crashes=1 \
  -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$out/"
