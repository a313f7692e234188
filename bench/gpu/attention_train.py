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


# 64 x 64 blocks in both backward scans (JAX picks 4 warps).
d128_b64 = _mha(False, 128, (64, 64), (64, 64))
d128_b64_causal = _mha(True, 128, (64, 64), (64, 64))
d64_b64 = _mha(False, 64, (64, 64), (64, 64))
d64_b64_causal = _mha(True, 64, (64, 64), (64, 64))
# 128-row K/V blocks for dK/dV and 128-row Q blocks for dQ, 8 warps.
d128_b128 = _mha(False, 128, (64, 128), (128, 64), num_warps=8)
d64_b128 = _mha(False, 64, (64, 128), (128, 64), num_warps=8)
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

# name -> (function, head dim, causal)
CASES = {
    "d128_b64": (d128_b64, 128, False),
    "d128_b64_causal": (d128_b64_causal, 128, True),
    "d64_b64": (d64_b64, 64, False),
    "d64_b64_causal": (d64_b64_causal, 64, True),
    "d128_b128": (d128_b128, 128, False),
    "d64_b128": (d64_b128, 64, False),
    "d128_atomic": (d128_atomic, 128, False),
    "d128_atomic_causal": (d128_atomic_causal, 128, True),
    "d64_atomic": (d64_atomic, 64, False),
    "d64_atomic_causal": (d64_atomic_causal, 64, True),
    "d128_atomic_kv128": (d128_atomic_kv128, 128, False),
    "d64_atomic_kv128": (d64_atomic_kv128, 64, False),
    "d128_atomic_kv128_causal": (d128_atomic_kv128_causal, 128, True),
    "d64_atomic_b128": (d64_atomic_b128, 64, False),
    "d64_atomic_b128_causal": (d64_atomic_b128_causal, 64, True),
}
