"""Pallas:MGPU primitives: mesh queries, TMA copies, barriers, WGMMA,
register and layout hints. They live in their own table (MGPU_RULES), used
on top of the common rules only inside a `plgpu.kernel`. Counts that JAX
0.10 passes as operands and 0.11 as params are read from either."""
from __future__ import annotations

import contextlib

from jax._src import tree_util

from .errors import located, unsupported
from .lower import Const, Operand, is_ref
from .mgpu_refs import barrier, strip_layout, view
from .mlir_text import TensorType, Value, string_text, value_type
from . import rules_memory

MGPU_RULES: dict = {}
_I32 = TensorType((), "i32")


def mgpu_rule(*names: str):
  def register(fn):
    for name in names:
      MGPU_RULES[name] = fn
    return fn
  return register


def _trees(ins, trees) -> tuple[list, list]:
  """Consecutive flattened transform trees (None: no transforms) at the
  start of `ins`; returns them unflattened and the operands after them."""
  out, k = [], 0
  for tree in trees:
    n = tree.num_leaves if tree is not None else 0
    out.append(tree_util.tree_unflatten(tree, ins[k:k + n])
               if tree is not None else ())
    k += n
  return out, list(ins[k:])


def _count(eqn, ins, param: str = "n") -> int:
  """A static count: the param, or the literal operand."""
  if param in eqn.params:
    return int(eqn.params[param])
  if len(ins) != 1 or not isinstance(ins[0], Const):
    raise located(eqn, f"{eqn.primitive.name} with a count known only at run "
                       "time")
  return int(ins[0].value)


@contextlib.contextmanager
def _predicated(lw, eqn, extra: list):
  """Emits the op under `scf.if` on the user's predicate (the op happens
  only where it holds), or as is without one or with the literal True."""
  if not eqn.params.get("has_user_predicate"):
    yield
    return
  pred = extra[-1]
  if isinstance(pred, Const):
    if bool(pred.value):
      yield
    return
  with lw.em.region(f"scf.if {lw.value(pred).name} {{"):
    yield
  lw.em.line("}")


def _attrs(attrs: list[str]) -> str:
  return f" {{{', '.join(attrs)}}}" if attrs else ""


def names_attr(axes) -> str:
  """`["x", "y"]`: mesh axis names as an attribute."""
  return "[" + ", ".join(string_text(str(a)) for a in axes) + "]"


# -- the mesh -----------------------------------------------------------------

def _axis_index(lw, name: str) -> Value:
  return lw.em.pure(f"plgpu.axis_index {string_text(name)} : i32", _I32)


@mgpu_rule("axis_index")
def _axis_index_rule(lw, eqn, ins):
  name = eqn.params["axis_name"]
  if not isinstance(name, str):
    raise located(eqn, f"axis_index over {name!r} (one named mesh axis)")
  return [_axis_index(lw, name)]


@mgpu_rule("program_id", "num_programs")
def _grid_query(lw, eqn, ins):
  # A plgpu.kernel's program ids are its mesh axes, in order.
  names, sizes = list(lw.axes), list(lw.axes.values())
  axis = int(eqn.params["axis"])
  if eqn.primitive.name == "num_programs":
    return [lw.em.constant(sizes[axis], _I32)]
  return [_axis_index(lw, names[axis])]


# -- refs ---------------------------------------------------------------------

# `load` is plgpu.load; the layout it may take is a layout_cast after it.
@mgpu_rule("get", "load")
def _get(lw, eqn, ins):
  ref, *flat = ins
  transforms = tree_util.tree_unflatten(eqn.params["tree"], flat)
  return [rules_memory.load(lw, eqn, ref, _strip(eqn, ref, transforms))]


@mgpu_rule("swap")
def _swap(lw, eqn, ins):
  ref, value, *flat = ins
  transforms = tree_util.tree_unflatten(eqn.params["tree"], flat)
  return rules_memory.swap(lw, eqn, ref, _strip(eqn, ref, transforms), value)


def _strip(eqn, ref: Operand, transforms) -> list:
  if not is_ref(ref):
    raise located(eqn, "a ref primitive on something that is not a kernel ref")
  return strip_layout(eqn, ref, transforms)


# -- copies -------------------------------------------------------------------

@mgpu_rule("copy_gmem_to_smem")
def _copy_gmem_to_smem(lw, eqn, ins):
  p = eqn.params
  src, dst, *rest = ins
  has_barrier = p.get("has_barrier", True)
  bar = rest.pop(0) if has_barrier else None
  (src_t, dst_t, bar_t), extra = _trees(rest, [
      p["src_transforms_treedef"], p["dst_transforms_treedef"],
      p.get("barrier_transforms_treedef")])
  attrs = []
  if p.get("collective_axes"):
    attrs.append(f"collective_axes = {names_attr(p['collective_axes'])}")
  leader = p.get("leader_tracked")
  if leader is not None and not isinstance(getattr(leader, "axis", None),
                                           int):
    raise located(eqn, f"copy_gmem_to_smem with leader_tracked={leader}")
  axis = getattr(leader, "axis", p.get("partitioned_axis"))
  if axis is not None:
    attrs.append(f"partitioned = {int(axis)}")
  # oob_mode is not kept: filling with zeros is a valid implementation of
  # every mode.
  s, _ = view(lw, eqn, src, src_t)
  d, _ = view(lw, eqn, dst, dst_t)
  operands, types = f"{s.name} -> {d.name}", f"{s.type}, {d.type}"
  if bar is not None:
    b, b_types = barrier(lw, eqn, bar, bar_t)
    operands, types = f"{operands}, {b}", f"{types}, {b_types}"
  with _predicated(lw, eqn, extra):
    lw.em.line(f"plgpu.copy_gmem_to_smem {operands}{_attrs(attrs)} : {types}")
  return []


@mgpu_rule("copy_smem_to_gmem")
def _copy_smem_to_gmem(lw, eqn, ins):
  p = eqn.params
  src, dst, *rest = ins
  (src_t, dst_t), extra = _trees(rest, [p["src_transforms_treedef"],
                                        p["dst_transforms_treedef"]])
  attrs = []
  if not p.get("commit_group", True):
    attrs.append("commit_group = false")
  if p.get("reduction_op") is not None:
    op = str(getattr(p["reduction_op"], "value", p["reduction_op"])).lower()
    attrs.append(f"reduction = {string_text(op)}")
  s, _ = view(lw, eqn, src, src_t)
  d, _ = view(lw, eqn, dst, dst_t)
  with _predicated(lw, eqn, extra):
    lw.em.line(f"plgpu.copy_smem_to_gmem {s.name} -> {d.name}{_attrs(attrs)} : "
               f"{s.type}, {d.type}")
  return []


@mgpu_rule("wait_smem_to_gmem")
def _wait_smem_to_gmem(lw, eqn, ins):
  read_only = " {read_only}" if eqn.params.get("wait_read_only") else ""
  lw.em.line(f"plgpu.wait_smem_to_gmem {_count(eqn, ins)}{read_only}")
  return []


def _plain(op: str):
  def lower(lw, eqn, ins):
    lw.em.line(op)
    return []
  return lower


mgpu_rule("commit_group")(_plain("plgpu.commit_group"))
mgpu_rule("commit_smem")(_plain("plgpu.commit_smem"))


# -- barriers -----------------------------------------------------------------

@mgpu_rule("barrier_arrive", "barrier_wait", "barrier_test")
def _barrier_op(lw, eqn, ins):
  bar, *rest = ins
  (transforms,), extra = _trees(rest, [eqn.params.get("transforms_treedef")])
  b, types = barrier(lw, eqn, bar, transforms)
  op = f"plgpu.{eqn.primitive.name} {b} : {types}"
  if eqn.primitive.name == "barrier_test":
    if eqn.params.get("has_user_predicate"):
      raise located(eqn, "barrier_test with a predicate")
    return [lw.em.op(f"{op} -> i1", TensorType((), "i1"))]
  with _predicated(lw, eqn, extra):
    lw.em.line(op)
  return []


# -- WGMMA --------------------------------------------------------------------

@mgpu_rule("wgmma_ref")
def _wgmma(lw, eqn, ins):
  p = eqn.params
  acc, a, b, *rest = ins
  (acc_t, a_t, b_t), _ = _trees(rest, [p.get("acc_transforms_tree"),
                                       p.get("a_transforms_tree"),
                                       p.get("b_transforms_tree")])
  acc, _ = view(lw, eqn, acc, acc_t)
  # The LHS may be an array in registers.
  a, transpose_a = view(lw, eqn, a, a_t, transposable=True) if is_ref(a) \
      else (lw.value(a), False)
  b, transpose_b = view(lw, eqn, b, b_t, transposable=True)
  attrs = [name for name, flag in (("transpose_a", transpose_a),
                                   ("transpose_b", transpose_b)) if flag]
  lw.em.line(f"plgpu.wgmma {acc.name}, {a.name}, {b.name}{_attrs(attrs)} : "
             f"{acc.type}, {a.type}, {b.type}")
  return []


@mgpu_rule("wgmma_wait")
def _wgmma_wait(lw, eqn, ins):
  lw.em.line(f"plgpu.wgmma_wait {_count(eqn, ins)}")
  return []


@mgpu_rule("wgmma_accumulator_deref_p")
def _wgmma_deref(lw, eqn, ins):
  (acc,) = ins
  if eqn.params.get("wait_n") is not None:
    lw.em.line(f"plgpu.wgmma_wait {int(eqn.params['wait_n'])}")
  out = value_type(eqn.outvars[0].aval)
  return [lw.em.op(f"pallas.load {acc.name}[...] : {acc.type} -> {out}", out)]


@mgpu_rule("wgmma_accumulator_store_p")
def _wgmma_store(lw, eqn, ins):
  acc, value = ins
  out = value_type(eqn.outvars[0].aval)
  v = lw.broadcast(value, out.shape)
  lw.em.line(f"pallas.store {acc.name}[...], {v.name} : {acc.type}, {out}")
  return [v]


# -- registers and layouts ----------------------------------------------------

@mgpu_rule("set_max_registers_p")
def _set_max_registers(lw, eqn, ins):
  action = str(getattr(eqn.params["action"], "value", eqn.params["action"]))
  lw.em.line(f"plgpu.set_max_registers {_count(eqn, ins)} "
             f"{{{action.lower()}}}")
  return []


def _layout_name(eqn, layout) -> str:
  """The lowercase name of a plgpu.Layout; a parameterized layout's
  arguments are not kept. WGMMA reduced over one dim is MGPU's
  wgmma_row (dim 1) or wgmma_col (dim 0)."""
  if type(layout).__name__ == "ReducedLayout":
    axes = tuple(int(a) for a in layout.axes)
    if _layout_name(eqn, layout.layout) == "wgmma" and axes in ((1,), (0,)):
      return "wgmma_row" if axes == (1,) else "wgmma_col"
    raise located(eqn, f"layout_cast to {layout}")
  layout = getattr(layout, "layout_cls", layout)
  if type(layout).__name__ != "Layout":
    raise located(eqn, f"layout_cast to {layout}")
  return layout.name.lower()


@mgpu_rule("layout_cast")
def _layout_cast(lw, eqn, ins):
  x = lw.value(ins[0])
  name = _layout_name(eqn, eqn.params["new_layout"])
  return [lw.em.op(f"plgpu.layout_cast {x.name} {{layout = "
                   f"{string_text(name)}}} : {x.type}", x.type)]


# -- what has no pallas form yet ----------------------------------------------

_BLACKWELL = ("tcgen05_mma", "tcgen05_commit_arrive", "commit_tmem",
              "async_load", "wait_load_tmem", "async_store_tmem",
              "async_copy_scales_to_tmem", "async_copy_sparse_metadata_to_tmem",
              "async_copy_smem_to_tmem")
_MULTI_GPU = ("multimem_store", "multimem_load_reduce",
              "semaphore_signal_multicast", "semaphore_signal_parallel",
              "semaphore_signal", "semaphore_wait")


def _refuse(why: str):
  def lower(lw, eqn, ins):
    raise unsupported(eqn, why)
  return lower


mgpu_rule(*_BLACKWELL)(_refuse("Blackwell tcgen05/TMEM"))
mgpu_rule(*_MULTI_GPU)(_refuse("multi-GPU"))
mgpu_rule("wait_gmem_to_smem")(_refuse("cp.async copies without a barrier"))
