//===- SpecReader.cpp - the JSON spec into a LaunchSpec -------------------===//
//
// Each field of the spec (schemas/launch.schema.json) is checked where it is
// read, plus what a schema cannot say (an index map parses, block dims fit
// the array, aliases pair equal arrays, ...).
//
//===----------------------------------------------------------------------===//
#include "SpecReader.h"
#include "pallas/Spec/Names.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "pallas/Spec/SizeExpr.h"

using namespace mlir;
using namespace mlir::pallas;
using json = nlohmann::json;

bool SpecReader::checkKeys(const json &obj, const std::string &path,
                           std::initializer_list<const char *> allowed) {
  bool ok = true;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string &key = it.key();
    if (llvm::any_of(allowed, [&](const char *a) { return key == a; }))
      continue;
    // JSON Schema's annotations may stand in any object.
    if (key == "$schema" || key == "$comment")
      continue;
    std::string known;
    for (const char *a : allowed)
      known += (known.empty() ? "" : ", ") + std::string(a);
    std::string sub = path.empty() ? key : path + "." + key;
    error(sub) << "unknown field '" << key << "' (known: " << known << ")";
    ok = false;
  }
  return ok;
}

std::optional<int64_t> SpecReader::readInt(const json &v,
                                           const std::string &path, int64_t lo,
                                           int64_t hi, StringRef what) {
  if (!isInt(v)) {
    error(path) << "expected " << what << " (an integer), got " << kindOf(v);
    return std::nullopt;
  }
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) {
    error(path) << what << " " << v.get<uint64_t>() << " is too large (at most "
                << hi << ")";
    return std::nullopt;
  }
  int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) {
    error(path) << what << " " << x << " is out of range [" << lo << ", " << hi
                << "]";
    return std::nullopt;
  }
  return x;
}

std::optional<std::string> SpecReader::readString(const json &v,
                                                  const std::string &path) {
  if (!v.is_string()) {
    error(path) << "expected a string, got " << kindOf(v);
    return std::nullopt;
  }
  return v.get<std::string>();
}

bool SpecReader::readShape(const json &v, const std::string &path,
                           SmallVectorImpl<int64_t> &shape,
                           SmallVectorImpl<std::string> *names) {
  if (!v.is_array()) {
    error(path) << "expected an array of dimension sizes, got " << kindOf(v);
    return false;
  }
  bool ok = true;
  int64_t elements = 1;
  SmallVector<std::string> dimNames;
  for (size_t i = 0; i < v.size(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    if (v[i].is_string()) {
      std::string n = v[i].get<std::string>();
      if (!names) {
        error(p) << "symbolic size '" << n
                 << "': only input and output arrays may have symbolic sizes";
        ok = false;
      } else if (!isSizeName(n)) {
        error(p) << "'" << n
                 << "' is not a size name (a C identifier other than cdiv, "
                    "min and max)";
        ok = false;
      }
      shape.push_back(ShapedType::kDynamic);
      dimNames.push_back(n);
      continue;
    }
    std::optional<int64_t> d = readInt(v[i], p, 1, kMaxArrayDim, "dimension size");
    if (!d) {
      ok = false;
      continue;
    }
    shape.push_back(*d);
    dimNames.push_back("");
    // elements <= 2^40 and *d < 2^31: compare before multiplying, which
    // could overflow.
    if (elements > kMaxArrayElements / *d) {
      error(path) << "array has more than 2^40 elements";
      return false;
    }
    elements *= *d;
  }
  if (v.size() > 8) {
    error(path) << "arrays of rank " << v.size() << " are not supported (at most 8)";
    return false;
  }
  if (names && llvm::any_of(dimNames, [](const std::string &n) { return !n.empty(); }))
    names->assign(dimNames.begin(), dimNames.end());
  return ok;
}

bool SpecReader::isSizeName(StringRef n) {
  return !n.empty() && !llvm::isDigit(n[0]) && n != "cdiv" && n != "min" &&
         n != "max" &&
         llvm::all_of(n, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

Type SpecReader::readDType(const json &v, const std::string &path,
                           bool allowSemaphore) {
  std::optional<std::string> s = readString(v, path);
  if (!s)
    return {};
  if (allowSemaphore && *s == "semaphore")
    return SemaphoreType::get(ctx);
  if (allowSemaphore && *s == "dma_semaphore")
    return DMASemaphoreType::get(ctx);
  Type t = parseDType(*s, ctx);
  if (!t)
    error(path) << "unknown dtype '" << *s
                << "' (expected f64, f32, f16, bf16, f8E4M3FN, f8E5M2, i1, i8, "
                   "i16, i32 or i64)";
  return t;
}

std::optional<MemorySpace> SpecReader::readMemorySpace(const json &v,
                                                       const std::string &path) {
  std::optional<std::string> s = readString(v, path);
  if (!s)
    return std::nullopt;
  std::optional<MemorySpace> m = symbolizeMemorySpace(*s);
  if (!m || *m == MemorySpace::none || *m == MemorySpace::regs) {
    error(path) << "unknown memory space '" << *s
                << "' (expected any, vmem, smem or gmem)";
    return std::nullopt;
  }
  return m;
}

bool SpecReader::readIndexMap(const json &v, const std::string &path,
                              SpecOperand &op) {
  std::optional<std::string> text = readString(v, path);
  if (!text)
    return false;
  StringRef t = StringRef(*text).trim();
  if (t.consume_front("@")) {
    if (t.empty() || !llvm::all_of(t, [](char c) {
          return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
        })) {
      error(path) << "'@" << t << "' is not a function name";
      return false;
    }
    op.indexFn = t.str();
    return true;
  }
  // Parse as an affine map; parser diagnostics are caught and re-reported at
  // the JSON path.
  std::string parserMessage;
  Attribute attr;
  {
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
      if (parserMessage.empty())
        parserMessage = d.str();
      return success();
    });
    size_t numRead = 0;
    attr = parseAttribute("affine_map<" + *text + ">", ctx, Type(), &numRead);
  }
  auto map = dyn_cast_or_null<AffineMapAttr>(attr);
  if (!map) {
    error(path) << "index map '" << *text << "' is not an affine map ("
                << (parserMessage.empty() ? "parse error" : parserMessage)
                << "); write e.g. \"(i, j) -> (i, 0)\"";
    return false;
  }
  if (map.getValue().getNumSymbols() != 0) {
    error(path) << "index map '" << *text << "' has symbols; use only grid indices";
    return false;
  }
  op.indexMap = map.getValue();
  return true;
}

bool SpecReader::readOperand(const json &v, const std::string &path,
                             SpecOperand &op, bool isPrefetch) {
  op.path = path;
  if (!v.is_object()) {
    error(path) << "expected an object with name, shape and dtype, got "
                << kindOf(v);
    return false;
  }
  bool ok = checkKeys(v, path, {"name", "shape", "dtype", "block_shape",
                                "index_map", "memory_space"});
  for (const char *required : {"shape", "dtype"})
    if (!v.contains(required)) {
      error(path) << "missing required field '" << required << "'";
      ok = false;
    }
  if (!ok)
    return false;
  if (v.contains("name")) {
    if (std::optional<std::string> n = readString(v["name"], path + ".name")) {
      if (std::optional<std::string> why = whyNotArrayName(*n)) {
        error(path + ".name") << "array name '" << *n << "' " << *why;
        ok = false;
      }
      op.name = *n;
    }
  }
  ok &= readShape(v["shape"], path + ".shape", op.shape, &op.sizeNames);
  op.elementType = readDType(v["dtype"], path + ".dtype", false);
  if (op.elementType)
    op.dtype = v["dtype"].get<std::string>();
  ok &= bool(op.elementType);
  if (v.contains("memory_space")) {
    std::optional<MemorySpace> m =
        readMemorySpace(v["memory_space"], path + ".memory_space");
    ok &= m.has_value();
    op.memorySpace = m.value_or(MemorySpace::none);
  }
  if (!ok)
    return false;
  if (isPrefetch && op.isSymbolic()) {
    error(path + ".shape") << "scalar-prefetch operands need numeric shapes";
    return false;
  }
  if (isPrefetch && (v.contains("block_shape") || v.contains("index_map"))) {
    error(path) << "scalar-prefetch operands are whole arrays: no block_shape "
                   "or index_map";
    return false;
  }
  // Block shape: an int per blocked dim, null per squeezed dim.
  if (v.contains("block_shape")) {
    op.hasBlockShape = true;
    const json &b = v["block_shape"];
    std::string bp = path + ".block_shape";
    if (!b.is_array()) {
      error(bp) << "expected an array of block sizes or nulls, got " << kindOf(b);
      return false;
    }
    if (b.size() != op.shape.size()) {
      error(bp) << "has " << b.size() << " entries for an array of rank "
                << op.shape.size();
      return false;
    }
    for (size_t i = 0; i < b.size(); ++i) {
      std::string p = bp + "[" + std::to_string(i) + "]";
      if (b[i].is_null()) {
        op.blockShape.push_back(std::nullopt);
        continue;
      }
      std::optional<int64_t> d = readInt(b[i], p, 1, kMaxArrayDim, "block size");
      if (!d)
        return false;
      op.blockShape.push_back(*d);
    }
  } else if (op.isSymbolic() && !isPrefetch) {
    error(path) << "an array with symbolic sizes needs a block_shape (blocks "
                   "have numeric sizes)";
    return false;
  } else {
    for (int64_t d : op.shape)
      op.blockShape.push_back(d);
  }
  if (v.contains("index_map")) {
    if (!readIndexMap(v["index_map"], path + ".index_map", op))
      return false;
  } else {
    // Omitted: block (0, 0, ...) for every program.
    op.indexMap = AffineMap::get(
        spec.grid.size(), 0,
        SmallVector<AffineExpr>(op.shape.size(), getAffineConstantExpr(0, ctx)),
        ctx);
  }
  return true;
}

void SpecReader::readScratch(const json &v, const std::string &path) {
  if (!v.is_array()) {
    error(path) << "expected an array of scratch buffers, got " << kindOf(v);
    return;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    const json &s = v[i];
    if (!s.is_object()) {
      error(p) << "expected an object with shape and dtype, got " << kindOf(s);
      continue;
    }
    if (!checkKeys(s, p, {"shape", "dtype", "memory_space"}))
      continue;
    SpecScratch scratch;
    scratch.path = p;
    if (!s.contains("dtype")) {
      error(p) << "missing required field 'dtype'";
      continue;
    }
    scratch.elementType = readDType(s["dtype"], p + ".dtype", true);
    if (!scratch.elementType)
      continue;
    scratch.dtype = s["dtype"].get<std::string>();
    if (s.contains("shape"))
      readShape(s["shape"], p + ".shape", scratch.shape, nullptr);
    else if (!scratch.isSemaphore())
      error(p) << "missing required field 'shape'";
    if (s.contains("memory_space"))
      scratch.memorySpace = readMemorySpace(s["memory_space"], p + ".memory_space")
                                .value_or(MemorySpace::none);
    spec.scratch.push_back(scratch);
  }
}

void SpecReader::readVmap(const json &v, const std::string &path) {
  if (!v.is_object()) {
    error(path) << "expected an object {size, in_axes, out_axes}, got " << kindOf(v);
    return;
  }
  if (!checkKeys(v, path, {"size", "in_axes", "out_axes"}))
    return;
  if (spec.hasSymbolicSizes() || !spec.gridSizes.empty()) {
    error(path) << "vmap of a kernel with symbolic sizes is not supported";
    return;
  }
  SpecVmap vmap;
  if (!v.contains("size")) {
    error(path) << "missing required field 'size'";
    return;
  }
  std::optional<int64_t> size =
      readInt(v["size"], path + ".size", 1, kMaxGridExtent, "vmap size");
  if (!size)
    return;
  vmap.size = *size;
  auto readAxes = [&](const char *key, size_t count,
                      SmallVectorImpl<std::optional<int64_t>> &axes,
                      const std::vector<SpecOperand> &operands) {
    std::string p = path + "." + key;
    if (!v.contains(key)) {
      axes.assign(count, int64_t(0));
      return true;
    }
    const json &a = v[key];
    if (!a.is_array()) {
      error(p) << "expected an array with an axis or null per operand, got "
               << kindOf(a);
      return false;
    }
    if (a.size() != count) {
      error(p) << "has " << a.size() << " entries for " << count << " operand(s)";
      return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].is_null()) {
        axes.push_back(std::nullopt);
        continue;
      }
      std::optional<int64_t> axis =
          readInt(a[i], p + "[" + std::to_string(i) + "]", 0,
                  operands[i].shape.size(), "batch axis");
      if (!axis)
        return false;
      axes.push_back(*axis);
    }
    return true;
  };
  if (readAxes("in_axes", spec.inputs.size(), vmap.inAxes, spec.inputs) &&
      readAxes("out_axes", spec.outputs.size(), vmap.outAxes, spec.outputs)) {
    for (auto [i, axis] : llvm::enumerate(vmap.outAxes))
      if (!axis)
        error(path + ".out_axes[" + std::to_string(i) + "]")
            << "outputs must be batched (null out_axes are not supported)";
    // vmap multiplies the grid and each batched array by its size: the same
    // limits hold after it.
    if (vmap.size > kMaxGridPrograms / spec.numPrograms())
      error(path + ".size") << "vmap size " << vmap.size
                            << " makes a grid of more than 2^40 programs";
    auto checkBatched = [&](const char *key,
                            ArrayRef<std::optional<int64_t>> axes,
                            const std::vector<SpecOperand> &operands) {
      for (auto [i, axis] : llvm::enumerate(axes))
        if (axis && vmap.size > kMaxArrayElements / operands[i].numElements())
          error(path + "." + key + "[" + std::to_string(i) + "]")
              << "batching " << operands[i].path << " by " << vmap.size
              << " makes an array of more than 2^40 elements";
    };
    checkBatched("in_axes", vmap.inAxes, spec.inputs);
    checkBatched("out_axes", vmap.outAxes, spec.outputs);
    if (spec.grid.size() + 1 > kMaxGridRank)
      error(path) << "vmap adds a grid axis to a grid of rank "
                  << spec.grid.size() << "; the limit is " << kMaxGridRank
                  << " axes";
    spec.vmap = vmap;
  }
}

/// `"mesh": {"grid_names": [...], "cluster": [...], "cluster_names": [...],
/// "num_threads": N, "thread_name": "wg" | null}` of a plgpu kernel. Its
/// operands are whole arrays (no block_shape); one Pallas thread is one
/// warpgroup of four warps.
void SpecReader::readMesh(const json &v, const std::string &path) {
  if (!v.is_object()) {
    error(path) << "expected an object, got " << kindOf(v);
    return;
  }
  checkKeys(v, path, {"grid_names", "cluster", "cluster_names", "num_threads", "thread_name"});
  SpecMesh mesh;
  auto names = [&](const char *key, SmallVector<std::string> &into) {
    if (!v.contains(key))
      return;
    const json &list = v[key];
    if (!list.is_array()) {
      error(path + "." + key) << "expected an array of axis names, got " << kindOf(list);
      return;
    }
    for (size_t i = 0; i < list.size(); ++i)
      if (std::optional<std::string> n =
              readString(list[i], path + "." + key + "[" + std::to_string(i) + "]"))
        into.push_back(*n);
  };
  names("grid_names", mesh.gridNames);
  names("cluster_names", mesh.clusterNames);
  if (v.contains("cluster")) {
    const json &c = v["cluster"];
    if (!c.is_array() || c.size() > 3) {
      error(path + ".cluster") << "expected an array of at most 3 cluster sizes, got "
                               << kindOf(c) << (c.is_array() ? " of " + std::to_string(c.size()) : "");
    } else {
      for (size_t i = 0; i < c.size(); ++i)
        if (std::optional<int64_t> d = readInt(c[i], path + ".cluster[" + std::to_string(i) + "]",
                                               1, 16, "cluster size"))
          mesh.cluster.push_back(*d);
    }
  }
  if (v.contains("num_threads")) {
    if (!v["num_threads"].is_null())
      mesh.numThreads = readInt(v["num_threads"], path + ".num_threads", 1, 16, "num_threads")
                            .value_or(1);
  }
  if (v.contains("thread_name") && !v["thread_name"].is_null())
    if (std::optional<std::string> n = readString(v["thread_name"], path + ".thread_name"))
      mesh.threadName = *n;
  if (!mesh.gridNames.empty() && mesh.gridNames.size() != spec.grid.size())
    error(path + ".grid_names") << "names " << mesh.gridNames.size()
                                << " grid axes but the grid has " << spec.grid.size();
  if (!mesh.clusterNames.empty() && mesh.clusterNames.size() != mesh.cluster.size())
    error(path + ".cluster_names") << "names " << mesh.clusterNames.size()
                                   << " cluster axes but the cluster has " << mesh.cluster.size();
  for (const std::vector<SpecOperand> *operands : {&spec.inputs, &spec.outputs})
    for (const SpecOperand &op : *operands)
      if (op.hasBlockShape)
        error(op.path + ".block_shape") << "a plgpu kernel takes whole arrays (no block_shape)";
  // One Pallas thread is one warpgroup; the CTA's warps follow from the mesh.
  int64_t warps = 4 * mesh.numThreads;
  if (LaunchAttr::isValidNumWarps(warps))
    spec.numWarps = warps;
  spec.mesh = std::move(mesh);
}

void SpecReader::readCompilerParams(const json &v, const std::string &path) {
  if (!v.is_object()) {
    error(path) << "expected an object, got " << kindOf(v);
    return;
  }
  checkKeys(v, path, {"num_warps", "num_stages", "vmem_limit_bytes", "persistent", "cluster"});
  if (v.contains("num_warps")) {
    std::optional<int64_t> w = readInt(v["num_warps"], path + ".num_warps", 1,
                                       LaunchAttr::kMaxNumWarps, "num_warps");
    if (w && !LaunchAttr::isValidNumWarps(*w))
      error(path + ".num_warps") << "num_warps must be a power of two, got " << *w;
    spec.numWarps = w.value_or(LaunchAttr::kDefaultNumWarps);
  }
  if (v.contains("num_stages"))
    spec.numStages = readInt(v["num_stages"], path + ".num_stages", 1,
                             LaunchAttr::kMaxNumStages, "num_stages")
                         .value_or(LaunchAttr::kDefaultNumStages);
  if (v.contains("persistent")) {
    if (v["persistent"].is_boolean())
      spec.persistent = v["persistent"].get<bool>();
    else
      error(path + ".persistent") << "expected a boolean, got " << kindOf(v["persistent"]);
  }
  if (v.contains("cluster")) {
    std::optional<int64_t> c = readInt(v["cluster"], path + ".cluster", 1, 8, "cluster");
    if (c && !llvm::isPowerOf2_64(*c))
      error(path + ".cluster") << "cluster must be a power of two, got " << *c;
    else if (c)
      spec.cluster = *c;
  }
  if (v.contains("vmem_limit_bytes"))
    spec.vmemLimitBytes = readInt(v["vmem_limit_bytes"],
                                  path + ".vmem_limit_bytes", 1,
                                  int64_t{1} << 40, "vmem_limit_bytes");
}

void SpecReader::readAliases(const json &v, const std::string &path) {
  if (!v.is_object()) {
    error(path) << "expected an object {\"input index\": output index}, got "
                << kindOf(v);
    return;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string &key = it.key();
    const json &value = it.value();
    std::string p = path + "." + key;
    int64_t in = -1;
    if (key.empty() || key.size() > 9 ||
        !llvm::all_of(key, [](char c) { return llvm::isDigit(c); }) ||
        (in = std::stoll(key)) >= static_cast<int64_t>(spec.inputs.size())) {
      error(p) << "'" << key << "' is not an input index (0.."
               << int64_t(spec.inputs.size()) - 1 << ")";
      continue;
    }
    std::optional<int64_t> out =
        readInt(value, p, 0, int64_t(spec.outputs.size()) - 1, "output index");
    if (!out)
      continue;
    if (spec.aliasedInput(*out)) {
      error(p) << "output " << *out << " is aliased twice";
      continue;
    }
    const SpecOperand &a = spec.inputs[in], &b = spec.outputs[*out];
    if (a.shape != b.shape || a.sizeNames != b.sizeNames ||
        a.elementType != b.elementType) {
      error(p) << "input " << in << " and output " << *out
               << " must have the same shape and dtype to alias";
      continue;
    }
    spec.aliases.push_back({in, *out});
  }
}

void SpecReader::readGridExpression(const std::string &text,
                                    const std::string &path) {
  std::string message;
  size_t column = 0;
  std::optional<pallas_size::SizeExpr> e =
      pallas_size::SizeExpr::parse(text, message, column);
  if (!e) {
    error(path) << "grid expression '" << text << "': " << message
                << " (at character " << column + 1 << ")";
    return;
  }
  std::vector<std::string> names;
  e->names(names);
  if (names.empty()) {
    // A constant expression is a number.
    std::optional<int64_t> v = e->evaluate([](const std::string &) {
      return std::optional<int64_t>();
    });
    if (!v || *v < 1 || *v > kMaxGridExtent) {
      error(path) << "grid expression '" << text << "' is not in [1, "
                  << kMaxGridExtent << "]";
      return;
    }
    spec.grid.push_back(*v);
    if (!spec.gridSizes.empty())
      spec.gridSizes.push_back("");
    return;
  }
  if (spec.gridSizes.empty())
    spec.gridSizes.assign(spec.grid.size(), "");
  spec.grid.push_back(ShapedType::kDynamic);
  spec.gridSizes.push_back(e->str());
  for (std::string &n : names)
    gridNames.push_back({std::move(n), path});
}

void SpecReader::collectSizes() {
  auto add = [&](const SpecOperand &op) {
    for (const std::string &n : op.sizeNames)
      if (!n.empty() && llvm::none_of(spec.sizes, [&](const SpecSize &s) {
            return s.name == n;
          }))
        spec.sizes.push_back({n});
  };
  for (const SpecOperand &op : spec.inputs)
    add(op);
  for (const SpecOperand &op : spec.outputs)
    add(op);
  for (const auto &entry : gridNames)
    if (llvm::none_of(spec.sizes,
                      [&](const SpecSize &s) { return s.name == entry.first; }))
      error(entry.second) << "size '" << entry.first
                  << "' is no array dimension (sizes are bound from the shapes "
                     "of inputs and outputs)";
}

void SpecReader::readSizeFacts(const json &v, const std::string &path) {
  if (!v.is_object()) {
    error(path) << "expected an object of size names, got " << kindOf(v);
    return;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::string p = path + "." + it.key();
    auto size = llvm::find_if(spec.sizes, [&](const SpecSize &s) {
      return s.name == it.key();
    });
    if (size == spec.sizes.end()) {
      error(p) << "'" << it.key() << "' is not a size of this spec";
      continue;
    }
    const json &facts = it.value();
    if (!facts.is_object()) {
      error(p) << "expected an object with multiple_of and max, got "
               << kindOf(facts);
      continue;
    }
    if (!checkKeys(facts, p, {"multiple_of", "max"}))
      continue;
    if (facts.contains("multiple_of"))
      size->multipleOf = readInt(facts["multiple_of"], p + ".multiple_of", 1,
                                 kMaxArrayDim, "multiple_of")
                             .value_or(1);
    if (facts.contains("max"))
      size->max = readInt(facts["max"], p + ".max", 1, kMaxArrayDim, "max")
                      .value_or(kMaxArrayDim);
    if (size->max < size->multipleOf)
      error(p) << "max " << size->max << " is below multiple_of "
               << size->multipleOf << ": no size fits";
  }
}

bool SpecReader::read(const json &doc) {
  if (!doc.is_object()) {
    error("") << "expected a JSON object at the top level, got " << kindOf(doc);
    return false;
  }
  checkKeys(doc, "", {"kernel", "name", "grid", "inputs", "outputs", "sizes", "scratch",
                      "num_scalar_prefetch", "input_output_aliases",
                      "dimension_semantics", "compiler_params", "vmap", "mesh"});
  bool missing = false;
  for (const char *required : {"kernel", "inputs", "outputs"})
    if (!doc.contains(required)) {
      error("") << "missing required field '" << required << "'";
      missing = true;
    }
  if (missing)
    return false;

  // The artifacts' name: the spec's "name", else the kernel's.
  if (std::optional<std::string> k = readString(doc["kernel"], "kernel"))
    spec.kernel = *k;
  spec.name = spec.kernel;
  if (doc.contains("name")) {
    std::optional<std::string> n = readString(doc["name"], "name");
    if (n) {
      if (std::optional<std::string> why = whyNotArtifactName(*n))
        error("name") << "'" << *n << "' cannot name the artifacts: it " << *why;
      else
        spec.name = *n;
    }
  } else if (std::optional<std::string> why = whyNotArtifactName(spec.kernel)) {
    error("kernel") << "kernel name '" << spec.kernel << "' cannot name the artifacts: it "
                    << *why << " (give the spec a \"name\")";
  }

  if (doc.contains("grid")) {
    const json &g = doc["grid"];
    if (!g.is_array()) {
      error("grid") << "expected an array of grid sizes, got " << kindOf(g);
    } else if (g.size() > kMaxGridRank) {
      error("grid") << "grid of rank " << g.size() << " exceeds the limit of "
                    << kMaxGridRank << " axes";
    } else {
      int64_t total = 1;
      for (size_t i = 0; i < g.size(); ++i) {
        std::string p = "grid[" + std::to_string(i) + "]";
        if (g[i].is_string()) {
          readGridExpression(g[i].get<std::string>(), p);
          continue;
        }
        std::optional<int64_t> s = readInt(g[i], p, 1, kMaxGridExtent, "grid size");
        if (!s)
          continue;
        spec.grid.push_back(*s);
        if (!spec.gridSizes.empty())
          spec.gridSizes.push_back("");
        // total <= 2^40 and *s < 2^31: compare before multiplying, which
        // could overflow.
        if (total > kMaxGridPrograms / *s) {
          error("grid") << "grid has more than 2^40 programs";
          break;
        }
        total *= *s;
      }
    }
  }

  if (doc.contains("num_scalar_prefetch"))
    spec.numScalarPrefetch = readInt(doc["num_scalar_prefetch"],
                                     "num_scalar_prefetch", 0, 64,
                                     "num_scalar_prefetch")
                                 .value_or(0);

  for (const char *key : {"inputs", "outputs"}) {
    const json &list = doc[key];
    auto &into = std::string(key) == "inputs" ? spec.inputs : spec.outputs;
    if (!list.is_array()) {
      error(key) << "expected an array of operands, got " << kindOf(list);
      continue;
    }
    for (size_t i = 0; i < list.size(); ++i) {
      SpecOperand op;
      bool prefetch = std::string(key) == "inputs" &&
                      static_cast<int64_t>(i) < spec.numScalarPrefetch;
      if (readOperand(list[i], std::string(key) + "[" + std::to_string(i) + "]",
                      op, prefetch))
        into.push_back(std::move(op));
      else
        failed = true;
    }
  }
  if (spec.outputs.empty() && !failed && doc["outputs"].is_array())
    error("outputs") << "a kernel needs at least one output";
  // Arrays without a name get input<i> / output<i>; no two arrays share one
  // (they become parameters of one function).
  for (auto [list, prefix] : {std::pair{&spec.inputs, "input"}, {&spec.outputs, "output"}})
    for (auto [i, op] : llvm::enumerate(*list))
      if (op.name.empty())
        op.name = prefix + std::to_string(i);
  {
    llvm::StringMap<std::string> seen;
    for (const std::vector<SpecOperand> *list : {&spec.inputs, &spec.outputs})
      for (const SpecOperand &op : *list) {
        auto [it, fresh] = seen.try_emplace(op.name, op.path);
        if (!fresh)
          error(op.path + ".name") << "array name '" << op.name << "' is also "
                                   << it->second << "'s";
      }
  }
  if (spec.numScalarPrefetch > static_cast<int64_t>(spec.inputs.size()) &&
      !failed)
    error("num_scalar_prefetch")
        << spec.numScalarPrefetch << " scalar-prefetch operands but only "
        << spec.inputs.size() << " input(s)";
  if (failed)
    return false;
  collectSizes();
  if (doc.contains("sizes"))
    readSizeFacts(doc["sizes"], "sizes");

  if (doc.contains("scratch"))
    readScratch(doc["scratch"], "scratch");
  if (doc.contains("input_output_aliases"))
    readAliases(doc["input_output_aliases"], "input_output_aliases");
  if (doc.contains("dimension_semantics")) {
    const json &d = doc["dimension_semantics"];
    if (!d.is_array()) {
      error("dimension_semantics") << "expected an array, got " << kindOf(d);
    } else if (d.size() != spec.grid.size()) {
      error("dimension_semantics")
          << "has " << d.size() << " entries for a grid of rank "
          << spec.grid.size();
    } else {
      for (size_t i = 0; i < d.size(); ++i) {
        std::string p = "dimension_semantics[" + std::to_string(i) + "]";
        std::optional<std::string> s = readString(d[i], p);
        if (s && *s == "parallel")
          spec.dimensionSemantics.push_back(DimensionSemantics::parallel);
        else if (s && *s == "arbitrary")
          spec.dimensionSemantics.push_back(DimensionSemantics::arbitrary);
        else if (s)
          error(p) << "unknown dimension semantics '" << *s
                   << "' (expected parallel or arbitrary)";
      }
    }
  }
  if (doc.contains("compiler_params"))
    readCompilerParams(doc["compiler_params"], "compiler_params");
  if (doc.contains("vmap"))
    readVmap(doc["vmap"], "vmap");
  if (doc.contains("mesh"))
    readMesh(doc["mesh"], "mesh");
  return !failed;
}
