"""Tracing the user's function and finding its one pallas_call."""
from __future__ import annotations

import jax
from jax._src import core

from .errors import ExportError


def trace(fn, *example_args) -> core.ClosedJaxpr:
  try:
    return jax.make_jaxpr(fn)(*example_args)
  except Exception as e:  # Tracing runs user code: report what it raised.
    raise ExportError(f"tracing {getattr(fn, '__name__', fn)} failed: "
                      f"{type(e).__name__}: {e}") from e


def _pallas_calls(jaxpr: core.Jaxpr, name: str = "pallas_call"):
  for eqn in jaxpr.eqns:
    if eqn.primitive.name == name:
      yield eqn
    else:  # Also inside jit, custom_vjp_call, closed_call, loops, ...
      for sub in core.jaxprs_in_params(eqn.params):
        yield from _pallas_calls(sub, name)


def holds_mgpu_kernel(closed: core.ClosedJaxpr) -> bool:
  """Whether `fn` calls a Pallas:MGPU kernel (plgpu.kernel: an mpmd_map)."""
  return any(True for _ in _pallas_calls(closed.jaxpr, "mpmd_map"))


def _named_mpmd_maps(jaxpr: core.Jaxpr, names: dict):
  """Each mpmd_map and the names of its operands that are the function's
  own arguments (passed down through calls), else None."""
  for eqn in jaxpr.eqns:
    ins = [names.get(v) if isinstance(v, core.Var) else None
           for v in eqn.invars]
    if eqn.primitive.name == "mpmd_map":
      yield eqn, ins
      continue
    for sub in core.jaxprs_in_params(eqn.params):
      inner = dict(zip(sub.invars, ins)) if len(sub.invars) == len(ins) \
          else {}
      yield from _named_mpmd_maps(sub, inner)


def find_mpmd_map(closed: core.ClosedJaxpr):
  """The one mpmd_map and its operands' argument names."""
  jaxpr = closed.jaxpr
  given = jaxpr.debug_info.arg_names if jaxpr.debug_info is not None and \
      jaxpr.debug_info.arg_names else ()
  found = list(_named_mpmd_maps(jaxpr, dict(zip(jaxpr.invars, given))))
  n_calls = sum(1 for _ in _pallas_calls(jaxpr))
  if len(found) != 1 or n_calls:
    raise ExportError(f"the function must hold exactly one pallas_call or "
                      f"plgpu.kernel, it holds {n_calls} pallas_call and "
                      f"{len(found)} plgpu.kernel")
  return found[0]


def find_pallas_call(closed: core.ClosedJaxpr) -> core.JaxprEqn:
  calls = list(_pallas_calls(closed.jaxpr))
  if len(calls) != 1:
    raise ExportError(f"the function must hold exactly one pallas_call, it "
                      f"holds {len(calls)}")
  return check_exportable(calls[0])


def check_exportable(eqn: core.JaxprEqn) -> core.JaxprEqn:
  """`eqn` (a pallas_call), or an ExportError where its grid is sized at
  run time or its kernel captures refs from outside."""
  gm = eqn.params["grid_mapping"]
  if gm.num_dynamic_grid_bounds:
    raise ExportError("a pallas_call with a grid sized at run time")
  expected = gm.num_index_operands + gm.num_inputs
  if len(eqn.invars) != expected:
    raise ExportError(f"the pallas_call kernel captures "
                      f"{len(eqn.invars) - expected} ref(s) from outside; "
                      "pass them as inputs")
  return eqn
