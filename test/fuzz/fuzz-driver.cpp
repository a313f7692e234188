//===- fuzz-driver.cpp - libFuzzer target for the whole driver -------------===//
//
// An input is a kernel and its launch spec: the kernel text, a line
// `//--- spec.json`, the spec. Each input is compiled as pallasc compiles
// it, for host, sm_90a, triton and tpu_v5e, through every pass but without
// machine code (CompileOptions::stopBeforeCodegen: no LLVM code generation,
// no ptxas). Diagnostics are expected; a crash, an abort, a hang, or an
// error that points nowhere in the kernel, the spec or the command line is
// a bug.
//
// The custom mutator knows the format: it mutates the spec as JSON (a
// value, a key, an array's entries), the kernel as lines and tokens
// (numbers, element types, op names), a block size in both together, and
// bytes otherwise.
//
//===----------------------------------------------------------------------===//
#include "FuzzContext.h"
#include "pallas/Driver/Compile.h"
#include "pallas/Driver/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using json = nlohmann::json;

// See fuzz-spec.cpp: LLVM's allocators poison memory the prebuilt libMLIR
// hands out without unpoisoning.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

constexpr const char kSeparator[] = "\n//--- spec.json\n";
constexpr const char kKernelName[] = "fuzz/kernel.mlir";
constexpr const char kSpecName[] = "fuzz/spec.json";
const char *const kTargets[] = {"host", "sm_90a", "triton", "tpu_v5e"};

std::pair<std::string, std::string> split(const uint8_t *data, size_t size) {
  std::string all(reinterpret_cast<const char *>(data), size);
  size_t at = all.find(kSeparator);
  if (at == std::string::npos)
    return {all, ""};
  return {all.substr(0, at), all.substr(at + sizeof(kSeparator) - 1)};
}

/// Whether `loc` points into a file (the kernel, the spec, the command line).
bool located(Location loc) {
  bool found = false;
  loc->walk([&](Location inner) {
    if (isa<FileLineColLoc>(inner))
      found = true;
    return WalkResult::advance();
  });
  return found;
}

// --- Structure-aware mutation -----------------------------------------------

using Rng = std::mt19937;

template <typename T> const T &pick(Rng &rng, const std::vector<T> &v) {
  return v[rng() % v.size()];
}

const std::vector<std::string> kSpecStrings = {
    "f32", "bf16", "f16", "i32", "i8", "i1", "f8E4M3FN", "f64", "semaphore",
    "(i, j) -> (i, 0)", "(i, j) -> (j, i)", "(i) -> (i)", "(i, j) -> (0, j)", "(i, j, k) -> (i, k)",
    "() -> ()", "(i) -> (i * 2, 0)", "parallel", "arbitrary", "vmem", "smem", "any", "M",
    "cdiv(M, 128)", "@fn", "", "x", "o"};
const std::vector<std::string> kSpecKeys = {
    "kernel", "grid", "inputs", "outputs", "name", "shape", "dtype", "block_shape", "index_map",
    "scratch", "dimension_semantics", "compiler_params", "num_warps", "num_stages",
    "persistent", "input_output_aliases", "vmap", "memory_space", "num_scalar_prefetch"};
const std::vector<int64_t> kNumbers = {0,   1,    -1,  2,    3,     7,         8,
                                       16,  32,   64,  128,  256,   1000,      4096,
                                       8192, 65536, int64_t{1} << 31, int64_t{1} << 40};

json randomValue(Rng &rng) {
  switch (rng() % 5) {
  case 0:
    return pick(rng, kNumbers);
  case 1:
    return pick(rng, kSpecStrings);
  case 2:
    return json::array({pick(rng, kNumbers), pick(rng, kNumbers)});
  case 3:
    return bool(rng() % 2);
  default:
    return json::object();
  }
}

void collect(json &node, std::vector<json *> &all) {
  all.push_back(&node);
  if (node.is_structured())
    for (json &child : node)
      collect(child, all);
}

/// One structural change to the spec, or nothing when it is no JSON.
bool mutateSpec(std::string &text, Rng &rng) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return false;
  std::vector<json *> nodes;
  collect(doc, nodes);
  json &n = *nodes[rng() % nodes.size()];
  if (n.is_number_integer()) {
    int64_t v = n.get<int64_t>();
    const int64_t choices[] = {v + 1, v - 1, v * 2, v / 2, -v, pick(rng, kNumbers)};
    n = choices[rng() % 6];
  } else if (n.is_string()) {
    n = pick(rng, kSpecStrings);
  } else if (n.is_boolean()) {
    n = !n.get<bool>();
  } else if (n.is_array() && !n.empty() && rng() % 3) {
    size_t i = rng() % n.size();
    if (rng() % 2)
      n.erase(i);
    else
      n.push_back(json(n[i]));
  } else if (n.is_object() && !n.empty() && rng() % 2) {
    auto it = n.begin();
    std::advance(it, rng() % n.size());
    n.erase(it);
  } else if (n.is_object()) {
    n[pick(rng, kSpecKeys)] = randomValue(rng);
  } else {
    n = randomValue(rng);
  }
  text = doc.dump(rng() % 2 ? -1 : 1);
  return true;
}

const std::vector<std::string> kTypes = {"f32", "bf16", "f16", "i32", "i8", "i1", "f64", "index"};
const std::vector<std::string> kOps = {
    "arith.addf", "arith.mulf", "arith.subf", "arith.maximumf", "arith.divf", "arith.addi",
    "math.exp", "math.tanh", "pallas.load", "pallas.store", "pallas.dot", "pallas.reduce",
    "pallas.broadcast", "pallas.iota", "pallas.program_id", "arith.truncf", "arith.extf"};

/// One change to the kernel text: a number, an element type, an op name,
/// or a whole line (dropped, doubled, or swapped with another).
void mutateKernel(std::string &text, Rng &rng) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::string &line = lines[rng() % lines.size()];
  switch (rng() % 6) {
  case 0: { // a number (dimensions, constants, attribute values)
    std::vector<size_t> at;
    for (size_t i = 0; i < line.size(); ++i)
      if (isdigit(line[i]) && (i == 0 || !isalnum(line[i - 1])))
        at.push_back(i);
    if (at.empty())
      break;
    size_t i = pick(rng, at), j = i;
    while (j < line.size() && isdigit(line[j]))
      ++j;
    line.replace(i, j - i, std::to_string(pick(rng, kNumbers)));
    break;
  }
  case 1: // an element type
  case 2: { // an op name
    const std::vector<std::string> &words = (rng() % 2) ? kTypes : kOps;
    for (const std::string &w : words)
      if (size_t i = line.find(w); i != std::string::npos) {
        line.replace(i, w.size(), pick(rng, words));
        break;
      }
    break;
  }
  case 3:
    if (lines.size() > 1)
      lines.erase(lines.begin() + (&line - lines.data()));
    break;
  case 4:
    lines.insert(lines.begin() + (&line - lines.data()), std::string(line));
    break;
  default:
    std::swap(line, lines[rng() % lines.size()]);
  }
  text.clear();
  for (size_t i = 0; i < lines.size(); ++i)
    text += (i ? "\n" : "") + lines[i];
}

/// The `!pallas.ref<...>` types of the kernel's signature, in order: where
/// each one's text starts and ends.
std::vector<std::pair<size_t, size_t>> signatureRefs(const std::string &kernel) {
  std::vector<std::pair<size_t, size_t>> refs;
  size_t at = kernel.find("pallas.kernel");
  size_t open = at == std::string::npos ? at : kernel.find('(', at);
  if (open == std::string::npos)
    return refs;
  int depth = 0;
  size_t close = open;
  for (; close < kernel.size(); ++close) {
    depth += kernel[close] == '(' ? 1 : kernel[close] == ')' ? -1 : 0;
    if (depth == 0)
      break;
  }
  for (size_t i = kernel.find("!pallas.ref<", open); i < close;
       i = kernel.find("!pallas.ref<", i + 1)) {
    size_t end = kernel.find('>', i);
    if (end == std::string::npos || end > close)
      break;
    refs.push_back({i + 12, end});
  }
  return refs;
}

/// Replaces every whole-number `from` among the dims of the kernel's
/// tensor and ref shapes (`<AxBx...`) with `to`.
void resizeShapes(std::string &kernel, int64_t from, int64_t to) {
  std::string out, f = std::to_string(from), t = std::to_string(to);
  bool inShape = false;
  for (size_t i = 0; i < kernel.size();) {
    char c = kernel[i];
    if (c == '<')
      inShape = true;
    else if (c == '>' || c == ',' || c == ' ')
      inShape = c == ',' ? inShape : false;
    bool tokenStart = i == 0 || kernel[i - 1] == '<' || kernel[i - 1] == 'x';
    if (inShape && tokenStart && kernel.compare(i, f.size(), f) == 0 &&
        i + f.size() < kernel.size() && kernel[i + f.size()] == 'x') {
      out += t;
      i += f.size();
      continue;
    }
    out += c;
    ++i;
  }
  kernel = out;
}

/// A block size changed in the spec and the kernel together: one entry
/// of an operand's block_shape, the same dim of that operand's ref type in
/// the kernel's signature, and (half the time) every shape of the kernel
/// holding the old size. Odd sizes (15, 17) reach the lowerings that
/// handle partial blocks, which mutating one side alone never does (the
/// two then disagree and the spec check stops there). False when the
/// spec has no block_shape.
bool mutateBlockShape(std::string &kernel, std::string &spec, Rng &rng) {
  json doc = json::parse(spec, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return false;
  // (operand index in signature order, its block_shape)
  std::vector<std::pair<size_t, json *>> blocks;
  size_t index = 0;
  for (const char *group : {"inputs", "outputs"}) {
    auto it = doc.find(group);
    if (it == doc.end() || !it->is_array())
      continue;
    for (json &operand : *it) {
      if (operand.is_object() && operand.contains("block_shape") &&
          operand["block_shape"].is_array())
        blocks.push_back({index, &operand["block_shape"]});
      ++index;
    }
  }
  if (blocks.empty())
    return false;
  auto [operand, shape] = blocks[rng() % blocks.size()];
  std::vector<size_t> sized;
  for (size_t i = 0; i < shape->size(); ++i)
    if ((*shape)[i].is_number_integer())
      sized.push_back(i);
  if (sized.empty())
    return false;
  size_t i = pick(rng, sized);
  int64_t old = (*shape)[i].get<int64_t>();
  const int64_t choices[] = {old + 1, old - 1, old * 2, old / 2, 1, 3, 15, 17, 33, 100, 128};
  int64_t size = choices[rng() % 11];
  (*shape)[i] = size;
  spec = doc.dump(1);
  // The ref's dim: the block's dims without the squeezed (null) ones.
  size_t dim = 0;
  for (size_t j = 0; j < i; ++j)
    dim += (*shape)[j].is_number_integer() ? 1 : 0;
  std::vector<std::pair<size_t, size_t>> refs = signatureRefs(kernel);
  if (operand < refs.size()) {
    auto [begin, end] = refs[operand];
    std::string type = kernel.substr(begin, end - begin);
    size_t at = 0;
    for (size_t d = 0; d < dim && at != std::string::npos; ++d)
      at = type.find('x', at) == std::string::npos ? std::string::npos : type.find('x', at) + 1;
    if (at != std::string::npos && at < type.size() && isdigit(type[at])) {
      size_t stop = at;
      while (stop < type.size() && isdigit(type[stop]))
        ++stop;
      type.replace(at, stop - at, std::to_string(size));
      kernel.replace(begin, end - begin, type);
    }
  }
  if (rng() % 2 && old > 0 && size > 0)
    resizeShapes(kernel, old, size);
  return true;
}

/// Byte-level mutation of `text` by libFuzzer's own mutators.
void mutateBytes(std::string &text, size_t room) {
  std::vector<uint8_t> buf(text.begin(), text.end());
  buf.resize(text.size() + room + 1);
  size_t n = LLVMFuzzerMutate(buf.data(), text.size(), buf.size());
  text.assign(buf.begin(), buf.begin() + n);
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned seed) {
  Rng rng(seed);
  auto [kernel, spec] = split(data, size);
  size_t room = maxSize > size ? maxSize - size : 0;
  switch (rng() % 6) {
  case 0:
  case 1:
    if (!mutateSpec(spec, rng))
      mutateBytes(spec, room);
    break;
  case 5:
    if (!mutateBlockShape(kernel, spec, rng))
      mutateKernel(kernel, rng);
    break;
  case 2:
  case 3:
    mutateKernel(kernel, rng);
    break;
  default:
    if (rng() % 2)
      mutateBytes(spec, room);
    else
      mutateBytes(kernel, room);
  }
  std::string out = kernel + kSeparator + spec;
  if (out.size() > maxSize)
    return size;
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // The targets' pipelines are built from textual pass lists.
  pallas::registerAllPallasPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = fuzzContext();
  auto [kernel, spec] = split(data, size);
  for (const char *target : kTargets) {
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(kernel, kKernelName),
                          llvm::SMLoc());
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(spec, kSpecName),
                          llvm::SMLoc());
    ScopedDiagnosticHandler check(&ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error && !located(d.getLocation())) {
        llvm::errs() << "fuzz-driver: unlocated error for " << target << ": " << d << "\n";
        std::abort();
      }
      return success();
    });
    pallas::CompileOptions options;
    options.kernelFile = kKernelName;
    options.specFile = kSpecName;
    options.target = target;
    options.stopBeforeCodegen = true;
    std::vector<pallas::Artifact> artifacts;
    (void)pallas::compile(ctx, sm, options, artifacts, nullptr);
  }
  return 0;
}
