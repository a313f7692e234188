"""Elementwise primitives: `arith` and `math` ops on scalars and tensors.
Operands of different shapes (a scalar literal beside a tensor) are
broadcast to the result's shape first, as lax does."""
from __future__ import annotations

import numpy as np

from .errors import located
from .lower import Const, Lowering, Pending, rule
from .mlir_text import TensorType, Value, is_float, value_type

# primitive -> (float op, integer op); None where lax has no such form.
_BINARY = {
    "add": ("arith.addf", "arith.addi"),
    "sub": ("arith.subf", "arith.subi"),
    "mul": ("arith.mulf", "arith.muli"),
    "div": ("arith.divf", "arith.divsi"),
    "rem": ("arith.remf", "arith.remsi"),
    "max": ("arith.maximumf", "arith.maxsi"),
    "min": ("arith.minimumf", "arith.minsi"),
    "pow": ("math.powf", None),
    "atan2": ("math.atan2", None),
    "and": (None, "arith.andi"),
    "or": (None, "arith.ori"),
    "xor": (None, "arith.xori"),
    "shift_left": (None, "arith.shli"),
    "shift_right_arithmetic": (None, "arith.shrsi"),
    "shift_right_logical": (None, "arith.shrui"),
}

_UNARY = {
    "exp": ("math.exp", None), "exp2": ("math.exp2", None),
    "log": ("math.log", None), "log1p": ("math.log1p", None),
    "expm1": ("math.expm1", None), "sqrt": ("math.sqrt", None),
    "rsqrt": ("math.rsqrt", None), "cbrt": ("math.cbrt", None),
    "tanh": ("math.tanh", None), "sin": ("math.sin", None),
    "cos": ("math.cos", None), "tan": ("math.tan", None),
    "asin": ("math.asin", None), "acos": ("math.acos", None),
    "atan": ("math.atan", None), "sinh": ("math.sinh", None),
    "cosh": ("math.cosh", None), "asinh": ("math.asinh", None),
    "acosh": ("math.acosh", None), "atanh": ("math.atanh", None),
    "erf": ("math.erf", None), "erfc": ("math.erfc", None),
    "floor": ("math.floor", None), "ceil": ("math.ceil", None),
    "abs": ("math.absf", "math.absi"), "neg": ("arith.negf", None),
    "population_count": (None, "math.ctpop"), "clz": (None, "math.ctlz"),
}

# lax comparison -> (cmpf predicate, cmpi predicate). Ordered float
# predicates, except `ne`, which holds for NaN as in NumPy.
_COMPARE = {
    "eq": ("oeq", "eq"), "ne": ("une", "ne"), "lt": ("olt", "slt"),
    "le": ("ole", "sle"), "gt": ("ogt", "sgt"), "ge": ("oge", "sge"),
}


def _operands(lw: Lowering, eqn, ins) -> list[Value]:
  shape = tuple(eqn.outvars[0].aval.shape)
  return [lw.broadcast(x, shape) for x in ins]


def _pick(eqn, ops, elt):
  op = ops[0] if is_float(elt) else ops[1]
  if op is None:
    raise located(eqn, f"primitive '{eqn.primitive.name}' is not supported "
                       f"on {elt}")
  return op


def emit(lw: Lowering, op: str, args: list[Value], out: TensorType) -> Value:
  names = ", ".join(a.name for a in args)
  return lw.em.op(f"{op} {names} : {out}", out)


@rule(*_BINARY)
def _binary(lw, eqn, ins):
  args = _operands(lw, eqn, ins)
  if args[0].type.elt != args[1].type.elt:
    raise located(eqn, f"primitive '{eqn.primitive.name}' on {args[0].type.elt}"
                       f" and {args[1].type.elt} (arith takes one type)")
  return [emit(lw, _pick(eqn, _BINARY[eqn.primitive.name], args[0].type.elt),
               args, args[0].type)]


@rule(*_UNARY)
def _unary(lw, eqn, ins):
  (x,) = _operands(lw, eqn, ins)
  if eqn.primitive.name == "neg" and not is_float(x.type.elt):
    zero = lw.splat(0, x.type)
    return [emit(lw, "arith.subi", [zero, x], x.type)]
  return [emit(lw, _pick(eqn, _UNARY[eqn.primitive.name], x.type.elt), [x],
               x.type)]


@rule("not")
def _not(lw, eqn, ins):
  (x,) = _operands(lw, eqn, ins)
  ones = lw.splat(-1, x.type)
  return [emit(lw, "arith.xori", [x, ones], x.type)]


@rule(*_COMPARE)
def _compare(lw, eqn, ins):
  a, b = _operands(lw, eqn, ins)
  fpred, ipred = _COMPARE[eqn.primitive.name]
  kind, pred = ("cmpf", fpred) if is_float(a.type.elt) else ("cmpi", ipred)
  out = a.type.with_elt("i1")
  return [lw.em.op(f"arith.{kind} {pred}, {a.name}, {b.name} : {a.type}",
                   out)]


@rule("round")
def _round(lw, eqn, ins):
  (x,) = _operands(lw, eqn, ins)
  # lax.RoundingMethod: 0 rounds half away from zero, 1 half to even.
  op = "math.roundeven" if int(eqn.params["rounding_method"]) else "math.round"
  return [emit(lw, op, [x], x.type)]


@rule("logistic")
def _logistic(lw, eqn, ins):
  (x,) = _operands(lw, eqn, ins)
  one = lw.splat(1, x.type)
  neg = emit(lw, "arith.negf", [x], x.type)
  e = emit(lw, "math.exp", [neg], x.type)
  return [emit(lw, "arith.divf", [one, emit(lw, "arith.addf", [one, e],
                                           x.type)], x.type)]


@rule("square")
def _square(lw, eqn, ins):
  (x,) = _operands(lw, eqn, ins)
  return [emit(lw, _pick(eqn, _BINARY["mul"], x.type.elt), [x, x], x.type)]


@rule("integer_pow")
def _integer_pow(lw, eqn, ins):
  (x,) = _operands(lw, eqn, ins)
  y = int(eqn.params["y"])
  mul = _pick(eqn, _BINARY["mul"], x.type.elt)
  if y < 0 and not is_float(x.type.elt):
    raise located(eqn, "integer_pow with a negative power on integers")
  # Square-and-multiply, as lax lowers it.
  acc, base, n = None, x, abs(y)
  while n:
    if n & 1:
      acc = base if acc is None else emit(lw, mul, [acc, base], x.type)
    n >>= 1
    if n:
      base = emit(lw, mul, [base, base], x.type)
  if acc is None:
    return [lw.splat(1, x.type)]
  if y < 0:
    one = lw.splat(1, x.type)
    acc = emit(lw, "arith.divf", [one, acc], x.type)
  return [acc]


@rule("clamp")
def _clamp(lw, eqn, ins):
  lo, x, hi = _operands(lw, eqn, ins)
  ops = _BINARY["max"], _BINARY["min"]
  t = emit(lw, _pick(eqn, ops[0], x.type.elt), [x, lo], x.type)
  return [emit(lw, _pick(eqn, ops[1], x.type.elt), [t, hi], x.type)]


@rule("select_n")
def _select_n(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  which, *cases = ins
  cases = [lw.broadcast(c, out.shape) for c in cases]
  which = lw.value(which)
  if len(cases) != 2 or which.type.elt != "i1":
    if which.type.elt == "i1":
      raise located(eqn, "select_n with a boolean predicate takes 2 cases")
    # An integer case index: pick case k where which == k, last to first.
    result = cases[-1]
    for k in range(len(cases) - 2, -1, -1):
      kc = lw.splat(k, which.type)
      pred = lw.em.op(f"arith.cmpi eq, {which.name}, {kc.name} : {which.type}",
                      which.type.with_elt("i1"))
      result = _select(lw, pred, cases[k], result)
    return [result]
  return [_select(lw, which, cases[1], cases[0])]


def _select(lw, pred: Value, t: Value, f: Value) -> Value:
  if pred.type.shape == t.type.shape and t.type.shape:
    types = f"{pred.type}, {t.type}"
  else:
    types = f"{t.type}"
  return lw.em.op(f"arith.select {pred.name}, {t.name}, {f.name} : {types}",
                  t.type)


@rule("convert_element_type")
def _convert(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  (x,) = ins
  if isinstance(x, Const):
    return [lw.em.constant(np.asarray(x.value).astype(eqn.params["new_dtype"]),
                           out)]
  if x.type.elt == "i1" and not is_float(out.elt):
    return [Pending("extui", lw.value(x), (), out)]
  return [lw.convert(x, out.elt)]


@rule("copy", "copy_p", "optimization_barrier")
def _identity(lw, eqn, ins):
  return [lw.value(x) for x in ins]


@rule("sign")
def _sign(lw, eqn, ins):
  (x,) = _operands(lw, eqn, ins)
  kind, gt, lt = ("cmpf", "ogt", "olt") if is_float(x.type.elt) else \
      ("cmpi", "sgt", "slt")
  zero, one, minus = (lw.splat(v, x.type) for v in (0, 1, -1))
  cond = x.type.with_elt("i1")
  pos = lw.em.op(f"arith.{kind} {gt}, {x.name}, {zero.name} : {x.type}", cond)
  neg = lw.em.op(f"arith.{kind} {lt}, {x.name}, {zero.name} : {x.type}", cond)
  # Zeros (either sign) and NaNs are their own sign.
  return [_select(lw, pos, one, _select(lw, neg, minus, x))]


@rule("bitcast_convert_type")
def _bitcast(lw, eqn, ins):
  out = value_type(eqn.outvars[0].aval)
  x = lw.value(ins[0])
  if x.type.shape != out.shape:
    raise located(eqn, "bitcast_convert_type between types of different "
                       "widths")
  return [lw.em.op(f"arith.bitcast {x.name} : {x.type} to {out}", out)]
