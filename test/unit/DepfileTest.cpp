// Unit tests of the depfile's Make syntax.
#include "pallas/Driver/Artifact.h"

#include <catch2/catch.hpp>

using namespace mlir::pallas;
using Paths = std::vector<std::string>;

TEST_CASE("a depfile names the manifest and what it depends on") {
  CHECK(depfileText("out/k.manifest.json", Paths{"k.mlir", "k.json"}) ==
        "out/k.manifest.json: \\\n  k.mlir \\\n  k.json\n");
  CHECK(depfileText("out/k.manifest.json", Paths{}) == "out/k.manifest.json:\n");
}

TEST_CASE("a depfile escapes what Make and Ninja would split on") {
  // Spaces and '#' take a backslash, '$' doubles.
  CHECK(depfileText("o/k.manifest.json", Paths{"my dir/k#1.mlir", "a$b.json"}) ==
        "o/k.manifest.json: \\\n  my\\ dir/k\\#1.mlir \\\n  a$$b.json\n");
}
