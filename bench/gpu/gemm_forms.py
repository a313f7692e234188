#!/usr/bin/env python3
"""GEMM-forms check, step 2 (step 1: bench/gpu/prepare_gemm_forms.sh): each
GEMM of bench/kernels as users write it (a sequential grid axis with a
scratch accumulator, *_grid_k) and the in-kernel K loop, our sm_90a build
against cuBLAS (torch.matmul) in the same run, and our sm_80
code (its PTX assembled for sm_90 by prepare_gemm_forms.sh: mma.sync and
cp.async on the H100).
GEMM_FORMS_DIR: another directory of builds laid out the same way (a
variant's, for comparison). Every element is checked against a float64 product first (and
that the output was written: it starts as NaN); timing rotates four input
sets (more than L2 holds) with bench.py's method. Prints a markdown table,
and writes it to $OUT/gemm_forms.md when OUT is set.
"""
import json
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402

DIR = os.environ.get("GEMM_FORMS_DIR", os.path.join(HERE, "..", "..", ".device", "gemm_forms"))
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def case(drv, name, rows):
  # (A kernel from elsewhere, the conformance GEMM, has its spec beside it.)
  beside = os.path.join(DIR, name, "spec.json")
  spec = json.load(open(beside if os.path.exists(beside)
                        else os.path.join(HERE, "..", "kernels", name, "spec.json")))
  (x, y), (z,) = spec["inputs"], spec["outputs"]
  m, k = x["shape"]
  n = y["shape"][1]
  dtype = DTYPES[x["dtype"]]
  g = torch.Generator(device="cuda").manual_seed(0)
  sets = []
  for _ in range(4):
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=dtype, generator=g)
    sets.append((a, b, torch.full((m, n), float("nan"), device="cuda", dtype=dtype)))
  a, b, _ = sets[0]
  want = (a.double() @ b.double())
  ok = True
  times = {}
  for target in ("sm_90a", "sm_80_on_sm_90"):
    if not os.path.isdir(os.path.join(DIR, name, target)):
      continue
    kern = bench.OurKernel(drv, os.path.join(DIR, name, target))
    launches = [kern.bind(*s) for s in sets]
    launches[0]()
    torch.cuda.synchronize()
    got = sets[0][2].double()
    err = float(((got - want).abs() / (1 + want.abs())).max())
    good = bool(torch.isfinite(got).all()) and err <= 2e-2
    ok &= good
    print(f"{name} ({target}): all {got.numel()} elements vs float64: max error {err:.1e}"
          f" ({'ok' if good else 'MISMATCH'})")
    times[target] = bench.time_stream(launches, 10)
  times["cublas"] = bench.time_stream(
      [lambda a=a, b=b, c=c: torch.matmul(a, b, out=c) for a, b, c in sets], 10)
  cublas = statistics.median(times["cublas"])
  for impl, label in (("sm_90a", "ours, sm_90a"), ("sm_80_on_sm_90", "ours, sm_80 code"),
                      ("cublas", "cuBLAS (torch.matmul)")):
    if impl not in times:
      continue
    med = statistics.median(times[impl])
    rows.append((f"{name} ({m}x{n}x{k})", label, med, 2 * m * n * k / med / 1e9, cublas / med))
  return ok


def main():
  print(open(os.path.join(DIR, "COMPILER")).read().strip(), torch.cuda.get_device_name())
  drv = bench.Driver()
  rows, ok = [], True
  for name in sorted(os.listdir(DIR)):
    if os.path.isdir(os.path.join(DIR, name)):
      ok &= case(drv, name, rows)
  bench.ratio_table(rows, "vs cuBLAS", "x", "gemm_forms.md")
  sys.exit(0 if ok else 1)


if __name__ == "__main__":
  main()
