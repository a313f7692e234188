"""JAX's own Pallas:MGPU kernels (jax.experimental.pallas.ops.gpu) as their
users call them, at small shapes. Traced on a machine without a GPU, they
ask for the GPU's CUDA version and SM count: these answer as an H100 with
CUDA 12.9 would (a GPU machine uses its own answers: set
PALLASC_REAL_GPU=1)."""
import os
import types

import jax
import jax.numpy as jnp
from jax.experimental.pallas.ops.gpu import (
    attention_mgpu, hopper_matmul_mgpu, hopper_mixed_type_matmul_mgpu, ragged_dot_mgpu,
    transposed_ragged_dot_mgpu)

if not os.environ.get("PALLASC_REAL_GPU"):
  _H100 = types.SimpleNamespace(core_count=132)
  hopper_matmul_mgpu.get_num_sms = lambda: 132
  hopper_mixed_type_matmul_mgpu.backend = types.SimpleNamespace(
      get_default_device=lambda: _H100)
  attention_mgpu.cuda_versions = types.SimpleNamespace(
      cuda_runtime_get_version=lambda: 12091)
  ragged_dot_mgpu.jax = transposed_ragged_dot_mgpu.jax = types.SimpleNamespace(**{
      **{k: getattr(jax, k) for k in dir(jax) if not k.startswith("__")},
      "devices": lambda: [_H100]})

_ATTENTION = dict(block_q=64, block_kv=64, max_concurrent_steps=2)


def attention(q, k, v):
  """Three warpgroups: two compute 64 query rows each, one copies K and V."""
  return attention_mgpu.attention(q, k, v, attention_mgpu.TuningConfig(**_ATTENTION))


def attention_causal(q, k, v):
  return attention_mgpu.attention(
      q, k, v, attention_mgpu.TuningConfig(**_ATTENTION, causal=True))


# The configuration JAX's own benchmark of attention_mgpu runs (block_kv
# 128 of the 64, 128, 256 it tries), for the GPU comparison at full size.
_ATTENTION_BENCH = dict(block_q=64, block_kv=128, max_concurrent_steps=2)


def attention_bench(q, k, v):
  return attention_mgpu.attention(q, k, v, attention_mgpu.TuningConfig(**_ATTENTION_BENCH))


def attention_bench_causal(q, k, v):
  return attention_mgpu.attention(
      q, k, v, attention_mgpu.TuningConfig(**_ATTENTION_BENCH, causal=True))


def attention_train(q, k, v):
  """attention with its custom_vjp backward (dQ and dK/dV kernels), as a
  training step differentiates it."""
  return attention_mgpu.attention(q, k, v, attention_mgpu.TuningConfig(
      **_ATTENTION, block_q_dkv=64, block_kv_dkv=64, block_q_dq=64, block_kv_dq=64))


def attention_train_wg2(q, k, v):
  """The same with two consumer warpgroups in each backward kernel: their
  lse and delta rows share [2, 64] SMEM buffers, a row each."""
  return attention_mgpu.attention(q, k, v, attention_mgpu.TuningConfig(
      **_ATTENTION, compute_wgs_bwd=2, block_q_dkv=64, block_kv_dkv=64,
      block_q_dq=64, block_kv_dq=64))


def attention_train_reference(inputs, cotangents):
  """NumPy in float64: attention_train's output and the gradients of q, k
  and v (softmax(q k^T) v per batch and head, unscaled, as attention_mgpu
  computes it; K and V heads shared by groups of query heads)."""
  import numpy as np
  q, k, v = (np.asarray(x, np.float64).transpose(0, 2, 1, 3) for x in inputs)
  do = np.asarray(cotangents[0], np.float64).transpose(0, 2, 1, 3)
  group = q.shape[1] // k.shape[1]
  k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
  s = q @ k.swapaxes(-1, -2)
  p = np.exp(s - s.max(-1, keepdims=True))
  p /= p.sum(-1, keepdims=True)
  out = p @ v
  dv = p.swapaxes(-1, -2) @ do
  dp = do @ v.swapaxes(-1, -2)
  ds = p * (dp - (do * out).sum(-1, keepdims=True))
  dq, dk = ds @ k, ds.swapaxes(-1, -2) @ q
  b, h, s_kv, d = dk.shape
  dk, dv = (x.reshape(b, h // group, group, s_kv, d).sum(2) for x in (dk, dv))
  back = lambda x: x.transpose(0, 2, 1, 3).astype(inputs[0].dtype)
  return [back(out)], [back(dq), back(dk), back(dv)]


def attention_pipeline(q, k, v):
  """The same through plgpu.emit_pipeline_warp_specialized."""
  return attention_mgpu.attention_with_pipeline_emitter(
      q, k, v, attention_mgpu.TuningConfig(**_ATTENTION))


def ragged_dot(lhs, rhs, group_sizes):
  return ragged_dot_mgpu.ragged_dot(
      lhs, rhs, group_sizes=group_sizes, block_m=64, block_n=128,
      block_k=64, max_concurrent_steps=2, grid_block_n=1)


def ragged_dot_bench(lhs, rhs, group_sizes):
  """A configuration JAX's own benchmark of ragged_dot_mgpu tries (16
  groups of random sizes there), for the GPU comparison at full size."""
  return ragged_dot_mgpu.ragged_dot(
      lhs, rhs, group_sizes=group_sizes, block_m=128, block_n=128,
      block_k=64, max_concurrent_steps=4, grid_block_n=4)


def transposed_ragged_dot(lhs, rhs, group_sizes):
  """lhs [K, M] and rhs [K, N], K split in groups: out[g] = lhs[Kg].T @
  rhs[Kg]. wgmma reads lhs's tiles transposed; the kernel masks the rows
  of other groups in shared memory."""
  return transposed_ragged_dot_mgpu.transposed_ragged_dot(
      lhs, rhs, group_sizes=group_sizes, block_m=64, block_n=128, block_k=64,
      max_concurrent_steps=2, grid_block_n=1)


def transposed_ragged_dot_bench(lhs, rhs, group_sizes):
  """A configuration JAX's own benchmark of it tries (K 16384, M = N =
  2048, 16 groups there)."""
  return transposed_ragged_dot_mgpu.transposed_ragged_dot(
      lhs, rhs, group_sizes=group_sizes, block_m=128, block_n=128, block_k=64,
      max_concurrent_steps=4, grid_block_n=4)


def hopper_matmul(a, b):
  """Persistent over the SMs, three warpgroups (one copies, two multiply,
  each its half of the 128x256 tile), a tiled epilogue."""
  config = hopper_matmul_mgpu.TuningConfig(tile_m=128, tile_n=128, tile_k=64,
                                           max_concurrent_steps=2)
  return hopper_matmul_mgpu.matmul(a, b, None, config)


def hopper_matmul_cluster(a, b):
  """hopper_matmul in clusters of two blocks along M: the pair shares each
  B tile, fetched once and multicast to both, and releases it through a
  ClusterBarrier (an arrival on both blocks' barriers)."""
  config = hopper_matmul_mgpu.TuningConfig(
      tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=2,
      cluster_dimension=hopper_matmul_mgpu.MatmulDimension.M)
  return hopper_matmul_mgpu.matmul(a, b, None, config)


def hopper_matmul_cluster_bench(a, b):
  """hopper_matmul_bench's configuration in clusters of two along M."""
  config = hopper_matmul_mgpu.TuningConfig(
      tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=4, grid_tile_width=8,
      cluster_dimension=hopper_matmul_mgpu.MatmulDimension.M)
  return hopper_matmul_mgpu.matmul(a, b, None, config)


def hopper_matmul_bench(a, b):
  """A configuration of the ones JAX's own benchmark of hopper_matmul_mgpu
  tries (128x128 tiles per warpgroup pair, four concurrent steps, grid
  tiles 8 wide, a 64x64 tiled epilogue)."""
  config = hopper_matmul_mgpu.TuningConfig(tile_m=128, tile_n=128, tile_k=64,
                                           max_concurrent_steps=4, grid_tile_width=8)
  return hopper_matmul_mgpu.matmul(a, b, None, config)


def hopper_mixed_type_matmul(a, b):
  """int8 A converted to bf16 in registers, then wgmma with bf16 B."""
  config = hopper_mixed_type_matmul_mgpu.TuningConfig(
      tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=2)
  return hopper_mixed_type_matmul_mgpu.mixed_matmul_kernel(
      a, b, out_dtype=jnp.bfloat16, config=config)


def hopper_mixed_type_matmul_bench(a, b):
  """A configuration of the ones JAX's own benchmark of the int8 x bf16
  matmul tries (M 4096, N 8192, K 4096 there)."""
  config = hopper_mixed_type_matmul_mgpu.TuningConfig(
      tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=4, grid_tile_width=8)
  return hopper_mixed_type_matmul_mgpu.mixed_matmul_kernel(
      a, b, out_dtype=jnp.bfloat16, config=config)
