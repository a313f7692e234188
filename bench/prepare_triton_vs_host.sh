#!/usr/bin/env bash
# Step 1 (where pallasc is built): compiles the conformance kernels and the
# examples for host and triton into .device/ with the launcher binary, for
# bench/run_triton_vs_host.py to run on a GPU machine (step 2:
# `cd .device && python3 run_triton_vs_host.py`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${PALLAS_BUILD_DIR:-$root/build}/bin"
out="$root/.device"
rm -rf "$out" && mkdir -p "$out/bin" "$out/cases"
cp "$bin/pallas-launch" "$out/bin/"
cp "$root/bench/run_triton_vs_host.py" "$root/bench/dtypes.py" "$out/"
conf="$root/../shared/conformance"
compile() { # dir case [spec]
  for t in host triton; do
    "$bin/pallasc" "$1/kernel.mlir" --spec "$1/${3:-spec.json}" -t $t -o "$out/cases/$2/$t"
  done
  rm -f "$out/cases/$2/host/"*.o
}
for k in add_vectors add_one softmax matmul_kloop matmul_accumulate matmul_relu; do
  compile "$conf/$k" $k
done
compile "$conf/matmul_relu" matmul_relu_vmap spec_vmap.json
for k in edge_add2d row_sum_arbitrary vmap_scale inplace_add gather_oob prefetch_rows ops_tour gather2d; do
  compile "$root/examples/$k" $k
done
