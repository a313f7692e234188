//===- SpecReader.h - the JSON spec into a LaunchSpec -----------*- C++ -*-===//
#ifndef PALLAS_SRC_SPEC_SPECREADER_H
#define PALLAS_SRC_SPEC_SPECREADER_H

#include "pallas/Spec/LaunchSpec.h"

#include "mlir/IR/Diagnostics.h"

#include <nlohmann/json.hpp>

namespace mlir::pallas {

/// Walks the JSON document, checking each field and reporting problems at
/// their JSON path. Keeps going after an error to report several at once.
class SpecReader {
  using json = nlohmann::json;

public:
  SpecReader(LaunchSpec &spec) : spec(spec), ctx(spec.context) {}

  bool read(const json &doc);

private:
  InFlightDiagnostic error(const std::string &path) {
    failed = true;
    InFlightDiagnostic d = emitError(spec.loc(path));
    d << (path.empty() ? std::string("spec") : path) << ": ";
    return d;
  }
  static std::string kindOf(const json &v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
  }
  bool checkKeys(const json &obj, const std::string &path,
                 std::initializer_list<const char *> allowed);
  bool isInt(const json &v) const {
    return v.is_number_integer() || v.is_number_unsigned();
  }
  std::optional<int64_t> readInt(const json &v, const std::string &path,
                                 int64_t lo, int64_t hi, StringRef what);
  std::optional<std::string> readString(const json &v, const std::string &path);
  /// Array dims; a string is a size name (kDynamic in `shape`), allowed
  /// where `names` is given, which then receives a name or "" per dim.
  bool readShape(const json &v, const std::string &path,
                 SmallVectorImpl<int64_t> &shape,
                 SmallVectorImpl<std::string> *names);
  static bool isSizeName(StringRef name);
  void readGridExpression(const std::string &text, const std::string &path);
  /// `spec.sizes` from the array shapes; grid names must be among them.
  void collectSizes();
  void readSizeFacts(const json &v, const std::string &path);
  Type readDType(const json &v, const std::string &path, bool allowSemaphore);
  bool readOperand(const json &v, const std::string &path, SpecOperand &op,
                   bool isPrefetch);
  bool readIndexMap(const json &v, const std::string &path, SpecOperand &op);
  void readScratch(const json &v, const std::string &path);
  void readVmap(const json &v, const std::string &path);
  void readMesh(const json &v, const std::string &path);
  void readCompilerParams(const json &v, const std::string &path);
  void readAliases(const json &v, const std::string &path);
  std::optional<MemorySpace> readMemorySpace(const json &v,
                                             const std::string &path);

  LaunchSpec &spec;
  MLIRContext *ctx;
  bool failed = false;
  /// Size names of grid expressions, with the JSON path naming each.
  std::vector<std::pair<std::string, std::string>> gridNames;
};

} // namespace mlir::pallas

#endif
