"""Kernels the front-end tests export: each case is the function as its
users call it, example arguments, the same function in interpret mode, and
a tolerance for comparing the host build with it."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as plgpu
from jax.experimental.pallas.ops.gpu import (attention, decode_attention,
                                             layer_norm, paged_attention,
                                             rms_norm, softmax)

S = jax.ShapeDtypeStruct


def softmax_f32(x, interpret=False):
  return softmax.softmax(x, interpret=interpret)


def softmax_bf16(x, interpret=False):
  return softmax.softmax(x, num_warps=2, interpret=interpret)


def layer_norm_f32(x, w, b, interpret=False):
  return layer_norm.layer_norm(x, w, b, interpret=interpret)


def rms_norm_f32(x, w, b, interpret=False):
  return rms_norm.rms_norm(x, w, b, interpret=interpret)


def layer_norm_residuals_f32(x, w, b):
  # The forward pass the VJP runs: mean and 1/std per row too (rank-0
  # blocks); the function returns its inputs beside them.
  return layer_norm.layer_norm_forward(x, w, b)


def _mha(q, k, v, segment_ids=None, interpret=False, **options):
  """JAX's mha with 64 x 64 blocks and scale 1/8; `options`: causal, num_warps."""
  return attention.mha(q, k, v, segment_ids=segment_ids, sm_scale=0.125,
                       block_sizes=attention.BlockSizes(block_q=64, block_k=64),
                       interpret=interpret, **options)


def mha_f16(q, k, v, interpret=False):
  return _mha(q, k, v, interpret=interpret)


def mha_causal_f16(q, k, v, interpret=False):
  return _mha(q, k, v, causal=True, interpret=interpret)


def mha_segments_f16(q, k, v, segment_ids, interpret=False):
  return _mha(q, k, v, segment_ids, interpret=interpret)


def mha_causal_f16_w8(q, k, v, interpret=False):
  return _mha(q, k, v, causal=True, num_warps=8, interpret=interpret)


def mqa_f16(q, k, v):
  # Decode attention: the pallas_call computes per-split partial results,
  # which the function then combines outside the kernel.
  return decode_attention.mqa(q, k, v, block_k=64)


def paged_attention_f16(q, k_pages, v_pages, block_tables, lengths):
  # Pages gathered through a block table loaded in the kernel; like mqa,
  # the function combines the splits outside the pallas_call.
  return paged_attention.paged_attention(
      q, k_pages, v_pages, block_tables, lengths, pages_per_compute_block=4,
      k_splits=2)


def _when_fori_kernel(x_ref, y_ref, o_ref):
  # pl.when, lax.fori_loop, jnp.dot into f32, program ids, an x.T dot.
  i = pl.program_id(0)
  acc = lax.fori_loop(0, 2, lambda k, acc: acc + jnp.dot(
      x_ref[...], y_ref[pl.ds(k * 32, 32), :],
      preferred_element_type=jnp.float32), jnp.zeros((16, 64), jnp.float32))
  o_ref[...] = acc

  @pl.when(i == 1)
  def _():
    o_ref[...] = jnp.tanh(o_ref[...]) + i.astype(jnp.float32)


def when_fori_dot(x, y, interpret=False):
  return pl.pallas_call(
      _when_fori_kernel, grid=(2,),
      in_specs=[pl.BlockSpec((16, 32), lambda i: (i, 0)),
                pl.BlockSpec((64, 64), lambda i: (0, 0))],
      out_specs=pl.BlockSpec((16, 64), lambda i: (i, 0)),
      out_shape=S((32, 64), jnp.float32), interpret=interpret)(x, y)


def _ops_kernel(x_ref, n_ref, o_ref, idx_ref, cs_ref):
  # Elementwise, casts, reductions, argmax, cumsum, transpose, lax.cond and
  # lax.switch with results, a while_loop that is no fori_loop.
  x = x_ref[...]
  y = jax.nn.sigmoid(x) * x ** 3 - jnp.where(x > 0.5, jnp.abs(x), -x)
  y = y + jnp.max(x, axis=1, keepdims=True) - jnp.min(x.T, axis=0)[:, None]
  bits = lax.bitcast_convert_type(x, jnp.int32) & 0x7FFFFFFF  # |x|
  y = y + jnp.sign(x) * lax.bitcast_convert_type(bits, jnp.float32)
  n = n_ref[0]
  z = lax.cond(n > 2, lambda v: jnp.exp(v * 0.5), lambda v: jnp.tanh(v), y)
  z = lax.switch(n, [lambda v: v, lambda v: -v, lambda v: v * v], z)
  steps = lax.while_loop(lambda c: c[0] * c[0] < n, lambda c: (c[0] + 1, c[1] * 2),
                         (jnp.int32(0), jnp.int32(1)))[1]
  o_ref[...] = z + steps.astype(jnp.float32)
  idx_ref[...] = jnp.argmax(x, axis=1).astype(jnp.int32) * 2 % 5
  cs_ref[...] = jnp.cumsum(x, axis=1).astype(jnp.bfloat16)


def ops_mix(x, n, interpret=False):
  return pl.pallas_call(
      _ops_kernel,
      out_shape=(S((16, 32), jnp.float32), S((16,), jnp.int32),
                 S((16, 32), jnp.bfloat16)),
      interpret=interpret)(x, n)


def _rows_kernel(rows_ref, x_ref, o_ref):
  o_ref[...] = x_ref[...] * 2.0 + rows_ref[pl.program_id(0)].astype(jnp.float32)


def prefetch_rows(rows, x, interpret=False):
  # Scalar prefetch: the index map reads rows (an "@fn" index map).
  return pl.pallas_call(
      _rows_kernel,
      grid_spec=pltpu.PrefetchScalarGridSpec(
          num_scalar_prefetch=1, grid=(4,),
          in_specs=[pl.BlockSpec((None, 128), lambda i, rows: (rows[i], 0))],
          out_specs=pl.BlockSpec((None, 128), lambda i, rows: (i, 0))),
      out_shape=S((4, 128), jnp.float32), interpret=interpret)(rows, x)


def _row_sum_kernel(x_ref, y_ref, o_ref, acc_ref):
  # Sums row blocks over the sequential (arbitrary) second grid axis in a
  # scratch accumulator; the output aliases the input y.
  @pl.when(pl.program_id(1) == 0)
  def _():
    acc_ref[...] = jnp.zeros_like(acc_ref)

  acc_ref[...] += jnp.sum(x_ref[...], axis=1)

  @pl.when(pl.program_id(1) == pl.num_programs(1) - 1)
  def _():
    o_ref[...] = y_ref[...] + acc_ref[...]


def row_sum_scratch(x, y, interpret=False):
  return pl.pallas_call(
      _row_sum_kernel, grid=(2, 4),
      in_specs=[pl.BlockSpec((8, 32), lambda i, j: (i, j)),
                pl.BlockSpec((8,), lambda i, j: (i,))],
      out_specs=pl.BlockSpec((8,), lambda i, j: (i,)),
      out_shape=S((16,), jnp.float32),
      scratch_shapes=[pltpu.VMEM((8,), jnp.float32)],
      input_output_aliases={1: 0},
      compiler_params=pltpu.CompilerParams(
          dimension_semantics=("parallel", "arbitrary")),
      interpret=interpret)(x, y)


def _scoped_kernel(x_ref, o_ref):
  # pl.run_scoped: a scratch ref that lives for one region, and a result.
  def body(tmp_ref):
    tmp_ref[...] = x_ref[...] * 3.0
    tmp_ref[2:6] = -tmp_ref[2:6]
    return jnp.sum(tmp_ref[...])
  total = pl.run_scoped(body, pltpu.VMEM((64,), jnp.float32))
  o_ref[...] = x_ref[...] + total


def run_scoped_sum(x, interpret=False):
  return pl.pallas_call(_scoped_kernel, out_shape=S((64,), jnp.float32),
                        interpret=interpret)(x)


def _print_kernel(x_ref, o_ref):
  pl.debug_print("program {}: x[0] = {}", pl.program_id(0), x_ref[0])
  o_ref[...] = x_ref[...]


def debug_print_rows(x):
  return pl.pallas_call(
      _print_kernel, grid=(2,),
      in_specs=[pl.BlockSpec((None, 8), lambda i: (i, 0))],
      out_specs=pl.BlockSpec((None, 8), lambda i: (i, 0)),
      out_shape=S(x.shape, x.dtype))(x)


def _masked_atomic_kernel(x_ref, y_ref, c_ref, o_ref, cnt_ref):
  # pl.load with a mask and `other`, iota, reshapes, pl.dot with a
  # transposed operand, and an atomic add into an output every program
  # shares (its start value aliased from an input). (JAX's interpret mode
  # has no strided loads to compare them with.)
  even = x_ref[:, pl.ds(0, 16)]
  cols = lax.broadcasted_iota(jnp.int32, (16, 16), 1)
  odd = plgpu.load(x_ref.at[:, pl.ds(16, 16)], mask=cols < 12, other=0.5)
  r = jnp.reshape(jnp.reshape(even * odd + cols.astype(jnp.float32), (8, 32)) * 0.5,
                  (16, 16))
  d = plgpu.dot(r, y_ref[...], trans_b=True)  # (16, 16) x (16, 16)^T
  o_ref[...] = d
  plgpu.atomic_add(cnt_ref, pl.ds(0, 1), jnp.sum(d).reshape(1))


def masked_atomic(x, y, c, interpret=False):
  return pl.pallas_call(
      _masked_atomic_kernel, grid=(2,),
      in_specs=[pl.BlockSpec((16, 32), lambda i: (i, 0)),
                pl.BlockSpec((16, 16), lambda i: (0, 0)),
                pl.BlockSpec((1,), lambda i: (0,))],
      out_specs=[pl.BlockSpec((16, 16), lambda i: (i, 0)),
                 pl.BlockSpec((1,), lambda i: (0,))],
      out_shape=(S((32, 16), jnp.float32), S((1,), jnp.float32)),
      input_output_aliases={2: 1}, interpret=interpret)(x, y, c)


def _elementwise_kernel(x_ref, n_ref, f_ref, i_ref):
  # Every elementwise primitive the exporter lowers, on arguments inside
  # each one's domain (x: magnitudes 0.5 to 2, either sign; n: 1 to 7).
  x = x_ref[...]
  a, s = jnp.abs(x), x * 0.4
  f = (jnp.exp(s) + jnp.exp2(s) + jnp.log(a) + jnp.log1p(a) + jnp.expm1(s) + jnp.sqrt(a)
       + lax.rsqrt(a) + jnp.cbrt(x) + jnp.tanh(x) + jnp.sin(x) + jnp.cos(x) + jnp.tan(s)
       + jnp.arcsin(s) + jnp.arccos(s) + jnp.arctan(x) + jnp.sinh(s) + jnp.cosh(s)
       + jnp.arcsinh(x) + jnp.arccosh(1 + a) + jnp.arctanh(s) + lax.erf(x) + lax.erfc(x)
       + jnp.floor(x * 3) + jnp.ceil(x * 3) - x + x / a + lax.rem(x * 5, a)
       + jnp.maximum(x, s) * jnp.minimum(x, s) + a ** s + jnp.arctan2(x, a))
  f_ref[...] = jnp.where((x > 1) & (x <= 1.5) | (x != x), -f, f)
  n = n_ref[...]
  i = (((n << 2) | (n & 3)) ^ (n >> 1)) + lax.shift_right_logical(n, 1) + n * 7 // 3 \
      + n * 7 % 3 + lax.population_count(n) + lax.clz(n) + jnp.abs(n - 4) \
      + jnp.maximum(n, 3) * jnp.minimum(n, 5) + (n >= 2) + (n < 6) + (n == 4)
  i_ref[...] = i


def elementwise_all(x, n, interpret=False):
  return pl.pallas_call(
      _elementwise_kernel,
      out_shape=(S((8, 32), jnp.float32), S((8, 32), jnp.int32)),
      interpret=interpret)(x, n)


def _strided_kernel(x_ref, o_ref, p_ref):
  # Strided loads and stores (pl.ds with a stride): columns split into
  # even and odd, combined, and interleaved back.
  even, odd = x_ref[:, pl.ds(0, 16, stride=2)], x_ref[:, pl.ds(1, 16, stride=2)]
  o_ref[...] = even + 2.0 * odd
  p_ref[:, pl.ds(0, 16, stride=2)] = odd
  p_ref[:, pl.ds(1, 16, stride=2)] = even * 3.0


def strided_cols(x):
  return pl.pallas_call(_strided_kernel,
                        out_shape=(S((8, 16), jnp.float32), S((8, 32), jnp.float32)))(x)


def strided_cols_numpy(x):
  """What strided_cols computes (JAX's interpret mode has no strided refs)."""
  swapped = x.copy()
  swapped[:, 0::2], swapped[:, 1::2] = x[:, 1::2], x[:, 0::2] * 3.0
  return [x[:, 0::2] + 2.0 * x[:, 1::2], swapped]


CASES = {
    # name: (function, example args, tolerance[, "pallas_call": compare
    # with the pallas_call alone in interpret mode, or a NumPy function to
    # compare with instead])
    "softmax_f32": (softmax_f32, [S((4, 200), jnp.float32)], 1e-6),
    "softmax_bf16": (softmax_bf16, [S((3, 5, 64), jnp.bfloat16)], 1e-2),
    "layer_norm_f32": (layer_norm_f32, [S((2, 4, 200), jnp.float32),
                                        S((200,), jnp.float32),
                                        S((200,), jnp.float32)], 1e-5),
    "layer_norm_residuals_f32": (layer_norm_residuals_f32,
                                 [S((2, 4, 200), jnp.float32),
                                  S((200,), jnp.float32),
                                  S((200,), jnp.float32)], 1e-5, "pallas_call"),
    "rms_norm_f32": (rms_norm_f32, [S((2, 4, 200), jnp.float32),
                                    S((200,), jnp.float32),
                                    S((200,), jnp.float32)], 1e-5),
    "mha_f16": (mha_f16, [S((1, 128, 2, 64), jnp.float16)] * 3, 2e-3),
    "mha_causal_f16": (mha_causal_f16, [S((1, 128, 2, 64), jnp.float16)] * 3,
                       2e-3),
    "mha_segments_f16": (mha_segments_f16,
                         [S((1, 128, 2, 64), jnp.float16)] * 3 +
                         [S((1, 128), jnp.int32)], 2e-3),
    "mha_causal_f16_w8": (mha_causal_f16_w8,
                          [S((1, 128, 2, 64), jnp.float16)] * 3, 2e-3),
    "ops_mix": (ops_mix, [S((16, 32), jnp.float32), S((1,), jnp.int32)], 1e-5),
    "prefetch_rows": (prefetch_rows, [S((4,), jnp.int32),
                                      S((16, 128), jnp.float32)], 0),
    "row_sum_scratch": (row_sum_scratch, [S((16, 128), jnp.float32),
                                          S((16,), jnp.float32)], 1e-5),
    "run_scoped_sum": (run_scoped_sum, [S((64,), jnp.float32)], 1e-5),
    "mqa_f16": (mqa_f16, [S((2, 4, 64), jnp.float16),
                          S((2, 256, 64), jnp.float16),
                          S((2, 256, 64), jnp.float16)], 2e-3, "pallas_call"),
    "paged_attention_f16": (paged_attention_f16,
                            [S((2, 16, 64), jnp.float16),
                             S((1, 16, 16, 64), jnp.float16),
                             S((1, 16, 16, 64), jnp.float16),
                             S((2, 8), jnp.int32), S((2,), jnp.int32)], 2e-3,
                            "pallas_call"),
    "masked_atomic": (masked_atomic, [S((32, 32), jnp.float32), S((16, 16), jnp.float32),
                                        S((1,), jnp.float32)], 1e-5),
    "elementwise_all": (elementwise_all, [S((8, 32), jnp.float32), S((8, 32), jnp.int32)],
                        1e-5),
    "strided_cols": (strided_cols, [S((8, 32), jnp.float32)], 1e-6, strided_cols_numpy),
    "when_fori_dot": (when_fori_dot, [S((32, 32), jnp.float32),
                                      S((64, 64), jnp.float32)], 1e-4),
}


# -- Training: functions differentiated with jax.vjp ------------------------

def _mha_train(q, k, v, interpret=False, causal=False):
  """JAX's mha with its Pallas backward (backward_pass_impl="triton",
  the default) on 64 x 64 blocks in every pass."""
  blocks = attention.BlockSizes(block_q=64, block_k=64, block_q_dkv=64,
                                block_kv_dkv=64, block_q_dq=64,
                                block_kv_dq=64)
  return attention.mha(q, k, v, None, sm_scale=0.125, causal=causal,
                       block_sizes=blocks, interpret=interpret)


def mha_train_f16(q, k, v, interpret=False):
  return _mha_train(q, k, v, interpret)


def mha_train_b128_bf16(q, k, v, interpret=False, causal=False):
  """The backward on 128-row key blocks for dK/dV (query blocks of 64) and
  128-row query blocks for dQ (key blocks of 64), 8 warps: the two scans
  block their pairs differently."""
  blocks = attention.BlockSizes(block_q=128, block_k=64, block_q_dkv=64,
                                block_kv_dkv=128, block_q_dq=128,
                                block_kv_dq=64)
  return attention.mha(q, k, v, None, sm_scale=0.125, causal=causal,
                       block_sizes=blocks, num_warps=8, interpret=interpret)


def mha_train_causal_b128_bf16(q, k, v, interpret=False):
  return mha_train_b128_bf16(q, k, v, interpret, causal=True)


def mha_train_causal_bf16(q, k, v, interpret=False):
  return _mha_train(q, k, v, interpret, causal=True)


def mha_train_causal_d128_f16(q, k, v, interpret=False):
  return _mha_train(q, k, v, interpret, causal=True)


def layer_norm_train_f32(x, weight, bias, interpret=False):
  return layer_norm.layer_norm(x, weight, bias, interpret=interpret)


def rms_norm_train_f32(x, weight, bias, interpret=False):
  return rms_norm.rms_norm(x, weight, bias, interpret=interpret)


def _double_kernel(x_ref, o_ref):
  o_ref[...] = x_ref[...] * 2.0


def _xla_rule(backward, interpret):
  """`double` (a pallas_call) whose VJP is `backward(x, ct)` in XLA
  (pallasc_jax makes that math a kernel)."""
  double = lambda x: pl.pallas_call(
      _double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      interpret=interpret)(x)

  @jax.custom_vjp
  def f(x):
    return double(x)
  f.defvjp(lambda x: (double(x), x), lambda x, ct: (backward(x, ct),))
  return f


def xla_glue_f32(x, interpret=False):
  """A row mean broadcast back, a transpose, elementwise terms."""
  return _xla_rule(lambda x, ct: ct * jnp.cos(x) - jnp.mean(
      ct * x, axis=-1, keepdims=True) + 0.5 * jnp.swapaxes(ct, 0, 1),
      interpret)(x)


def xla_glue_rows_f32(x, interpret=False):
  """Row-wise XLA math: a select against a literal, a row max broadcast
  back, tanh; gridded over blocks of rows."""
  return _xla_rule(lambda x, ct: jnp.where(x > 0, ct, 0.1 * ct) + jnp.max(
      ct, axis=1, keepdims=True) * jnp.tanh(x), interpret)(x)


def _add_kernel(x_ref, y_ref, o_ref):
  o_ref[...] = x_ref[...] + y_ref[...]


def xla_zero_grad_f32(x, y, interpret=False):
  """A rule whose second gradient is zeros (jnp.zeros_like, a broadcast of
  a literal): a kernel of no inputs writes them."""
  add = lambda x, y: pl.pallas_call(
      _add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      interpret=interpret)(x, y)

  @jax.custom_vjp
  def f(x, y):
    return add(x, y)
  f.defvjp(lambda x, y: (add(x, y), None),
           lambda _, ct: (ct * 2.0, jnp.zeros_like(ct)))
  return f(x, y)


def xla_glue_softmax_f32(x, interpret=False):
  """jax.nn.softmax in the rule: a custom_jvp call holding stop_gradient."""
  return _xla_rule(lambda x, ct: jax.nn.softmax(ct, axis=-1) * x,
                   interpret)(x)


def xla_glue_columns_f32(x, interpret=False):
  """Column sums broadcast back along a new leading axis: the grid's
  programs take blocks of columns."""
  return _xla_rule(lambda x, ct: ct + jnp.sum(x, axis=0)[None, :],
                   interpret)(x)


def xla_glue_dots_f32(x, interpret=False):
  """Dots with free axes on one side (a per-batch inner product, a
  matrix-vector product) and reshapes that merge axes."""
  def backward(x, ct):
    b = x.shape[0]
    inner = jnp.einsum("bij,bij->b", ct, x)
    g = (ct.reshape(b, -1) * inner[:, None]).reshape(x.shape)
    mv = jnp.einsum("bij,j->bi", ct, x.sum((0, 1)))
    return g + mv[..., None] * x
  return _xla_rule(backward, interpret)(x)


def _mgpu_square_train(x, interpret=False):
  del interpret  # (checked against NumPy: VJP_REFERENCES)
  import mgpu_cases
  return mgpu_cases.square_train(x)


def _mgpu_square_reference(inputs, cotangents):
  import mgpu_cases
  return mgpu_cases.square_train_reference(inputs, cotangents)


def _attention_mgpu_train(q, k, v, interpret=False):
  del interpret  # (checked against NumPy: VJP_REFERENCES)
  import mgpu_shipped
  return mgpu_shipped.attention_train(q, k, v)


def _attention_mgpu_train_wg2(q, k, v, interpret=False):
  del interpret  # (checked against NumPy: VJP_REFERENCES)
  import mgpu_shipped
  return mgpu_shipped.attention_train_wg2(q, k, v)


def _attention_mgpu_reference(inputs, cotangents):
  import mgpu_shipped
  return mgpu_shipped.attention_train_reference(inputs, cotangents)


def tpu_flash_train_f32(q, k, v, interpret=False):
  """JAX's TPU flash attention ([batch, heads, seq, dim], unscaled) with
  its backward: the row statistics sliced out of lane-replicated blocks,
  delta and their broadcasts back to 128 lanes run in XLA between its
  kernels (pallasc_jax synthesizes them)."""
  del interpret  # (checked against NumPy: VJP_REFERENCES)
  from jax.experimental.pallas.ops.tpu import flash_attention as fa
  blocks = fa.BlockSizes(
      block_q=128, block_k_major=128, block_k=128, block_b=1,
      block_q_major_dkv=128, block_k_major_dkv=128, block_k_dkv=128,
      block_q_dkv=128, block_k_major_dq=128, block_k_dq=128, block_q_dq=128)
  return fa.flash_attention(q, k, v, block_sizes=blocks)


def _tpu_flash_reference(inputs, cotangents):
  import mgpu_shipped  # (the same math, heads second)
  swap = lambda x: x.transpose(0, 2, 1, 3)
  outs, grads = mgpu_shipped.attention_train_reference(
      [swap(x) for x in inputs], [swap(c) for c in cotangents])
  return [swap(o) for o in outs], [swap(g) for g in grads]


def splash_train_f32(q, k, v, interpret=False):
  """JAX's TPU splash attention ([heads, seq, dim], a full mask, unscaled)
  with its backward: its mask tables are arrays the function captures
  (the chain's constants); its softmax statistics live in outputs of one
  block for every head (the host runs the heads in turn)."""
  del interpret  # (checked against NumPy: VJP_REFERENCES)
  from jax.experimental.pallas.ops.tpu.splash_attention import (
      splash_attention_kernel as splash, splash_attention_mask as masks)
  heads, seq = q.shape[0], q.shape[1]
  mask = masks.MultiHeadMask([masks.FullMask((seq, seq))] * heads)
  blocks = splash.BlockSizes(
      block_q=128, block_kv=128, block_kv_compute=128, block_q_dkv=128,
      block_kv_dkv=128, block_kv_dkv_compute=128, block_q_dq=128,
      block_kv_dq=128)
  return splash.make_splash_mha(mask, head_shards=1, q_seq_shards=1,
                                block_sizes=blocks)(q, k, v)


def _splash_reference(inputs, cotangents):
  import mgpu_shipped  # (the same math, with a batch of one)
  batched = lambda x: x[None].transpose(0, 2, 1, 3)
  back = lambda x: x.transpose(0, 2, 1, 3)[0]
  outs, grads = mgpu_shipped.attention_train_reference(
      [batched(x) for x in inputs], [batched(c) for c in cotangents])
  return [back(o) for o in outs], [back(g) for g in grads]


# Cases whose outputs and gradients come from NumPy, not jax.vjp in
# interpret mode (Pallas:MGPU kernels run on a GPU only).
VJP_REFERENCES = {"mgpu_square_train_f32": _mgpu_square_reference,
                  "attention_mgpu_train_f16": _attention_mgpu_reference,
                  "attention_mgpu_train_gqa_f16": _attention_mgpu_reference,
                  "attention_mgpu_train_wg2_f16": _attention_mgpu_reference,
                  "tpu_flash_train_f32": _tpu_flash_reference,
                  "splash_train_f32": _splash_reference}

VJP_CASES = {
    # name: (function, example args, tolerance on the outputs and gradients)
    "mgpu_square_train_f32": (_mgpu_square_train, [S((128,), jnp.float32)], 1e-6),
    # JAX's attention_mgpu: its delta (an einsum in XLA) runs as a kernel
    # pallasc_jax synthesizes between the forward and the dQ, dK/dV ones.
    "attention_mgpu_train_f16": (_attention_mgpu_train,
                                 [S((1, 256, 2, 64), jnp.float16)] * 3, 2e-2),
    "attention_mgpu_train_wg2_f16": (_attention_mgpu_train_wg2,
                                     [S((1, 256, 2, 64), jnp.float16)] * 3, 2e-2),
    # GQA: the sum of each group's dK and dV (XLA) is synthesized too.
    "attention_mgpu_train_gqa_f16": (_attention_mgpu_train,
                                     [S((1, 256, 4, 64), jnp.float16),
                                      S((1, 256, 2, 64), jnp.float16),
                                      S((1, 256, 2, 64), jnp.float16)], 2e-2),
    "tpu_flash_train_f32": (tpu_flash_train_f32,
                            [S((1, 2, 256, 128), jnp.float32)] * 3, 1e-3),
    "splash_train_f32": (splash_train_f32, [S((2, 256, 128), jnp.float32)] * 3,
                         1e-3),
    "xla_glue_f32": (xla_glue_f32, [S((6, 6, 128), jnp.float32)], 1e-5),
    "xla_glue_rows_f32": (xla_glue_rows_f32, [S((256, 384), jnp.float32)], 1e-5),
    "xla_glue_dots_f32": (xla_glue_dots_f32, [S((8, 64, 32), jnp.float32)], 1e-3),
    "xla_glue_softmax_f32": (xla_glue_softmax_f32, [S((40, 128), jnp.float32)], 1e-5),
    "xla_zero_grad_f32": (xla_zero_grad_f32, [S((8, 128), jnp.float32)] * 2, 1e-6),
    "xla_glue_columns_f32": (xla_glue_columns_f32, [S((64, 256), jnp.float32)], 1e-5),
    "mha_train_f16": (mha_train_f16, [S((1, 256, 2, 64), jnp.float16)] * 3,
                      5e-3),
    "mha_train_b128_bf16": (mha_train_b128_bf16,
                            [S((1, 256, 2, 64), jnp.bfloat16)] * 3, 3e-2),
    "mha_train_causal_b128_bf16": (mha_train_causal_b128_bf16,
                                   [S((1, 256, 2, 64), jnp.bfloat16)] * 3, 3e-2),
    "mha_train_causal_bf16": (mha_train_causal_bf16,
                              [S((1, 256, 2, 64), jnp.bfloat16)] * 3, 3e-2),
    "mha_train_causal_d128_f16": (mha_train_causal_d128_f16,
                           [S((2, 128, 1, 128), jnp.float16)] * 3, 5e-3),
    "layer_norm_train_f32": (layer_norm_train_f32,
                             [S((2, 4, 200), jnp.float32),
                              S((200,), jnp.float32),
                              S((200,), jnp.float32)], 1e-4),
    "rms_norm_train_f32": (rms_norm_train_f32,
                           [S((2, 4, 200), jnp.float32),
                            S((200,), jnp.float32),
                            S((200,), jnp.float32)], 1e-4),
}
