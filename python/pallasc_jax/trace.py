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


def _pallas_calls(jaxpr: core.Jaxpr):
  for eqn in jaxpr.eqns:
    if eqn.primitive.name == "pallas_call":
      yield eqn
    else:  # Also inside jit, custom_vjp_call, closed_call, loops, ...
      for sub in core.jaxprs_in_params(eqn.params):
        yield from _pallas_calls(sub)


def find_pallas_call(closed: core.ClosedJaxpr) -> core.JaxprEqn:
  calls = list(_pallas_calls(closed.jaxpr))
  if len(calls) != 1:
    raise ExportError(f"the function must hold exactly one pallas_call, it "
                      f"holds {len(calls)}")
  (eqn,) = calls
  gm = eqn.params["grid_mapping"]
  if gm.num_dynamic_grid_bounds:
    raise ExportError("a pallas_call with a grid sized at run time")
  expected = gm.num_index_operands + gm.num_inputs
  if len(eqn.invars) != expected:
    raise ExportError(f"the pallas_call kernel captures "
                      f"{len(eqn.invars) - expected} ref(s) from outside; "
                      "pass them as inputs")
  return eqn
