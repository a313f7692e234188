#!/usr/bin/env python3
"""Step 1 of the GPU check of the JAX front end, where pallasc is built
(prepare.sh runs it): exports JAX's own Pallas GPU kernels as their users
call them (test/Python/Inputs/cases.py), compiles each for sm_90a, and
saves its random non-zero operands and the outputs of JAX's interpret mode
into OUT_DIR/CASE/ (in*.npy, want*.npy; bf16 as its uint16 bit patterns,
as pallas-launch reads them). bench/gpu/jax_exported.py runs the cubins on
the GPU and compares them with these and with JAX's own GPU kernels.

usage: export_jax.py OUT_DIR [CASE...]
"""
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(ROOT, "test", "Python", "Inputs"), os.path.join(ROOT, "python")]
import jax  # noqa: E402
import ml_dtypes  # noqa: E402
from cases import CASES  # noqa: E402
from pallasc_jax import export  # noqa: E402
from pallasc_jax.trace import find_pallas_call, trace  # noqa: E402

# JAX's shipped GPU kernels; the first six are compared with JAX's own GPU
# kernels too (the others compute around their pallas_call).
SHIPPED = ["softmax_f32", "softmax_bf16", "layer_norm_f32", "rms_norm_f32", "mha_f16",
           "mha_causal_f16", "mha_causal_f16_w8", "mqa_f16", "paged_attention_f16"]


def npy(x):
  return x.view(np.uint16) if x.dtype == ml_dtypes.bfloat16 else x


def prepare(case, out_dir, pallasc):
  fn, example, tol, *reference = CASES[case]
  exported = export(fn, *example)
  mlir_path, spec_path = exported.write(out_dir)
  eqn = find_pallas_call(trace(fn, *example))
  whole = reference != ["pallas_call"]
  if not whole:
    example = [v.aval for v in eqn.invars]
  rng = np.random.default_rng(0)
  inputs = []
  for s in example:  # non-zero, either sign; indices and lengths small
    if np.issubdtype(s.dtype, np.integer):
      inputs.append(rng.integers(1, 8, s.shape).astype(s.dtype))
    else:
      x = rng.uniform(0.5, 2.0, s.shape) * rng.choice([-1, 1], s.shape)
      inputs.append(x.astype(s.dtype))
  if whole:
    want = jax.tree.leaves(fn(*inputs, interpret=True))
  else:
    want = eqn.primitive.bind(*inputs, **dict(eqn.params, interpret=True))
  for k, x in enumerate(inputs):
    np.save(os.path.join(out_dir, f"in{k}.npy"), npy(x))
  for k, w in enumerate(want):
    np.save(os.path.join(out_dir, f"want{k}.npy"), npy(np.asarray(w)))
  dtypes = [str(np.asarray(w).dtype) for w in want]
  json.dump({"case": case, "tolerance": tol, "whole_function": whole, "out_dtypes": dtypes,
             "in_dtypes": [str(x.dtype) for x in inputs]},
            open(os.path.join(out_dir, "case.json"), "w"), indent=1)
  r = subprocess.run([pallasc, mlir_path, "--spec", spec_path, "-t", "sm_90a", "-o",
                      os.path.join(out_dir, "sm_90a")], capture_output=True, text=True)
  if r.returncode != 0:
    raise RuntimeError(r.stderr.strip().splitlines()[0] if r.stderr.strip() else "pallasc failed")


def main():
  out_root, *cases = sys.argv[1:]
  pallasc = os.environ.get("PALLASC", os.path.join(ROOT, "build", "bin", "pallasc"))
  status = 0
  for case in cases or SHIPPED:
    out_dir = os.path.join(out_root, case)
    os.makedirs(out_dir, exist_ok=True)
    try:
      prepare(case, out_dir, pallasc)
      print(f"{'jax/' + case:36s} sm_90a  ok")
    except Exception as e:  # recorded, not fatal: the GPU run reports it
      status = 1
      open(os.path.join(out_dir, "error.txt"), "w").write(f"{type(e).__name__}: {e}\n")
      print(f"{'jax/' + case:36s} sm_90a  FAILED: {e}")
  return status


if __name__ == "__main__":
  sys.exit(main())
