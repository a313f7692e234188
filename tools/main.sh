#!/usr/bin/env bash
# Set up, build, and compile every example for every target (the main job).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/setup.sh"
"$here/build.sh"
"$here/compile-examples.sh"
