#!/usr/bin/env bash
# Installs what building and testing pallasc needs and is missing: Debian
# packages (LLVM/MLIR 22, clang 22, CLI11, nlohmann-json, yaml-cpp, Catch2,
# Ninja) and the Python packages pinned in requirements.txt (NumPy, ml_dtypes,
# jsonschema, Triton, whose compiler checks the emitted Triton IR, and JAX
# (CPU), whose jaxlib verifies the emitted Mosaic modules) for the tests.
# Safe to run any number of times.
set -euo pipefail

packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
          libclang-rt-22-dev lld-22 libcli11-dev nlohmann-json3-dev
          libyaml-cpp-dev catch2 ninja-build cmake python3 python3-pip)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

# Python packages: exactly the versions in requirements.txt (pip leaves a
# package alone when the pinned version is already installed).
requirements="$(dirname "$0")/requirements.txt"
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r "$requirements" ||
  python3 -m pip install -q --disable-pip-version-check --break-system-packages --root-user-action=ignore -r "$requirements"
