"""The one error the front end raises for kernels it cannot export."""
import contextlib
import contextvars

from jax._src import source_info_util


class ExportError(Exception):
  """A function or kernel that cannot be exported to pallasc."""


# Where errors point for equations that carry no frame of the user's code
# (JAX keeps none for some equations it traces inside a kernel).
_FALLBACK = contextvars.ContextVar("pallasc_jax_fallback_location",
                                   default="")


@contextlib.contextmanager
def fallback_location(where: str):
  token = _FALLBACK.set(where)
  try:
    yield
  finally:
    _FALLBACK.reset(token)


def located(eqn, message: str) -> ExportError:
  """An ExportError pointing at the user's source line of a jaxpr equation."""
  where = source_info_util.summarize(eqn.source_info) or _FALLBACK.get()
  return ExportError(f"{where}: {message}")


def unsupported(eqn, what: str = "") -> ExportError:
  detail = f" ({what})" if what else ""
  return located(eqn, f"primitive '{eqn.primitive.name}' is not supported"
                      f"{detail}")
