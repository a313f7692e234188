"""JAX front end of pallasc: exports the one `pallas_call` (or Pallas:MGPU
`plgpu.kernel`) of a JAX function as a `pallas` dialect kernel and its
launch spec; `kernel_operands` computes what such a function passes its
kernel (the exported kernel's operands); `export_vjp` exports the forward
and backward kernels of a differentiated function and how they chain."""
from .errors import ExportError
from .export import Exported, export
from .operands import kernel_operands
from .vjp import ExportedChain, export_vjp

__all__ = ["ExportError", "Exported", "ExportedChain", "export",
           "export_vjp", "kernel_operands"]
