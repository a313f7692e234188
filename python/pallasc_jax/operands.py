"""The operands a function passes its one Pallas:MGPU kernel, as it computes
them: an exported kernel takes those (JAX's ragged dots compute group
starts and ends from the group sizes before the kernel), so whoever calls
the compiled kernel outside JAX computes them the same way. Runs the
function's own code up to the kernel (jnp work, no kernel) on JAX's
default device."""
from __future__ import annotations

from jax._src import core

from .errors import ExportError
from .trace import trace


class _Reached(Exception):
  def __init__(self, operands):
    super().__init__()
    self.operands = operands


def _sub_jaxprs(params: dict):
  """(jaxpr, consts) of each jaxpr a call-like equation holds."""
  for value in params.values():
    if isinstance(value, core.ClosedJaxpr):
      yield value.jaxpr, list(value.consts)
    elif isinstance(value, core.Jaxpr):
      yield value, []


def _holds_kernel(jaxpr: core.Jaxpr) -> bool:
  return any(eqn.primitive.name == "mpmd_map" or
             any(_holds_kernel(sub) for sub, _ in _sub_jaxprs(eqn.params))
             for eqn in jaxpr.eqns)


def _run_until_kernel(jaxpr: core.Jaxpr, consts, args):
  env = {}

  def read(v):
    return v.val if isinstance(v, core.Literal) else env[v]

  for var, value in zip(jaxpr.constvars, consts):
    env[var] = value
  for var, value in zip(jaxpr.invars, args):
    env[var] = value
  for eqn in jaxpr.eqns:
    values = [read(v) for v in eqn.invars]
    if eqn.primitive.name == "mpmd_map":
      raise _Reached(values)
    # A call holding the kernel (jit, custom_vmap_call): into its body with
    # its operands.
    for sub, sub_consts in _sub_jaxprs(eqn.params):
      if _holds_kernel(sub) and len(sub.invars) == len(values):
        _run_until_kernel(sub, sub_consts, values)
    # (JAX 0.10 gives the bind parameters; older versions sub-functions too.)
    params = eqn.primitive.get_bind_params(eqn.params)
    subfuns = []
    if isinstance(params, tuple):
      subfuns, params = params
    with eqn.ctx.manager:
      out = eqn.primitive.bind(*subfuns, *values, **params)
    outs = out if eqn.primitive.multiple_results else [out]
    for var, value in zip(eqn.outvars, outs):
      env[var] = value
  raise ExportError("the function calls no plgpu.kernel it can be followed "
                    "to")


def kernel_operands(fn, *args) -> list:
  """The operands `fn(*args)` passes its plgpu.kernel, in the order the
  exported kernel takes them (jax arrays)."""
  closed = trace(fn, *args)
  try:
    _run_until_kernel(closed.jaxpr, list(closed.consts), list(args))
  except _Reached as reached:
    return list(reached.operands)
  raise ExportError("the function calls no plgpu.kernel")
