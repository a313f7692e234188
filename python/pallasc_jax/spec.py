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
