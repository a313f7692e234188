//===- PtxasReport.cpp - what ptxas -v says of a kernel -------------------===//
#include "Backend/PtxasReport.h"

#include "llvm/ADT/StringRef.h"

using namespace mlir::pallas::cuda;

namespace {

/// The number before `unit` in `line` ("104 bytes spill stores"), or 0.
int64_t numberBefore(llvm::StringRef line, llvm::StringRef unit) {
  size_t at = line.find(unit);
  if (at == llvm::StringRef::npos)
    return 0;
  llvm::StringRef head = line.take_front(at).rtrim();
  llvm::StringRef digits = head.substr(head.find_last_not_of("0123456789") + 1);
  int64_t n = 0;
  return digits.getAsInteger(10, n) ? 0 : n;
}

} // namespace

PtxasReport mlir::pallas::cuda::parsePtxasReport(const std::string &log,
                                                 const std::string &function) {
  PtxasReport r;
  // ptxas reports each function in turn: "Compiling entry function 'f'",
  // "Function properties for f" and its stack line, "Used N registers".
  bool inEntry = false, inProperties = false;
  llvm::StringRef rest(log);
  while (!rest.empty()) {
    auto [line, next] = rest.split('\n');
    rest = next;
    llvm::StringRef text = line.trim();
    if (text.consume_front("ptxas info") || text.consume_front("ptxas warning")) {
      text = text.ltrim(" :");
      if (text.starts_with("Compiling entry function '"))
        inEntry = text.drop_front(26).starts_with(function + "'");
      inProperties = text.starts_with("Function properties for ") &&
                     text.drop_front(24).trim() == function;
      if (text.starts_with("(C75"))
        r.wgmmaNotes.push_back(text.str());
      if (inEntry && text.starts_with("Used ")) {
        r.registers = numberBefore(text, " registers");
        r.barriers = numberBefore(text, " barriers");
      }
      continue;
    }
    if (inProperties) {
      r.stackFrameBytes = numberBefore(text, " bytes stack frame");
      r.spillStoreBytes = numberBefore(text, " bytes spill stores");
      r.spillLoadBytes = numberBefore(text, " bytes spill loads");
      inProperties = false;
    }
  }
  return r;
}

bool mlir::pallas::cuda::setmaxnregIgnored(const PtxasReport &report) {
  for (const std::string &note : report.wgmmaNotes)
    if (llvm::StringRef(note).starts_with("(C7508)"))
      return true;
  return false;
}

std::string mlir::pallas::cuda::withMinCtasPerSm(const std::string &ptx, int64_t ctas) {
  std::string out;
  out.reserve(ptx.size() + 32);
  llvm::StringRef rest(ptx);
  while (!rest.empty()) {
    auto [line, next] = rest.split('\n');
    out += line.str();
    if (rest.size() > line.size())
      out += '\n';
    if (line.starts_with(".maxntid") && !next.starts_with(".minnctapersm"))
      out += ".minnctapersm " + std::to_string(ctas) + "\n";
    rest = next;
  }
  return out;
}

std::string mlir::pallas::cuda::pinEntryRegisterCount(const std::string &ptx) {
  return withMinCtasPerSm(ptx, 1);
}
