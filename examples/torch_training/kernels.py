"""The JAX Pallas functions the example trains with, as their users call
them: JAX's flash attention (mha, with its Pallas backward) and layer
norm (layer_norm, with its Pallas backward). build.sh exports each with
pallasc_jax --vjp."""
from jax.experimental.pallas.ops.gpu import attention, layer_norm

# The block's sizes (main.py uses the same).
BATCH, SEQ, HEADS, HEAD_DIM = 2, 256, 4, 64
MODEL = HEADS * HEAD_DIM


def attention_bf16(q, k, v):
  # The backward's blocks that run fastest on sm_90a: 64-row query blocks
  # under 128-row key blocks for dK/dV, 128 x 64 for dQ, 8 warps (pallasc
  # fuses the dQ scan into the dK/dV one: its op then adds dQ into an
  # accumulator in place).
  blocks = attention.BlockSizes(block_q=64, block_k=64, block_q_dkv=64,
                                block_kv_dkv=128, block_q_dq=128, block_kv_dq=64)
  return attention.mha(q, k, v, None, sm_scale=HEAD_DIM ** -0.5, causal=True,
                       block_sizes=blocks, num_warps=8)


def norm_f32(x, weight, bias):
  return layer_norm.layer_norm(x, weight, bias)
