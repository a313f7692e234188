"""Functions the front end refuses, each for one reason."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def _cummax_kernel(x_ref, o_ref):
  o_ref[...] = lax.cummax(x_ref[...], axis=1)


def cummax_rows(x):
  # No pallas op computes a running maximum.
  return pl.pallas_call(_cummax_kernel,
                        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def no_kernel(x):
  return jnp.sin(x)


def two_kernels(x):
  return cummax_rows(cummax_rows(x))


def _double_kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] * 2.0


def _double(x):
  return pl.pallas_call(_double_kernel,
                        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def no_vjp(x):
  # A pallas_call without a custom_vjp rule: JAX cannot differentiate it.
  return _double(x)


@jax.custom_vjp
def xla_backward(x):
  # The backward rule runs in XLA, outside any kernel.
  return _double(x)


xla_backward.defvjp(lambda x: (_double(x), None),
                    lambda _, ct: (ct * 2.0,))


@jax.custom_vjp
def xla_sort_backward(x):
  # The backward rule sorts in XLA: no kernel form for that math.
  return _double(x)


xla_sort_backward.defvjp(lambda x: (_double(x), None),
                         lambda _, ct: (jnp.sort(ct, axis=-1),))


@jax.custom_vjp
def xla_matmul_backward(x):
  # The backward rule multiplies matrices in XLA: a kernel's work.
  return _double(x)


xla_matmul_backward.defvjp(lambda x: (_double(x), x),
                           lambda x, ct: (ct @ x.T @ x,))
