#!/usr/bin/env python3
"""Checks what `pallasc --emit torch-xla` writes (NAME_torch_xla.py) against
what torch_xla's make_kernel_from_pallas passes to
torch_xla._XLAC._xla_tpu_custom_call for the same kernel written in JAX
Pallas: the input tensors in order, the payload (the tpu_custom_call
backend config JAX's lowering carries: our config must match JAX's as
compare_jax.py compares them), and the outputs' shapes and dtypes
(jax.eval_shape of the pallas_call). Neither torch nor torch_xla is needed:
both are stand-ins here that record the call, so the module's own code runs
as it is.
usage: check_torch_xla.py CASE ARTIFACT_DIR"""
import glob
import importlib.util
import json
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_jax  # noqa: E402  (imports JAX before the stand-ins exist)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


class DType:
    """Stands for torch.<name>."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


class Tensor:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype


torch = types.ModuleType("torch")
for name in ["float32", "float16", "bfloat16", "float64", "int32", "int16", "int8", "uint8",
             "int64", "bool"]:
    setattr(torch, name, DType(name))
calls = []


def tpu_custom_call(inputs, payload, output_shapes, output_dtypes):
    calls.append((inputs, payload, output_shapes, output_dtypes))
    return [Tensor(s, d) for s, d in zip(output_shapes, output_dtypes)]


torch_xla = types.ModuleType("torch_xla")
torch_xla._XLAC = types.SimpleNamespace(_xla_tpu_custom_call=tpu_custom_call)
sys.modules["torch"], sys.modules["torch_xla"] = torch, torch_xla


def main():
    case, directory = sys.argv[1], sys.argv[2]
    manifest = json.load(open(glob.glob(os.path.join(directory, "*.manifest.json"))[0]))
    name = manifest["name"]
    path = os.path.join(directory, f"{name}_torch_xla.py")
    spec = importlib.util.spec_from_file_location(f"{name}_torch_xla", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, name)

    args = [Tensor(shape, dtype) for _, shape, dtype in module.INPUTS]
    result = fn(*args)
    (inputs, payload, shapes, dtypes), = calls
    problems = []
    if len(inputs) != len(args) or any(a is not b for a, b in zip(inputs, args)):
        problems.append("the inputs are not passed through in order")
    config_file = os.path.join(directory, manifest["launch"]["backend_config"])
    if payload != open(config_file).read().rstrip("\n"):
        problems.append(f"the payload is not {config_file}")
    diffs, _ = compare_jax.differences(case, json.loads(payload))
    problems += [f"payload's {k} differs from JAX's lowering: {a} vs {b}" for k, a, b in diffs]
    call, jax_args = compare_jax.CASES[case]
    want = jax.tree_util.tree_leaves(jax.eval_shape(call, *jax_args))
    want_shapes = [tuple(w.shape) for w in want]
    want_dtypes = [jnp.dtype(w.dtype).name for w in want]
    if [tuple(s) for s in shapes] != want_shapes:
        problems.append(f"output shapes {shapes}, JAX's {want_shapes}")
    if [d.name for d in dtypes] != want_dtypes:
        problems.append(f"output dtypes {dtypes}, JAX's {want_dtypes}")
    if len(want) == 1 and not isinstance(result, Tensor):
        problems.append("one output is not returned as a tensor")
    if len(want) > 1 and not (isinstance(result, tuple) and len(result) == len(want)):
        problems.append("several outputs are not returned as a tuple")
    # A wrong input is refused before the call.
    bad = list(args)
    bad[-1] = Tensor(tuple(d + 1 for d in args[-1].shape), args[-1].dtype)
    try:
        fn(*bad)
        problems.append("an input of the wrong shape was not refused")
    except ValueError as e:
        print(f"{case}: refused: {e}")
    for p in problems:
        print(f"{case}: {p}")
    if problems:
        sys.exit(1)
    print(f"{case}: torch-xla call matches make_kernel_from_pallas ({len(args)} inputs, "
          f"{len(want)} outputs, payload as JAX lowers it)")


if __name__ == "__main__":
    main()
