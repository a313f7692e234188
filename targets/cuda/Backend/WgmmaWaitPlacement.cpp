//===- WgmmaWaitPlacement.cpp - a K loop's last wgmma wait, placed for ptxas ===//
//
// A GEMM K loop whose wgmma dots stay in flight across iterations
// (pallas-async-dots) ends with `wgmma.wait_group 0` after the loop. ptxas
// pipelines the loop's wgmma only if that wait directly follows the
// loop's back branch; otherwise it waits after every wgmma (C7514,
// "wgmma.mma_async instructions are serialized due to non wgmma
// instructions reading accumulator registers"), losing the overlap. The
// MLIR places the wait right after the loop, but LLVM's instruction
// scheduling may move unrelated epilogue arithmetic above it. This moves
// the wait back up, past instructions that touch no accumulator register
// (an earlier wait is always correct: it only waits for more).
//
//===----------------------------------------------------------------------===//
#include "Backend/WgmmaWaitPlacement.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace {

/// The registers in the braces of every wgmma.mma_async (its accumulator).
StringSet<> accumulatorRegisters(ArrayRef<StringRef> lines) {
  StringSet<> regs;
  for (StringRef line : lines) {
    if (!line.contains("wgmma.mma_async"))
      continue;
    size_t open = line.find('{'), close = line.find('}');
    if (open == StringRef::npos || close == StringRef::npos || close < open)
      continue;
    SmallVector<StringRef> names;
    line.slice(open + 1, close).split(names, ',');
    for (StringRef n : names)
      regs.insert(n.trim());
  }
  return regs;
}

/// Whether `line` is register arithmetic mentioning none of `regs` (no
/// memory access, barrier, control flow or inline asm).
bool movableAcross(StringRef line, const StringSet<> &regs) {
  StringRef t = line.trim();
  if (t.empty() || t.starts_with("//") || t.ends_with(":") || t.starts_with("@") ||
      t.contains("{") || t.contains("}") || t.starts_with("."))
    return false;
  StringRef opcode = t.take_until([](char c) { return c == ' ' || c == '\t'; });
  for (StringRef kind : {"bra", "bar", "cp.", "ld", "st", "atom", "red", "membar", "fence",
                         "call", "ret", "exit", "mbarrier", "wgmma", "setmaxnreg", "shfl",
                         "vote", "tex", "suld", "sust", "prefetch", "griddepcontrol"})
    if (opcode.starts_with(kind))
      return false;
  // Register operands: %name tokens.
  for (size_t at = t.find('%'); at != StringRef::npos; at = t.find('%', at + 1)) {
    size_t end = at + 1;
    while (end < t.size() && (isAlnum(t[end]) || t[end] == '_'))
      ++end;
    if (regs.contains(t.slice(at, end)))
      return false;
  }
  return true;
}

} // namespace

std::string mlir::pallas::cuda::placeFinalWgmmaWaits(StringRef ptx) {
  SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  StringSet<> regs = accumulatorRegisters(lines);
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    if (lines[i].trim() != "wgmma.wait_group.sync.aligned 0;" ||
        lines[i - 1].trim() != "// begin inline asm" ||
        lines[i + 1].trim() != "// end inline asm")
      continue;
    // Up to the nearest line it cannot pass: a loop's back branch (a
    // conditional branch) is where it belongs.
    size_t j = i - 1;
    while (j > 0 && movableAcross(lines[j - 1], regs))
      --j;
    if (j == i - 1 || j == 0)
      continue;
    StringRef stop = lines[j - 1].trim();
    if (!stop.starts_with("@") || !stop.contains("bra"))
      continue;
    // Move lines [i - 1, i + 1] to j.
    SmallVector<StringRef> wait(lines.begin() + i - 1, lines.begin() + i + 2);
    lines.erase(lines.begin() + i - 1, lines.begin() + i + 2);
    lines.insert(lines.begin() + j, wait.begin(), wait.end());
    i += 1;
  }
  return join(lines, "\n");
}
