//===- Npy.h - NumPy .npy arrays --------------------------------*- C++ -*-===//
//
// Reading and writing the .npy format (version 1.0 written; 1, 2, 3 read).
// No MLIR or LLVM here: the launcher that uses it runs where only CUDA is.
//
//===----------------------------------------------------------------------===//
#ifndef PALLAS_RUNTIME_NPY_H
#define PALLAS_RUNTIME_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace pallas_rt {

struct NpyArray {
  std::string descr;          ///< e.g. "<f4"
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  ///< row-major
};

/// The .npy descr for a pallas dtype ("f32" -> "<f4"; bf16 is "<u2"), or ""
/// if unknown.
std::string npyDescrFor(const std::string &dtype);
/// Bytes per element of a pallas dtype (0 if unknown).
int64_t dtypeSize(const std::string &dtype);

/// Reads `path`; on failure returns false and sets `error`.
bool readNpy(const std::string &path, NpyArray &out, std::string &error);
bool writeNpy(const std::string &path, const NpyArray &array, std::string &error);

std::string shapeString(const std::vector<int64_t> &shape);

} // namespace pallas_rt

#endif
