//===- ChainTorchOp.cpp - a chain's forward op, with its backward kernels ===//
//
// A chain (chain.json, which `pallasc_jax --vjp` writes) holds a
// function's forward kernel and the backward kernels of its VJP. Built
// with --emit torch, every kernel gets its own op (NAME_torch.py, in its
// directory), and the chain gets FUNCTION_torch.py: it loads them all and
// registers autograd for the forward kernel's op
// (torch.library.register_autograd), whose backward runs the backward
// kernels as chain.json connects them. FUNCTION(...) calls the forward op
// and returns the function's outputs (the forward kernel also returns
// what its backward reads, such as attention's row statistics). A
// backward kernel with an aliased output (a fused scan's dQ accumulator)
// writes into its input in place: a tensor only it reads as it is, any
// other a copy.
//
// The module is the same text for every chain but its name and the chain
// it embeds: what it needs of each kernel, its op's own module says.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/Chain.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace mlir::pallas;

namespace {

constexpr const char *kChainRuntime = R"PY(
def _kernel_module(directory, name):
    path = os.path.join(directory, name + "_torch.py")
    spec = importlib.util.spec_from_file_location(f"_pallasc_chain_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _op(name):
    return getattr(torch.ops.pallasc, name).default


_FORWARD = next(k for k in CHAIN["kernels"] if k["role"] == "forward")
_BACKWARD = [k for k in CHAIN["kernels"] if k["role"] == "backward"]
# The function's argument i is the forward kernel's operand _OPERAND_OF[i].
_OPERAND_OF = {s["input"]: k for k, s in enumerate(_FORWARD["operands"])}


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _source(src, inputs, cotangents, results):
    if src is None:
        return None
    if "input" in src:
        x = inputs[src["input"]]
    elif "cotangent" in src:
        x = cotangents[src["cotangent"]]
    else:
        x = results[src["kernel"]][src["output"]]
    return x.reshape(src["shape"]) if "shape" in src else x


def _needed():
    """The forward op's operands and outputs that the backward kernels and
    the gradients read: only those are saved for the backward."""
    operands, outputs = set(), set()
    for src in [s for e in _BACKWARD for s in e["operands"]] + CHAIN["gradients"]:
        if src is None:
            continue
        if "input" in src:
            operands.add(_OPERAND_OF[src["input"]])
        elif src.get("kernel") == _FORWARD["directory"]:
            outputs.add(src["output"])
    return operands, outputs


_SAVED_OPERANDS, _SAVED_OUTPUTS = _needed()


def _read_once():
    """The backward kernels' outputs that exactly one operand or gradient
    reads: a kernel writing one of them in place (an aliased output, such
    as an accumulator another kernel zeroed) may take it as it is; any
    other tensor it would write is copied first."""
    reads = {}
    for src in [s for e in _BACKWARD for s in e["operands"]] + CHAIN["gradients"]:
        if src is not None and "kernel" in src:
            key = (src["kernel"], src["output"])
            reads[key] = reads.get(key, 0) + 1
    backward = {e["directory"] for e in _BACKWARD}
    return {key for key, n in reads.items() if n == 1 and key[0] in backward}


_READ_ONCE = _read_once()


def _setup_context(ctx, inputs, output):
    outputs = _as_tuple(output)
    ctx.operand_shapes = [tuple(t.shape) for t in inputs]
    ctx.output_kinds = [(o.dtype, o.device) for o in outputs]
    ctx.save_for_backward(
        *[t if k in _SAVED_OPERANDS else None for k, t in enumerate(inputs)],
        *[o if j in _SAVED_OUTPUTS else None for j, o in enumerate(outputs)])


def _backward(ctx, *grads):
    saved = ctx.saved_tensors
    n = len(_FORWARD["operands"])
    operands, outputs = saved[:n], saved[n:]
    inputs = [None if operands[_OPERAND_OF[i]] is None
              else operands[_OPERAND_OF[i]].reshape(a["shape"])
              for i, a in enumerate(CHAIN["inputs"])]
    results = {_FORWARD["directory"]: outputs}
    # The cotangent of the function's output j: the gradient of the
    # forward op's output it is (zeros where autograd passes none).
    cotangents = []
    for j, src in enumerate(CHAIN["outputs"]):
        g = grads[src["output"]]
        c = CHAIN["cotangents"][j]
        if g is None:
            dtype, device = ctx.output_kinds[src["output"]]
            g = torch.zeros(c["shape"], dtype=dtype, device=device)
        cotangents.append(g.reshape(c["shape"]).contiguous())
    for directory, op, spec_outputs, operands in _PLAN:
        args = []
        for s, copy in operands:
            x = _source(s, inputs, cotangents, results)
            args.append(x.clone() if copy else x if "kernel" in s else x.contiguous())
        # A kernel without inputs (a fused scan's zeroed accumulator) takes
        # the device to run on.
        results[directory] = spec_outputs(args, op(*(args or [cotangents[0].device])))
    out = [None] * n
    for i, src in enumerate(CHAIN["gradients"]):
        if src is not None:
            k = _OPERAND_OF[i]
            out[k] = _source(src, inputs, cotangents, results).reshape(ctx.operand_shapes[k])
    return tuple(out)


def _plan():
    """Per backward kernel, what its call needs, worked out once: its op,
    how its outputs map to the spec's, and per operand where it comes from
    and whether it is copied first (written in place, read elsewhere too).
    Kernels' outputs are contiguous as they are."""
    plan = []
    for entry in _BACKWARD:
        module = _modules[entry["directory"]]
        written = set(module.ALIASES.values())
        operands = [(s, i in written and (s.get("kernel"), s.get("output")) not in _READ_ONCE)
                    for i, s in enumerate(entry["operands"])]
        plan.append((entry["directory"], _op(entry["name"]), module.spec_outputs, operands))
    return plan


_PLAN = []
_registered = False


def load(directory=None):
    """Loads every kernel's build from `directory` (a pallasc output
    directory of this chain; default: this module's) and registers
    autograd for the forward op: torch.ops.pallasc.FORWARD, and FUNCTION
    here, differentiate through the backward kernels."""
    global _registered
    directory = directory or os.path.dirname(os.path.abspath(__file__))
    for entry in CHAIN["kernels"]:
        kdir = os.path.join(directory, entry["directory"])
        if entry["directory"] not in _modules:
            _modules[entry["directory"]] = _kernel_module(kdir, entry["name"])
        _modules[entry["directory"]].load(kdir)
    _PLAN[:] = _plan()
    if not _registered:
        torch.library.register_autograd(f"pallasc::{_FORWARD['name']}", _backward,
                                        setup_context=_setup_context)
        _registered = True


def forward_operands(*args):
    """The forward op's operands, from the function's arguments."""
    if len(args) != len(CHAIN["inputs"]):
        raise TypeError(f"{FUNCTION} takes {len(CHAIN['inputs'])} tensors, got {len(args)}")
    operands = [None] * len(_FORWARD["operands"])
    for i, a in enumerate(args):
        operands[_OPERAND_OF[i]] = a
    return operands


def function(*args):
    """The function: its outputs, through the forward op (differentiable)."""
    outputs = _as_tuple(_op(_FORWARD["name"])(*forward_operands(*args)))
    results = {_FORWARD["directory"]: outputs}
    outs = [_source(s, args, (), results) for s in CHAIN["outputs"]]
    return outs[0] if len(outs) == 1 else tuple(outs)
)PY";

} // namespace

std::string mlir::pallas::chainTorchModule(StringRef function, StringRef chainJson) {
  nlohmann::json chain = nlohmann::json::parse(chainJson.begin(), chainJson.end());
  std::string forward;
  for (const nlohmann::json &k : chain["kernels"])
    if (k["role"] == "forward")
      forward = k["name"].get<std::string>();
  std::string out;
  out += "\"\"\"" + function.str() +
         " with autograd, generated by pallasc from chain.json. The forward\n"
         "kernel is the op torch.ops.pallasc." + forward +
         "; load() registers its backward, which\nruns the backward kernels. "
         "load(OUT) first, then " + function.str() + "(...) or the op.\n\"\"\"\n";
  out += "import importlib.util\nimport json\nimport os\n\nimport torch\n\n";
  out += "FUNCTION = " + nlohmann::json(function.str()).dump() + "\n";
  // The manifest itself (compact: one line), so the module stands alone.
  out += "CHAIN = json.loads(" + nlohmann::json(chain.dump()).dump() + ")\n";
  out += "_modules = {}\n";
  out += kChainRuntime;
  out += "\n\n" + function.str() + " = function\n";
  return out;
}
