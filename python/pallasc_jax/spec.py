"""The launch spec (schemas/launch.schema.json) of a pallas_call."""
from __future__ import annotations

from jax._src.pallas import core as pallas_core

from .errors import ExportError
from .index_map import affine_map, is_zero
from .mlir_text import element_type, memory_space

def _block_shape(bm) -> list:
  dims = []
  for d in bm.block_shape:
    if isinstance(d, pallas_core.Squeezed):
      dims.append(None)
    elif isinstance(d, pallas_core.Blocked):
      dims.append(int(d.block_size))
    else:
      raise ExportError(f"{bm.origin}: block dimension {d} (only blocked "
                        "and squeezed dimensions are supported)")
  return dims


def _windowed(bm) -> bool:
  """Whether the block is not simply the whole array."""
  return not bm.has_trivial_window() or any(
      isinstance(d, pallas_core.Squeezed) for d in bm.block_shape)


def _operand(name: str, bm, grid_rank: int, helper: str | None) -> dict:
  entry = {"name": name, "shape": list(bm.array_aval.shape),
           "dtype": element_type(bm.array_aval.dtype)}
  space = memory_space(bm.transformed_block_aval.memory_space)
  if _windowed(bm):
    entry["block_shape"] = _block_shape(bm)
    if helper is not None:
      entry["index_map"] = f"@{helper}"
    elif not is_zero(bm.index_map_jaxpr):
      entry["index_map"] = affine_map(bm.index_map_jaxpr, grid_rank)
  if space is not None:
    entry["memory_space"] = space
  return entry


def needs_helper(bm, grid_rank: int) -> bool:
  """Whether this block's index map is not affine (an "@fn" helper)."""
  return (_windowed(bm) and not is_zero(bm.index_map_jaxpr)
          and affine_map(bm.index_map_jaxpr, grid_rank) is None)


def _dimension_semantics(params, grid_rank: int, vmapped: tuple) -> list | None:
  semantics = getattr(params, "dimension_semantics", None)
  if semantics is None:
    return None
  names = iter(str(getattr(s, "value", s)).lower() for s in semantics)
  out = []
  for axis in range(grid_rank):
    # vmap's grid axes are independent.
    name = "parallel" if axis in vmapped else next(names)
    if name not in ("parallel", "arbitrary"):
      raise ExportError(f"dimension semantics '{name}' (pallas takes "
                        "parallel and arbitrary)")
    out.append(name)
  return out


def _compiler_params(params) -> dict:
  out = {}
  for field in ("num_warps", "num_stages", "vmem_limit_bytes"):
    value = getattr(params, field, None)
    if value is not None:
      out[field] = int(value)
  return out


def build(eqn, kernel: str, names: list[str], helpers: dict[int, str]) -> dict:
  """The spec of a pallas_call equation. `names` are the operand names in
  kernel-argument order; `helpers` maps block indices to "@fn" helpers."""
  gm = eqn.params["grid_mapping"]
  grid = [int(g) for g in gm.grid]
  n_index = gm.num_index_operands
  blocks = [_operand(names[n_index + k], bm, len(grid), helpers.get(k))
            for k, bm in enumerate(gm.block_mappings)]
  prefetch = [{"name": names[k], "shape": list(aval.shape),
               "dtype": element_type(aval.dtype)}
              for k, aval in enumerate(gm.index_map_avals[len(grid):])]
  spec = {"kernel": kernel}
  if grid:
    spec["grid"] = grid
  if n_index:
    spec["num_scalar_prefetch"] = n_index
  spec["inputs"] = prefetch + blocks[:gm.num_inputs]
  spec["outputs"] = blocks[gm.num_inputs:]
  if gm.scratch_avals:
    spec["scratch"] = [_scratch(aval) for aval in gm.scratch_avals]
  if eqn.params["input_output_aliases"]:
    spec["input_output_aliases"] = {
        str(i): int(o) for i, o in eqn.params["input_output_aliases"]}
  params = eqn.params["compiler_params"]
  semantics = _dimension_semantics(params, len(grid), gm.vmapped_dims)
  if semantics:
    spec["dimension_semantics"] = semantics
  compiler = _compiler_params(params)
  if compiler:
    spec["compiler_params"] = compiler
  return spec


def _scratch(aval) -> dict:
  if not hasattr(aval, "shape") or not hasattr(aval, "dtype"):
    raise ExportError(f"scratch operand {aval} (only arrays are supported)")
  entry = {"shape": list(aval.shape), "dtype": element_type(aval.dtype)}
  space = memory_space(getattr(aval, "memory_space", None))
  if space is not None:
    entry["memory_space"] = space
  return entry


def mesh_fields(mesh) -> dict:
  """A plgpu.kernel's Mesh: grid, cluster and warpgroup axes."""
  fields = {"grid": [int(g) for g in mesh.grid],
            "grid_names": list(mesh.grid_names),
            "cluster": [int(c) for c in getattr(mesh, "cluster", ())],
            "cluster_names": list(getattr(mesh, "cluster_names", ())),
            "num_threads": int(getattr(mesh, "num_threads", None) or 1),
            "thread_name": getattr(mesh, "thread_name", None)}
  names = [*fields["grid_names"], *fields["cluster_names"],
           *([fields["thread_name"]] if fields["thread_name"] else [])]
  for name in names:
    if not isinstance(name, str):
      raise ExportError(f"mesh axis {name!r} has no name (a jax.vmap of a "
                        "plgpu.kernel?)")
  return fields


def build_mgpu(eqn, kernel: str, names: list[str], operand_avals) -> dict:
  """The spec of an mpmd_map equation (plgpu.kernel): whole GMEM arrays,
  the operands then the outputs, on the mesh's grid."""
  (mesh,) = eqn.params["meshes"]
  fields = mesh_fields(mesh)
  operands = [{"name": name, "shape": [int(d) for d in aval.shape],
               "dtype": element_type(aval.dtype), "memory_space": "gmem"}
              for name, aval in zip(names, operand_avals)]
  n_in = len(eqn.invars)
  spec = {"kernel": kernel, "grid": fields.pop("grid"), "mesh": fields,
          "inputs": operands[:n_in], "outputs": operands[n_in:]}
  aliases = dict(eqn.params.get("input_output_aliases") or {})
  if aliases:
    spec["input_output_aliases"] = {str(i): int(o)
                                    for i, o in sorted(aliases.items())}
  return spec
