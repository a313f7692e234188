#!/usr/bin/env bash
# Set up, build, and run every test: lit (FileCheck, numeric and consumer
# checks under test/) and the Catch2 unit tests.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
"$here/setup.sh"
"$here/build.sh"
build="${PALLAS_BUILD_DIR:-$root/build}"
"$build/bin/pallas-unittests"
/usr/lib/llvm-22/bin/lit -sv "$root/test"
