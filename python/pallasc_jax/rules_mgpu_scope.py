"""Scoped refs in a Pallas:MGPU kernel, both as `pallas.run_scoped`:
run_scoped's scratch (SMEM at its logical shape, accumulators, barriers),
and run_state's refs over values (`plgpu.ACC.init`, the pipelines' carried
arrays), stored on entry and loaded on exit."""
from __future__ import annotations

from jax._src import core

from .errors import ExportError, located
from .lower import Lowering, is_ref
from .mgpu_refs import BarrierType, ref_type, transforms_attr
from .mlir_text import Value, value_type
from .rules_mgpu import mgpu_rule, names_attr


def _scope(lw: Lowering, ref_types: list, out_types: list, body,
           attrs: list[str] = ()) -> list[Value]:
  """`pallas.run_scoped` over fresh refs of `ref_types`; body(refs) returns
  the values to yield."""
  binder, results = lw.em.results(len(out_types)) if out_types else ("", [])
  refs = [Value(lw.em.fresh(), t) for t in ref_types]
  head = f"pallas.run_scoped ({', '.join(f'{r.name}: {r.type}' for r in refs)})"
  if out_types:
    head = f"{binder} = {head} -> ({', '.join(map(str, out_types))})"
  with lw.em.region(f"{head} {{"):
    outs = [lw.value(v) for v in body(refs)]
    if outs:
      lw.em.line(f"pallas.yield {', '.join(v.name for v in outs)} : "
                 f"{', '.join(str(v.type) for v in outs)}")
  lw.em.line("}" + (f" {{{', '.join(attrs)}}}" if attrs else ""))
  return [Value(r, t) for r, t in zip(results, out_types)]


def _open(jaxpr):
  """The body and its constants (a closed jaxpr's, or none)."""
  if isinstance(jaxpr, core.ClosedJaxpr):
    return jaxpr.jaxpr, list(jaxpr.consts)
  return jaxpr, []


@mgpu_rule("run_scoped")
def _run_scoped(lw, eqn, ins):
  jaxpr, _ = _open(eqn.params["jaxpr"])
  # The operands are the body's captured values (its constvars).
  if not jaxpr.invars:  # nothing allocated: a plain scope
    return lw.lower_jaxpr(jaxpr, [], ins)
  layouts = [tuple(t) for t in (eqn.params.get("ref_transforms") or
                                [()] * len(jaxpr.invars))]
  try:
    types = [ref_type(v.aval, t) for v, t in zip(jaxpr.invars, layouts)]
  except ExportError as e:
    raise located(eqn, str(e)) from e
  attrs = []
  if any(layouts):
    attrs.append("plgpu.transforms = [" +
                 ", ".join(transforms_attr(t) for t in layouts) + "]")
  axes = eqn.params.get("collective_axes") or ()
  if axes:
    attrs.append(f"plgpu.collective_axes = {names_attr(axes)}")
  out_types = [value_type(v.aval) for v in eqn.outvars]
  return _scope(lw, types, out_types,
                lambda refs: lw.lower_jaxpr(jaxpr, refs, ins), attrs)


def _is_ref_value(x) -> bool:
  return is_ref(x) or (isinstance(x, Value) and
                       isinstance(x.type, BarrierType))


@mgpu_rule("run_state")
def _run_state(lw, eqn, ins):
  jaxpr, consts = _open(eqn.params["jaxpr"])
  initialized = eqn.params.get("is_initialized", (True,) * len(ins))
  # Refs passed in stay themselves; each value gets a ref of its own.
  scoped = [k for k, x in enumerate(ins) if not _is_ref_value(x)]
  try:
    types = [ref_type(jaxpr.invars[k].aval) for k in scoped]
  except ExportError as e:
    raise located(eqn, str(e)) from e
  loaded = [k for k in scoped if lw.is_used(eqn.outvars[k])]

  def body(refs):
    args = list(ins)
    for k, ref in zip(scoped, refs):
      if initialized[k]:
        v = lw.broadcast(ins[k], ref.type.shape)
        lw.em.line(f"pallas.store {ref.name}[...], {v.name} : {ref.type}, "
                   f"{v.type}")
      args[k] = ref
    lw.lower_jaxpr(jaxpr, args, consts)
    # As JAX does: the accumulators' WGMMAs complete before the scope ends.
    if any(getattr(r.type, "space", None) == "regs" for r in refs):
      lw.em.line("plgpu.wgmma_wait 0")
    by_k = dict(zip(scoped, refs))
    return [lw.em.op(f"pallas.load {by_k[k].name}[...] : {by_k[k].type} -> "
                     f"{value_type(eqn.outvars[k].aval)}",
                     value_type(eqn.outvars[k].aval)) for k in loaded]

  if not scoped:
    lw.lower_jaxpr(jaxpr, list(ins), consts)
    return list(ins)
  results = dict(zip(loaded, _scope(
      lw, types, [value_type(eqn.outvars[k].aval) for k in loaded], body)))
  return [results.get(k) if k in scoped else x for k, x in enumerate(ins)]
