"""Exports Pallas:MGPU cases of mgpu_cases.py, runs each host build through
pallas-run on random non-zero inputs and compares every output element with
a NumPy reference (JAX runs plgpu kernels on GPUs only). Each case's files
go to OUT_DIR/CASE/.

usage: check_mgpu.py OUT_DIR CASE...
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "..", "python")]
import jax  # noqa: E402
import mgpu_cases  # noqa: E402
from pallasc_jax import export  # noqa: E402


def _matmul(a, b):
  return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)


# case: (example arguments, reference, tolerance relative to 1 + |want|)
CASES = {
    "add_one": ([jax.ShapeDtypeStruct((128,), np.float32)], lambda x: x + 1, 0),
    "matmul": ([jax.ShapeDtypeStruct((256, 512), np.float16),
                jax.ShapeDtypeStruct((512, 256), np.float16)], _matmul, 2e-3),
    "pipelined_matmul": ([jax.ShapeDtypeStruct((256, 512), np.float16),
                          jax.ShapeDtypeStruct((512, 256), np.float16)], _matmul, 2e-3),
}


def check(case: str, out_dir: str):
  example, reference, tol = CASES[case]
  exported = export(getattr(mgpu_cases, case), *example)
  mlir_path, spec_path = exported.write(out_dir)
  rng = np.random.default_rng(0)
  inputs = [(rng.uniform(0.5, 2.0, s.shape) * rng.choice([-1, 1], s.shape))
            .astype(s.dtype) for s in example]
  in_paths = []
  for k, x in enumerate(inputs):
    in_paths.append(os.path.join(out_dir, f"in{k}.npy"))
    np.save(in_paths[-1], x)
  out_path = os.path.join(out_dir, "out0.npy")
  subprocess.run(["pallas-run", mlir_path, "--spec", spec_path, "--inputs",
                  *in_paths, "--outputs", out_path], check=True)
  want = np.asarray(reference(*inputs))
  got = np.load(out_path)
  assert got.shape == want.shape and got.dtype == want.dtype, (
      got.shape, got.dtype, want.shape, want.dtype)
  got, want = got.astype(np.float64), want.astype(np.float64)
  assert np.all(np.isfinite(got)), f"{case}: non-finite (unwritten) elements"
  err = np.max(np.abs(got - want) / (1 + np.abs(want)))
  assert err <= tol, f"{case}: max error {err:.2e} > {tol:.0e}"
  print(f"{case}: matches NumPy on all {want.size} elements (max error {err:.1e})")


out_root, *cases = sys.argv[1:]
for name in cases:
  check(name, os.path.join(out_root, name))
