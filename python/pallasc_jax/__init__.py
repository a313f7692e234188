"""JAX front end of pallasc: exports the one `pallas_call` (or Pallas:MGPU
`plgpu.kernel`) of a JAX function as a `pallas` dialect kernel and its
launch spec; `kernel_operands` computes what such a function passes its
kernel (the exported kernel's operands)."""
from .errors import ExportError
from .export import Exported, export
from .operands import kernel_operands

__all__ = ["ExportError", "Exported", "export", "kernel_operands"]
