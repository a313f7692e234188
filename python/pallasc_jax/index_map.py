"""Index maps: an affine map over the grid where the jaxpr is affine, else
a `func.func` helper the spec names as "@fn" (data-dependent maps)."""
from __future__ import annotations

from jax._src import core

from .lower import Lowering
from .mlir_text import Emitter, RefType, TensorType, Value, element_type

_GRID_NAMES = "ijklmn"
_I32 = TensorType((), "i32")

# An affine expression: {grid axis: coefficient, None: constant}.
Affine = dict


def _affine(jaxpr: core.Jaxpr, grid_rank: int) -> list[Affine] | None:
  # Scalar-prefetch refs have no entry: reading one makes the map not affine.
  env = {v: {i: 1} for i, v in enumerate(jaxpr.invars[:grid_rank])}
  def read(a):
    if isinstance(a, core.Literal):
      return {None: int(a.val)}
    return env.get(a)
  for eqn in jaxpr.eqns:
    args = [read(a) for a in eqn.invars]
    name = eqn.primitive.name
    if any(x is None for x in args):
      return None
    if name in ("add", "sub"):
      sign = 1 if name == "add" else -1
      out = dict(args[0])
      for k, c in args[1].items():
        out[k] = out.get(k, 0) + sign * c
    elif name == "mul":
      consts = [x for x in args if set(x) <= {None}]
      if not consts:
        return None
      scale = consts[0].get(None, 0)
      other = args[1] if args[0] is consts[0] else args[0]
      out = {k: c * scale for k, c in other.items()}
    elif name == "neg":
      out = {k: -c for k, c in args[0].items()}
    elif name == "convert_element_type" and \
        eqn.outvars[0].aval.dtype.kind == "i":
      out = args[0]
    else:
      return None
    env[eqn.outvars[0]] = out
  exprs = [read(v) for v in jaxpr.outvars]
  return None if any(e is None for e in exprs) else exprs


def _affine_text(expr: Affine) -> str:
  terms = []
  for axis in sorted(k for k in expr if k is not None):
    c = expr[axis]
    if c:
      name = _GRID_NAMES[axis]
      terms.append(name if c == 1 else f"{name} * {c}")
  if expr.get(None, 0) or not terms:
    terms.append(str(expr.get(None, 0)))
  return " + ".join(terms)


def affine_map(closed: core.ClosedJaxpr, grid_rank: int) -> str | None:
  """`(i, j) -> (i, 0)`, or None when the map is not affine."""
  if closed.consts or grid_rank > len(_GRID_NAMES):
    return None
  exprs = _affine(closed.jaxpr, grid_rank)
  if exprs is None:
    return None
  dims = ", ".join(_GRID_NAMES[:grid_rank])
  return f"({dims}) -> ({', '.join(map(_affine_text, exprs))})"


def is_zero(closed: core.ClosedJaxpr) -> bool:
  return all(isinstance(v, core.Literal) and v.val == 0
             for v in closed.jaxpr.outvars)


def helper_function(closed: core.ClosedJaxpr, name: str) -> str:
  """`func.func @name(grid i32..., scalar-prefetch refs...) -> (i32...)`."""
  em = Emitter()
  args, params = [], []
  for k, var in enumerate(closed.jaxpr.invars):
    aval = var.aval
    if hasattr(aval, "inner_aval"):
      type_ = RefType(tuple(aval.shape), element_type(aval.dtype), "smem")
    else:
      type_ = _I32
    v = Value(f"%arg{k}", type_)
    args.append(v)
    params.append(f"{v.name}: {type_}")
  lw = Lowering(em)
  outs = [lw.scalar_i32(o) for o in lw.lower_closed(closed, args)]
  results = ", ".join("i32" for _ in outs)
  em.line(f"return {', '.join(o.name for o in outs)} : {results}")
  return "\n".join([f"func.func @{name}({', '.join(params)}) -> ({results}) {{",
                    *em.lines, "}"])
