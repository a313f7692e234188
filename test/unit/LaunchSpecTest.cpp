// Unit tests of the launch spec loader: fields, defaults, errors located by
// JSON path and line/column.
#include "pallas/Spec/LaunchSpec.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mlir::pallas;

namespace {
/// Loads `text`, collecting the diagnostics as "line:col: message".
struct Loaded {
  MLIRContext ctx;
  std::vector<std::string> errors;
  FailureOr<LaunchSpec> spec = failure();
  explicit Loaded(const std::string &text) {
    ctx.loadDialect<PallasDialect>();
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      auto loc = dyn_cast<FileLineColLoc>(d.getLocation());
      errors.push_back((loc ? std::to_string(loc.getLine()) + ":" +
                                  std::to_string(loc.getColumn()) + ": "
                            : std::string()) +
                       d.str());
      return success();
    });
    spec = loadLaunchSpec("spec.json", text, &ctx);
  }
};

const char *kMatmul = R"J({
  "kernel": "matmul",
  "grid": [2, 2],
  "inputs": [
    {"name": "x", "shape": [1024, 1024], "dtype": "f32",
     "block_shape": [512, 1024], "index_map": "(i, j) -> (i, 0)"},
    {"name": "y", "shape": [1024, 1024], "dtype": "bf16",
     "block_shape": [null, 512], "index_map": "(i, j) -> (0, j)"}
  ],
  "outputs": [{"name": "z", "shape": [1024, 1024], "dtype": "f32",
               "block_shape": [512, 512], "index_map": "(i, j) -> (i, j)"}],
  "compiler_params": {"num_warps": 8, "num_stages": 2}
})J";
} // namespace

TEST_CASE("a valid spec loads with every field") {
  Loaded l(kMatmul);
  REQUIRE(succeeded(l.spec));
  CHECK(l.errors.empty());
  const LaunchSpec &s = *l.spec;
  CHECK(s.kernel == "matmul");
  CHECK(s.name == "matmul");
  CHECK(s.grid == SmallVector<int64_t>{2, 2});
  REQUIRE(s.inputs.size() == 2);
  CHECK(s.inputs[1].elementType.isBF16());
  CHECK(s.inputs[1].refShape() == SmallVector<int64_t>{512});
  CHECK(s.inputs[1].blockDims() == SmallVector<int64_t>{1, 512});
  CHECK(s.inputs[0].indexMap.getNumDims() == 2);
  CHECK(s.inputs[0].indexMap.getNumResults() == 2);
  CHECK(s.numWarps == 8);
  CHECK(s.numStages == 2);
  CHECK(s.numPrograms() == 4);
}

TEST_CASE("omitted block shapes and index maps default to whole arrays") {
  Loaded l(R"J({"kernel": "k", "grid": [3],
    "inputs": [{"shape": [8], "dtype": "i32"}],
    "outputs": [{"shape": [8], "dtype": "i32"}]})J");
  REQUIRE(succeeded(l.spec));
  const SpecOperand &in = l.spec->inputs[0];
  CHECK(in.refShape() == SmallVector<int64_t>{8});
  CHECK(in.indexMap.getNumDims() == 1);
  CHECK(in.indexMap.getResult(0).isSymbolicOrConstant());
}

TEST_CASE("syntax errors carry line and column") {
  Loaded l("{\n  \"kernel\": \"k\",\n  \"grid\": [1,,]\n}");
  CHECK(failed(l.spec));
  REQUIRE(l.errors.size() == 1);
  CHECK(l.errors[0].rfind("3:", 0) == 0);
  CHECK(l.errors[0].find("invalid JSON") != std::string::npos);
}

TEST_CASE("schema errors name the JSON path at its position") {
  std::string text = kMatmul;
  text.replace(text.find("\"bf16\""), 6, "\"f13\"");
  Loaded l(text);
  CHECK(failed(l.spec));
  REQUIRE(l.errors.size() == 1);
  CHECK(l.errors[0].find("inputs[1].dtype: unknown dtype 'f13'") != std::string::npos);
  CHECK(l.errors[0].rfind("7:", 0) == 0);
}

TEST_CASE("several problems are reported together") {
  Loaded l(R"J({"kernel": "k", "grid": [0, -1], "inputs": [], "outputs": [],
              "bogus": 1})J");
  CHECK(failed(l.spec));
  CHECK(l.errors.size() >= 3);
}

TEST_CASE("grid limits") {
  Loaded zero(R"J({"kernel": "k", "grid": [0], "inputs": [], "outputs": [{"shape": [1], "dtype": "f32"}]})J");
  CHECK(failed(zero.spec));
  Loaded huge(R"J({"kernel": "k", "grid": [2147483647, 2147483647], "inputs": [], "outputs": [{"shape": [1], "dtype": "f32"}]})J");
  CHECK(failed(huge.spec));
  REQUIRE(!huge.errors.empty());
  CHECK(huge.errors[0].find("2^40 programs") != std::string::npos);
}

TEST_CASE("bad index maps are rejected with the parser's reason") {
  std::string text = kMatmul;
  text.replace(text.find("(i, j) -> (i, 0)"), 16, "(i, j) -> (k)");
  Loaded l(text);
  CHECK(failed(l.spec));
  REQUIRE(l.errors.size() == 1);
  CHECK(l.errors[0].find("inputs[0].index_map") != std::string::npos);
}

TEST_CASE("vmap adds a leading grid axis and batch dims") {
  std::string text = kMatmul;
  text.replace(text.rfind('}'), 1,
               R"J(, "vmap": {"size": 3, "in_axes": [0, null], "out_axes": [1]}})J");
  Loaded l(text);
  REQUIRE(succeeded(l.spec));
  LaunchSpec v = applyVmap(*l.spec);
  CHECK(v.grid == SmallVector<int64_t>{3, 2, 2});
  CHECK(v.inputs[0].shape == SmallVector<int64_t>{3, 1024, 1024});
  CHECK(v.inputs[1].shape == SmallVector<int64_t>{1024, 1024});
  CHECK(v.outputs[0].shape == SmallVector<int64_t>{1024, 3, 1024});
  CHECK(v.inputs[0].indexMap.getNumDims() == 3);
  CHECK(v.inputs[1].indexMap.getNumDims() == 3);
  CHECK(v.outputs[0].refShape() == SmallVector<int64_t>{512, 512});
}

TEST_CASE("aliases need matching shapes and dtypes") {
  std::string text = kMatmul;
  text.replace(text.rfind('}'), 1, R"J(, "input_output_aliases": {"1": 0}})J");
  Loaded l(text);
  CHECK(failed(l.spec));
  REQUIRE(l.errors.size() == 1);
  CHECK(l.errors[0].find("same shape and dtype") != std::string::npos);
}

TEST_CASE("dtype names round-trip") {
  MLIRContext ctx;
  for (const char *d : {"f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E5M2", "i1",
                        "i8", "i16", "i32", "i64"}) {
    Type t = parseDType(d, &ctx);
    REQUIRE(t);
    CHECK(dtypeName(t) == d);
  }
  CHECK(!parseDType("float", &ctx));
  CHECK(dtypeBytes(parseDType("bf16", &ctx)) == 2);
  CHECK(dtypeBytes(parseDType("i1", &ctx)) == 1);
}
