"""JAX front end of pallasc: exports the one `pallas_call` (or Pallas:MGPU
`plgpu.kernel`) of a JAX function as a `pallas` dialect kernel and its
launch spec."""
from .errors import ExportError
from .export import Exported, export

__all__ = ["ExportError", "Exported", "export"]
