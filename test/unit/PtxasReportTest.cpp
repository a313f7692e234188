// Unit tests of the reading of ptxas -v's report
// (targets/cuda/Backend/PtxasReport.h).
#include "../../targets/cuda/Backend/PtxasReport.h"

#include <catch2/catch.hpp>

using mlir::pallas::cuda::parsePtxasReport;
using mlir::pallas::cuda::PtxasReport;

TEST_CASE("the entry function's registers, barriers, spills and wgmma notes") {
  std::string log =
      "ptxas info    : (C7517) warpgroup.wait is injected in around line 862 by compiler to "
      "allow use of registers defined by GMMA in function 'k'\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "    104 bytes stack frame, 104 bytes spill stores, 108 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 6 barriers, 104 bytes cumulative stack size\n"
      "ptxas info    : Compile time = 140.393 ms\n";
  PtxasReport r = parsePtxasReport(log, "k");
  CHECK(r.registers == 168);
  CHECK(r.barriers == 6);
  CHECK(r.stackFrameBytes == 104);
  CHECK(r.spillStoreBytes == 104);
  CHECK(r.spillLoadBytes == 108);
  REQUIRE(r.wgmmaNotes.size() == 1);
  CHECK(r.wgmmaNotes[0].rfind("(C7517) warpgroup.wait is injected", 0) == 0);
}

TEST_CASE("another function's properties are not the entry's") {
  std::string log = "ptxas info    : Function properties for helper\n"
                    "    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
                    "ptxas info    : Compiling entry function 'kernel' for 'sm_80'\n"
                    "ptxas info    : Function properties for kernel\n"
                    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                    "ptxas info    : Used 40 registers, 384 bytes cmem[0]\n";
  PtxasReport r = parsePtxasReport(log, "kernel");
  CHECK(r.registers == 40);
  CHECK(r.barriers == 0);
  CHECK(r.spillStoreBytes == 0);
  CHECK(r.stackFrameBytes == 0);
  CHECK(r.wgmmaNotes.empty());
  // A kernel named as a prefix of another is not that one.
  CHECK(parsePtxasReport(log, "kern").registers == 0);
}

TEST_CASE("an empty report is all zeros") {
  PtxasReport r = parsePtxasReport("", "k");
  CHECK(r.registers == 0);
  CHECK(r.spillLoadBytes == 0);
  CHECK(r.wgmmaNotes.empty());
}

TEST_CASE("setmaxnreg ignored for want of an entry register count") {
  std::string log = "ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; "
                    "unable to determine register count at entry.\n"
                    "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n";
  CHECK(mlir::pallas::cuda::setmaxnregIgnored(parsePtxasReport(log, "k")));
  CHECK(!mlir::pallas::cuda::setmaxnregIgnored(parsePtxasReport("", "k")));
}

TEST_CASE("the entry register count pinned by one CTA an SM") {
  using mlir::pallas::cuda::pinEntryRegisterCount;
  std::string ptx = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n.maxntid 384, 1, 1\n{\n\tret;\n}\n";
  std::string pinned = pinEntryRegisterCount(ptx);
  CHECK(pinned == ".visible .entry k(\n\t.param .u64 k_param_0\n)\n.maxntid 384, 1, 1\n"
                  ".minnctapersm 1\n{\n\tret;\n}\n");
  // Once only.
  CHECK(pinEntryRegisterCount(pinned) == pinned);
  // No entry bounds, nothing to pin.
  CHECK(pinEntryRegisterCount("{\n\tret;\n}") == "{\n\tret;\n}");
}
