"""Exports the forward and backward kernels of VJP cases of cases.py
(pallasc_jax.export_vjp), runs the chain on the host (pallas-run, one
kernel at a time, as chain.json connects them) on random non-zero inputs
and cotangents, and compares every element of the outputs and gradients
(elementwise and normwise) with jax.vjp of the same function in interpret mode (or, for Pallas:MGPU
kernels, which JAX runs on a GPU only, with NumPy: VJP_REFERENCES). Each
case's files go to OUT_DIR/CASE/.

--compiled: the chain pallasc compiles for the host instead (OUT_DIR/
CASE/host/chain.json: its scan fusion's rewritten and added kernels run
from the sources it writes beside their artifacts).

usage: check_vjp.py [--compiled] OUT_DIR CASE...
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "..", "python")]
import jax  # noqa: E402
import ml_dtypes  # noqa: E402
from cases import VJP_CASES, VJP_REFERENCES  # noqa: E402
from pallasc_jax import chain, export_vjp  # noqa: E402
from pallasc_jax.mlir_text import NUMPY_DTYPES  # noqa: E402


def npy(x):
  """pallas-run reads and writes bf16 as its <u2 bit patterns."""
  return x.view(np.uint16) if x.dtype == ml_dtypes.bfloat16 else x


def host_runner(out_dir: str, compiled_dir: str = ""):
  def run_kernel(entry, operands):
    kdir = chain.source_dir(out_dir, compiled_dir, entry["directory"])
    with open(os.path.join(kdir, "spec.json")) as f:
      import json
      outputs = json.load(f)["outputs"]
    ins = []
    for k, x in enumerate(operands):
      ins.append(os.path.join(kdir, f"in{k}.npy"))
      np.save(ins[-1], npy(np.ascontiguousarray(x)))
    outs = [os.path.join(kdir, f"out{k}.npy") for k in range(len(outputs))]
    # (A kernel of no inputs, zeros a VJP makes, takes no --inputs.)
    subprocess.run(["pallas-run", os.path.join(kdir, "kernel.mlir"), "--spec",
                    os.path.join(kdir, "spec.json"),
                    *(["--inputs", *ins] if ins else []),
                    "--outputs", *outs], check=True)
    results = []
    for path, spec in zip(outs, outputs):
      x = np.load(path)
      if spec["dtype"] == "bf16":
        x = x.view(ml_dtypes.bfloat16)
      results.append(x)
    return results
  return run_kernel


def random_like(rng, s):
  """Non-zero, either sign."""
  x = rng.uniform(0.5, 2.0, s.shape) * rng.choice([-1, 1], s.shape)
  return x.astype(s.dtype)


def check(case: str, out_dir: str, compiled: bool):
  fn, example, tol = VJP_CASES[case]
  exported = export_vjp(fn, *example)
  exported.write(out_dir)
  compiled_dir = ""
  if compiled:
    compiled_dir = os.path.join(out_dir, "host")
    subprocess.run(["pallasc", os.path.join(out_dir, "chain.json"), "-t", "host",
                    "-o", compiled_dir], check=True)
  manifest = chain.load(compiled_dir or out_dir)
  rng = np.random.default_rng(0)
  inputs = [random_like(rng, s) for s in example]
  cotangents = [random_like(rng, jax.ShapeDtypeStruct(
      c["shape"], NUMPY_DTYPES[c["dtype"]])) for c in manifest["cotangents"]]
  got = chain.run(manifest, inputs, cotangents, host_runner(out_dir, compiled_dir),
                  constants=chain.load_constants(out_dir, manifest))

  reference = "jax.vjp in interpret mode"
  if case in VJP_REFERENCES:
    outs, grads = VJP_REFERENCES[case](inputs, cotangents)
    want = {"outputs": outs, "gradients": grads}
    reference = "NumPy"
  else:
    out, vjp = jax.vjp(lambda *a: fn(*a, interpret=True), *inputs)
    want = {"outputs": jax.tree.leaves(out),
            "gradients": list(vjp(jax.tree.unflatten(jax.tree.structure(out),
                                                     cotangents)))}
  roles = ", ".join(f"{k['role']} {k['kernel']}" for k in manifest["kernels"])
  print(f"{case}: kernels {roles}")
  for what in ("outputs", "gradients"):
    for k, (g, w) in enumerate(zip(got[what], want[what], strict=True)):
      w = np.asarray(w)
      assert g.shape == w.shape and g.dtype == w.dtype, (
          what, k, g.shape, g.dtype, w.shape, w.dtype)
      g, w = g.astype(np.float64), w.astype(np.float64)
      assert np.all(np.isfinite(g)), f"{case} {what} {k}: non-finite elements"
      err = np.max(np.abs(g - w) / (1 + np.abs(w)))
      assert err <= tol, f"{case} {what} {k}: max error {err:.2e} > {tol:.0e}"
      # Normwise too, a quarter of the tolerance: a small scale error in
      # large elements hides under the elementwise bound.
      scale = np.linalg.norm(w)  # (zeros want zeros: absolute)
      norm = np.linalg.norm(g - w) / (scale if scale else 1.0)
      assert norm <= tol / 4, (f"{case} {what} {k}: normwise error "
                               f"{norm:.2e} > {tol / 4:.1e}")
      print(f"{case}: {what[:-1]} {k} matches {reference} on "
            f"all {w.size} elements (max error {err:.1e}, normwise "
            f"{norm:.1e})")


args = sys.argv[1:]
compiled = args[:1] == ["--compiled"]
out_root, *cases = args[compiled:]
for name in cases:
  check(name, os.path.join(out_root, name), compiled)
