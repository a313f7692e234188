//===- CudaHeader.h - the C launch header of CUDA artifacts -----*- C++ -*-===//
#ifndef PALLAS_TARGETS_CUDA_CUDAHEADER_H
#define PALLAS_TARGETS_CUDA_CUDAHEADER_H

#include "PtxasReport.h"
#include "pallas/Spec/LaunchSpec.h"

#include <array>
#include <string>
#include <vector>

namespace mlir::pallas {

/// A CUtensorMap parameter: array parameter `param` viewed as `rows` rows
/// of `rowElements` elements of `elemBytes` bytes, read in boxes of
/// boxRows x boxCols elements with the 128- or 64-byte swizzle
/// (`swizzleBytes` 128, 64) or none (0); the elements as CUtensorMapDataType
/// `dataType` (-1: unsigned integers of elemBytes).
struct CudaTensorMap {
  int64_t param = 0, rows = 0, rowElements = 0, elemBytes = 0, boxRows = 0, boxCols = 0;
  int64_t swizzleBytes = 128;
  int64_t dataType = -1;
  /// Rows permuted within each 16 (#pallas_gpu.tensor_map's fragment_rows):
  /// the launch encodes a 5-D view (fragmentRowsView).
  bool fragmentRows = false;

  /// The CUtensorMapDataType the launch encodes the map with.
  int64_t encodedDataType() const {
    if (dataType >= 0)
      return dataType;
    return elemBytes == 1 ? 0 : elemBytes == 2 ? 1 : elemBytes == 4 ? 2 : 4;
  }
};

/// The 5-D view of a map with fragment rows, as cuTensorMapEncodeTiled
/// takes it (innermost dimension first): its dims and boxes, and the byte
/// strides of dims 1 to 4. Box row 16g + 8h + 2b + j is array row
/// 16g + 4b + 2h + j.
struct TensorMapView {
  std::vector<int64_t> dims, box, strides;
};
TensorMapView fragmentRowsView(const CudaTensorMap &m);

/// One architecture's machine code.
struct CudaImage {
  std::string chip; // e.g. "sm_90a"
  int computeCapability = 0; // e.g. 90
  bool archSpecific = false; // sm_XXa: runs on exactly that architecture
  std::string ptx, cubin;
  /// Its kernel's CUtensorMap parameters, after the arrays.
  std::vector<CudaTensorMap> tensorMaps;
  /// What ptxas -v said of its kernel.
  cuda::PtxasReport ptxas;
};

/// What launching the compiled kernel takes.
struct CudaLaunch {
  std::string function;
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t threads = 128;
  int64_t sharedBytes = 0;
  /// The CTAs loop over the programs (pallas-persistent-programs): the
  /// launch starts one per SM of the device, at most grid[0].
  bool persistent = false;
  /// CTAs per thread-block cluster, along x (1: no clusters).
  int64_t cluster = 1;
  std::vector<CudaImage> images;
};

/// The header text: embedded cubins, lazy per-context loading, and
/// `CUresult NAME(CUstream, CUdeviceptr...)`.
std::string cudaHeaderText(const LaunchSpec &spec, const CudaLaunch &launch);

} // namespace mlir::pallas

#endif
