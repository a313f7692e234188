// Unit tests of size expressions (grid entries over symbolic sizes): the
// parser, the canonical text, evaluation, and the spec loader's use of them.
#include "pallas/Spec/LaunchSpec.h"
#include "pallas/Spec/SizeExpr.h"

#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <map>

using pallas_size::SizeExpr;

namespace {
std::optional<SizeExpr> parse(const std::string &text) {
  std::string error;
  size_t column = 0;
  return SizeExpr::parse(text, error, column);
}

std::optional<int64_t> eval(const std::string &text,
                            const std::map<std::string, int64_t> &sizes) {
  std::optional<SizeExpr> e = parse(text);
  REQUIRE(e);
  return e->evaluate([&](const std::string &n) -> std::optional<int64_t> {
    auto it = sizes.find(n);
    if (it == sizes.end())
      return std::nullopt;
    return it->second;
  });
}
} // namespace

TEST_CASE("size expressions print canonically and round-trip") {
  CHECK(parse("cdiv( M,128 )")->str() == "cdiv(M, 128)");
  CHECK(parse("M*2+1")->str() == "M * 2 + 1");
  CHECK(parse("(M+1)*2")->str() == "(M + 1) * 2");
  CHECK(parse("M-(N-1)")->str() == "M - (N - 1)");
  CHECK(parse("(M-N)-1")->str() == "M - N - 1");
  CHECK(parse("max(min(M, N), 1)")->str() == "max(min(M, N), 1)");
  for (const char *text : {"M - (N - 1)", "(M + 1) * 2", "cdiv(M * N, 64) - 1"})
    CHECK(parse(parse(text)->str())->str() == parse(text)->str());
}

TEST_CASE("size expressions evaluate with overflow and division checked") {
  std::map<std::string, int64_t> s{{"M", 1000}, {"N", 7}};
  CHECK(eval("cdiv(M, 128)", s) == 8);
  CHECK(eval("cdiv(M, 8)", s) == 125);
  CHECK(eval("M - N * 2", s) == 986);
  CHECK(eval("min(M, N) + max(M, N)", s) == 1007);
  CHECK(eval("cdiv(0 - 5, 2)", s) == -2);
  CHECK_FALSE(eval("cdiv(M, N - 7)", s));          // by zero
  CHECK_FALSE(eval("M * 4611686018427387904", s)); // overflow
  CHECK_FALSE(eval("Q + 1", s));                   // unknown name
  std::vector<std::string> names;
  parse("cdiv(N, 8) * M + N")->names(names);
  CHECK(names == std::vector<std::string>{"N", "M"});
}

TEST_CASE("size expressions refuse malformed text with a column") {
  auto error = [](const std::string &text) {
    std::string message;
    size_t column = 0;
    CHECK_FALSE(SizeExpr::parse(text, message, column));
    return std::to_string(column + 1) + ": " + message;
  };
  CHECK(error("cdiv(M 8)") == "8: expected ',' between the operands of 'cdiv'");
  CHECK(error("M +") == "4: expected a number, a size name or '(' at the end");
  CHECK(error("M $ 2") == "3: unexpected '$'");
  CHECK(error("log(M)") == "1: unknown function 'log' (expected cdiv, min or max)");
  CHECK(error("99999999999999999999") == "19: integer literal is too large");
  CHECK(error(std::string(40, '(') + "M" + std::string(40, ')')) ==
        "33: expression nests deeper than 32 levels");
}

TEST_CASE("the spec loader reads symbolic shapes, grids and facts") {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::pallas::PallasDialect>();
  auto spec = mlir::pallas::loadLaunchSpec("spec.json", R"json({
    "kernel": "k", "grid": ["cdiv(N, 8)", 2, "M"],
    "inputs": [{"name": "x", "shape": ["N", 4, "M"], "dtype": "f32", "block_shape": [8, 4, 1]}],
    "outputs": [{"name": "o", "shape": ["M"], "dtype": "f32", "block_shape": [1]}],
    "sizes": {"M": {"multiple_of": 2, "max": 100}}})json", &ctx);
  REQUIRE(mlir::succeeded(spec));
  CHECK(spec->grid[1] == 2);
  CHECK(mlir::ShapedType::isDynamic(spec->grid[0]));
  CHECK(spec->gridSizes == std::vector<std::string>{"cdiv(N, 8)", "", "M"});
  REQUIRE(spec->sizes.size() == 2);
  CHECK(spec->sizes[0].name == "N");
  CHECK(spec->sizes[1].name == "M");
  CHECK(spec->sizes[1].multipleOf == 2);
  CHECK(spec->sizes[1].max == 100);
  CHECK(spec->inputs[0].shape[1] == 4);
  CHECK(spec->inputs[0].sizeNames[2] == "M");
}
