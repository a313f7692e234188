"""`export(fn, *example_args)`: the pallas kernel module and launch spec of
the one pallas_call (or Pallas:MGPU plgpu.kernel) in `fn`."""
from __future__ import annotations

import dataclasses
import json
import os

from . import rules_control, rules_elementwise, rules_memory, rules_shape  # noqa: F401  (register the rules)
from . import spec as spec_mod
from .errors import ExportError
from .index_map import helper_function
from .lower import Lowering
from .mlir_text import (Emitter, RefType, Value, element_type, identifier,
                        memory_space)
from .trace import find_pallas_call, holds_mgpu_kernel, trace


@dataclasses.dataclass(frozen=True)
class Exported:
  mlir: str   # the kernel module, `pallas` dialect text
  spec: dict  # the launch spec

  @property
  def kernel(self) -> str:
    return self.spec["kernel"]

  def spec_json(self) -> str:
    return _json(self.spec, "") + "\n"

  def write(self, directory: str) -> tuple[str, str]:
    """Writes DIR/kernel.mlir and DIR/spec.json; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    mlir_path = os.path.join(directory, "kernel.mlir")
    spec_path = os.path.join(directory, "spec.json")
    with open(mlir_path, "w") as f:
      f.write(self.mlir)
    with open(spec_path, "w") as f:
      f.write(self.spec_json())
    return mlir_path, spec_path


def _json(x, indent: str) -> str:
  """JSON with one operand (or key) a line and short lists kept inline."""
  inner = indent + "  "
  if isinstance(x, dict):
    items = [f"{inner}{json.dumps(k)}: {_json(v, inner)}" for k, v in x.items()]
    return "{\n" + ",\n".join(items) + f"\n{indent}}}" if items else "{}"
  if isinstance(x, list) and any(isinstance(v, (dict, list)) for v in x):
    return "[\n" + ",\n".join(inner + _json(v, inner) for v in x) + \
        f"\n{indent}]"
  return json.dumps(x)


def _kernel_name(eqn, jaxpr) -> str:
  name = eqn.params.get("name")
  if not name and jaxpr.debug_info is not None:
    name = jaxpr.debug_info.func_name
  return identifier(name, "kernel")


def _arg_names(jaxpr, gm) -> list[str]:
  """Kernel parameter names (also the spec's operand names), unique."""
  given = (jaxpr.debug_info.arg_names if jaxpr.debug_info is not None
           and jaxpr.debug_info.arg_names else ())
  roles = (["prefetch"] * gm.num_index_operands + ["in"] * gm.num_inputs +
           ["out"] * gm.num_outputs + ["scratch"] * len(gm.scratch_avals))
  names, seen = [], set()
  for k, role in enumerate(roles):
    name = identifier(given[k] if k < len(given) else "", f"{role}{k}")
    while name in seen:
      name += "_"
    seen.add(name)
    names.append(name)
  return names


def _ref_type(aval, prefetch: bool) -> RefType:
  if not hasattr(aval, "inner_aval") or not hasattr(aval, "dtype"):
    raise ExportError(f"kernel argument of type {aval} (only array refs are "
                      "supported)")
  space = "smem" if prefetch else memory_space(aval.memory_space)
  return RefType(tuple(aval.shape), element_type(aval.dtype), space)


def export(fn, *example_args) -> Exported:
  closed = trace(fn, *example_args)
  if holds_mgpu_kernel(closed):
    # Imported here: JAX's Mosaic GPU modules need absl, which pallas_call
    # kernels do not.
    from .mgpu import export_mgpu
    return Exported(*export_mgpu(closed))
  return export_pallas_call(find_pallas_call(closed))


def export_pallas_call(eqn, source: str | None = None) -> Exported:
  """The kernel module and spec of one pallas_call equation; `source`
  (default: the kernel function's file and line) heads the module."""
  gm = eqn.params["grid_mapping"]
  jaxpr = eqn.params["jaxpr"]
  kernel = _kernel_name(eqn, jaxpr)
  names = _arg_names(jaxpr, gm)
  grid_rank = len(gm.grid)

  helpers, functions = {}, []
  for k, bm in enumerate(gm.block_mappings):
    if spec_mod.needs_helper(bm, grid_rank):
      helpers[k] = f"{kernel}_{names[gm.num_index_operands + k]}_index_map"
      functions.append(helper_function(bm.index_map_jaxpr, helpers[k]))

  args = [Value(f"%{name}", _ref_type(v.aval, k < gm.num_index_operands))
          for k, (name, v) in enumerate(zip(names, jaxpr.invars))]
  em = Emitter()
  program_axes = tuple(a for a in range(grid_rank) if a not in gm.vmapped_dims)
  Lowering(em, program_axes).lower_jaxpr(jaxpr, args)
  em.line("pallas.return")

  params = ",\n    ".join(f"{a.name}: {a.type}" for a in args)
  if source is None:
    source = jaxpr.debug_info.func_src_info if jaxpr.debug_info else kernel
  module = [f"// Exported from JAX by pallasc_jax: {source}"]
  for text in functions:
    module += [text, ""]
  module += [f"pallas.kernel @{kernel}(\n    {params}) {{", *em.lines, "}"]
  spec = spec_mod.build(eqn, kernel, names, helpers)
  return Exported("\n".join(module) + "\n", spec)
