"""Primitives that build, reshape, reduce or multiply whole tensors."""
from __future__ import annotations

import numpy as np

from .errors import located
from .lower import Const, Pending, rule
from .mlir_text import is_float, value_type

_REDUCE = {
    "reduce_sum": "sum", "reduce_prod": "prod", "reduce_max": "max",
    "reduce_min": "min", "reduce_and": "and", "reduce_or": "or",
    "reduce_xor": "xor",
}
_PRECISION = {"DEFAULT": "default", "HIGH": "high", "HIGHEST": "highest"}


def _axes_text(axes) -> str:
  return "[" + ", ".join(str(int(a)) for a in axes) + "]"


@rule("iota")
def _iota(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  dim = int(eqn.params["dimension"])
  ids = out.with_elt("i32")
  v = lw.em.pure(f"pallas.iota {dim} : {ids}", ids)
  return [lw.convert(v, out.elt)]


@rule("broadcast_in_dim")
def _broadcast_in_dim(lw, eqn, ins):
  (x,) = ins
  dims = tuple(eqn.params["broadcast_dimensions"])
  return [lw.broadcast_lazy(x, eqn.params["shape"], dims if dims else None)]


@rule("broadcast_to")
def _broadcast_to(lw, eqn, ins):
  (x,) = ins
  return [lw.broadcast_lazy(x, eqn.params["shape"])]


@rule("reshape", "squeeze", "expand_dims")
def _reshape(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  (x,) = ins
  if isinstance(x, Const):
    return [lw.em.constant(np.asarray(x.value).reshape(out.shape), out)]
  if x.type.shape == out.shape:
    return [x]
  if not x.type.shape:
    return [lw.broadcast_lazy(x, out.shape)]
  x = lw.value(x)
  if not out.shape:
    # A one-element tensor to a scalar: the sum of its one element.
    axes = _axes_text(range(len(x.type.shape)))
    return [lw.em.op(f"pallas.reduce sum {x.name} {axes} : {x.type} -> {out}",
                     out)]
  return [lw.em.op(f"pallas.reshape {x.name} : {x.type} -> {out}", out)]


@rule("tile")
def _tile(lw, eqn, ins):
  """jnp.tile: x broadcast along a new axis before each repeated one, then
  the pairs merged (row-major: the copies follow one another)."""
  out = value_type(eqn.outvars[0].aval)
  (x,) = ins
  reps = tuple(int(r) for r in eqn.params["reps"])
  shape = tuple(x.type.shape)
  if len(reps) != len(shape):
    raise located(eqn, f"tile with {len(reps)} repeats of a rank-{len(shape)} "
                       "value")
  wide, dims = [], []
  for r, d in zip(reps, shape):
    if r != 1:
      wide.append(r)
    dims.append(len(wide))
    wide.append(d)
  if tuple(wide) == shape:
    return [x]
  wide_value = lw.value(lw.broadcast_lazy(x, tuple(wide), tuple(dims)))
  return [lw.em.op(f"pallas.reshape {wide_value.name} : {wide_value.type} -> "
                   f"{out}", out)]


@rule("transpose")
def _transpose(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  return [Pending("transpose", lw.value(ins[0]),
                  tuple(int(p) for p in eqn.params["permutation"]), out)]


@rule("concatenate")
def _concatenate(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  xs = [lw.value(x) for x in ins]
  names = ", ".join(x.name for x in xs)
  types = ", ".join(str(x.type) for x in xs)
  dim = int(eqn.params["dimension"])
  return [lw.em.op(f"pallas.concatenate {names} {{dim = {dim} : i64}} : "
                   f"{types} -> {out}", out)]


@rule(*_REDUCE)
def _reduce(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  x = lw.value(ins[0])
  axes = tuple(eqn.params["axes"])
  if not axes:
    return [x]
  kind = _REDUCE[eqn.primitive.name]
  return [lw.em.op(f"pallas.reduce {kind} {x.name} {_axes_text(axes)} : "
                   f"{x.type} -> {out}", out)]


@rule("argmax", "argmin")
def _argreduce(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  x = lw.value(ins[0])
  (axis,) = eqn.params["axes"]
  ids = out.with_elt("i32")
  v = lw.em.op(f"pallas.{eqn.primitive.name} {x.name} [{int(axis)}] : "
               f"{x.type} -> {ids}", ids)
  return [lw.convert(v, out.elt)]


@rule("cumsum")
def _cumsum(lw, eqn, ins):
  x = lw.value(ins[0])
  reverse = " {reverse}" if eqn.params["reverse"] else ""
  return [lw.em.op(f"pallas.cumsum {x.name} [{int(eqn.params['axis'])}]"
                   f"{reverse} : {x.type}", x.type)]


def _precision(eqn) -> str | None:
  precision = eqn.params.get("precision")
  if precision is None:
    return None
  if not isinstance(precision, tuple):
    precision = (precision, precision)
  names = [p.name if p is not None else "DEFAULT" for p in precision]
  if names[0] != names[1]:
    raise located(eqn, f"dot precisions differ per operand: {names}")
  return _PRECISION[names[0]]


@rule("dot_general")
def _dot_general(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
  rank = len(ins[0].type.shape)
  swap_last = (0, 1, 2)[:rank - 2] + (rank - 1, rank - 2)
  # A transposed operand (`k.T`) is the dot's transpose flag.
  flip = [isinstance(x, Pending) and x.op == "transpose" and
          x.attr == swap_last for x in ins]
  a, b = (x.source if f else lw.value(x) for x, f in zip(ins, flip))
  batch = () if rank == 2 else (0,)
  if (rank not in (2, 3) or len(b.type.shape) != rank or
      tuple(lb) != batch or tuple(rb) != batch or len(lc) != 1 or
      len(rc) != 1):
    raise located(eqn, "dot_general must be a 2-D matrix product or a 3-D "
                       "one batched over the leading dim (pallas.dot)")
  if a.type.elt != b.type.elt:
    raise located(eqn, f"dot_general of {a.type.elt} and {b.type.elt}: "
                       "pallas.dot takes operands of one element type")
  attrs = []
  precision = _precision(eqn)
  if precision is not None:
    attrs.append(f'precision = "{precision}"')
  if (lc[0] == rank - 2) != flip[0]:
    attrs.append("transpose_lhs")
  if (rc[0] == rank - 1) != flip[1]:
    attrs.append("transpose_rhs")
  attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
  acc_elt = a.type.elt if a.type.elt == "f64" else (
      "f32" if is_float(a.type.elt) else "i32")
  acc = out.with_elt(acc_elt)
  v = lw.em.op(f"pallas.dot {a.name}, {b.name}{attr_text} : {a.type}, "
               f"{b.type} -> {acc}", acc)
  return [lw.convert(v, out.elt)]


@rule("multiple_of", "max_contiguous")
def _hint(lw, eqn, ins):
  x = lw.value(ins[0])
  values = eqn.params["values"]
  n = values if isinstance(values, int) else values[0]
  if not x.type.shape or len(np.atleast_1d(values)) == 1:
    return [lw.em.op(f"pallas.{eqn.primitive.name} {x.name}, {int(n)} : "
                     f"{x.type}", x.type)]
  raise located(eqn, f"{eqn.primitive.name} with one value per dimension")


@rule("slice")
def _slice(lw, eqn, ins):
  """A static, unit-stride window of a value (lax.slice, `x[a:b]`):
  upstream's tensor.extract_slice."""
  (x,) = ins
  out = value_type(eqn.outvars[0].aval)
  strides = eqn.params.get("strides")
  if strides is not None and any(int(s) != 1 for s in strides):
    raise located(eqn, "lax.slice with strides other than 1 is not supported")
  x = lw.value(x)
  starts = ", ".join(str(int(s)) for s in eqn.params["start_indices"])
  sizes = ", ".join(str(int(d)) for d in out.shape)
  ones = ", ".join("1" for _ in out.shape)
  return [lw.em.op(f"tensor.extract_slice {x.name}[{starts}] [{sizes}] [{ones}] : "
                   f"{x.type} to {out}", out)]
