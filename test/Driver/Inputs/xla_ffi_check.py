"""Runs a kernel's XLA FFI binding (pallasc --emit xla-ffi) under jax.jit on
the CPU and compares every output element with a NumPy reference.

usage: xla_ffi_check.py ARTIFACT_DIR KERNEL LIBRARY
"""
import importlib
import sys

import numpy as np

out_dir, kernel, library = sys.argv[1:4]
sys.path.insert(0, out_dir)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

k = importlib.import_module(kernel + "_xla_ffi")
k.register(library)
rng = np.random.default_rng(0)
args = [rng.standard_normal(shape).astype(dtype) for _, shape, dtype in k.INPUTS]
reference = {
    "scale_rows": lambda x: x * 2 + 1,
    "matmul_relu": lambda x, y: np.maximum(x.astype(np.float64) @ y.astype(np.float64), 0),
}[kernel]
want = reference(*args)
got = np.asarray(jax.jit(getattr(k, kernel))(*[jnp.asarray(a) for a in args]))
assert got.shape == want.shape, (got.shape, want.shape)
assert np.all(np.isfinite(got)), "an output element was not written"
# f32 dots run on tensor cores in TF32 on the GPU (as JAX's own do): their
# error is norm-wise about 1e-3 there; elementwise f32 work is exact.
gpu_dot = k.PLATFORM == "CUDA" and kernel == "matmul_relu"
if gpu_dot:
    err = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert err < 5e-3, err
else:
    err = np.max(np.abs(got - want) / (1 + np.abs(want)))
    assert err < 1e-4, err
print(f"{kernel}: jit(ffi_call) matches NumPy on all {got.size} elements "
      f"({'norm-wise' if gpu_dot else 'max'} rel err {err:.1e})")

# A wrong shape is a Python TypeError naming the array, not a crash.
name, shape, dtype = k.INPUTS[0]
try:
    getattr(k, kernel)(*([jnp.zeros((shape[0] + 1,) + shape[1:], dtype)] + args[1:]))
    print("no error for a wrong shape")
except TypeError as e:
    print("TypeError:", e)
