//===- PallasAttrs.cpp - #pallas.launch and #pallas.block_spec ------------===//
//
// Both attributes print as `<key = value, ...>` lists whose keys may come in
// any order and whose defaults are left out (PallasAttrs.td shows the
// syntax); the dialect checks where they stand.
//
//===----------------------------------------------------------------------===//
#include "pallas/Dialect/Pallas.h"
#include "pallas/Spec/SizeExpr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pallas;

#define GET_ATTRDEF_CLASSES
#include "pallas/Dialect/PallasAttrs.cpp.inc"

void PallasDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pallas/Dialect/PallasAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Parsing helpers: `key = value` entries and `[a, b, ...]` lists
//===----------------------------------------------------------------------===//

static ParseResult parseIntList(AsmParser &p, SmallVectorImpl<int64_t> &out) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    return p.parseInteger(out.emplace_back());
  });
}

static void printIntList(AsmPrinter &p, ArrayRef<int64_t> values) {
  p << '[';
  llvm::interleaveComma(values, p);
  p << ']';
}

/// `[4, ?, 128]`: `?` is a symbolic size.
static ParseResult parseDimList(AsmParser &p, SmallVectorImpl<int64_t> &out) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
    if (succeeded(p.parseOptionalQuestion())) {
      out.push_back(ShapedType::kDynamic);
      return success();
    }
    return p.parseInteger(out.emplace_back());
  });
}

static void printDimList(AsmPrinter &p, ArrayRef<int64_t> values) {
  p << '[';
  llvm::interleaveComma(values, p, [&](int64_t v) {
    if (ShapedType::isDynamic(v))
      p << '?';
    else
      p << v;
  });
  p << ']';
}

static ParseResult parseStringList(AsmParser &p, SmallVectorImpl<StringAttr> &out) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    std::string s;
    if (p.parseString(&s))
      return failure();
    out.push_back(StringAttr::get(p.getContext(), s));
    return success();
  });
}

static void printStringList(AsmPrinter &p, ArrayRef<StringAttr> values) {
  p << '[';
  llvm::interleaveComma(values, p, [&](StringAttr s) { p << '"' << s.getValue() << '"'; });
  p << ']';
}

/// Parses `, key = value` entries up to `>`; `entry` parses one value for
/// `key` and fails on keys it does not know.
static ParseResult
parseEntries(AsmParser &p, bool needComma,
             function_ref<ParseResult(StringRef key, SMLoc at)> entry) {
  llvm::StringSet<> seen;
  while (failed(p.parseOptionalGreater())) {
    if (needComma && p.parseComma())
      return failure();
    needComma = true;
    SMLoc at = p.getCurrentLocation();
    StringRef key;
    if (p.parseKeyword(&key))
      return failure();
    if (!seen.insert(key).second)
      return p.emitError(at, "field '") << key << "' given twice";
    if (entry(key, at))
      return failure();
  }
  return success();
}

/// The words of verifyNamedDims' messages, which name the two lists.
struct NamedDimsWords {
  const char *countPrefix, *countMiddle, *entryPrefix, *bothSuffix, *neitherSuffix;
};

/// `values` (grid extents or array dims) hold `?` exactly where `names`
/// (empty: none anywhere) holds a non-empty name or size expression.
static LogicalResult verifyNamedDims(function_ref<InFlightDiagnostic()> emitError,
                                     ArrayRef<int64_t> values, ArrayRef<StringAttr> names,
                                     const NamedDimsWords &words) {
  if (!names.empty() && names.size() != values.size())
    return emitError() << words.countPrefix << names.size() << words.countMiddle
                       << values.size();
  for (auto [i, v] : llvm::enumerate(values)) {
    bool named = !names.empty() && !names[i].getValue().empty();
    if (named != ShapedType::isDynamic(v))
      return emitError() << words.entryPrefix << i
                         << (named ? words.bothSuffix : words.neitherSuffix);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchAttr
//===----------------------------------------------------------------------===//

Attribute LaunchAttr::parse(AsmParser &p, Type) {
  std::string symbol;
  bool haveSymbol = false, haveGrid = false, expanded = false;
  SmallVector<int64_t> grid;
  SmallVector<DimensionSemantics> semantics;
  SmallVector<int64_t> programOrder;
  SmallVector<StringAttr> sizes, gridSizes;
  SmallVector<int64_t> sizeMultiples;
  int64_t batchAxes = 0, numWarps = kDefaultNumWarps, numStages = kDefaultNumStages,
          programGroup = 0;
  if (p.parseLess())
    return {};
  auto entry = [&](StringRef key, SMLoc at) -> ParseResult {
    if (key == "expanded")
      return expanded = true, success();
    if (p.parseEqual())
      return failure();
    if (key == "symbol")
      return haveSymbol = true, p.parseString(&symbol);
    if (key == "grid")
      return haveGrid = true, parseDimList(p, grid);
    if (key == "sizes")
      return parseStringList(p, sizes);
    if (key == "grid_sizes")
      return parseStringList(p, gridSizes);
    if (key == "size_multiples")
      return parseIntList(p, sizeMultiples);
    if (key == "dimension_semantics")
      return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        FailureOr<DimensionSemantics> s = FieldParser<DimensionSemantics>::parse(p);
        if (failed(s))
          return failure();
        semantics.push_back(*s);
        return success();
      });
    if (key == "batch_axes")
      return p.parseInteger(batchAxes);
    if (key == "num_warps")
      return p.parseInteger(numWarps);
    if (key == "num_stages")
      return p.parseInteger(numStages);
    if (key == "program_order")
      return parseIntList(p, programOrder);
    if (key == "program_group")
      return p.parseInteger(programGroup);
    return p.emitError(at, "unknown #pallas.launch field '") << key << "'";
  };
  if (parseEntries(p, /*needComma=*/false, entry))
    return {};
  if (!haveSymbol || !haveGrid)
    return p.emitError(p.getNameLoc(), "#pallas.launch needs a symbol and a grid"), Attribute();
  return p.getChecked<LaunchAttr>(p.getContext(), symbol, grid, semantics,
                                  batchAxes, numWarps, numStages, expanded,
                                  programOrder, programGroup, sizes, sizeMultiples,
                                  gridSizes);
}

void LaunchAttr::print(AsmPrinter &p) const {
  p << "<symbol = \"" << getSymbol() << "\"";
  if (!getSizes().empty()) {
    p << ", sizes = ";
    printStringList(p, getSizes());
  }
  if (!getSizeMultiples().empty()) {
    p << ", size_multiples = ";
    printIntList(p, getSizeMultiples());
  }
  p << ", grid = ";
  printDimList(p, getGrid());
  if (hasSymbolicGrid()) {
    p << ", grid_sizes = ";
    printStringList(p, getGridSizes());
  }
  if (hasDimensionSemantics()) {
    p << ", dimension_semantics = [";
    llvm::interleaveComma(getDimensionSemantics(), p,
                          [&](DimensionSemantics s) { p << stringifyDimensionSemantics(s); });
    p << ']';
  }
  if (getBatchAxes())
    p << ", batch_axes = " << getBatchAxes();
  if (getNumWarps() != kDefaultNumWarps)
    p << ", num_warps = " << getNumWarps();
  if (getNumStages() != kDefaultNumStages)
    p << ", num_stages = " << getNumStages();
  if (getExpanded())
    p << ", expanded";
  if (!getProgramOrder().empty()) {
    p << ", program_order = ";
    printIntList(p, getProgramOrder());
  }
  if (getProgramGroup())
    p << ", program_group = " << getProgramGroup();
  p << '>';
}

LogicalResult LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef symbol, ArrayRef<int64_t> grid,
                                 ArrayRef<DimensionSemantics> semantics,
                                 int64_t batchAxes, int64_t numWarps,
                                 int64_t numStages, bool expanded,
                                 ArrayRef<int64_t> programOrder,
                                 int64_t programGroup, ArrayRef<StringAttr> sizes,
                                 ArrayRef<int64_t> sizeMultiples,
                                 ArrayRef<StringAttr> gridSizes) {
  if (symbol.empty())
    return emitError() << "#pallas.launch needs a non-empty symbol";
  if (!sizeMultiples.empty() &&
      (sizeMultiples.size() != sizes.size() ||
       llvm::any_of(sizeMultiples, [](int64_t m) { return m < 1; })))
    return emitError() << "#pallas.launch size_multiples needs one positive "
                          "number per size";
  if (failed(verifyNamedDims(emitError, grid, gridSizes,
                             {"#pallas.launch has ", " grid_sizes for a grid of rank ",
                              "#pallas.launch grid axis ", " has a size expression and a number",
                              " is ? without a size expression"})))
    return failure();
  if (llvm::any_of(grid, [](int64_t n) { return n < 1 && !ShapedType::isDynamic(n); }))
    return emitError() << "#pallas.launch grid sizes must be at least 1";
  if (!semantics.empty() && semantics.size() != grid.size())
    return emitError() << "#pallas.launch has " << semantics.size()
                       << " dimension_semantics for a grid of rank " << grid.size();
  if (batchAxes < 0 || batchAxes > static_cast<int64_t>(grid.size()))
    return emitError() << "#pallas.launch batch_axes " << batchAxes
                       << " exceeds the grid's rank " << grid.size();
  if (!isValidNumWarps(numWarps))
    return emitError() << "#pallas.launch num_warps must be a power of two from 1 to "
                       << kMaxNumWarps << ", got " << numWarps;
  if (numStages < 1 || numStages > kMaxNumStages)
    return emitError() << "#pallas.launch num_stages must be from 1 to " << kMaxNumStages
                       << ", got " << numStages;
  if (!programOrder.empty()) {
    // A permutation of the leading parallel axes (those before the first
    // arbitrary one).
    size_t parallel = 0;
    while (parallel < grid.size() &&
           (semantics.empty() || semantics[parallel] == DimensionSemantics::parallel))
      ++parallel;
    SmallVector<int64_t> sorted(programOrder);
    llvm::sort(sorted);
    if (sorted.size() != parallel ||
        llvm::any_of(llvm::enumerate(sorted),
                     [](auto e) { return e.value() != static_cast<int64_t>(e.index()); }))
      return emitError() << "#pallas.launch program_order must list each of the grid's "
                         << parallel << " leading parallel axes once";
  }
  if (programGroup < 0 || programGroup == 1 || (programGroup && programOrder.size() < 2))
    return emitError() << "#pallas.launch program_group must be 0, or at least 2 with a "
                          "program_order of two axes or more";
  return success();
}

bool LaunchAttr::isParallel(unsigned axis) const {
  return !hasDimensionSemantics() || axis >= getDimensionSemantics().size() ||
         getDimensionSemantics()[axis] == DimensionSemantics::parallel;
}

unsigned LaunchAttr::numLeadingParallelAxes() const {
  unsigned n = 0;
  while (n < getGrid().size() && isParallel(n))
    ++n;
  return n;
}

int64_t LaunchAttr::numPrograms() const {
  assert(!hasSymbolicGrid() && "the number of programs is known at launch");
  int64_t n = 1;
  for (int64_t g : getGrid())
    n *= g;
  return n;
}

LaunchAttr LaunchAttr::withGrid(ArrayRef<int64_t> grid,
                                ArrayRef<DimensionSemantics> semantics) const {
  return get(getContext(), getSymbol(), grid, semantics, getBatchAxes(),
             getNumWarps(), getNumStages(), getExpanded(), {}, 0, getSizes(),
             getSizeMultiples(), {});
}

LaunchAttr LaunchAttr::asExpanded() const {
  return get(getContext(), getSymbol(), getGrid(), getDimensionSemantics(),
             getBatchAxes(), getNumWarps(), getNumStages(), /*expanded=*/true,
             getProgramOrder(), getProgramGroup(), getSizes(), getSizeMultiples(),
             getGridSizes());
}

int64_t LaunchAttr::sizeMultipleOf(StringRef name) const {
  for (auto [k, n] : llvm::enumerate(getSizes()))
    if (n.getValue() == name)
      return getSizeMultiples().empty() ? 1 : getSizeMultiples()[k];
  return 1;
}

LaunchAttr LaunchAttr::withProgramOrder(ArrayRef<int64_t> order, int64_t group) const {
  return get(getContext(), getSymbol(), getGrid(), getDimensionSemantics(),
             getBatchAxes(), getNumWarps(), getNumStages(), getExpanded(), order,
             group, getSizes(), getSizeMultiples(), getGridSizes());
}

LaunchAttr LaunchAttr::withNumWarps(int64_t numWarps) const {
  return get(getContext(), getSymbol(), getGrid(), getDimensionSemantics(),
             getBatchAxes(), numWarps, getNumStages(), getExpanded(), getProgramOrder(),
             getProgramGroup(), getSizes(), getSizeMultiples(), getGridSizes());
}

//===----------------------------------------------------------------------===//
// BlockSpecAttr
//===----------------------------------------------------------------------===//

Attribute BlockSpecAttr::parse(AsmParser &p, Type) {
  FailureOr<ArgRole> role;
  std::string name;
  SmallVector<int64_t> shape, block, squeezed;
  AffineMap indexMap;
  FlatSymbolRefAttr indexFn;
  SmallVector<StringAttr> sizeNames;
  if (p.parseLess() || failed(role = FieldParser<ArgRole>::parse(p)))
    return {};
  (void)p.parseOptionalString(&name);
  auto entry = [&](StringRef key, SMLoc at) -> ParseResult {
    if (p.parseEqual())
      return failure();
    if (key == "shape")
      return parseDimList(p, shape);
    if (key == "size_names")
      return parseStringList(p, sizeNames);
    if (key == "block")
      return parseIntList(p, block);
    if (key == "squeezed")
      return parseIntList(p, squeezed);
    if (key == "index_map") {
      AffineMapAttr map;
      if (p.parseAttribute(map))
        return failure();
      return indexMap = map.getValue(), success();
    }
    if (key == "index_fn")
      return p.parseAttribute(indexFn);
    return p.emitError(at, "unknown #pallas.block_spec field '") << key << "'";
  };
  if (parseEntries(p, /*needComma=*/true, entry))
    return {};
  return p.getChecked<BlockSpecAttr>(p.getContext(), *role, name, shape, block,
                                     squeezed, indexMap, indexFn, sizeNames);
}

void BlockSpecAttr::print(AsmPrinter &p) const {
  p << '<' << stringifyArgRole(getRole());
  if (!getName().empty())
    p << " \"" << getName() << '"';
  if (isBlocked() || getRole() == ArgRole::prefetch) {
    p << ", shape = ";
    printDimList(p, getShape());
    p << ", block = ";
    printIntList(p, getBlock());
  }
  if (!getSizeNames().empty()) {
    p << ", size_names = ";
    printStringList(p, getSizeNames());
  }
  if (!getSqueezed().empty()) {
    p << ", squeezed = ";
    printIntList(p, getSqueezed());
  }
  if (getIndexMap()) {
    p << ", index_map = ";
    p.printAttribute(AffineMapAttr::get(getIndexMap()));
  }
  if (getIndexFn())
    p << ", index_fn = " << getIndexFn();
  p << '>';
}

LogicalResult BlockSpecAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                    ArgRole role, StringRef name,
                                    ArrayRef<int64_t> shape, ArrayRef<int64_t> block,
                                    ArrayRef<int64_t> squeezed, AffineMap indexMap,
                                    FlatSymbolRefAttr indexFn,
                                    ArrayRef<StringAttr> sizeNames) {
  if (role == ArgRole::scratch || role == ArgRole::size) {
    if (!shape.empty() || !block.empty() || indexMap || indexFn || !sizeNames.empty())
      return emitError() << "#pallas.block_spec: " << stringifyArgRole(role)
                         << " has no array, block or index map";
    if (role == ArgRole::size && name.empty())
      return emitError() << "#pallas.block_spec: a size needs its name";
    return success();
  }
  if (failed(verifyNamedDims(emitError, shape, sizeNames,
                             {"#pallas.block_spec: ", " size_names for an array of rank ",
                              "#pallas.block_spec: array dim ", " has a size name and a number",
                              " is ? without a size name"})))
    return failure();
  if (shape.size() != block.size())
    return emitError() << "#pallas.block_spec: block rank " << block.size()
                       << " differs from the array rank " << shape.size();
  for (int64_t d : squeezed)
    if (d < 0 || d >= static_cast<int64_t>(block.size()) || block[d] != 1)
      return emitError() << "#pallas.block_spec: squeezed dim " << d
                         << " is not a block dim of size 1";
  if (llvm::any_of(block, [](int64_t n) { return n < 1; }) ||
      llvm::any_of(shape, [](int64_t n) { return n < 0 && !ShapedType::isDynamic(n); }))
    return emitError() << "#pallas.block_spec: block dims must be at least 1";
  if (indexMap && indexFn)
    return emitError() << "#pallas.block_spec: index_map and index_fn exclude each other";
  if (indexMap && indexMap.getNumResults() != shape.size())
    return emitError() << "#pallas.block_spec: the index map gives "
                       << indexMap.getNumResults() << " block indices for rank "
                       << shape.size();
  return success();
}

bool BlockSpecAttr::isSqueezed(unsigned dim) const {
  return llvm::is_contained(getSqueezed(), static_cast<int64_t>(dim));
}

SmallVector<int64_t> BlockSpecAttr::refShape() const {
  SmallVector<int64_t> shape;
  for (auto [d, n] : llvm::enumerate(getBlock()))
    if (!isSqueezed(d))
      shape.push_back(n);
  return shape;
}

BlockSpecAttr BlockSpecAttr::withBlock(ArrayRef<int64_t> block,
                                       AffineMap indexMap) const {
  return get(getContext(), getRole(), getName(), getShape(), block,
             getSqueezed(), indexMap, indexMap ? FlatSymbolRefAttr() : getIndexFn(),
             getSizeNames());
}

//===----------------------------------------------------------------------===//
// Where the attributes may stand
//===----------------------------------------------------------------------===//

LogicalResult PallasDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kLaunchAttrName) {
    if (!isa<LaunchAttr>(attr.getValue()))
      return op->emitOpError("'") << kLaunchAttrName << "' must be a #pallas.launch";
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn)
      return op->emitOpError("'") << kLaunchAttrName << "' belongs on a kernel function";
    // A kernel's launch describes every argument (lowered functions keep
    // only the launch).
    if (isa<KernelOp>(op))
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (!fn.getArgAttr(i, kBlockSpecAttrName))
          return op->emitOpError("argument #")
                 << i << " has no " << kBlockSpecAttrName
                 << " (a kernel with a launch describes every argument)";
    // Every size an array or the grid names is one of the launch's.
    auto launch = cast<LaunchAttr>(attr.getValue());
    auto known = [&](StringRef name) {
      return llvm::any_of(launch.getSizes(), [&](StringAttr s) { return s.getValue() == name; });
    };
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto spec = fn.getArgAttrOfType<BlockSpecAttr>(i, kBlockSpecAttrName))
        for (StringAttr n : spec.getSizeNames())
          if (!n.getValue().empty() && !known(n.getValue()))
            return op->emitOpError("argument #")
                   << i << " has size '" << n.getValue()
                   << "', which is not among the launch's sizes";
    for (StringAttr text : launch.getGridSizes()) {
      std::string error;
      size_t column = 0;
      std::optional<pallas_size::SizeExpr> e =
          pallas_size::SizeExpr::parse(text.getValue().str(), error, column);
      if (!text.getValue().empty() && !e)
        return op->emitOpError("grid size '") << text.getValue() << "': " << error;
      std::vector<std::string> names;
      if (e)
        e->names(names);
      for (const std::string &n : names)
        if (!known(n))
          return op->emitOpError("grid size '")
                 << text.getValue() << "' names '" << n << "', which is not among the launch's sizes";
    }
    return success();
  }
  return op->emitOpError("unknown pallas attribute '") << attr.getName().getValue() << "'";
}

LogicalResult PallasDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                      unsigned argIndex,
                                                      NamedAttribute attr) {
  if (attr.getName() == kAliasedAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError("'") << kAliasedAttrName << "' of argument #" << argIndex
                                  << " must be a unit attribute";
    return success();
  }
  if (attr.getName() != kBlockSpecAttrName)
    return op->emitOpError("unknown pallas argument attribute '")
           << attr.getName().getValue() << "'";
  auto spec = dyn_cast<BlockSpecAttr>(attr.getValue());
  if (!spec)
    return op->emitOpError("'") << kBlockSpecAttrName << "' of argument #"
                                << argIndex << " must be a #pallas.block_spec";
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel || argIndex >= kernel.getNumArguments() || !spec.isBlocked())
    return success();
  // The kernel's ref is the block (the whole array once expanded).
  auto ref = dyn_cast<RefType>(kernel.getArgumentTypes()[argIndex]);
  if (!ref)
    return kernel.emitOpError("argument #") << argIndex << " ('" << spec.getName()
                                            << "') must be a ref";
  SmallVector<int64_t> blockRef = spec.refShape();
  if (ref.getShape() != ArrayRef<int64_t>(blockRef) && ref.getShape() != spec.getShape())
    return kernel.emitOpError("argument #")
           << argIndex << " ('" << spec.getName() << "') is " << ref
           << ", neither its block nor its array";
  return success();
}
