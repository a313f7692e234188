"""Exports cases of cases.py, runs each host build through pallas-run on
random non-zero inputs and compares every output element with the same
function in JAX's interpret mode (or, for cases that compute more around
their pallas_call, with that pallas_call in interpret mode). Each case's
files go to OUT_DIR/CASE/.

usage: check_export.py OUT_DIR CASE...
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "..", "python")]
import jax  # noqa: E402
import ml_dtypes  # noqa: E402
from cases import CASES  # noqa: E402
from pallasc_jax import export  # noqa: E402
from pallasc_jax.trace import find_pallas_call, trace  # noqa: E402


def npy(x):
  """pallas-run reads bf16 as its <u2 bit patterns."""
  return x.view(np.uint16) if x.dtype == ml_dtypes.bfloat16 else x


def check(case: str, out_dir: str):
  fn, example, tol, *reference = CASES[case]
  exported = export(fn, *example)
  mlir_path, spec_path = exported.write(out_dir)
  eqn = find_pallas_call(trace(fn, *example))
  if reference == ["pallas_call"]:
    example = [v.aval for v in eqn.invars]
  rng = np.random.default_rng(0)
  inputs = []
  for s in example:  # non-zero, either sign
    if np.issubdtype(s.dtype, np.integer):  # indices and lengths: small
      inputs.append(rng.integers(1, 8, s.shape).astype(s.dtype))
    else:
      x = rng.uniform(0.5, 2.0, s.shape) * rng.choice([-1, 1], s.shape)
      inputs.append(x.astype(s.dtype))

  in_paths = []
  for k, x in enumerate(inputs):
    in_paths.append(os.path.join(out_dir, f"in{k}.npy"))
    np.save(in_paths[-1], npy(x))
  out_paths = [os.path.join(out_dir, f"out{k}.npy")
               for k in range(len(exported.spec["outputs"]))]
  subprocess.run(["pallas-run", mlir_path, "--spec", spec_path, "--inputs",
                  *in_paths, "--outputs", *out_paths], check=True)

  if reference == ["pallas_call"]:
    want = eqn.primitive.bind(*inputs, **dict(eqn.params, interpret=True))
  elif reference:
    want = reference[0](*inputs)
  else:
    want = jax.tree.leaves(fn(*inputs, interpret=True))
  assert len(want) == len(out_paths), (len(want), len(out_paths))
  for k, (w, path) in enumerate(zip(want, out_paths)):
    w = np.asarray(w)
    got = np.load(path)
    if w.dtype == ml_dtypes.bfloat16:
      got = got.view(ml_dtypes.bfloat16)
    assert got.shape == w.shape and got.dtype == w.dtype, (
        got.shape, got.dtype, w.shape, w.dtype)
    got, w = got.astype(np.float64), w.astype(np.float64)
    assert np.all(np.isfinite(got)), f"output {k}: non-finite elements"
    err = np.max(np.abs(got - w) / (1 + np.abs(w)))
    assert err <= tol, f"{case} output {k}: max error {err:.2e} > {tol:.0e}"
    what = "NumPy" if reference and callable(reference[0]) else "interpret mode"
    print(f"{case}: output {k} matches {what} on all {w.size} elements "
          f"(max error {err:.1e})")


out_root, *cases = sys.argv[1:]
for name in cases:
  check(name, os.path.join(out_root, name))
