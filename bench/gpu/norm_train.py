"""The normalisation functions the training check differentiates: JAX's
layer_norm and rms_norm (jax.experimental.pallas.ops.gpu) with their
Pallas backward, as users call them, on [8, 1024, 4096] bf16 (8192 rows).
pallasc_jax --vjp exports them (bench/gpu/prepare_norm_bwd.sh)."""
from jax.experimental.pallas.ops.gpu import layer_norm, rms_norm

SHAPE = (8, 1024, 4096)


def layer_norm_bf16(x, weight, bias):
  return layer_norm.layer_norm(x, weight, bias)


def rms_norm_bf16(x, weight, bias):
  return rms_norm.rms_norm(x, weight, bias)


CASES = {"layer_norm_bf16": layer_norm_bf16, "rms_norm_bf16": rms_norm_bf16}
