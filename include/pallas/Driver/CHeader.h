//===- CHeader.h - pieces every C launch header shares ----------*- C++ -*-===//
//
// The host, CUDA and Triton targets each write a C99/C++ header that
// launches the kernel. What they share is written here: the banner's line
// per array, the include guard with C linkage, and, for the two headers
// that load a module through the CUDA driver, the per-context table of
// loaded modules (`NAME_state`), its lookup and `NAME_unload`.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_DRIVER_CHEADER_H
#define PALLAS_DRIVER_CHEADER_H

#include "pallas/Spec/LaunchSpec.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::pallas::cheader {

/// ` *   NAME: DTYPE[D0, D1] ROLE` in the banner.
void describeArray(llvm::raw_ostream &os, const SpecOperand &op, StringRef role);

/// Describes every array of `spec` (`describe(op, role)`, in spec order) with
/// its role for a device launch: "scalar prefetch", "input", "output" or
/// "output (aliases input N)".
void forEachDeviceArray(const LaunchSpec &spec,
                        function_ref<void(const SpecOperand &, StringRef)> describe);

/// ` *   size_M: symbolic size M (int64_t, ...)` per size in the banner.
void describeSizes(llvm::raw_ostream &os, const LaunchSpec &spec);
/// The C parameter of size `name`: `size_M`.
std::string sizeParam(StringRef name);
/// `int64_t size_M, int64_t size_K` (empty without sizes).
std::string sizeParams(const LaunchSpec &spec);
/// Statements (at `indent`) that run `onError` where a size breaks what the
/// spec says of it or, with `int32Offsets`, an array reaches 2^31 elements
/// (whose element offsets are then i32).
void checkSizes(llvm::raw_ostream &os, const LaunchSpec &spec, bool int32Offsets,
                StringRef indent, StringRef onError);
/// A C expression (int64_t) for the programs along grid `axis`.
std::string gridExtent(const LaunchSpec &spec, unsigned axis);
/// In a CUDA launch function with symbolic sizes: `int32_t arg_M` per size
/// (what the kernel takes), `int64_t grid0..2` (program ids x, y, z are the
/// grid's leading parallel axes), and the checks that return
/// CUDA_ERROR_INVALID_VALUE for sizes the kernel does not take. The launch
/// passes `(unsigned)gridN`.
void cudaSizedGrid(llvm::raw_ostream &os, const LaunchSpec &spec);

/// Ends the banner, opens the include guard, includes `headers` and opens
/// C linkage.
void open(llvm::raw_ostream &os, StringRef guard, ArrayRef<StringRef> headers);
/// Closes C linkage and the guard.
void close(llvm::raw_ostream &os, StringRef guard);

/// In `NAME_function`: returns the function already loaded in `context`
/// (the table's lock held meanwhile).
void cudaLookupLoaded(llvm::raw_ostream &os, StringRef name);
/// In `NAME_function`, once `module` loaded: records it for `context`, or
/// unloads it if getting the function failed. `indent`: of the enclosing
/// block.
void cudaRecordLoaded(llvm::raw_ostream &os, StringRef name, StringRef indent);
/// `NAME_unload()`: unloads the module from every context that loaded it;
/// `forgetImage` also drops the registered image.
void cudaUnload(llvm::raw_ostream &os, StringRef name, bool forgetImage);

} // namespace mlir::pallas::cheader

#endif
