#!/usr/bin/env bash
# Installs what building and testing pallasc needs and is missing: Debian
# packages (LLVM/MLIR 22, clang 22, CLI11, nlohmann-json, yaml-cpp, Catch2,
# Ninja) and Python packages (NumPy, ml_dtypes, jsonschema, Triton, whose
# compiler checks the emitted Triton IR, and JAX (CPU), whose jaxlib verifies
# the emitted Mosaic modules) for the tests.
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

python_missing=()
for m in numpy ml_dtypes jsonschema triton; do
  python3 -c "import $m" 2>/dev/null || python_missing+=("$m")
done
# test/Mosaic pins the jaxlib whose Mosaic (stable_mosaic up to 15) it checks.
python3 -c "import jax, sys; sys.exit(jax.__version__ != '0.10.2')" 2>/dev/null ||
  python_missing+=("jax==0.10.2")
if ((${#python_missing[@]})); then
  echo "setup: pip installing ${python_missing[*]}"
  python3 -m pip install -q "${python_missing[@]}" ||
    python3 -m pip install -q --break-system-packages "${python_missing[@]}"
fi
