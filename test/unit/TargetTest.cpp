// Unit tests of the target descriptions (targets/*.yaml, embedded).
#include "pallas/Target/TargetDescription.h"

#include <catch2/catch.hpp>

using namespace mlir::pallas;

TEST_CASE("every required target is built in and valid") {
  for (const char *name : {"sm_80", "sm_86", "sm_89", "sm_90a", "tpu_v4",
                           "tpu_v5e", "tpu_v5p", "tpu_v6e", "triton", "host"}) {
    auto t = lookupTarget(name);
    REQUIRE(bool(t));
    CHECK(t->name == name);
    CHECK(!t->description.empty());
  }
}

TEST_CASE("chip fields are typed") {
  auto h100 = lookupTarget("sm_90a");
  REQUIRE(bool(h100));
  CHECK(h100->kind == TargetKind::Cuda);
  CHECK(h100->getInt("compute_capability") == 90);
  CHECK(h100->getInt("warp_size") == 32);
  CHECK(h100->getBool("tma"));
  CHECK(h100->has("tensor_cores", "wgmma"));
  auto a100 = lookupTarget("sm_80");
  REQUIRE(bool(a100));
  CHECK(!a100->has("tensor_cores", "wgmma"));
  auto v5e = lookupTarget("tpu_v5e");
  REQUIRE(bool(v5e));
  CHECK(v5e->kind == TargetKind::Tpu);
  CHECK(v5e->getInt("lanes") == 128);
  CHECK(v5e->getInt("sublanes") == 8);
}

TEST_CASE("unknown targets list the known ones") {
  auto t = lookupTarget("sm_100");
  REQUIRE(!t);
  std::string msg = llvm::toString(t.takeError());
  CHECK(msg.find("unknown target 'sm_100'") != std::string::npos);
  CHECK(msg.find("sm_90a") != std::string::npos);
}

TEST_CASE("malformed descriptions are rejected with the field") {
  auto bad = parseTargetDescription("name: x\nkind: cuda\ndescription: y\n", "x.yaml");
  REQUIRE(!bad);
  CHECK(llvm::toString(bad.takeError()).find("compute_capability") != std::string::npos);
  auto syntax = parseTargetDescription("name: [x\n", "y.yaml");
  REQUIRE(!syntax);
  CHECK(llvm::toString(syntax.takeError()).find("y.yaml: invalid YAML") == 0);
  auto kind = parseTargetDescription("name: x\nkind: fpga\ndescription: y\n", "z.yaml");
  REQUIRE(!kind);
  CHECK(llvm::toString(kind.takeError()).find("unknown kind 'fpga'") != std::string::npos);
}
