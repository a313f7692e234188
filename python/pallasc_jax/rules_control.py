"""Calls, loops and conditionals (`scf`), and the grid queries."""
from __future__ import annotations

import string

import numpy as np
from jax._src import core
from jax._src.interpreters import partial_eval as pe

from .errors import located
from .lower import Const, Lowering, Pending, rule
from .mlir_text import (RefType, TensorType, Value, element_type,
                        memory_space, string_text, value_type)

_I32 = TensorType((), "i32")


@rule("jit", "pjit", "closed_call", "core_call", "custom_jvp_call",
      "custom_vjp_call", "checkpoint", "remat")
def _inline(lw, eqn, ins):
  sub = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
  if isinstance(sub, core.ClosedJaxpr):
    return lw.lower_closed(sub, ins)
  return lw.lower_jaxpr(sub, ins)


@rule("program_id", "num_programs")
def _grid_query(lw, eqn, ins):
  axis = lw.program_axes[int(eqn.params["axis"])]
  return [lw.em.pure(f"pallas.{eqn.primitive.name} {axis} : i32", _I32)]


@rule("debug_barrier_p")
def _barrier(lw, eqn, ins):
  lw.em.line("pallas.barrier")
  return []


@rule("debug_print")
def _debug_print(lw, eqn, ins):
  fmt = eqn.params["fmt"]
  if eqn.params.get("static_args") or any(
      f or spec or conv for _, f, spec, conv in string.Formatter().parse(fmt)
      if f is not None):
    raise located(eqn, "pl.debug_print takes plain {} placeholders and "
                       "array arguments")
  args = [lw.value(x) for x in ins]
  text = f"pallas.debug_print {string_text(fmt)}"
  if args:
    text += (f", {', '.join(a.name for a in args)} : "
             f"{', '.join(str(a.type) for a in args)}")
  lw.em.line(text)
  return []


def _yield(lw: Lowering, values: list, keyword: str = "scf.yield"):
  vs = [lw.value(v) for v in values]
  if vs:
    lw.em.line(f"{keyword} {', '.join(v.name for v in vs)} : "
               f"{', '.join(str(v.type) for v in vs)}")


def _types(values: list[Value]) -> str:
  return ", ".join(str(v.type) for v in values)


def _for(lw: Lowering, lo: Value, hi: Value, inits: list[Value], body):
  """`scf.for` from lo to hi (i32) carrying `inits`; body(iv, carried)
  returns the values to yield. Returns the loop's results."""
  step = lw.em.constant(1, _I32)
  binder, results = lw.em.results(len(inits)) if inits else ("", [])
  iv = lw.em.fresh()
  carried = [Value(lw.em.fresh(), v.type) for v in inits]
  head = f"scf.for {iv} = {lo.name} to {hi.name} step {step.name}"
  if inits:
    pairs = ", ".join(f"{c.name} = {v.name}" for c, v in zip(carried, inits))
    head = f"{binder} = {head} iter_args({pairs}) -> ({_types(inits)})"
  with lw.em.region(f"{head} : i32 {{"):
    _yield(lw, body(Value(iv, _I32), carried))
  lw.em.line("}")
  return [Value(r, v.type) for r, v in zip(results, inits)]


def _counter_step(jaxpr: core.Jaxpr, counter: core.Var) -> bool:
  """Whether the loop body's first output is `counter + 1` (fori_loop)."""
  out = jaxpr.outvars[0]
  for eqn in jaxpr.eqns:
    if out in eqn.outvars:
      return (eqn.primitive.name == "add" and eqn.invars[0] is counter and
              isinstance(eqn.invars[1], core.Literal) and
              eqn.invars[1].val == 1)
  return False


def _trim(closed: core.ClosedJaxpr, keep: list[bool]):
  """The body with only the outputs in `keep`, and which inputs it uses."""
  jaxpr, used = pe.dce_jaxpr(closed.jaxpr, keep)
  return core.ClosedJaxpr(jaxpr, closed.consts), used


def _scan_counts(params) -> tuple[int, int]:
  """How many operands are constants and carried values: params up to JAX
  0.10, groups of the flat tree `ft_in` from 0.11 on."""
  if "num_consts" in params:
    return params["num_consts"], params["num_carry"]
  consts, carry, _ = params["ft_in"].unpack()
  return len(consts), len(carry)


@rule("scan")
def _scan(lw, eqn, ins):
  p = eqn.params
  (n_consts, n_carry), length = _scan_counts(p), p["length"]
  consts, inits = ins[:n_consts], ins[n_consts:n_consts + n_carry]
  if len(ins) != n_consts + n_carry or len(eqn.outvars) != n_carry:
    raise located(eqn, "a scan over arrays (only loops carrying values, as "
                       "lax.fori_loop writes them, are supported)")
  body = p["jaxpr"]
  counter = body.jaxpr.invars[n_consts] if n_carry else None
  if (counter is not None and counter.aval.dtype == np.int32 and
      not counter.aval.shape and _counter_step(body.jaxpr, counter)):
    # fori_loop: the counter is the loop's induction variable.
    lo = lw.scalar_i32(inits[0])
    hi = lw.scalar_i32(Const(np.array(int(inits[0].value) + length), _I32)) \
        if isinstance(inits[0], Const) else \
        lw.em.op(f"arith.addi {lo.name}, "
                 f"{lw.em.constant(length, _I32).name} : i32", _I32)
    trimmed, used = _trim(body, [False] + [True] * (n_carry - 1))
    def run(iv, carried):
      args = [*consts, iv, *carried]
      return lw.lower_closed(trimmed, [a for a, u in zip(args, used) if u])
    rest = [lw.value(x) for x in inits[1:]]
    return [hi, *_for(lw, lo, hi, rest, run)]
  lo = lw.em.constant(0, _I32)
  hi = lw.em.constant(length, _I32)
  return _for(lw, lo, hi, [lw.value(x) for x in inits],
              lambda iv, carried: lw.lower_closed(body, [*consts, *carried]))


def _fori_bound(cond: core.ClosedJaxpr, n_consts: int, passthrough):
  """For a while_loop cond `counter < bound` on its first carried value:
  the bound as ('literal', value), ('const', i) or ('carry', i) (a value
  the body passes through unchanged), else None."""
  jaxpr = cond.jaxpr
  if len(jaxpr.eqns) != 1 or cond.consts:
    return None
  (eqn,) = jaxpr.eqns
  if eqn.primitive.name != "lt" or eqn.outvars[0] is not jaxpr.outvars[0]:
    return None
  counter, bound = eqn.invars
  if counter is not jaxpr.invars[n_consts]:
    return None
  if isinstance(bound, core.Literal):
    return ("literal", bound.val)
  k = jaxpr.invars.index(bound)
  if k < n_consts:
    return ("const", k)
  if k - n_consts in passthrough:
    return ("carry", k - n_consts)
  return None


@rule("while")
def _while(lw, eqn, ins):
  p = eqn.params
  nc, nb = p["cond_nconsts"], p["body_nconsts"]
  cond_consts, body_consts, inits = ins[:nc], ins[nc:nc + nb], ins[nc + nb:]
  cond, body = p["cond_jaxpr"], p["body_jaxpr"]
  n = len(inits)
  # Carried values the body passes through unchanged (fori_loop's bound).
  passthrough = {k for k in range(1, n)
                 if body.jaxpr.outvars[k] is body.jaxpr.invars[nb + k]}
  counter = body.jaxpr.invars[nb] if n else None
  bound = _fori_bound(cond, nc, passthrough) if n else None
  if (bound is None or counter.aval.dtype != np.int32 or counter.aval.shape
      or not _counter_step(body.jaxpr, counter)):
    return _scf_while(lw, cond, body, cond_consts, body_consts,
                      [lw.value(x) for x in inits])
  # fori_loop with a bound known only at run time.
  lo = lw.scalar_i32(inits[0])
  kind, where = bound
  if kind == "literal":
    hi = lw.scalar_i32(Const(np.array(where), _I32))
  else:
    hi = lw.scalar_i32(cond_consts[where] if kind == "const" else inits[where])
  carried_ks = [k for k in range(1, n) if k not in passthrough]
  trimmed, used = _trim(body, [k in carried_ks for k in range(n)])
  def run(iv, carried):
    values = dict(zip(carried_ks, carried))
    args = [*body_consts, iv, *(values.get(k, inits[k]) for k in range(1, n))]
    return lw.lower_closed(trimmed, [a for a, u in zip(args, used) if u])
  results = dict(zip(carried_ks, _for(lw, lo, hi,
                                      [lw.value(inits[k]) for k in carried_ks],
                                      run)))
  final = None
  if lw.is_used(eqn.outvars[0]):
    final = lw.em.op(f"arith.maxsi {lo.name}, {hi.name} : i32", _I32)
  return [final, *(results.get(k, inits[k]) for k in range(1, n))]


def _scf_while(lw, cond, body, cond_consts, body_consts, inits):
  binder, results = lw.em.results(len(inits))
  before = [Value(lw.em.fresh(), v.type) for v in inits]
  pairs = ", ".join(f"{b.name} = {v.name}" for b, v in zip(before, inits))
  with lw.em.region(f"{binder} = scf.while ({pairs}) : ({_types(inits)}) -> "
                    f"({_types(inits)}) {{"):
    (c,) = lw.lower_closed(cond, [*cond_consts, *before])
    c = lw.value(c)
    lw.em.line(f"scf.condition({c.name}) "
               f"{', '.join(b.name for b in before)} : {_types(inits)}")
  after = [Value(lw.em.fresh(), v.type) for v in inits]
  with lw.em.region("} do {"):
    lw.em.label("^bb0(" + ", ".join(f"{a.name}: {a.type}" for a in after) +
               "):")
    _yield(lw, lw.lower_closed(body, [*body_consts, *after]))
  lw.em.line("}")
  return [Value(r, v.type) for r, v in zip(results, inits)]


@rule("cond")
def _cond(lw, eqn, ins):
  index, *ops = ins
  branches = eqn.params["branches"]
  if isinstance(index, Const):
    return lw.lower_closed(branches[int(index.value)], ops)
  if isinstance(index, Pending) and index.op == "extui":
    index = index.source  # lax.cond's bool, converted to a branch index
  out_types = [value_type(v.aval) for v in eqn.outvars]
  return _switch(lw, lw.value(index), branches, ops, out_types)


def _switch(lw, index: Value, branches, ops, out_types, k: int = 0):
  """Branch j where index == k + j (lax.switch clamps the index first):
  scf.if on a bool or between two branches, a chain of them for more."""
  run = lambda branch: lambda: lw.lower_closed(branch, ops)
  if index.type.elt == "i1":
    return _if(lw, index, out_types, run(branches[1]), run(branches[0]),
               bool(branches[0].jaxpr.eqns))
  kc = lw.em.constant(k, index.type)
  if len(branches) == 2 and k == 0:  # lax.cond on an integer
    pred = lw.em.op(f"arith.cmpi ne, {index.name}, {kc.name} : "
                    f"{index.type}", index.type.with_elt("i1"))
    return _if(lw, pred, out_types, run(branches[1]), run(branches[0]),
               bool(branches[0].jaxpr.eqns))
  pred = lw.em.op(f"arith.cmpi eq, {index.name}, {kc.name} : {index.type}",
                  index.type.with_elt("i1"))
  if len(branches) == 2:
    return _if(lw, pred, out_types, run(branches[0]), run(branches[1]), True)
  return _if(lw, pred, out_types, run(branches[0]),
             lambda: _switch(lw, index, branches[1:], ops, out_types, k + 1),
             True)


def _if(lw, pred: Value, out_types, then, otherwise, needs_else: bool):
  binder, results = lw.em.results(len(out_types)) if out_types else ("", [])
  head = f"scf.if {pred.name}"
  if out_types:
    head = f"{binder} = {head} -> ({', '.join(map(str, out_types))})"
  with lw.em.region(f"{head} {{"):
    _yield(lw, then())
  if out_types or needs_else:
    with lw.em.region("} else {"):
      _yield(lw, otherwise())
  lw.em.line("}")
  return [Value(r, t) for r, t in zip(results, out_types)]


@rule("run_scoped")
def _run_scoped(lw, eqn, ins):
  if eqn.params.get("collective_axes") or any(
      eqn.params.get("ref_transforms", ())):
    raise located(eqn, "run_scoped with collective_axes or ref transforms")
  jaxpr = eqn.params["jaxpr"]
  out_types = [value_type(v.aval) for v in eqn.outvars]
  binder, results = lw.em.results(len(out_types)) if out_types else ("", [])
  refs = [Value(lw.em.fresh(),
                RefType(tuple(v.aval.shape), element_type(v.aval.dtype),
                        memory_space(v.aval.memory_space)))
          for v in jaxpr.invars]
  params = ", ".join(f"{r.name}: {r.type}" for r in refs)
  head = f"pallas.run_scoped ({params})"
  if out_types:
    head = f"{binder} = {head} -> ({', '.join(map(str, out_types))})"
  with lw.em.region(f"{head} {{"):
    _yield(lw, lw.lower_jaxpr(jaxpr, refs, ins), keyword="pallas.yield")
  lw.em.line("}")
  return [Value(r, t) for r, t in zip(results, out_types)]
