"""Translates a jaxpr, equation by equation, into `pallas`/`arith`/`math`/`scf`
text. The rules live in `rules_*.py`, one module per kind of primitive; this
module holds what they share: the value environment, literals, broadcasting."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np
from jax._src import core

from .errors import unsupported
from .mlir_text import (Emitter, RefType, TensorType, Value, is_float,
                        value_type)

_WIDTH = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16, "f8E4M3FN": 8,
          "f8E5M2": 8, "i64": 64, "i32": 32, "i16": 16, "i8": 8, "i1": 1}

# primitive name -> rule(lowering, eqn, operands) -> one result per outvar.
# Operands are Values, Consts (literals, printed where the rule knows the
# type it needs them in) or Pendings; `Lowering.value` prints either.
RULES: dict[str, Callable] = {}


def rule(*names: str):
  def register(fn):
    for name in names:
      RULES[name] = fn
    return fn
  return register


@dataclasses.dataclass(frozen=True)
class Const:
  """A literal or captured constant, not yet printed."""
  value: Any
  type: TensorType


@dataclasses.dataclass(frozen=True)
class Pending:
  """An op not printed until a rule needs its value, so that a broadcast of
  a broadcast (`x[:, None]` then implicit broadcasting) is one op, a dot of
  a transpose takes the transpose flag instead, and a branch on a bool
  converted to an int (lax.cond) branches on the bool."""
  op: str             # "broadcast" | "transpose" | "extui"
  source: Value
  attr: tuple         # broadcast: result dim of each source dim; transpose:
                      # the permutation
  type: TensorType


Operand = Value | Const | Pending


class Lowering:
  """State of one function body being printed."""

  def __init__(self, emitter: Emitter, program_axes: tuple[int, ...] = (),
               rules: dict[str, Callable] | None = None):
    self.em = emitter
    # A kind of kernel (Pallas:MGPU) may add or replace rules.
    self.rules = RULES if rules is None else rules
    # Kernel program_id axis -> spec grid axis (vmap adds grid axes the
    # kernel does not see).
    self.program_axes = program_axes
    # Vars read in each jaxpr being lowered (innermost last).
    self._used: list[set] = []

  def is_used(self, var) -> bool:
    """Whether the jaxpr being lowered reads `var` (a swap whose old value
    nobody reads is a store)."""
    return not isinstance(var, core.DropVar) and var in self._used[-1]

  # -- jaxprs ---------------------------------------------------------------

  def lower_jaxpr(self, jaxpr: core.Jaxpr, args, consts=()) -> list[Operand]:
    env: dict[core.Var, Operand] = {}
    for var, c in zip(jaxpr.constvars, consts, strict=True):
      # A closed jaxpr's constants are arrays; run_scoped's are operands.
      env[var] = c if isinstance(c, (Value, Const, Pending)) else \
          Const(np.asarray(c), value_type(var.aval))
    for var, a in zip(jaxpr.invars, args, strict=True):
      env[var] = a
    self._used.append({v for e in jaxpr.eqns for v in e.invars
                       if isinstance(v, core.Var)} |
                      {v for v in jaxpr.outvars if isinstance(v, core.Var)})
    for eqn in jaxpr.eqns:
      self._lower_eqn(env, eqn)
    self._used.pop()
    return [self.read(env, v) for v in jaxpr.outvars]

  def _lower_eqn(self, env, eqn):
    fn = self.rules.get(eqn.primitive.name)
    if fn is None:
      raise unsupported(eqn)
    ins = [self.read(env, a) for a in eqn.invars]
    try:
      outs = fn(self, eqn, ins)
    except NotImplementedError as e:
      raise unsupported(eqn, str(e)) from e
    for var, out in zip(eqn.outvars, outs, strict=True):
      if not isinstance(var, core.DropVar):
        env[var] = out

  def lower_closed(self, closed: core.ClosedJaxpr, args) -> list[Operand]:
    return self.lower_jaxpr(closed.jaxpr, args, closed.consts)

  @staticmethod
  def read(env, atom) -> Operand:
    if isinstance(atom, core.Literal):
      return Const(np.asarray(atom.val), value_type(atom.aval))
    return env[atom]

  # -- values ---------------------------------------------------------------

  def value(self, x: Operand) -> Value:
    if isinstance(x, Value):
      return x
    if isinstance(x, Const):
      return self.em.constant(x.value, x.type)
    src = x.source
    if x.op == "extui":
      return self.em.pure(f"arith.extui {src.name} : {src.type} to {x.type}",
                          x.type)
    if x.op == "transpose":
      perm = ", ".join(map(str, x.attr))
      return self.em.pure(
          f"pallas.transpose {src.name} [{perm}] : {src.type} -> {x.type}",
          x.type)
    if not x.attr:
      return self.em.pure(f"pallas.broadcast {src.name} : {src.type} -> "
                          f"{x.type}", x.type)
    dims = ", ".join(map(str, x.attr))
    return self.em.pure(f"pallas.broadcast {src.name} dims [{dims}] : "
                        f"{src.type} -> {x.type}", x.type)

  def broadcast(self, x: Operand, shape, dims=None) -> Value:
    """`x` broadcast to `shape`: NumPy's trailing alignment unless `dims`
    says which result dim each dim of `x` becomes."""
    return self.value(self.broadcast_lazy(x, shape, dims))

  def splat(self, x, type_: TensorType) -> Value:
    """The scalar `x` (a Python number) filling `type_`."""
    return self.broadcast(Const(np.asarray(x), type_.with_shape(())),
                          type_.shape)

  def broadcast_lazy(self, x: Operand, shape, dims=None) -> Operand:
    """`broadcast`, as a Pending op where it is not a constant."""
    shape = tuple(shape)
    if isinstance(x, Const) and (x.type.shape == shape or
                                 np.asarray(x.value).size == 1):
      return self.em.constant(np.asarray(x.value).reshape(-1)[0]
                              if x.type.shape != shape else x.value,
                              x.type.with_shape(shape))
    if x.type.shape == shape:
      return x
    rank = len(x.type.shape)
    dims = tuple(range(len(shape) - rank, len(shape))) if dims is None \
        else tuple(dims)
    if isinstance(x, Pending) and x.op == "broadcast":
      # Compose: source dim i went to x's dim attr[i], which goes to dims[.].
      return Pending("broadcast", x.source, tuple(dims[d] for d in x.attr),
                     x.type.with_shape(shape))
    return Pending("broadcast", self.value(x), dims, x.type.with_shape(shape))

  def scalar_i32(self, x: Operand) -> Value:
    """An integer scalar as i32 (what `ds` starts and loop bounds take)."""
    if isinstance(x, Const):
      return self.em.constant(int(x.value), TensorType((), "i32"))
    return self.convert(x, "i32")

  def convert(self, x: Operand, elt: str) -> Value:
    """`lax.convert_element_type`: floats round to nearest, floats to ints
    truncate, anything to i1 is `!= 0`."""
    x = self.value(x)
    src = x.type.elt
    if src == elt:
      return x
    out = x.type.with_elt(elt)
    def cast(op, v=x, to=out):
      return self.em.op(f"arith.{op} {v.name} : {v.type} to {to}", to)
    if elt == "i1":
      zero = self.splat(0, x.type.with_elt(src))
      pred = "cmpf une" if is_float(src) else "cmpi ne"
      return self.em.op(f"arith.{pred}, {x.name}, {zero.name} : {x.type}", out)
    if is_float(src) and is_float(elt):
      if _WIDTH[src] == _WIDTH[elt]:  # f16 <-> bf16 goes through f32
        return cast("truncf", cast("extf", to=x.type.with_elt("f32")))
      return cast("extf" if _WIDTH[elt] > _WIDTH[src] else "truncf")
    if is_float(elt):
      return cast("uitofp" if src == "i1" else "sitofp")
    if is_float(src):
      return cast("fptosi")
    if src == "i1":
      return cast("extui")
    return cast("extsi" if _WIDTH[elt] > _WIDTH[src] else "trunci")


def is_ref(x: Operand) -> bool:
  return isinstance(x, Value) and isinstance(x.type, RefType)
