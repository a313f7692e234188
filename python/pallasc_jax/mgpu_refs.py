"""Pallas:MGPU refs: their types (GMEM operands, SMEM scratch at its logical
shape, WGMMA accumulators, barriers) and the views the MGPU primitives take
(ref.at[...] chains become `pallas.ref_slice`, barriers are indexed in the
op itself)."""
from __future__ import annotations

import dataclasses

import numpy as np
from jax._src.pallas.mosaic_gpu import core as gpu_core
from jax._src.state import indexing
from jax._src.state import types as state_types

from .errors import ExportError, located
from .lower import Const, Lowering, Operand, is_ref
from .mlir_text import RefType, Value, element_type
from .rules_memory import ref_slice

# Transforms that only say how SMEM is laid out; the kernel sees the
# logical shape, the layout is the op attribute `plgpu.transforms`.
LAYOUT_TRANSFORMS = (gpu_core.UnswizzleRef, gpu_core.UntilingTransform)


@dataclasses.dataclass(frozen=True)
class BarrierType:
  count: int
  arrivals: int
  # A ClusterBarrier's cluster axes: an arrival lands on the barrier of
  # every block along them.
  collective: tuple[str, ...] = ()

  def __str__(self):
    cluster = ""
    if self.collective:
      cluster = ", collective = [" + ", ".join(
          f'"{a}"' for a in self.collective) + "]"
    return (f"!plgpu.barrier<{self.count}, arrivals = {self.arrivals}"
            f"{cluster}>")


@dataclasses.dataclass(frozen=True)
class LaidOutRefType(RefType):
  """An SMEM ref at its logical shape; every use of it in the jaxpr starts
  with `layout` (the inverse of the user's transforms), which is dropped."""
  layout: tuple = ()


_SPACES = {"gmem": "gmem", "smem": "smem", "regs": "regs"}


def _space(aval) -> str | None:
  space = getattr(aval, "memory_space", None)
  if space is None:
    return None
  name = str(getattr(space, "value", space)).lower()
  if name == "tmem" or isinstance(aval, gpu_core.AbstractTMEMRef):
    raise ExportError("a TMEM ref (Blackwell tensor memory)")
  if name not in _SPACES:
    raise ExportError(f"memory space {space} has no pallas equivalent")
  return _SPACES[name]


def _barrier_type(aval) -> BarrierType:
  dtype = aval.dtype
  collective: tuple[str, ...] = ()
  if isinstance(dtype, gpu_core.ClusterBarrierType):
    if getattr(dtype, "leader_tracked", False):
      raise ExportError("a ClusterBarrier with leader_tracked=True")
    for axis in dtype.collective_axes:
      if not isinstance(axis, str):
        raise ExportError(f"a ClusterBarrier over the axis group {axis} "
                          "(only named cluster axes)")
    collective = tuple(dtype.collective_axes)
    if not collective:
      raise ExportError("a ClusterBarrier with no collective axes")
  elif not isinstance(dtype, gpu_core.BarrierType):
    raise ExportError(f"scratch of type {dtype}")
  if len(aval.shape) > 1:
    raise ExportError(f"a barrier array of shape {tuple(aval.shape)} "
                      "(only one dimension)")
  return BarrierType(int(np.prod(aval.shape)), int(dtype.num_arrivals),
                     collective)


def ref_type(aval, layout: tuple = ()) -> RefType | BarrierType:
  """The type of a ref aval; `layout` is the run_scoped's ref_transforms of
  an SMEM scratch (the logical shape is the transformed physical one)."""
  if isinstance(aval, gpu_core.AbstractRefUnion):
    raise ExportError("scratch of type RefUnion")
  if not hasattr(aval, "inner_aval"):
    raise ExportError(f"a kernel ref of type {aval} (only array refs are "
                      "supported)")
  inner = aval.inner_aval
  if isinstance(inner.dtype, (gpu_core.BarrierType,
                              gpu_core.ClusterBarrierType)):
    return _barrier_type(inner)
  if not isinstance(inner.dtype, np.dtype):  # semaphores, ...
    raise ExportError(f"a ref of {inner.dtype}")
  space = _space(aval)
  for t in layout:
    if not isinstance(t, LAYOUT_TRANSFORMS):
      raise ExportError(f"SMEM transform {type(t).__name__} (only tiling and "
                        "swizzling are supported)")
    inner = t.transform_type(inner)
  shape, elt = tuple(inner.shape), element_type(inner.dtype)
  if layout:
    return LaidOutRefType(shape, elt, space, tuple(layout))
  return RefType(shape, elt, space)


def transforms_attr(layout: tuple) -> str:
  """The user's transforms, in the order given: the inverse of `layout`."""
  attrs = []
  for t in reversed(layout):
    if isinstance(t, gpu_core.UnswizzleRef):
      attrs.append(f"#plgpu.swizzle<{int(t.swizzle)}>")
    else:
      attrs.append(f"#plgpu.tiling<{', '.join(str(int(d)) for d in t.tiling)}>")
  return "[" + ", ".join(attrs) + "]"


def strip_layout(eqn, ref: Value, transforms) -> list:
  """`transforms` without the layout prefix `ref`'s type says it starts
  with (a use that does not would index the physical, tiled ref)."""
  transforms = list(transforms or ())
  layout = getattr(ref.type, "layout", ())
  if tuple(transforms[:len(layout)]) != layout:
    raise located(eqn, "a use of a tiled or swizzled SMEM ref without its "
                       "transforms")
  rest = transforms[len(layout):]
  if any(isinstance(t, LAYOUT_TRANSFORMS) for t in rest):
    raise located(eqn, "a tiling or swizzle transform applied to a view")
  return rest


def _is_full(idx: indexing.NDIndexer, shape) -> bool:
  return all(isinstance(s, indexing.Slice) and isinstance(s.start, int) and
             s.start == 0 and s.size == d and s.stride == 1
             for s, d in zip(idx.indices, shape))


def view(lw: Lowering, eqn, ref: Operand, transforms,
         transposable: bool = False) -> tuple[Value, bool]:
  """The whole ref a primitive takes: each indexer a `pallas.ref_slice`.
  A trailing 2-D transpose (`ref.T` of a wgmma operand, `transposable`) is
  returned as a flag."""
  if not is_ref(ref):
    raise located(eqn, "a ref operand that is not a kernel ref")
  transposed = False
  for t in strip_layout(eqn, ref, transforms):
    if transposable and not transposed and \
        isinstance(t, state_types.TransposeTransform) and \
        tuple(t.permutation) == (1, 0):
      transposed = True
    elif isinstance(t, indexing.NDIndexer) and not transposed:
      if not _is_full(t, ref.type.shape):
        ref = ref_slice(lw, eqn, ref, t)
    elif isinstance(t, (gpu_core.PeerMemRef, gpu_core.MulticastRef)):
      raise located(eqn, f"{eqn.primitive.name} on a remote_ref or "
                         "multicast_ref (multi-GPU)")
    else:
      raise located(eqn, f"ref transform {type(t).__name__} here (only "
                         "indexing, and transposing a wgmma operand)")
  return ref, transposed


def barrier(lw: Lowering, eqn, ref: Operand, transforms) -> tuple[str, str]:
  """`%b` or `%b[%i]`, and the types after the colon."""
  if not isinstance(ref, Value) or not isinstance(ref.type, BarrierType):
    raise located(eqn, "a barrier operand that is not a plgpu.Barrier")
  transforms = list(transforms or ())
  if not transforms or (len(transforms) == 1 and
                        isinstance(transforms[0], indexing.NDIndexer) and
                        _is_full(transforms[0], (ref.type.count,))):
    if ref.type.count != 1:
      raise located(eqn, f"a use of all {ref.type.count} barriers of an "
                         "array at once (index it: bar.at[i])")
    return ref.name, str(ref.type)
  idx = transforms[0] if len(transforms) == 1 else None
  if not isinstance(idx, indexing.NDIndexer) or len(idx.indices) != 1 or \
      isinstance(idx.indices[0], indexing.Slice):
    raise located(eqn, "a barrier indexed other than by one integer")
  i = idx.indices[0]
  if isinstance(i, Const) and int(i.value) < 0:
    raise located(eqn, f"a negative barrier index {int(i.value)}")
  return f"{ref.name}[{lw.scalar_i32(i).name}]", f"{ref.type}, i32"
