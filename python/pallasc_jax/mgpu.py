"""The kernel module and launch spec of a function holding one Pallas:MGPU
kernel (`plgpu.kernel`, an `mpmd_map` in the jaxpr): a `pallas.kernel` over
whole GMEM arrays, the operands then the outputs, carrying its mesh."""
from __future__ import annotations

from jax._src import core
from jax._src.pallas.mosaic_gpu import core as gpu_core

from . import rules_mgpu_scope  # noqa: F401  (registers its rules)
from . import spec as spec_mod
from .errors import ExportError, fallback_location
from .lower import RULES, Lowering
from .mgpu_refs import ref_type
from .mlir_text import Emitter, Value, identifier, string_text
from .rules_mgpu import MGPU_RULES
from .trace import find_mpmd_map


class MgpuLowering(Lowering):
  """A kernel body on a mesh: the MGPU rules over the common ones."""

  def __init__(self, emitter: Emitter, axes: dict[str, int]):
    super().__init__(emitter, rules={**RULES, **MGPU_RULES})
    self.axes = axes  # mesh axis name -> size, grid then cluster then thread


def _names(given: list, n_in: int, n_out: int) -> list[str]:
  """Operands keep the function's argument names; outputs are out, out1..."""
  names, seen = [], set()
  for k in range(n_in + n_out):
    if k < n_in:
      name = identifier(given[k] or "", f"in{k}")
    else:
      name = "out" if n_out == 1 else f"out{k - n_in}"
    while name in seen:
      name += "_"
    seen.add(name)
    names.append(name)
  return names


def _mesh_attr(fields: dict) -> str:
  def ints(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"
  def strs(xs):
    return "[" + ", ".join(string_text(x) for x in xs) + "]"
  return (f"#plgpu.mesh<grid = {ints(fields['grid'])}, grid_names = "
          f"{strs(fields['grid_names'])}, cluster = {ints(fields['cluster'])}, "
          f"cluster_names = {strs(fields['cluster_names'])}, num_threads = "
          f"{fields['num_threads']}, thread_name = "
          f"{string_text(fields['thread_name'] or '')}>")


def _body_source(jaxpr: core.Jaxpr) -> str | None:
  """`body at FILE:LINE` of the user's kernel body: plgpu.kernel calls it
  in a run_scoped (for the scratch), whose debug info names it."""
  for eqn in jaxpr.eqns:
    info = getattr(eqn.params.get("jaxpr"), "debug_info", None)
    if eqn.primitive.name == "run_scoped" and info is not None:
      return info.func_src_info
  return None


def export_mgpu(closed: core.ClosedJaxpr) -> tuple[str, dict]:
  """The module text and the launch spec of the function's one kernel."""
  return export_mgpu_eqn(*find_mpmd_map(closed))


def export_mgpu_eqn(eqn: core.JaxprEqn, given: list) -> tuple[str, dict]:
  """The module text and the launch spec of one plgpu.kernel (`eqn`, an
  mpmd_map); `given` names its operands (None where unnamed)."""
  jaxprs, meshes = eqn.params["jaxprs"], eqn.params["meshes"]
  if len(jaxprs) != 1 or len(meshes) != 1:
    raise ExportError(f"a plgpu kernel over {len(meshes)} meshes (one is "
                      "supported)")
  (jaxpr,), (mesh,) = jaxprs, meshes
  if not isinstance(mesh, gpu_core.Mesh):
    raise ExportError(f"an mpmd_map over a {type(mesh).__name__} (only "
                      "plgpu.kernel's Mesh is supported)")
  consts = list(jaxpr.consts) if isinstance(jaxpr, core.ClosedJaxpr) else []
  jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
  kernel = identifier(eqn.params.get("name"), "kernel")
  n_in = len(eqn.invars)
  names = _names(given, n_in, len(jaxpr.invars) - n_in)
  fields = spec_mod.mesh_fields(mesh)

  args = [Value(f"%{name}", ref_type(v.aval))
          for name, v in zip(names, jaxpr.invars)]
  axes = dict(mesh.shape)  # grid, cluster then thread axes, in order
  source = _body_source(jaxpr)
  # Errors on equations without a user frame point at the kernel body, as
  # FILE:LINE (NAME) like the others.
  name, _, line = (source or "").partition(" at ")
  em = Emitter()
  with fallback_location(f"{line} ({name})" if line else ""):
    MgpuLowering(em, axes).lower_jaxpr(jaxpr, args, consts)
  em.line("pallas.return")

  params = ",\n    ".join(f"{a.name}: {a.type}" for a in args)
  module = [f"// Exported from JAX by pallasc_jax: {source or kernel}",
            f"pallas.kernel @{kernel}(\n    {params}) attributes "
            f"{{plgpu.mesh = {_mesh_attr(fields)}}} {{", *em.lines, "}"]
  spec = spec_mod.build_mgpu(eqn, kernel, names,
                             [v.aval for v in jaxpr.invars])
  return "\n".join(module) + "\n", spec
