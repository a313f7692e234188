// Unit tests of where the final wgmma wait of a K loop goes in the PTX.
#include "../../targets/cuda/Backend/WgmmaWaitPlacement.h"

#include <catch2/catch.hpp>

using mlir::pallas::cuda::placeFinalWgmmaWaits;

static const char *kLoop = "$L__BB0_1:\n"
                           "\twgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%r10, %r11}, %rd1, %rd2, p, 1, 1, 0, 1;\n"
                           "\t@%p4 bra \t$L__BB0_1;\n";
static const char *kWait = "\t// begin inline asm\n"
                           "\twgmma.wait_group.sync.aligned 0;\n"
                           "\t// end inline asm\n";

TEST_CASE("the final wgmma wait moves up to the loop's back branch") {
  std::string ptx = std::string(kLoop) + "\tor.b32 \t%r55, %r4, 4102;\n" +
                    "\tshr.u32 \t%r79, %r75, 7;\n" + kWait + "\tcvt.rn.bf16.f32 \t%rs1, %r10;\n";
  std::string want = std::string(kLoop) + kWait + "\tor.b32 \t%r55, %r4, 4102;\n" +
                     "\tshr.u32 \t%r79, %r75, 7;\n" + "\tcvt.rn.bf16.f32 \t%rs1, %r10;\n";
  CHECK(placeFinalWgmmaWaits(ptx) == want);
  // Already in place: unchanged.
  CHECK(placeFinalWgmmaWaits(want) == want);
}

TEST_CASE("the final wgmma wait does not pass what reads an accumulator") {
  // %r11 is an accumulator register: the wait stays below its reader.
  std::string ptx = std::string(kLoop) + "\tmov.b32 \t%r56, %r11;\n" + kWait;
  CHECK(placeFinalWgmmaWaits(ptx) == ptx);
  // %r110 is not %r11.
  std::string other = std::string(kLoop) + "\tmov.b32 \t%r56, %r110;\n" + kWait;
  CHECK(placeFinalWgmmaWaits(other) != other);
}

TEST_CASE("the final wgmma wait moves only to a loop's back branch") {
  // Behind a barrier or a label, it stays.
  std::string barrier = std::string(kLoop) + "\tbar.sync \t0;\n\tor.b32 \t%r55, %r4, 1;\n" + kWait;
  CHECK(placeFinalWgmmaWaits(barrier) == barrier);
  std::string label = "$L__BB0_2:\n\tor.b32 \t%r55, %r4, 1;\n" + std::string(kWait);
  CHECK(placeFinalWgmmaWaits(label) == label);
}
