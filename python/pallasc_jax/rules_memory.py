"""Ref primitives: Pallas's masked load/swap, the state primitives
get/swap/addupdate, atomics; their NDIndexers become pallas indexers."""
from __future__ import annotations

import dataclasses

import numpy as np
from jax._src import tree_util
from jax._src.indexing import Slice
from jax._src.state import indexing

from .errors import located
from .lower import Const, Lowering, Operand, is_ref, rule
from .mlir_text import RefType, TensorType, Value, is_float, value_type


@dataclasses.dataclass
class Access:
  """`%ref[INDEXERS]` and the types the op's syntax lists after the ref."""
  ref: Value
  text: str
  index_types: list[str]


def _is_slice_full(s: Slice, dim: int) -> bool:
  return (isinstance(s.start, int) and s.start == 0 and s.size == dim and
          s.stride == 1)


def _static(x):
  """A Python int for static starts (ints and literals), else None."""
  if isinstance(x, int):
    return x
  if isinstance(x, Const):
    return int(x.value)
  return None


def _overhangs(s: Slice, dim: int) -> bool:
  start = _static(s.start)
  last = (start or 0) + (s.size - 1) * s.stride
  return last >= dim


def _indexer(lw: Lowering, eqn, ref: Value, idx: indexing.NDIndexer,
             allow_tensors=True) -> Access:
  shape = ref.type.shape
  items = list(idx.indices)
  for s in items:
    if isinstance(s, Slice) and not isinstance(s.size, int):
      raise located(eqn, "a pl.ds slice of dynamic size")
  has_tensor = any(not isinstance(s, Slice) and s.type.shape for s in items)
  if any(isinstance(s, Slice) and _overhangs(s, d)
         for s, d in zip(items, shape)):
    # Pallas on GPU lets a masked slice reach past the block (the lanes
    # beyond it masked off); pallas slices must fit, so such an access
    # becomes a gather over the same indices.
    if has_tensor or not allow_tensors:
      raise located(eqn, "a slice reaching past the ref's dimension, beside "
                         "other index arrays or in a view (ref.at)")
    items = _slices_as_gathers(lw, items)
  if all(isinstance(s, Slice) and _is_slice_full(s, d)
         for s, d in zip(items, shape)):
    return Access(ref, f"{ref.name}[...]", [])
  parts, types = [], []
  for s, dim in zip(items, shape):
    if isinstance(s, Slice):
      if _is_slice_full(s, dim):
        parts.append(":")
        continue
      start = _static(s.start)
      start_text = str(start) if start is not None else \
          lw.scalar_i32(s.start).name
      stride = f", {s.stride}" if s.stride != 1 else ""
      parts.append(f"ds({start_text}, {s.size}{stride})")
    elif isinstance(s, Const) and not s.type.shape:
      if int(s.value) < 0:
        raise located(eqn, f"a negative index {int(s.value)}")
      parts.append(str(int(s.value)))
    else:
      v = lw.value(s)
      if v.type.shape and not allow_tensors:
        raise located(eqn, "a view (ref.at) indexed by an array")
      parts.append(v.name)
      types.append(str(v.type))
  return Access(ref, f"{ref.name}[{', '.join(parts)}]", types)


def _slices_as_gathers(lw: Lowering, items) -> list:
  """Every slice as an index tensor over the sliced shape (outer product)."""
  sizes = tuple(s.size for s in items if isinstance(s, Slice))
  ids = TensorType(sizes, "i32")
  out, k = [], 0
  for s in items:
    if not isinstance(s, Slice):
      out.append(s)
      continue
    v = lw.em.pure(f"pallas.iota {k} : {ids}", ids)
    k += 1
    if s.stride != 1:
      stride = lw.splat(s.stride, ids)
      v = lw.em.op(f"arith.muli {v.name}, {stride.name} : {ids}", ids)
    start = _static(s.start)
    if start != 0:
      base = lw.broadcast(lw.scalar_i32(s.start) if start is None else
                          Const(np.array(start), ids.with_shape(())), sizes)
      v = lw.em.op(f"arith.addi {v.name}, {base.name} : {ids}", ids)
    out.append(v)
  return out


def ref_slice(lw: Lowering, eqn, ref: Value, idx) -> Value:
  """A view `ref.at[...]` (all transforms but the last)."""
  access = _indexer(lw, eqn, ref, idx, allow_tensors=False)
  shape = tuple(s.size for s in idx.indices if isinstance(s, Slice))
  view = RefType(shape, ref.type.elt, ref.type.space)
  types = "".join(f", {t}" for t in access.index_types)
  return lw.em.op(f"pallas.ref_slice {access.text} : {ref.type}{types} -> "
                  f"{view}", view)


def _access(lw: Lowering, eqn, ref: Operand, transforms) -> Access:
  if not is_ref(ref):
    raise located(eqn, "a ref primitive on something that is not a kernel ref")
  transforms = list(transforms or ())
  for t in transforms:
    if not isinstance(t, indexing.NDIndexer):
      raise located(eqn, f"ref transform {type(t).__name__} (only indexing "
                         "and pl.ds views are supported)")
  for t in transforms[:-1]:
    ref = ref_slice(lw, eqn, ref, t)
  if not transforms:
    return Access(ref, f"{ref.name}[...]", [])
  return _indexer(lw, eqn, ref, transforms[-1])


def _types(access: Access) -> str:
  return "".join(f", {t}" for t in access.index_types)


def _mask(lw, mask: Operand | None, type_: TensorType) -> str:
  if mask is None:
    return ""
  return f" mask {lw.broadcast(mask, type_.shape).name}"


def load(lw: Lowering, eqn, ref, transforms, mask=None, other=None) -> Value:
  access = _access(lw, eqn, ref, transforms)
  out = value_type(eqn.outvars[0].aval)
  other_text = ""
  if mask is not None and other is not None:
    if isinstance(other, Const):
      o = lw.broadcast(Const(np.asarray(other.value).astype(
          eqn.outvars[0].aval.dtype), out.with_shape(())), out.shape)
    else:
      o = lw.broadcast(lw.convert(other, out.elt), out.shape)
    other_text = f" other {o.name}"
  return lw.em.op(f"pallas.load {access.text}{_mask(lw, mask, out)}"
                  f"{other_text} : {access.ref.type}{_types(access)} -> {out}",
                  out)


def swap(lw: Lowering, eqn, ref, transforms, value, mask=None) -> list[Value]:
  access = _access(lw, eqn, ref, transforms)
  t = value_type(eqn.outvars[0].aval)
  v = lw.broadcast(value, t.shape)
  head = f"{access.text}, {v.name}{_mask(lw, mask, t)} : {access.ref.type}" \
         f"{_types(access)}, {t}"
  if not lw.is_used(eqn.outvars[0]):
    lw.em.line(f"pallas.store {head}")
    return [None]  # the old value, which nothing reads
  return [lw.em.op(f"pallas.swap {head}", t)]


@rule("masked_load")
def _masked_load(lw, eqn, ins):
  ref, transforms, mask, other = tree_util.tree_unflatten(
      eqn.params["args_tree"], ins)
  return [load(lw, eqn, ref, transforms, mask, other)]


@rule("masked_swap")
def _masked_swap(lw, eqn, ins):
  ref, transforms, value, mask = tree_util.tree_unflatten(
      eqn.params["args_tree"], ins)
  return swap(lw, eqn, ref, transforms, value, mask)


@rule("get")
def _get(lw, eqn, ins):
  ref, *flat = ins
  return [load(lw, eqn, ref, tree_util.tree_unflatten(eqn.params["tree"],
                                                      flat))]


@rule("swap")
def _swap(lw, eqn, ins):
  ref, value, *flat = ins
  return swap(lw, eqn, ref, tree_util.tree_unflatten(eqn.params["tree"], flat),
              value)


@rule("addupdate")
def _addupdate(lw, eqn, ins):
  ref, value, *flat = ins
  transforms = tree_util.tree_unflatten(eqn.params["tree"], flat)
  access = _access(lw, eqn, ref, transforms)
  v = lw.value(value)
  old = lw.em.op(f"pallas.load {access.text} : {access.ref.type}"
                 f"{_types(access)} -> {v.type}", v.type)
  op = "arith.addf" if is_float(v.type.elt) else "arith.addi"
  new = lw.em.op(f"{op} {old.name}, {v.name} : {v.type}", v.type)
  lw.em.line(f"pallas.store {access.text}, {new.name} : {access.ref.type}"
             f"{_types(access)}, {v.type}")
  return []


@rule("atomic_rmw")
def _atomic_rmw(lw, eqn, ins):
  ref, transforms, value, mask = tree_util.tree_unflatten(
      eqn.params["args_tree"], ins)
  access = _access(lw, eqn, ref, transforms)
  t = value_type(eqn.outvars[0].aval)
  v = lw.broadcast(value, t.shape)
  kind = eqn.params["atomic_type"].value
  return [lw.em.op(f"pallas.atomic_rmw {kind} {access.text}, {v.name}"
                   f"{_mask(lw, mask, t)} : {access.ref.type}{_types(access)},"
                   f" {t}", t)]
