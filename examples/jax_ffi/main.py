"""Calls the kernel from JAX through its XLA FFI handler, inside jax.jit and
composed with other JAX ops, and checks every element against NumPy.

usage: python3 main.py OUT   (OUT: the directory build.sh wrote)
"""
import os
import sys

import numpy as np

out = os.path.abspath(sys.argv[1])
sys.path.insert(0, out)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import rms_norm_xla_ffi as kernel  # noqa: E402  (written by pallasc --emit xla-ffi)

kernel.register(os.path.join(out, "librms_norm_xla_ffi.so"))
print(f"rms_norm runs on {kernel.PLATFORM}")


@jax.jit
def block(x, w):
    # An FFI call is a JAX op like any other: here between two jnp ops.
    return jnp.tanh(kernel.rms_norm(x * 0.5, w)) + 1.0


rng = np.random.default_rng(0)
x = rng.standard_normal((256, 512)).astype(np.float32)
w = rng.uniform(0.5, 1.5, 512).astype(np.float32)
got = np.asarray(block(jnp.asarray(x), jnp.asarray(w)))

xs = x.astype(np.float64) * 0.5
want = np.tanh(xs / np.sqrt((xs ** 2).mean(axis=1, keepdims=True) + 1e-6) * w) + 1.0
assert np.all(np.isfinite(got)), "an output element was not written"
err = np.max(np.abs(got - want))
assert err < 1e-5, f"max abs error {err}"
print(f"jit(tanh(rms_norm(x / 2, w)) + 1) matches NumPy on all {got.size} elements "
      f"(max abs err {err:.1e})")
