"""Pallas:MGPU kernels (plgpu.kernel) the front-end tests export (the ones
it refuses are in mgpu_errors.py)."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

_SWIZZLE = (plgpu.TilingTransform((8, 64)), plgpu.SwizzleTransform(128))


def add_one(x):
  def kernel_body(input_ref, out_ref):
    out_ref[...] = input_ref[...] + 1
  return plgpu.kernel(kernel_body, out_type=jax.ShapeDtypeStruct(
      x.shape, x.dtype))(x)


def matmul(a, b):
  """One 128x128 output tile per block; K in steps of 64 through SMEM."""
  m, k = a.shape
  _, n = b.shape
  tm, tn, tk = 128, 128, 64

  def mm(a_gmem, b_gmem, o_gmem, a_smem, b_smem, bar, acc, o_smem):
    mi = lax.axis_index("m")
    ni = lax.axis_index("n")

    def step(ki, carry):
      plgpu.copy_gmem_to_smem(
          a_gmem.at[pl.ds(mi * tm, tm), pl.ds(ki * tk, tk)], a_smem, bar)
      plgpu.copy_gmem_to_smem(
          b_gmem.at[pl.ds(ki * tk, tk), pl.ds(ni * tn, tn)], b_smem, bar)
      plgpu.barrier_wait(bar)
      plgpu.wgmma(acc, a_smem, b_smem)
      plgpu.wgmma_wait(0)
      return carry
    lax.fori_loop(0, k // tk, step, None)
    o_smem[...] = acc[...].astype(o_smem.dtype)
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(
        o_smem, o_gmem.at[pl.ds(mi * tm, tm), pl.ds(ni * tn, tn)])
    plgpu.wait_smem_to_gmem(0)

  return plgpu.kernel(
      mm, out_type=jax.ShapeDtypeStruct((m, n), a.dtype),
      grid=(m // tm, n // tn), grid_names=("m", "n"),
      scratch_types=[plgpu.SMEM((tm, tk), a.dtype, transforms=_SWIZZLE),
                     plgpu.SMEM((tk, tn), a.dtype, transforms=_SWIZZLE),
                     plgpu.Barrier(num_arrivals=2),
                     plgpu.ACC((tm, tn), jnp.float32),
                     plgpu.SMEM((tm, tn), a.dtype, transforms=_SWIZZLE)])(
                         a, b)


def pipelined_matmul(a, b):
  """The same tiles, K streamed through SMEM by plgpu.emit_pipeline, one
  wgmma left in flight per step. The slot a step reads is refilled only
  once the next step's wgmma_wait(1) has retired its wgmma (delay_release
  = 1): without it the copy of step + max_concurrent_steps lands in the
  slot the step's wgmma may still be reading."""
  m, k = a.shape
  _, n = b.shape
  tm, tn, tk = 128, 128, 64

  def mm(a_gmem, b_gmem, o_gmem, o_smem, acc):
    mi = lax.axis_index("m")
    ni = lax.axis_index("n")

    def step(_, a_smem, b_smem):
      plgpu.wgmma(acc, a_smem, b_smem)
      plgpu.wgmma_wait(1)
    plgpu.emit_pipeline(
        step, grid=(k // tk,), max_concurrent_steps=3,
        in_specs=[plgpu.BlockSpec((tm, tk), lambda ki: (mi, ki),
                                  transforms=_SWIZZLE, delay_release=1),
                  plgpu.BlockSpec((tk, tn), lambda ki: (ki, ni),
                                  transforms=_SWIZZLE, delay_release=1)])(a_gmem, b_gmem)
    o_smem[...] = acc[...].astype(o_smem.dtype)
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(
        o_smem, o_gmem.at[pl.ds(mi * tm, tm), pl.ds(ni * tn, tn)])
    plgpu.wait_smem_to_gmem(0)

  return plgpu.kernel(
      mm, out_type=jax.ShapeDtypeStruct((m, n), a.dtype),
      grid=(m // tm, n // tn), grid_names=("m", "n"),
      scratch_types=[plgpu.SMEM((tm, tn), a.dtype, transforms=_SWIZZLE),
                     plgpu.ACC((tm, tn), jnp.float32)])(a, b)


def pipelined_add(x, y):
  """Elementwise, 64-row blocks streamed in and out by emit_pipeline."""
  rows, cols = x.shape

  def add(x_gmem, y_gmem, o_gmem):
    def step(_, x_smem, y_smem, o_smem):
      o_smem[...] = x_smem[...] + y_smem[...]
    spec = plgpu.BlockSpec((64, cols), lambda i: (i, 0))
    plgpu.emit_pipeline(step, grid=(rows // 64,), max_concurrent_steps=2,
                        in_specs=[spec, spec], out_specs=[spec])(
                            x_gmem, y_gmem, o_gmem)

  return plgpu.kernel(add, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(
      x, y)


def warp_specialized(x):
  """Two warpgroups over double-buffered SMEM and barrier arrays: the
  first copies rows in, the second scales them (B^T through wgmma, into an
  accumulator of its own) and copies them out."""
  def body(x_gmem, o_gmem, smem, full):
    wg = lax.axis_index("wg")
    slot = lax.rem(lax.axis_index("i"), 2)

    @pl.when(wg == 0)
    def _():
      plgpu.set_max_registers(40, action="decrease")
      plgpu.copy_gmem_to_smem(x_gmem.at[pl.ds(0, 64)], smem.at[slot],
                              full.at[slot])

    @pl.when(wg == 1)
    def _():
      plgpu.set_max_registers(232, action="increase")
      plgpu.barrier_wait(full.at[slot])

      def compute(acc):
        plgpu.wgmma(acc, smem.at[slot], smem.at[slot].T)
        y = plgpu.layout_cast(acc[...], plgpu.Layout.WGMMA)
        smem[slot] = y.astype(smem.dtype)
      pl.run_scoped(compute, plgpu.ACC((64, 64), jnp.float32))
      plgpu.commit_smem()
      plgpu.copy_smem_to_gmem(smem.at[slot], o_gmem.at[pl.ds(0, 64)],
                              commit_group=False)
      plgpu.commit_smem_to_gmem_group()
      plgpu.wait_smem_to_gmem(0, wait_read_only=True)

  return plgpu.kernel(
      body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
      grid=(2,), grid_names=("i",), num_threads=2, thread_name="wg",
      scratch_types=[plgpu.SMEM((2, 64, 64), jnp.float16, transforms=_SWIZZLE),
                     plgpu.Barrier(num_arrivals=1, num_barriers=2)])(x)


def row_buffers(x):
  """Two warpgroups, each with a row of [2, 128] SMEM buffers (what JAX's
  attention backward keeps its row statistics in): its row of x copied in
  by the TMA, read, 2 x + 1 written to its row of the second buffer, and
  that row copied out."""
  def body(x_gmem, o_gmem, rows_in, rows_out, bar):
    wg = lax.axis_index("wg")
    plgpu.copy_gmem_to_smem(x_gmem.at[wg], rows_in.at[wg], bar.at[wg])
    plgpu.barrier_wait(bar.at[wg])
    rows_out[wg, :] = rows_in[wg, :] * 2 + 1
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(rows_out.at[wg], o_gmem.at[wg])
    plgpu.wait_smem_to_gmem(0)
  return plgpu.kernel(
      body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
      num_threads=2, thread_name="wg",
      scratch_types=[plgpu.SMEM(x.shape, x.dtype), plgpu.SMEM(x.shape, x.dtype),
                     plgpu.Barrier(num_arrivals=1, num_barriers=2)])(x)


def reduce_store(x):
  """Each block stores its rows of x, then adds them again with a reducing
  TMA store (ordered by wait_smem_to_gmem): the output is 2 x."""
  rows = x.shape[0] // 2

  def body(x_gmem, o_gmem, smem, bar):
    i = lax.axis_index("i")
    tile = pl.ds(i * rows, rows)
    plgpu.copy_gmem_to_smem(x_gmem.at[tile], smem, bar)
    plgpu.barrier_wait(bar)
    plgpu.copy_smem_to_gmem(smem, o_gmem.at[tile])
    plgpu.wait_smem_to_gmem(0)
    plgpu.copy_smem_to_gmem(smem, o_gmem.at[tile], reduction_op="add")
    plgpu.wait_smem_to_gmem(0)
  return plgpu.kernel(
      body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
      grid=(2,), grid_names=("i",),
      scratch_types=[plgpu.SMEM((rows, x.shape[1]), x.dtype),
                     plgpu.Barrier(num_arrivals=1)])(x)


def cluster_ops(x):
  """A cluster: a multicast copy, barrier_test, program ids over the mesh,
  plgpu.ACC.init (run_state), a WGMMA with its LHS in registers, a copy
  that adds into GMEM."""
  def body(x_gmem, o_gmem, smem, bar):
    plgpu.copy_gmem_to_smem(x_gmem, smem, bar, collective_axes="c")
    done = plgpu.barrier_test(bar)
    n = pl.num_programs(0) + pl.program_id(1)

    def scope(acc):
      plgpu.wgmma(acc, smem[...], smem.T)
    out = pl.run_state(scope)(
        plgpu.ACC.init(jnp.zeros((64, 64), jnp.float32)))
    out = jnp.where(done, out, out + n.astype(jnp.float32))
    smem[...] = out.astype(smem.dtype)
    plgpu.copy_smem_to_gmem(smem, o_gmem, reduction_op="add")
  return plgpu.kernel(
      body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
      grid=(2,), grid_names=("g",), cluster=(2,), cluster_names=("c",),
      scratch_types=[plgpu.SMEM((64, 64), jnp.float16, transforms=_SWIZZLE),
                     plgpu.Barrier(num_arrivals=1)])(x)


# -- Training: a custom_vjp whose forward and backward are plgpu kernels -----

def _square(x):
  def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]
  return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def _square_grad(x, dy):
  def body(x_ref, dy_ref, o_ref):
    o_ref[...] = 2 * x_ref[...] * dy_ref[...]
  return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, dy)


@jax.custom_vjp
def square_train(x):
  """x * x, its VJP 2 x dy: both plgpu kernels (pallasc_jax --vjp exports
  the two and the chain between them)."""
  return _square(x)


square_train.defvjp(lambda x: (_square(x), (x,)),
                    lambda res, dy: (_square_grad(res[0], dy),))


def square_train_reference(inputs, cotangents):
  """NumPy: the outputs and gradients jax.vjp gives (JAX runs plgpu
  kernels on a GPU only)."""
  (x,), (dy,) = inputs, cotangents
  return [x * x], [2 * x * dy]
