#!/usr/bin/env bash
# Builds the C++ CUDA kernel of every --emit torch op under DIR (each
# NAME_torch_op.cc beside its NAME.h, as its first lines say) into
# libNAME_torch_op.so, which NAME_torch.load() then registers instead of
# the Python kernel. On the GPU machine (torch's headers and libraries).
#   bench/gpu/build_torch_ops.sh DIR
set -euo pipefail
dir="${1:?usage: build_torch_ops.sh DIR}"
inc="$(python3 -c 'from torch.utils import cpp_extension as c; print(" ".join("-I" + p for p in c.include_paths()))')"
lib="$(python3 -c 'from torch.utils import cpp_extension as c; print(c.library_paths()[0])')"
pids=()
while IFS= read -r cc; do
  d="$(dirname "$cc")" n="$(basename "$cc" _torch_op.cc)"
  # shellcheck disable=SC2086  # (the include flags are words)
  c++ -std=c++17 -O2 -shared -fPIC "$cc" -I"$d" $inc -I/usr/local/cuda/include -L"$lib" \
    -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda -lcuda -o "$d/lib${n}_torch_op.so" &
  pids+=($!)
done < <(find "$dir" -name '*_torch_op.cc')
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
