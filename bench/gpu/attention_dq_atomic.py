"""Flash attention whose backward accumulates dQ with atomic adds (the
FlashAttention-2 paper's formulation), written in plain Pallas (Triton
backend) beside JAX's mha (jax.experimental.pallas.ops.gpu.attention).

JAX's mha backward computes dK/dV in one scan over query blocks and dQ in a
second scan over key blocks: seven matmuls per block pair, of which two
(QK^T and dO V^T) run twice. Here one scan over query blocks computes dV, dK
and each query block's share of dQ (dS K), adding it into a float32
accumulator with `plgpu.atomic_add`: five matmuls per block pair, as cuDNN
and FlashAttention compute the backward.

The backward is three pallas_calls: `mha_dq_preprocess` (delta = rowsum(O *
dO) and a zeroed float32 dQ accumulator), `mha_dq_atomic_backward` (dK, dV,
and dQ added into the accumulator, which it takes as an input aliased to its
first output) and `mha_dq_postprocess` (dQ cast to the inputs' dtype). The
forward is JAX's mha forward kernel, run with its residuals.
"""
import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu
from jax.experimental.pallas.ops.gpu import attention

_LOG2E = math.log2(math.e)


def _preprocess_kernel(out_ref, do_ref, delta_ref, dq_acc_ref):
  o = out_ref[...].astype(jnp.float32)
  do = do_ref[...].astype(jnp.float32)
  delta_ref[...] = jnp.sum(o * do, axis=1)
  dq_acc_ref[...] = jnp.zeros(dq_acc_ref.shape, jnp.float32)


def _backward_kernel(q_ref, k_ref, v_ref, do_ref, lse_ref, delta_ref,
                     dq_in_ref, dq_acc_ref, dk_ref, dv_ref, *, sm_scale,
                     causal, block_q, block_kv):
  del dq_in_ref  # the same buffer as dq_acc_ref
  seq_len, head_dim = q_ref.shape
  start_k = pl.program_id(2)
  k_slice = pl.ds(start_k * block_kv, block_kv)
  k = k_ref[k_slice, :]
  v = v_ref[k_slice, :]
  span_k = start_k * block_kv + jnp.arange(block_kv)

  def body(start_q, carry):
    dv, dk = carry
    q_slice = pl.ds(start_q * block_q, block_q)
    q = q_ref[q_slice, :]
    qk = plgpu.dot(q, k.T) * (sm_scale * _LOG2E)
    if causal:
      span_q = start_q * block_q + jnp.arange(block_q)
      qk = jnp.where(span_q[:, None] >= span_k[None, :], qk,
                     attention.DEFAULT_MASK_VALUE)
    lse = lse_ref[q_slice]
    di = delta_ref[q_slice]
    do = do_ref[q_slice, :]
    p = jnp.exp2(qk - lse[:, None])
    dv = dv + plgpu.dot(p.astype(do.dtype).T, do)
    dp = jnp.zeros((block_q, block_kv), jnp.float32) - di[:, None]
    dp = dp + plgpu.dot(do, v.T)
    ds = (p * dp * sm_scale).astype(q.dtype)
    dk = dk + plgpu.dot(ds.T, q)
    plgpu.atomic_add(dq_acc_ref, (q_slice, slice(None)), plgpu.dot(ds, k))
    return dv, dk

  zeros = jnp.zeros((block_kv, head_dim), jnp.float32)
  lower = jax.lax.div(start_k * block_kv, block_q) if causal else 0
  dv, dk = jax.lax.fori_loop(lower, seq_len // block_q, body, (zeros, zeros))
  dv_ref[...] = dv.astype(dv_ref.dtype)
  dk_ref[...] = dk.astype(dk_ref.dtype)


def _postprocess_kernel(dq_acc_ref, dq_ref):
  dq_ref[...] = dq_acc_ref[...].astype(dq_ref.dtype)


def _backward(sm_scale, causal, block_q, block_kv, num_warps, interpret,
              res, do):
  q, k, v, out, lse = res
  batch, seq_len, heads, head_dim = q.shape
  rows = 128
  delta, dq_acc = pl.pallas_call(
      _preprocess_kernel,
      grid=(seq_len // rows, batch, heads),
      in_specs=[pl.BlockSpec((None, rows, None, head_dim),
                             lambda i, b, h: (b, i, h, 0))] * 2,
      out_specs=[pl.BlockSpec((None, None, rows), lambda i, b, h: (b, h, i)),
                 pl.BlockSpec((None, rows, None, head_dim),
                              lambda i, b, h: (b, i, h, 0))],
      out_shape=[jax.ShapeDtypeStruct(lse.shape, jnp.float32),
                 jax.ShapeDtypeStruct(q.shape, jnp.float32)],
      compiler_params=plgpu.CompilerParams(num_warps=4, num_stages=1),
      name="mha_dq_preprocess",
      interpret=interpret,
  )(out, do)

  whole = pl.BlockSpec((None, seq_len, None, head_dim),
                       lambda b, h, j: (b, 0, h, 0))
  row = pl.BlockSpec((None, None, seq_len), lambda b, h, j: (b, h, 0))
  block = pl.BlockSpec((None, block_kv, None, head_dim),
                       lambda b, h, j: (b, j, h, 0))
  dq_acc, dk, dv = pl.pallas_call(
      functools.partial(_backward_kernel, sm_scale=sm_scale, causal=causal,
                        block_q=block_q, block_kv=block_kv),
      grid=(batch, heads, seq_len // block_kv),
      in_specs=[whole, whole, whole, whole, row, row, whole],
      out_specs=[whole, block, block],
      out_shape=[jax.ShapeDtypeStruct(q.shape, jnp.float32),
                 jax.ShapeDtypeStruct(k.shape, k.dtype),
                 jax.ShapeDtypeStruct(v.shape, v.dtype)],
      input_output_aliases={6: 0},
      compiler_params=plgpu.CompilerParams(num_warps=num_warps, num_stages=2),
      name="mha_dq_atomic_backward",
      interpret=interpret,
  )(q, k, v, do, lse, delta, dq_acc)

  dq = pl.pallas_call(
      _postprocess_kernel,
      grid=(seq_len // rows, batch, heads),
      in_specs=[pl.BlockSpec((None, rows, None, head_dim),
                             lambda i, b, h: (b, i, h, 0))],
      out_specs=pl.BlockSpec((None, rows, None, head_dim),
                             lambda i, b, h: (b, i, h, 0)),
      out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
      compiler_params=plgpu.CompilerParams(num_warps=4, num_stages=1),
      name="mha_dq_postprocess",
      interpret=interpret,
  )(dq_acc)
  return dq, dk, dv


def mha_dq_atomic(causal, head_dim, block_q=64, block_kv=64, num_warps=4,
                  interpret=False):
  """Attention over [batch, seq, heads, head_dim] arrays, scale
  1/sqrt(head_dim); its VJP runs the atomic-dQ backward above."""
  sm_scale = 1 / math.sqrt(head_dim)
  blocks = attention.BlockSizes(block_q=128, block_k=64)

  @jax.custom_vjp
  def f(q, k, v):
    return attention.mha(q, k, v, None, sm_scale=sm_scale, causal=causal,
                         block_sizes=blocks, interpret=interpret)

  def fwd(q, k, v):
    out, lse = attention.mha(q, k, v, None, sm_scale=sm_scale, causal=causal,
                             block_sizes=blocks, return_residuals=True,
                             interpret=interpret)
    return out, (q, k, v, out, lse)

  def bwd(res, do):
    return _backward(sm_scale, causal, block_q, block_kv, num_warps,
                     interpret, res, do)

  f.defvjp(fwd, bwd)
  return f
