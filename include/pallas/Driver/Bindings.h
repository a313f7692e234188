//===- Bindings.h - the kernel as a PyTorch op and an XLA custom call -*- C++ -*-===//
//
// `--emit torch` and `--emit xla-ffi` write Python (and, for XLA, C++) that
// other runtimes load the kernel's builds with. What the two share is here:
// which targets and dtypes they serve, and the Python tables of the
// kernel's operands.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DRIVER_BINDINGS_H
#define PALLAS_DRIVER_BINDINGS_H

#include "pallas/Driver/Artifact.h"
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Target/TargetDescription.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pallas {

/// `--emit torch` (host and CUDA targets): `NAME_torch.py`, which registers
/// the kernel as the `torch.library` custom op `pallasc::NAME`, with a CUDA
/// implementation over a CUDA build's cubins (the driver API, torch's
/// current stream) and a CPU one over a host build's shared object, and a
/// fake implementation for torch.compile. An output aliasing an input is
/// written into that input in place (a mutable `Tensor(a!)` argument) and
/// not returned. A located error for other targets.
LogicalResult addTorchArtifacts(Location loc, const LaunchSpec &spec, TargetKind kind,
                                std::vector<Artifact> &artifacts);

/// `NAME_torch_op.cc` (CUDA targets, with `--emit torch`): the op's CUDA
/// kernel in C++ over the launch header, for the CUDA dispatch key, which
/// `NAME_torch.load()` prefers once it is built.
std::string torchCompiledOpText(const LaunchSpec &spec);

/// `--emit xla-ffi` (host and CUDA targets): `NAME_xla_ffi.cc`, an XLA FFI
/// handler over the launch header that checks each buffer's dtype and
/// shape, and `NAME_xla_ffi.py`, which registers the built handler with
/// `jax.ffi` and calls it with `jax.ffi.ffi_call` (usable under jax.jit).
/// A located error for other targets.
LogicalResult addXlaFfiArtifacts(Location loc, const LaunchSpec &spec, TargetKind kind,
                                 std::vector<Artifact> &artifacts);

/// `--emit torch-xla` (TPU targets): `NAME_torch_xla.py`, a function that
/// calls torch_xla's TPU custom call with the kernel's tpu_custom_call
/// payload (the `backend_config` artifact among `artifacts`) and its
/// outputs' shapes and dtypes, as torch_xla's make_kernel_from_pallas does
/// with JAX's lowering. A located error for other targets and for kernels
/// whose outputs alias inputs.
LogicalResult addTorchXlaArtifacts(Location loc, const LaunchSpec &spec, TargetKind kind,
                                   StringRef targetName, std::vector<Artifact> &artifacts);

namespace bindings {

/// The NumPy name of a spec dtype ("float32", "bfloat16", ...), which JAX
/// and PyTorch use too; empty for none.
StringRef numpyDType(StringRef dtype);

/// A Python tuple of `values`: "(64, 128)", "(8,)".
std::string pythonTuple(ArrayRef<int64_t> values);

/// A C++ initializer list of `values`: "{64, 128}".
std::string cxxList(ArrayRef<int64_t> values);

/// Refuses, with a located error naming `option` (`why`: what it needs
/// those targets for; `framework`: whose dtypes), targets other than host
/// and CUDA and operands whose dtype has no NumPy name.
LogicalResult checkBindable(Location loc, const LaunchSpec &spec, TargetKind kind,
                            StringRef option, StringRef why, StringRef framework);

/// Refuses, with a located error naming `option`, operands whose dtype
/// has no NumPy name (`framework`: whose dtypes).
LogicalResult checkDTypes(Location loc, const LaunchSpec &spec, StringRef option,
                          StringRef framework);

/// `NAME = [("x", (64, 128), DTYPE), ...]` for `operands`, DTYPE being
/// `dtypeExpr` of each one's NumPy name.
void writeOperandTable(llvm::raw_ostream &os, StringRef name, ArrayRef<SpecOperand> operands,
                       function_ref<std::string(StringRef)> dtypeExpr);

} // namespace bindings

} // namespace mlir::pallas

#endif
