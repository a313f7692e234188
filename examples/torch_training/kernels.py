"""The JAX Pallas functions the example trains with, as their users call
them: JAX's flash attention (mha, with its Pallas backward) and layer
norm (layer_norm, with its Pallas backward). build.sh exports each with
pallasc_jax --vjp."""
from jax.experimental.pallas.ops.gpu import attention, layer_norm

# The block's sizes (main.py uses the same).
BATCH, SEQ, HEADS, HEAD_DIM = 2, 256, 4, 64
MODEL = HEADS * HEAD_DIM


def attention_bf16(q, k, v):
  blocks = attention.BlockSizes(block_q=64, block_k=64, block_q_dkv=64,
                                block_kv_dkv=64, block_q_dq=64, block_kv_dq=64)
  return attention.mha(q, k, v, None, sm_scale=HEAD_DIM ** -0.5, causal=True,
                       block_sizes=blocks)


def norm_f32(x, weight, bias):
  return layer_norm.layer_norm(x, weight, bias)
