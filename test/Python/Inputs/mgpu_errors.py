"""Pallas:MGPU kernels the front end refuses, each for one reason (the
tests check the line each error names)."""
import jax
from jax.experimental.pallas import mosaic_gpu as plgpu

from mgpu_cases import add_one


def cluster_barrier(x):
  # Cluster barriers only the leader block tracks have no pallas type yet.
  def body(x_gmem, o_gmem, bar):
    plgpu.barrier_arrive(bar)
  return plgpu.kernel(
      body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
      cluster=(2,), cluster_names=("c",),
      scratch_types=[plgpu.ClusterBarrier(collective_axes=("c",),
                                          leader_tracked=True)])(x)


def blackwell_commit(x):
  # tcgen05 (Blackwell) has no pallas op.
  def body(x_gmem, o_gmem, bar):
    plgpu.tcgen05_commit_arrive(bar)
  return plgpu.kernel(
      body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
      scratch_types=[plgpu.Barrier(num_arrivals=1,
                                   orders_tensor_core=True)])(x)


def two_kernels(x):
  return add_one(add_one(x))
