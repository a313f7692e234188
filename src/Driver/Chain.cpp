//===- Chain.cpp - compiling a chain manifest's kernels -------------------===//
//
// The manifest is checked before anything is compiled, each problem an
// error naming the file and the entry (`chain.json: kernels[2].operands[1]:
// ...`), so that a hand-edited or truncated manifest fails here and not as
// a wrong gradient at run time.
//
//===----------------------------------------------------------------------===//
#include "pallas/Driver/Chain.h"
#include "pallas/Driver/ChainScanFusion.h"
#include "pallas/Driver/Compile.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <nlohmann/json.hpp>

#include <map>

using namespace mlir;
using namespace mlir::pallas;
using nlohmann::json;

bool mlir::pallas::isChainManifest(StringRef path) {
  return path.ends_with(".json");
}

namespace {

/// Reports `message` about the manifest at `file` (where: a JSON path).
struct ChainErrors {
  StringRef file;
  bool failed = false;
  void operator()(const std::string &where, const std::string &message) {
    llvm::WithColor::error(llvm::errs(), file) << (where.empty() ? "" : where + ": ") << message
                                               << "\n";
    failed = true;
  }
};

/// A value as an error message quotes it: a number or a string (at most
/// 64 characters), else its type.
std::string shortText(const json &v) {
  if (v.is_number() || (v.is_string() && v.get<std::string>().size() <= 64))
    return v.dump();
  return std::string("(a ") + v.type_name() + ")";
}

/// The depth of nested arrays and objects in `v`, without recursion (a
/// manifest nested 100000 deep must not exhaust the stack), up to `limit`.
size_t nestingDepth(const json &v, size_t limit) {
  std::vector<std::pair<const json *, size_t>> stack = {{&v, 1}};
  size_t deepest = 0;
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, depth);
    if (deepest > limit)
      return deepest;
    if (node->is_array() || node->is_object())
      for (const json &child : *node)
        stack.push_back({&child, depth + 1});
  }
  return deepest;
}

bool isNonNegativeInt(const json &v) { return v.is_number_integer() && v.get<int64_t>() >= 0; }

/// A plain file name: no separator, not "." or "..".
bool isPlainName(const std::string &s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
         s.find('\\') == std::string::npos;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  return llvm::all_of(s, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

/// Checks one value's source: an input, a cotangent, a constant, or an
/// output of a kernel in `earlier`, with an optional shape.
void checkSource(const json &src, const std::string &where, const json &doc,
                 const llvm::StringMap<size_t> &earlier, ChainErrors &error) {
  if (!src.is_object()) {
    error(where, "a source must be an object ({\"input\": i}, {\"cotangent\": i}, "
                 "{\"constant\": i} or {\"kernel\": DIR, \"output\": i})");
    return;
  }
  if (src.contains("shape")) {
    const json &shape = src["shape"];
    if (!shape.is_array() || !llvm::all_of(shape, isNonNegativeInt))
      error(where + ".shape", "must be a list of non-negative integers");
  }
  static const json none = json::array();
  for (const char *kind : {"input", "cotangent", "constant"})
    if (src.contains(kind)) {
      std::string field = std::string(kind) + "s";
      const json &list = doc.contains(field) ? doc[field] : none;
      if (!isNonNegativeInt(src[kind]) || src[kind].get<size_t>() >= list.size())
        error(where, std::string(kind) + " " + shortText(src[kind]) + " is not one of the chain's " +
                         std::to_string(list.size()) + " " + kind + "s");
      return;
    }
  if (!src.contains("kernel")) {
    error(where, "names no input, cotangent, constant or kernel");
    return;
  }
  if (!src["kernel"].is_string() || !earlier.count(src["kernel"].get<std::string>())) {
    error(where, "kernel " + shortText(src["kernel"]) + " is not an earlier kernel of the chain");
    return;
  }
  if (!src.contains("output") || !isNonNegativeInt(src["output"]))
    error(where, "a kernel's output must be a non-negative integer (\"output\")");
}

/// Checks the manifest's shape; returns the kernels' directories in order.
std::vector<std::string> checkManifest(const json &doc, bool torch, ChainErrors &error) {
  std::vector<std::string> dirs;
  if (!doc.is_object()) {
    error("", "a chain manifest must be a JSON object");
    return dirs;
  }
  for (const char *field : {"inputs", "cotangents", "kernels", "outputs", "gradients"})
    if (!doc.contains(field) || !doc[field].is_array()) {
      error("", std::string("\"") + field + "\" must be a list");
      return dirs;
    }
  if (!doc.contains("function") || !doc["function"].is_string())
    error("", "\"function\" must be a string");
  if (doc.contains("constants") && !doc["constants"].is_array()) {
    error("", "\"constants\" must be a list");
    return dirs;
  }
  if (doc["kernels"].empty())
    error("kernels", "a chain must hold a kernel");
  llvm::StringMap<size_t> earlier;
  llvm::StringSet<> names;
  size_t forward = 0;
  for (auto [k, kernel] : llvm::enumerate(doc["kernels"])) {
    std::string where = "kernels[" + std::to_string(k) + "]";
    if (!kernel.is_object()) {
      error(where, "must be an object");
      continue;
    }
    if (!kernel.contains("name") || !kernel["name"].is_string() ||
        !isIdentifier(kernel["name"].get<std::string>()))
      error(where + ".name", "must be the kernel's name (an identifier)");
    else if (!names.insert(kernel["name"].get<std::string>()).second)
      error(where + ".name", "'" + kernel["name"].get<std::string>() +
                                 "' is another kernel's too (each kernel's op needs its own)");
    if (!kernel.contains("directory") || !kernel["directory"].is_string() ||
        !isPlainName(kernel["directory"].get<std::string>())) {
      error(where + ".directory", "must be a directory name beside chain.json (no '/')");
      continue;
    }
    std::string dir = kernel["directory"].get<std::string>();
    if (earlier.count(dir))
      error(where + ".directory", "'" + dir + "' is another kernel's too");
    if (!kernel.contains("role") || !kernel["role"].is_string() ||
        (kernel["role"] != "forward" && kernel["role"] != "backward"))
      error(where + ".role", "must be \"forward\" or \"backward\"");
    else if (kernel["role"] == "forward")
      ++forward;
    if (!kernel.contains("operands") || !kernel["operands"].is_array())
      error(where + ".operands", "must be a list");
    else
      for (auto [i, src] : llvm::enumerate(kernel["operands"]))
        checkSource(src, where + ".operands[" + std::to_string(i) + "]", doc, earlier, error);
    earlier[dir] = k;
    dirs.push_back(dir);
  }
  for (auto [i, src] : llvm::enumerate(doc["outputs"]))
    checkSource(src, "outputs[" + std::to_string(i) + "]", doc, earlier, error);
  if (doc["cotangents"].size() != doc["outputs"].size())
    error("cotangents", "one per output (" + std::to_string(doc["outputs"].size()) + "), not " +
                            std::to_string(doc["cotangents"].size()));
  if (doc["gradients"].size() != doc["inputs"].size())
    error("gradients", "one per input (" + std::to_string(doc["inputs"].size()) + "), not " +
                           std::to_string(doc["gradients"].size()));
  for (auto [i, src] : llvm::enumerate(doc["gradients"]))
    if (!src.is_null())
      checkSource(src, "gradients[" + std::to_string(i) + "]", doc, earlier, error);
  for (const char *field : {"inputs", "cotangents", "constants"})
    for (auto [i, a] : llvm::enumerate(doc.contains(field) ? doc[field] : json::array()))
      if (!a.is_object() || !a.contains("shape") || !a["shape"].is_array() ||
          !llvm::all_of(a["shape"], isNonNegativeInt))
        error(std::string(field) + "[" + std::to_string(i) + "]",
              "must be an object with a \"shape\" (a list of non-negative integers)");
  // Constants: arrays the function captured, each in a file of its own
  // in constants/ beside chain.json.
  if (doc.contains("constants") && doc["constants"].is_array())
    for (auto [i, c] : llvm::enumerate(doc["constants"])) {
      std::string where = "constants[" + std::to_string(i) + "].file";
      std::string file = c.is_object() && c.contains("file") && c["file"].is_string()
                             ? c["file"].get<std::string>()
                             : "";
      StringRef rest(file);
      if (!rest.consume_front("constants/") || !isPlainName(rest.str()) ||
          !rest.ends_with(".npy"))
        error(where, "must name a .npy file in constants/ beside chain.json "
                     "(\"constants/NAME.npy\")");
    }
  if (error.failed || !torch)
    return dirs;
  if (doc.contains("constants") && !doc["constants"].empty()) {
    error("constants", "--emit torch: a chain with constants (arrays the function captured) "
                       "has no torch op yet");
    return dirs;
  }

  // What the op with autograd needs: one forward kernel, taking the
  // function's arguments as they are, and computing its outputs.
  if (forward != 1) {
    error("kernels", "--emit torch: the chain must hold one forward kernel, it holds " +
                         std::to_string(forward));
    return dirs;
  }
  const json *fwd = nullptr;
  for (const json &kernel : doc["kernels"])
    if (kernel["role"] == "forward")
      fwd = &kernel;
  std::vector<bool> taken(doc["inputs"].size(), false);
  for (auto [i, src] : llvm::enumerate((*fwd)["operands"])) {
    std::string where = "kernels[" + std::to_string(earlier[(*fwd)["directory"].get<std::string>()]) +
                        "].operands[" + std::to_string(i) + "]";
    if (!src.contains("input") || src.contains("shape")) {
      error(where, "--emit torch: the forward kernel's operands must be the function's "
                   "arguments as they are");
      return dirs;
    }
    size_t input = src["input"].get<size_t>();
    if (taken[input]) {
      error(where, "--emit torch: the function's argument " + std::to_string(input) +
                       " is two of the forward kernel's operands");
      return dirs;
    }
    taken[input] = true;
  }
  for (auto [i, t] : llvm::enumerate(taken))
    if (!t)
      error("inputs[" + std::to_string(i) + "]",
            "--emit torch: every argument must be an operand of the forward kernel");
  for (auto [i, src] : llvm::enumerate(doc["outputs"]))
    if (!src.contains("kernel") || src["kernel"] != (*fwd)["directory"])
      error("outputs[" + std::to_string(i) + "]",
            "--emit torch: the function's outputs must be the forward kernel's");
  return dirs;
}

/// Frees a deeply nested value without recursing (nlohmann's destructor
/// recurses): its children are moved out level by level.
void releaseIteratively(json &v) {
  std::vector<json> pending;
  pending.push_back(std::move(v));
  while (!pending.empty()) {
    json node = std::move(pending.back());
    pending.pop_back();
    if (node.is_array() || node.is_object())
      for (json &child : node)
        pending.push_back(std::move(child));
  }
}

/// The function's name as a Python identifier that is neither a keyword
/// nor a name the generated module uses itself.
std::string pythonName(const std::string &function) {
  std::string out;
  for (char c : function)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "f_" + out;
  static const llvm::StringSet<> taken = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
      "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
      "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
      "try", "while", "with", "yield", "match", "case", "type",
      // The module's own names.
      "importlib", "json", "os", "torch", "FUNCTION", "CHAIN", "load", "function",
      "forward_operands"};
  if (taken.contains(out) || out[0] == '_')
    out += "_fn";
  return out;
}

/// The number of elements of a shape (a list of non-negative integers).
uint64_t elements(const json &shape) {
  uint64_t n = 1;
  for (const json &d : shape)
    n *= d.get<uint64_t>();
  return n;
}

/// Checks kernel `k`'s entry against its spec (compiled, so well formed):
/// as many operands as it takes, each source's element count the
/// operand's, and every reference to its outputs in range. The spec is
/// `specText` where given (a rewritten kernel's), else `specFile`'s.
LogicalResult checkAgainstSpec(const json &doc, size_t k, StringRef specFile,
                               ChainErrors &error, bool torch, StringRef specText = "") {
  std::unique_ptr<llvm::MemoryBuffer> read;
  if (specText.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(specFile, /*IsText=*/true);
    if (!buffer)
      return failure();
    read = std::move(*buffer);
    specText = read->getBuffer();
  }
  json spec = json::parse(specText.begin(), specText.end(), nullptr, /*allow_exceptions=*/false);
  if (!spec.is_object() || !spec.contains("inputs") || !spec.contains("outputs"))
    return failure();
  const json &kernel = doc["kernels"][k];
  std::string where = "kernels[" + std::to_string(k) + "]";
  // The op autograd differentiates must be functional.
  if (torch && kernel["role"] == "forward" && spec.contains("input_output_aliases") &&
      !spec["input_output_aliases"].empty()) {
    error(where, "--emit torch: the forward kernel's outputs alias its inputs "
                 "(input_output_aliases): autograd needs a forward op that writes no input");
    return failure();
  }
  const json &operands = kernel["operands"];
  if (operands.size() != spec["inputs"].size()) {
    error(where + ".operands", std::to_string(operands.size()) + " operands for a kernel of " +
                                   std::to_string(spec["inputs"].size()) + " inputs");
    return failure();
  }
  // A source's own shape: its "shape", the input's or cotangent's, or the
  // output's (known once its kernel's spec was read: `outputShapes`).
  for (auto [i, src] : llvm::enumerate(operands)) {
    const json *shape = src.contains("shape") ? &src["shape"] : nullptr;
    if (!shape && src.contains("input"))
      shape = &doc["inputs"][src["input"].get<size_t>()]["shape"];
    if (!shape && src.contains("cotangent"))
      shape = &doc["cotangents"][src["cotangent"].get<size_t>()]["shape"];
    if (!shape && src.contains("constant"))
      shape = &doc["constants"][src["constant"].get<size_t>()]["shape"];
    const json &want = spec["inputs"][i]["shape"];
    if (shape && want.is_array() && llvm::all_of(want, isNonNegativeInt) &&
        elements(*shape) != elements(want)) {
      error(where + ".operands[" + std::to_string(i) + "]",
            "holds " + std::to_string(elements(*shape)) + " elements where the kernel's input " +
                std::to_string(i) + " takes " + std::to_string(elements(want)));
      return failure();
    }
  }
  // References to this kernel's outputs.
  std::string dir = kernel["directory"].get<std::string>();
  size_t outputs = spec["outputs"].size();
  auto checkRefs = [&](const json &list, const std::string &name) {
    for (auto [i, src] : llvm::enumerate(list))
      if (src.is_object() && src.contains("kernel") && src["kernel"] == dir &&
          src["output"].get<size_t>() >= outputs) {
        error(name + "[" + std::to_string(i) + "]",
              "output " + std::to_string(src["output"].get<size_t>()) + " of " + dir +
                  ", which has " + std::to_string(outputs));
        return false;
      }
    return true;
  };
  bool ok = checkRefs(doc["outputs"], "outputs") && checkRefs(doc["gradients"], "gradients");
  for (size_t j = k + 1; ok && j < doc["kernels"].size(); ++j)
    ok = checkRefs(doc["kernels"][j]["operands"], "kernels[" + std::to_string(j) + "].operands");
  return success(ok);
}

/// A kernel's sources when they are not its files: rewritten here.
struct KernelSource {
  std::string kernel, spec;
};

/// `base`, or `base_2`, `base_3`... the first that no kernel has.
std::string freeDirectory(const std::string &base, const std::vector<std::string> &dirs) {
  std::string dir = base;
  for (int n = 2; llvm::is_contained(dirs, dir); ++n)
    dir = base + "_" + std::to_string(n);
  return dir;
}

/// Whether the fused kernel is faster than the one as written on
/// `target`. CUDA, measured on H200 (bench/RESULTS.md, 2026-12-05): the
/// atomic form wins with two consumer warpgroups adding 4096 or more dQ
/// elements a step, each step's dQ dot on wgmma (64-row query blocks:
/// D = 128 0.70x -> 0.90x of cuDNN, D = 64 0.62x -> 0.82x); with 4 warps
/// it loses (0.78x -> 0.46x). Other targets: fewer matmuls, always.
bool fusionPays(const ScanFusion &fused, const json &spec, StringRef target) {
  if (!target.contains("sm_"))
    return true;
  int64_t warps = 4;
  if (spec.contains("compiler_params") && spec["compiler_params"].is_object() &&
      spec["compiler_params"].contains("num_warps") &&
      spec["compiler_params"]["num_warps"].is_number_integer())
    warps = spec["compiler_params"]["num_warps"].get<int64_t>();
  return warps >= 8 && fused.stepRows * fused.width >= 4096;
}

/// Scan fusion (ChainScanFusion.h) of each backward kernel where it
/// applies (and, with "auto", pays on `target`): the kernel's rewritten
/// sources in `sources`, the zero and cast kernels around it in the
/// manifest and `dirs`, and what took the output it replaced taking the
/// cast kernel's. True if anything changed.
bool fuseScans(json &doc, std::vector<std::string> &dirs, StringRef chainDir, StringRef mode,
               StringRef target, std::map<std::string, KernelSource> &sources) {
  bool changed = false;
  for (size_t k = 0; k < dirs.size(); ++k) {
    json &entry = doc["kernels"][k];
    if (entry["role"] != "backward" || sources.count(dirs[k]))
      continue;
    SmallString<256> kernelPath(chainDir), specPath(chainDir);
    llvm::sys::path::append(kernelPath, dirs[k], "kernel.mlir");
    llvm::sys::path::append(specPath, dirs[k], "spec.json");
    auto kernelText = llvm::MemoryBuffer::getFile(kernelPath, /*IsText=*/true);
    auto specText = llvm::MemoryBuffer::getFile(specPath, /*IsText=*/true);
    if (!kernelText || !specText)
      continue; // its compile says why
    json spec = json::parse((*specText)->getBuffer().begin(), (*specText)->getBuffer().end(),
                            nullptr, /*allow_exceptions=*/false);
    std::optional<ScanFusion> fused = fuseRecomputingScan((*kernelText)->getBuffer(), spec);
    if (!fused || (mode == "auto" && !fusionPays(*fused, spec, target)))
      continue;
    std::string dir = dirs[k];
    std::string zeroDir = freeDirectory(fused->zeroSpec["name"].get<std::string>(), dirs);
    std::string castDir = freeDirectory(fused->castSpec["name"].get<std::string>(), dirs);
    json zero = {{"name", fused->zeroSpec["name"]}, {"kernel", fused->zeroSpec["kernel"]},
                 {"directory", zeroDir}, {"role", "backward"}, {"operands", json::array()}};
    json cast = {{"name", fused->castSpec["name"]}, {"kernel", fused->castSpec["kernel"]},
                 {"directory", castDir}, {"role", "backward"},
                 {"operands", json::array({{{"kernel", dir}, {"output", fused->output}}})}};
    // Whatever took the output takes the cast kernel's.
    auto retarget = [&](json &list) {
      for (json &src : list)
        if (src.is_object() && src.value("kernel", json()) == dir &&
            src.value("output", json()) == fused->output)
          src = {{"kernel", castDir}, {"output", 0}};
    };
    for (size_t j = k + 1; j < doc["kernels"].size(); ++j)
      retarget(doc["kernels"][j]["operands"]);
    retarget(doc["outputs"]);
    retarget(doc["gradients"]);
    entry["operands"].push_back({{"kernel", zeroDir}, {"output", 0}});
    sources[dir] = {fused->kernel, fused->spec.dump(2) + "\n"};
    sources[zeroDir] = {fused->zeroKernel, fused->zeroSpec.dump(2) + "\n"};
    sources[castDir] = {fused->castKernel, fused->castSpec.dump(2) + "\n"};
    auto &kernels = doc["kernels"];
    kernels.insert(kernels.begin() + k + 1, cast);
    kernels.insert(kernels.begin() + k, zero);
    dirs.insert(dirs.begin() + k + 1, castDir);
    dirs.insert(dirs.begin() + k, zeroDir);
    k += 2;
    changed = true;
  }
  return changed;
}

} // namespace

LogicalResult mlir::pallas::compileChain(CompileOptions options, StringRef chainFile,
                                         std::vector<Artifact> &artifacts) {
  ChainErrors error{chainFile};
  auto buffer = llvm::MemoryBuffer::getFile(chainFile, /*IsText=*/true);
  if (!buffer) {
    error("", "cannot read: " + buffer.getError().message());
    return failure();
  }
  StringRef text = (*buffer)->getBuffer();
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    error("", "not valid JSON");
    return failure();
  }
  // A manifest is 4 deep; far deeper is not one (and would exhaust the
  // stack of the recursive walks that print or free it).
  constexpr size_t kMaxDepth = 16;
  if (nestingDepth(doc, kMaxDepth) > kMaxDepth) {
    error("", "arrays and objects nested more than " + std::to_string(kMaxDepth) +
                  " deep: not a chain manifest");
    releaseIteratively(doc);
    return failure();
  }
  bool torch = llvm::is_contained(options.emit, "torch");
  std::vector<std::string> dirs = checkManifest(doc, torch, error);
  if (error.failed)
    return failure();

  StringRef chainDir = llvm::sys::path::parent_path(chainFile);
  std::map<std::string, KernelSource> sources;
  std::string chainText = text.str();
  if (options.scanFusion != "never" &&
      fuseScans(doc, dirs, chainDir, options.scanFusion, options.target, sources))
    chainText = doc.dump(2) + "\n";
  std::vector<Artifact> collected;
  for (auto [k, dir] : llvm::enumerate(dirs)) {
    SmallString<256> kernel(chainDir), spec(chainDir);
    llvm::sys::path::append(kernel, dir, "kernel.mlir");
    llvm::sys::path::append(spec, dir, "spec.json");
    options.kernelFile = kernel.str().str();
    options.specFile = spec.str().str();
    // A rewritten kernel compiles from memory; its sources go out beside
    // its artifacts (what ran is then there to read).
    auto source = sources.find(dir);
    options.kernelText = source == sources.end() ? "" : source->second.kernel;
    options.specText = source == sources.end() ? "" : source->second.spec;
    std::vector<Artifact> kernelArtifacts;
    if (failed(compileWithDiagnostics(options, kernelArtifacts)))
      return failure();
    if (source != sources.end()) {
      kernelArtifacts.push_back({"kernel.mlir", source->second.kernel, "source"});
      kernelArtifacts.push_back({"spec.json", source->second.spec, "source"});
    }
    // The op and the module FUNCTION_torch.py loads are named after the
    // kernel's artifacts (its spec's "name"): the manifest must say that name.
    if (failed(checkAgainstSpec(doc, k, spec, error, torch, options.specText)))
      return failure();
    std::string name = doc["kernels"][k]["name"].get<std::string>();
    auto manifest = llvm::find_if(kernelArtifacts, [](const Artifact &a) { return a.kind == "manifest"; });
    if (manifest != kernelArtifacts.end() && manifest->filename != name + ".manifest.json") {
      error("kernels[" + std::to_string(k) + "].name",
            "'" + name + "' is not the name of " + dir + "'s artifacts ('" +
                StringRef(manifest->filename).drop_back(strlen(".manifest.json")).str() +
                "', its spec's \"name\")");
      return failure();
    }
    for (Artifact &a : kernelArtifacts) {
      a.filename = dir + "/" + a.filename;
      collected.push_back(std::move(a));
    }
  }
  // The constants' files, as they are.
  if (doc.contains("constants"))
    for (auto [i, c] : llvm::enumerate(doc["constants"])) {
      std::string file = c["file"].get<std::string>();
      SmallString<256> path(chainDir);
      llvm::sys::path::append(path, file);
      auto data = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
      if (!data) {
        error("constants[" + std::to_string(i) + "].file",
              "cannot read " + file + ": " + data.getError().message());
        return failure();
      }
      collected.push_back({file, (*data)->getBuffer().str(), "constant"});
    }
  collected.push_back({"chain.json", chainText, "chain"});
  if (torch) {
    std::string function = pythonName(doc["function"].get<std::string>());
    collected.push_back({function + "_torch.py", chainTorchModule(function, chainText), "torch"});
  }
  artifacts = std::move(collected);
  return success();
}
