"""The attention functions the training check differentiates: JAX's mha
(jax.experimental.pallas.ops.gpu.attention) with its Pallas backward, as
users call it, on the block sizes named by each function. pallasc_jax
--vjp exports them (bench/gpu/prepare_attention_bwd.sh); the GPU check runs
JAX's own build of the same functions beside ours."""
import math

from jax.experimental.pallas.ops.gpu import attention

import attention_dq_atomic


def _mha(causal, head_dim, dkv, dq, num_warps=None):
  """dkv: (block_q_dkv, block_kv_dkv); dq: (block_q_dq, block_kv_dq)."""
  blocks = attention.BlockSizes(block_q=128, block_k=64, block_q_dkv=dkv[0],
                                block_kv_dkv=dkv[1], block_q_dq=dq[0],
                                block_kv_dq=dq[1])

  def f(q, k, v):
    return attention.mha(q, k, v, None, sm_scale=1 / math.sqrt(head_dim),
                         causal=causal, block_sizes=blocks,
                         num_warps=num_warps)
  return f


def _mha_default(causal, head_dim):
  """mha as called with no block sizes: JAX's defaults (128 x 128 forward,
  32 x 32 blocks in both backward scans, 4 warps)."""
  def f(q, k, v):
    return attention.mha(q, k, v, None, sm_scale=1 / math.sqrt(head_dim),
                         causal=causal)
  return f


# JAX's defaults.
d128_default = _mha_default(False, 128)
d64_default = _mha_default(False, 64)
d128_default_causal = _mha_default(True, 128)
d64_default_causal = _mha_default(True, 64)
# 64 x 64 blocks in both backward scans (JAX picks 4 warps).
d128_b64 = _mha(False, 128, (64, 64), (64, 64))
d128_b64_causal = _mha(True, 128, (64, 64), (64, 64))
d64_b64 = _mha(False, 64, (64, 64), (64, 64))
d64_b64_causal = _mha(True, 64, (64, 64), (64, 64))
# 128-row K/V blocks for dK/dV and 128-row Q blocks for dQ, 8 warps.
d128_b128 = _mha(False, 128, (64, 128), (128, 64), num_warps=8)
d64_b128 = _mha(False, 64, (64, 128), (128, 64), num_warps=8)
d128_b128_causal = _mha(True, 128, (64, 128), (128, 64), num_warps=8)
d64_b128_causal = _mha(True, 64, (64, 128), (128, 64), num_warps=8)
# The backward's dQ added by atomics in the dK/dV scan (five matmuls per
# block pair instead of seven): attention_dq_atomic.py.
d128_atomic = attention_dq_atomic.mha_dq_atomic(False, 128)
d128_atomic_causal = attention_dq_atomic.mha_dq_atomic(True, 128)
d64_atomic = attention_dq_atomic.mha_dq_atomic(False, 64)
d64_atomic_causal = attention_dq_atomic.mha_dq_atomic(True, 64)
# 128-row key blocks on two warpgroups (half the dQ bytes), as FA3 walks them.
d128_atomic_kv128 = attention_dq_atomic.mha_dq_atomic(False, 128, block_kv=128,
                                                      num_warps=8)
d64_atomic_kv128 = attention_dq_atomic.mha_dq_atomic(False, 64, block_kv=128,
                                                     num_warps=8)
d128_atomic_kv128_causal = attention_dq_atomic.mha_dq_atomic(
    True, 128, block_kv=128, num_warps=8)
# D = 64 with 128-row query and key blocks: dQ = dS K has a 64-row block
# per warpgroup.
d64_atomic_b128 = attention_dq_atomic.mha_dq_atomic(
    False, 64, block_q=128, block_kv=128, num_warps=8)
d64_atomic_b128_causal = attention_dq_atomic.mha_dq_atomic(
    True, 64, block_q=128, block_kv=128, num_warps=8)



def _attention_mgpu(compute_wgs):
  """JAX's Pallas:MGPU attention (unscaled softmax(q k^T) v, f16) with its
  backward: block_q 64 and block_kv 128 forward (JAX's benchmark's), 64-row
  blocks in both backward kernels on `compute_wgs` consumer warpgroups.
  pallasc_jax synthesizes its XLA delta einsum as a kernel."""
  import os
  import types
  from jax.experimental.pallas.ops.gpu import attention_mgpu
  if not os.environ.get("PALLASC_REAL_GPU"):
    # Traced where there is no GPU: answer as CUDA 12.9 would.
    attention_mgpu.cuda_versions = types.SimpleNamespace(
        cuda_runtime_get_version=lambda: 12091)
  config = attention_mgpu.TuningConfig(
      block_q=64, block_kv=128, max_concurrent_steps=2,
      compute_wgs_bwd=compute_wgs, block_q_dkv=64, block_kv_dkv=64,
      block_q_dq=64, block_kv_dq=64)

  def f(q, k, v):
    return attention_mgpu.attention(q, k, v, config)
  return f


mgpu_d128_wg1 = _attention_mgpu(1)
mgpu_d128_wg2 = _attention_mgpu(2)
mgpu_d64_wg2 = _attention_mgpu(2)

# What a Pallas:MGPU case differs in: f16 (its kernels' SMEM is f16), no
# softmax scale, our sm_90a build only (its kernels have several
# warpgroups), JAX's own build on Mosaic GPU.
MGPU = {"dtype": "f16", "scale": 1.0, "targets": ("sm_90a",),
        "jax": "JAX Pallas (Mosaic GPU) backward"}

# name -> (function, head dim, causal[, what differs from bf16 mha])
CASES = {
    "d128_default": (d128_default, 128, False),
    "d64_default": (d64_default, 64, False),
    "d128_default_causal": (d128_default_causal, 128, True),
    "d64_default_causal": (d64_default_causal, 64, True),
    "d128_b64": (d128_b64, 128, False),
    "d128_b64_causal": (d128_b64_causal, 128, True),
    "d64_b64": (d64_b64, 64, False),
    "d64_b64_causal": (d64_b64_causal, 64, True),
    "d128_b128": (d128_b128, 128, False),
    "d64_b128": (d64_b128, 64, False),
    "d128_b128_causal": (d128_b128_causal, 128, True),
    "d64_b128_causal": (d64_b128_causal, 64, True),
    "d128_atomic": (d128_atomic, 128, False),
    "d128_atomic_causal": (d128_atomic_causal, 128, True),
    "d64_atomic": (d64_atomic, 64, False),
    "d64_atomic_causal": (d64_atomic_causal, 64, True),
    "d128_atomic_kv128": (d128_atomic_kv128, 128, False),
    "d64_atomic_kv128": (d64_atomic_kv128, 64, False),
    "d128_atomic_kv128_causal": (d128_atomic_kv128_causal, 128, True),
    "d64_atomic_b128": (d64_atomic_b128, 64, False),
    "d64_atomic_b128_causal": (d64_atomic_b128_causal, 64, True),
    "mgpu_d128_wg1": (mgpu_d128_wg1, 128, False, MGPU),
    "mgpu_d128_wg2": (mgpu_d128_wg2, 128, False, MGPU),
    "mgpu_d64_wg2": (mgpu_d64_wg2, 64, False, MGPU),
}

# The options of a case without any (JAX's mha in bf16).
MHA = {"dtype": "bf16", "scale": None, "targets": ("sm_90a", "triton"),
       "jax": "JAX Pallas (Triton backend) backward"}


def case(name):
  """(function, head dim, causal, options): options' "scale" None means
  1/sqrt(head dim)."""
  fn, d, causal, *options = CASES[name]
  return fn, d, causal, {**MHA, **(options[0] if options else {})}
