"""The one error the front end raises for kernels it cannot export."""
from jax._src import source_info_util


class ExportError(Exception):
  """A function or kernel that cannot be exported to pallasc."""


def located(eqn, message: str) -> ExportError:
  """An ExportError pointing at the user's source line of a jaxpr equation."""
  where = source_info_util.summarize(eqn.source_info)
  return ExportError(f"{where}: {message}")


def unsupported(eqn, what: str = "") -> ExportError:
  detail = f" ({what})" if what else ""
  return located(eqn, f"primitive '{eqn.primitive.name}' is not supported"
                      f"{detail}")
